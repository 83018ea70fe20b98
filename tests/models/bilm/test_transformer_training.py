"""The transformer contextualizer trains like the LSTM: ``BiLMConfig(contextualizer="transformer")`` and the
``transformer-toy`` size, ``train_bilm`` (held-out perplexity falls, streaming + sampled softmax deterministic and
resumable), model directories, ``elmo-keras train``, and fine-tuning AllenNLP's transformer archive with its softmax."""

import json
import shutil

import numpy as np
import pytest

from elmo_keras._quiet import keras
from elmo_keras.cli import main
from elmo_keras.layers.transformer_bilm import TransformerBiLM
from elmo_keras.models.bilm.evaluation import perplexities
from elmo_keras.models.bilm.language_model import BiLanguageModel, build_bilm_lm
from elmo_keras.models.bilm.presets import PRESETS, BiLMConfig, get_preset
from elmo_keras.models.bilm.training import train_bilm
from elmo_keras.models.persistence import read_model_dir
from elmo_keras.pretrained.allennlp_config import ArchiveError
from elmo_keras.pretrained.transformer_fine_tuning import (
    archive_language_model,
    archive_vocabulary,
    fine_tune_transformer_archive,
)
from elmo_keras.text.vocabulary import Vocabulary
from tests.support.paths import SHARED_FIXTURES
from tests.support.resume_worker import CORPUS, StopAfterStep

ARCHIVE = SHARED_FIXTURES / "transformer_elmo" / "model.tar.gz"
TINY = get_preset("transformer-toy").replace(epochs=2, batch_size=4, n_negative_samples=6, dropout=0.2)
LSTM_FIELDS = ["batch_size", "cell_clip", "char_filters", "dropout", "embedding_dim", "epochs", "learning_rate",
               "lowercase", "max_sentence_tokens", "n_highway", "n_negative_samples", "num_layers", "optimizer",
               "proj_clip", "projection_dim", "token_input", "training_precision", "units", "use_skip_connections"]


class Interrupted(Exception):
    """Stands for a kill (``tests/models/bilm/test_resume_training.py`` kills a real process for the LSTM)."""


def weights_of(model) -> list[np.ndarray]:
    return [np.asarray(keras.ops.convert_to_numpy(variable)) for variable in model.variables]


def assert_same_weights(first, second) -> None:
    assert len(first) == len(second)
    for mine, theirs in zip(first, second):
        np.testing.assert_array_equal(mine, theirs)


@pytest.mark.parametrize("fields, message", [
    ({"contextualizer": "gru"}, "contextualizer must be one of ('lstm', 'transformer'), received 'gru'"),
    ({"contextualizer": "transformer", "num_heads": 4}, "hidden_dim is required with contextualizer='transformer'"),
    ({"contextualizer": "transformer", "hidden_dim": 64}, "num_heads is required with contextualizer='transformer'"),
    ({"contextualizer": "transformer", "hidden_dim": 0, "num_heads": 4}, "hidden_dim must be a positive int"),
    ({"contextualizer": "transformer", "hidden_dim": 64, "num_heads": 3, "units": 32},
     "units must be a multiple of num_heads for the transformer"),
    ({"contextualizer": "transformer", "hidden_dim": 64, "num_heads": 4, "projection_dim": 16},
     "projection_dim is for the LSTM contextualizer, received projection_dim=16"),
    ({"contextualizer": "transformer", "hidden_dim": 64, "num_heads": 4, "cell_clip": 3.0},
     "cell_clip is for the LSTM contextualizer"),
    ({"contextualizer": "transformer", "hidden_dim": 64, "num_heads": 4, "max_sentence_tokens": 5000},
     "max_sentence_tokens must be at most 4998 for the transformer"),
    ({"num_heads": 8}, "num_heads is for contextualizer='transformer', received num_heads=8 with the LSTM"),
])
def test_a_bad_contextualizer_field_is_one_line_naming_it(fields, message):
    with pytest.raises(ValueError, match="^" + message.replace("(", r"\(").replace(")", r"\)")) as error:
        BiLMConfig(**fields)
    assert "\n" not in str(error.value)


def test_lstm_configs_and_their_dicts_are_unchanged():
    for name in ("toy", "char-toy", "tiny"):
        assert sorted(PRESETS[name].to_dict()) == LSTM_FIELDS and PRESETS[name].contextualizer == "lstm"
    saved = PRESETS["tiny"].to_dict()
    assert BiLMConfig.from_dict(saved) == PRESETS["tiny"]  # a training.json saved before the choice existed
    transformer = get_preset("transformer-toy")
    assert transformer.to_dict()["contextualizer"] == "transformer"
    assert BiLMConfig.from_dict(json.loads(json.dumps(transformer.to_dict()))) == transformer


@pytest.mark.parametrize("token_input", ["word", "char"])
def test_the_parameter_count_is_the_built_models(token_input):
    config = get_preset("transformer-toy").replace(token_input=token_input, embedding_dim=8)
    model = build_bilm_lm(config, 40)
    model.build((None, None) if token_input == "word" else (None, None, 50))
    assert isinstance(model.bilm, TransformerBiLM) and model.bilm.num_heads == 4 and model.bilm.hidden_dim == 128
    assert model.count_params() == config.parameter_count(40)


@pytest.fixture(scope="module")
def trained():
    """The toy transformer trained 3 epochs on the polysemy corpus (its held-out split scored)."""
    return train_bilm(preset="transformer-toy", epochs=3, seed=0)


def test_training_lowers_heldout_perplexity_and_the_model_directory_round_trips(trained, tmp_path):
    summary = trained.training_summary
    untrained = build_bilm_lm(trained.config, len(trained.vocabulary))
    untrained.vocabulary = trained.vocabulary
    from elmo_keras.data.polysemy import polysemy_sentences
    from elmo_keras.text.sentences import as_token_lists

    heldout = as_token_lists(polysemy_sentences("heldout"))
    before = perplexities(untrained, heldout)
    for direction in ("forward_perplexity", "backward_perplexity"):  # measured: 456 / 473 untrained, 76 / 63 after
        assert summary["heldout"][direction] < 0.6 * before[direction]
        assert summary["heldout"][direction] < summary["heldout_unigram_perplexity"]
    trained.save(tmp_path / "model")
    loaded = read_model_dir(tmp_path / "model", BiLanguageModel, BiLMConfig)
    assert isinstance(loaded.bilm, TransformerBiLM) and loaded.config == trained.config
    ids = np.array([[2, 7, 9, 11, 3], [2, 5, 3, 0, 0]])
    for key in ("forward_logits", "backward_logits"):
        np.testing.assert_array_equal(keras.ops.convert_to_numpy(trained(ids)[key]),
                                      keras.ops.convert_to_numpy(loaded(ids)[key]))
    summary_file = tmp_path / "model" / "training.json"
    saved = json.loads(summary_file.read_text())
    saved["config"]["num_heads"] = 8
    summary_file.write_text(json.dumps(saved))
    with pytest.raises(ValueError, match="num_heads = 8 in training.json but 4 in model.keras"):
        read_model_dir(tmp_path / "model", BiLanguageModel, BiLMConfig)


def test_streamed_sampled_training_is_deterministic_and_resumes_after_an_interruption(tmp_path):
    shards = tmp_path / "shards"
    shards.mkdir()
    (shards / "part-0.txt").write_text("\n".join(CORPUS[:9]) + "\n", encoding="utf-8")
    (shards / "part-1.txt").write_text("\n".join(CORPUS[9:]) + "\n", encoding="utf-8")
    corpus = str(shards / "*.txt")

    def train(checkpoint_dir=None, resume=False, callbacks=None):
        return train_bilm(corpus, preset=TINY, seed=3, checkpoint_dir=checkpoint_dir, resume=resume,
                          checkpoint_every=2 if checkpoint_dir is not None else None, callbacks=callbacks)

    first = train(tmp_path / "first")
    assert isinstance(first.bilm, TransformerBiLM) and first.n_negative_samples == 6

    def interrupt():
        raise Interrupted()

    with pytest.raises(Interrupted):
        train(tmp_path / "cut", callbacks=[StopAfterStep(7, interrupt)])  # mid epoch 2
    resumed = train(tmp_path / "cut", resume=True)  # equal to the first run: both runs the same up to step 6
    assert resumed.training_summary["checkpoints"]["note"].startswith("resumed from checkpoint-000000006")
    assert_same_weights(weights_of(resumed), weights_of(first))
    assert resumed.training_summary["history"] == first.training_summary["history"]


def test_the_train_command_trains_a_transformer(tmp_path, capsys):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(CORPUS) + "\n", encoding="utf-8")
    assert main(["train", str(tmp_path / "model"), "--corpus", str(corpus), "--preset", "transformer-toy",
                 "--epochs", "1", "--negative-samples", "5", "--quiet"]) == 0
    model = read_model_dir(tmp_path / "model", BiLanguageModel, BiLMConfig)
    assert isinstance(model.bilm, TransformerBiLM) and model.config.contextualizer == "transformer"
    assert "saved" in capsys.readouterr().err


def test_the_archive_vocabulary_keeps_every_softmax_row():
    vocabulary, rows = archive_vocabulary(["@@UNKNOWN@@", "<S>", "the", "</S>", "bank"], "archive")
    assert vocabulary == Vocabulary(["the", "bank"])
    assert rows.tolist() == [0, 1, 2, 4, 3, 5]  # <pad>, <unk>, <S>, </S>, the, bank → AllenNLP's padded rows
    with pytest.raises(ArchiveError, match="does not start with @@UNKNOWN@@"):
        archive_vocabulary(["<S>", "</S>"], "archive")
    with pytest.raises(ArchiveError, match="has no </S>"):
        archive_vocabulary(["@@UNKNOWN@@", "<S>"], "archive")


@pytest.fixture
def archive(tmp_path):
    if not ARCHIVE.exists():
        pytest.skip(f"AllenNLP's transformer ELMo test archive not found at {ARCHIVE} (it lives in ../shared)")
    return ARCHIVE


def test_fine_tuning_the_archive_with_its_softmax_lowers_the_loss_and_saves(archive, tmp_path):
    from elmo_keras.pretrained.transformer_loader import transformer_elmo_from_archive

    model = archive_language_model(archive)
    softmax = transformer_elmo_from_archive(archive, include_softmax=True).softmax
    weights, biases = softmax["_softmax_loss.softmax_w.weight"], softmax["_softmax_loss.softmax_b.weight"]
    lines = (archive.parent / "vocabulary" / "tokens.txt").read_text(encoding="utf-8").splitlines()
    kernel, bias = (keras.ops.convert_to_numpy(v) for v in model.softmax.weights)
    for token in ("</S>", "sentence", "another"):  # each word scored with its own trained row
        row = lines.index(token) + 1
        np.testing.assert_array_equal(kernel[:, model.vocabulary.token_to_id(token)], weights[row])
        assert bias[model.vocabulary.token_to_id(token)] == biases[row, 0]
    corpus = ["This is the first sentence .", "This is yet another sentence .", "the first sentence is another ."]
    tuned = fine_tune_transformer_archive(archive, corpus, heldout=corpus[:2], epochs=2, batch_size=2,
                                          learning_rate=1e-2, seed=0)
    summary = tuned.training_summary
    assert summary["history"]["loss"][-1] < summary["history"]["loss"][0]
    for direction in ("forward_perplexity", "backward_perplexity"):
        assert summary["heldout"][direction] < summary["heldout_before"][direction]
    tuned.save(tmp_path / "tuned")
    loaded = read_model_dir(tmp_path / "tuned", BiLanguageModel, BiLMConfig)
    assert loaded.vocabulary == tuned.vocabulary and loaded.config == tuned.config
    assert perplexities(loaded, [s.split() for s in corpus]) == perplexities(tuned, [s.split() for s in corpus])


def test_an_archive_without_its_vocabulary_folder_is_one_error(archive, tmp_path):
    folder = tmp_path / "archive"
    folder.mkdir()
    for name in ("config.json", "weights.th"):
        shutil.copy(archive.parent / name, folder / name)
    with pytest.raises(ArchiveError, match="vocabulary/tokens.txt"):
        archive_language_model(folder)
