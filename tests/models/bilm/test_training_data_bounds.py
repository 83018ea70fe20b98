"""Bounds on what one batch of biLM training costs, and on what a vocabulary must cover (issue #25, items 1 and 5).

- A sentence over ``max_sentence_tokens`` becomes consecutive pieces (one rule, ``sentence_windows``) in memory,
  streamed, held out and fine-tuned, with one warning saying how many: a batch is at most
  ``batch_size × padded_time(max_sentence_tokens + 2)`` steps whatever one line holds.
- A vocabulary covering none of the corpus is refused, one leaving over ``UNKNOWN_RATE_WARNING`` of its tokens
  unknown is warned about, naming the rate and the vocabulary's file.
- A ``.gz`` corpus file that is empty (0 bytes) is an error naming it, as any other file that is not gzip.
"""

from __future__ import annotations

import gzip
import warnings

import pytest

from elmo_keras._backend import padded_time
from elmo_keras.cli import main
from elmo_keras.data.corpus_files import CorpusFileError
from elmo_keras.data.streaming import StreamingCorpus
from elmo_keras.explorer.model_store import preset_of
from elmo_keras.models.bilm.presets import BiLMConfig, get_size
from elmo_keras.models.bilm.training_data import TrainingDataWarning, prepare_training_data
from elmo_keras.text.sentences import sentence_windows, split_long_sentences
from elmo_keras.text.vocabulary import Vocabulary
from elmo_keras.text.vocabulary_files import read_bilm_vocabulary, write_bilm_vocabulary

LONG = [f"w{i % 37}" for i in range(1_000)]  # one "line" of 1,000 tokens from a 37-word vocabulary
SHORT = [["the", "bank", "is", "closed"], ["w1", "w2", "."], ["we", "sat", "by", "the", "river", "bank"]] * 5
BOUND = 30


def write_corpus(path, sentences):
    path.write_text("".join(" ".join(tokens) + "\n" for tokens in sentences), encoding="utf-8")
    return path


def test_sentence_windows_are_the_fewest_consecutive_near_equal_pieces():
    assert sentence_windows(["a", "b"], 2) == [["a", "b"]]
    pieces = sentence_windows(LONG, BOUND)
    assert len(pieces) == 34 and [token for piece in pieces for token in piece] == LONG
    assert {len(piece) for piece in pieces} == {29, 30}  # 1,000 = 14 × 30 + 20 × 29: no stray short piece
    sentences, report = split_long_sentences([SHORT[0], LONG, SHORT[1]], BOUND)
    assert sentences[0] == SHORT[0] and sentences[-1] == SHORT[1] and len(sentences) == 36
    assert (report.sentences, report.pieces, report.longest) == (1, 34, 1_000)


@pytest.mark.parametrize("streamed", [False, True])
def test_a_long_line_is_split_in_memory_and_streamed_alike_and_bounds_every_batch(tmp_path, streamed):
    corpus = [*SHORT[:7], LONG, *SHORT[7:]]
    config = get_size("tiny").replace(max_sentence_tokens=BOUND, batch_size=4)
    source = write_corpus(tmp_path / "corpus.txt", corpus) if streamed else corpus
    with pytest.warns(TrainingDataWarning, match=r"^corpus: 1 sentence over max_sentence_tokens = 30 tokens \(the "
                                                 r"longest: 1,000\) was split into 34 training sentences .*"
                                                 r"raise max_sentence_tokens \(train: --max-sentence-tokens\)"):
        data, vocabulary, _ = prepare_training_data(source, config, seed=0)
    assert data.num_sentences == len(SHORT) + 34 and data.split.sentences == 1 and data.num_tokens == 1_000 + sum(
        map(len, SHORT))
    if streamed:
        batches = [batch for epoch in range(2) for batch in data.corpus.epoch_sentence_batches(4, 0, epoch)]
        assert max(len(s) for s in data.summary_sentences) <= BOUND  # the summary scores pieces too
    else:
        plan = data.plan
        batches = [[plan.sentences[i] for i in batch] for epoch in range(2) for batch in plan.epoch_batches(epoch)]
    expected = sorted(map(tuple, split_long_sentences(corpus, BOUND)[0]))
    assert sorted(tuple(s) for batch in batches[: data.steps_per_epoch] for s in batch) == expected
    assert max(len(s) for batch in batches for s in batch) <= BOUND
    inputs, targets = next(iter(data.batches(1)))
    assert tuple(inputs.shape)[0] == 4 and tuple(targets.shape)[1] <= padded_time(BOUND + 2)


def test_the_bound_is_a_checked_config_field_and_train_flag(tmp_path, capsys):
    assert get_size("tiny").max_sentence_tokens == get_size("bilm-tf").max_sentence_tokens == 200
    with pytest.raises(ValueError, match="max_sentence_tokens must be a positive int, received 0"):
        get_size("tiny").replace(max_sentence_tokens=0)
    saved_before = {k: v for k, v in get_size("tiny").to_dict().items() if k != "max_sentence_tokens"}
    assert BiLMConfig.from_dict(saved_before).max_sentence_tokens == 200  # a training.json written before the field
    assert preset_of(get_size("tiny").replace(max_sentence_tokens=BOUND).to_dict()) == "tiny"  # a training field
    with pytest.raises(SystemExit):
        main(["train", str(tmp_path / "m"), "--max-sentence-tokens", "0"])
    assert "--max-sentence-tokens must be >= 1, received 0" in capsys.readouterr().err


def test_train_bilm_splits_corpus_and_heldout_and_records_the_bound(monkeypatch):
    from elmo_keras.models.bilm import training

    monkeypatch.setattr(training, "fit_from_step", lambda *args, **kwargs: None)  # all but the optimizer steps
    with pytest.warns(TrainingDataWarning) as caught:
        model = training.train_bilm([*SHORT, LONG], size="tiny", heldout=[LONG[:100]], max_sentence_tokens=BOUND)
    assert [str(w.message).split(":")[0] for w in caught if w.category is TrainingDataWarning] == ["corpus", "heldout"]
    summary = model.training_summary
    assert model.config.max_sentence_tokens == BOUND and summary["config"]["max_sentence_tokens"] == BOUND
    assert summary["split_sentences"] == 1 and summary["num_sentences"] == len(SHORT) + 34


@pytest.mark.parametrize("streamed", [False, True])
def test_a_vocabulary_covering_too_little_of_the_corpus_is_warned_about_or_refused(tmp_path, streamed):
    corpus = [["THE", "bank"], ["the", "river"], ["a", "bank"], ["a", "boat"]]  # 8 tokens
    source = write_corpus(tmp_path / "corpus.txt", corpus) if streamed else corpus
    config = get_size("tiny")
    write_bilm_vocabulary(Vocabulary(["zebra", "yak"], lowercase=True), tmp_path / "vocab.txt")
    none = read_bilm_vocabulary(tmp_path / "vocab.txt", lowercase=True)
    with pytest.raises(ValueError, match=r"none of the corpus's 8 tokens is in the vocabulary .*vocab\.txt \(6 "
                                         r"entries, lowercase=True\): the model could learn only to predict <unk>"):
        prepare_training_data(source, config, seed=0, vocabulary=none)
    half = Vocabulary(["the", "bank"], lowercase=True)  # "THE" is known to a lowercase vocabulary
    with pytest.warns(TrainingDataWarning, match=r"^50\.0% of the corpus's 8 tokens are not in the vocabulary "
                                                 r"\(6 entries, lowercase=True\) and train as <unk> \(warned above "
                                                 r"10%\)"):
        prepare_training_data(source, config, seed=0, vocabulary=half)
    with pytest.raises(ValueError, match=r"none .* built with min_count=9, max_size=None: .*lower min_count"):
        prepare_training_data(source, config, seed=0, min_count=9)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a vocabulary built from the corpus: no warning
        prepare_training_data(source, config, seed=0)


def test_train_prints_one_warning_line_and_refuses_a_vocab_file_covering_none_of_the_corpus(tmp_path, capsys):
    corpus = write_corpus(tmp_path / "corpus.txt", [*SHORT, LONG[:100]])
    (tmp_path / "vocab.txt").write_text("<S>\n</S>\n<UNK>\nzebra\n", encoding="utf-8")
    assert main(["train", str(tmp_path / "model"), "--corpus", str(corpus), "--vocab", str(tmp_path / "vocab.txt"),
                 "--size", "tiny", "--max-sentence-tokens", str(BOUND)]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("warning: corpus: 1 sentence over max_sentence_tokens = 30 tokens (the longest: 100)")
    assert lines[1].startswith(f"error: none of the corpus's 165 tokens is in the vocabulary {tmp_path / 'vocab.txt'}")
    assert len(lines) == 2 and not (tmp_path / "model").exists()


@pytest.mark.parametrize("content", [b"", gzip.compress(b"a b\n")[:10], b"plain text\n"],
                         ids=["empty", "truncated", "not-gzip"])
def test_a_gz_file_that_is_not_complete_gzip_is_an_error_naming_it(tmp_path, content):
    path = tmp_path / "shard.txt.gz"
    path.write_bytes(content)
    with pytest.raises(CorpusFileError, match=r"shard\.txt\.gz: not a complete gzip file .*gzip -t"):
        StreamingCorpus(str(path)).scan()
    empty = tmp_path / "empty.gz"
    empty.write_bytes(b"")
    (tmp_path / "fine.txt").write_text("a b\n", encoding="utf-8")
    with pytest.raises(CorpusFileError, match=r"empty\.gz: .*the file is empty \(0 bytes\)"):
        StreamingCorpus(str(tmp_path / "*")).scan()  # among good files too


@pytest.mark.fixtures
def test_fine_tuning_splits_long_sentences_and_checks_the_vocabulary(shared_fixtures, monkeypatch):
    from elmo_keras.pretrained import fine_tuning

    files = shared_fixtures / "elmo_bilm_tf" / "options.json", shared_fixtures / "elmo_bilm_tf" / "lm_weights.hdf5"
    with pytest.raises(ValueError, match="none of the corpus's 65 tokens is in the vocabulary"):
        fine_tuning.fine_tune_pretrained(*files, SHORT, vocabulary=Vocabulary(["zebra"]))
    trained = []
    monkeypatch.setattr(fine_tuning, "fit_epochs", lambda model, epochs, batches, **_: trained.append(batches) or {})
    with pytest.warns(TrainingDataWarning, match=r"corpus: 1 sentence over max_sentence_tokens = 30"):
        model = fine_tuning.fine_tune_pretrained(*files, [*SHORT, LONG[:100]], epochs=0,
                                                 softmax_epochs=1, max_sentence_tokens=BOUND)
    assert max(len(sentence) for sentence in trained[0].sentences) <= BOUND
    assert model.config.max_sentence_tokens == BOUND and model.training_summary["split_sentences"] == 1
