"""The models shipped in ``elmo_keras/data/shipped_models`` (built by ``tools/build_shipped_models.py``) load with
the current code and do what their pages show: the ``toy`` biLM is the ``toy`` preset and separates the senses of
held-out sentences, the seq2seq model paraphrases held-out sources, the taggers tag held-out sentences (TagLM's
BIOES paths always valid). Installing one into a models directory never replaces a model there."""

import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

from elmo_keras.analysis import sense_separation, word_occurrences
from elmo_keras.data import TARGET_WORDS, load_polysemy, ner_examples, pos_examples
from elmo_keras.explorer.model_store import (
    CLASSIFIERS_DIR_NAME,
    DEFAULT_MODEL_NAME,
    DIALOGUE_DIR_NAME,
    GRADIENTS_DIR_NAME,
    SEQ2SEQ_DIR_NAME,
    TAGGER_DIR_NAME,
    TAGLM_DIR_NAME,
    list_models,
    preset_of,
)
from elmo_keras.explorer.shipped_models import SHIPPED_NAMES, install_shipped_model, shipped_model
from elmo_keras.models import evaluate_seq2seq, load_bilm, load_seq2seq
from elmo_keras.tagging import evaluate_tagger, load_tagger
from tests.support.backend_support import outcome, tensorflow_only
from tests.support.paths import REPO_ROOT
from tests.support.shipped_models_worker import shipped_model_outputs

SCORED_ON_TENSORFLOW = outcome("the shipped models give the same outputs on every backend "
                               "(test_every_shipped_model_gives_the_same_numbers_on_every_backend)")
OTHER_BACKENDS = [name for name in ("jax", "torch") if importlib.util.find_spec(name) is not None]


def _shipped(name):
    directory = shipped_model(name)
    assert directory is not None, f"shipped model {name!r} is missing: run tools/build_shipped_models.py"
    return directory


@pytest.fixture(scope="module")
def toy():
    return load_bilm(_shipped(DEFAULT_MODEL_NAME))


def test_every_page_model_is_shipped():
    assert all(shipped_model(name) is not None for name in SHIPPED_NAMES)


def test_the_shipped_biLM_is_the_toy_preset_and_beats_a_unigram_model(toy):
    summary = toy.training_summary
    assert preset_of(summary["config"]) == "toy" and summary["seed"] == 0
    for direction in ("forward_perplexity", "backward_perplexity"):
        assert summary["heldout"][direction] < 0.6 * summary["heldout_unigram_perplexity"]


@pytest.mark.parametrize("word", TARGET_WORDS)
@SCORED_ON_TENSORFLOW
def test_the_shipped_biLM_separates_heldout_senses(toy, word):
    corpus = load_polysemy()
    accuracy = sense_separation(word_occurrences(toy, word, corpus[corpus.word == word]))
    assert accuracy[0] == 0.0 and accuracy[-1] >= 0.9, f"{word}: {accuracy}"


@SCORED_ON_TENSORFLOW
def test_the_shipped_seq2seq_model_paraphrases_heldout_sources():
    scores = evaluate_seq2seq(load_seq2seq(_shipped(SEQ2SEQ_DIR_NAME)), beam_size=3)
    assert scores["beam_valid"] >= 0.5 and scores["reference_token_accuracy"] >= 0.5, scores


@SCORED_ON_TENSORFLOW
def test_the_shipped_taggers_tag_heldout_sentences():
    tagger, taglm = load_tagger(_shipped(TAGGER_DIR_NAME)), load_tagger(_shipped(TAGLM_DIR_NAME))
    assert evaluate_tagger(tagger, "pos", pos_examples("heldout"))["accuracy"] >= 0.8
    ner = evaluate_tagger(taglm, "ner", ner_examples("heldout"), scheme="BIOES")
    assert ner["invalid_sentences"] == 0 and ner["span_f1"] >= 0.3, ner


def test_install_copies_a_model_once_and_never_replaces_one(tmp_path):
    models = tmp_path / "models"
    assert install_shipped_model(models, DEFAULT_MODEL_NAME)
    installed = models / DEFAULT_MODEL_NAME
    assert sorted(p.name for p in installed.iterdir()) == sorted(p.name for p in _shipped(DEFAULT_MODEL_NAME).iterdir())
    assert [info.name for info in list_models(models)] == [DEFAULT_MODEL_NAME]
    assert not [p for p in models.iterdir() if ".saving-" in p.name]  # no staging directory left behind
    vocabulary = installed / "vocabulary.json"
    vocabulary.write_text(vocabulary.read_text(encoding="utf-8") + "\n", encoding="utf-8")  # the user's copy now
    mine = vocabulary.read_bytes()
    assert not install_shipped_model(models, DEFAULT_MODEL_NAME)  # a model of that name is there: kept
    assert vocabulary.read_bytes() == mine
    assert not install_shipped_model(models, "no-such-model")
    np.testing.assert_array_equal(load_bilm(installed).get_weights()[0],
                                  load_bilm(_shipped(DEFAULT_MODEL_NAME)).get_weights()[0])


def test_the_shipped_layer_weights_report_is_found_for_the_installed_toy(tmp_path, monkeypatch):
    """The layer-weights page opens on the shipped toy biLM without training a probe: its report on the built-in
    corpus (seed 0) ships too, under the key the current code computes (rebuild it after changing the format)."""
    from elmo_keras.explorer.corpus import builtin_corpus
    from elmo_keras.explorer.layer_weights import store as layer_weights_store
    from elmo_keras.explorer.model_store import find_model, load_model

    models = tmp_path / "models"
    assert install_shipped_model(models, DEFAULT_MODEL_NAME)
    ref = find_model(models, DEFAULT_MODEL_NAME).ref
    monkeypatch.setattr(layer_weights_store, "layer_weight_report",
                        lambda *args: pytest.fail("no shipped report: run tools/build_shipped_models.py"))
    report = layer_weights_store.stored_layer_weight_report(load_model(ref), ref, builtin_corpus(), seed=0)
    assert [task.name for task in report.reports] == ["pos", "sense"] and report.findings


@SCORED_ON_TENSORFLOW
def test_the_shipped_dialogue_models_reply_to_heldout_contexts():
    """On the held-out contexts HRED's greedy reply is a plausible reply of its context (the experiment: ≥ 0.9)
    and the HRED reading only the last utterance misses the topic far more often; VHRED's z samples cover several
    of a context's replies, nearly all valid, and VHRED reconstructs held-out replies."""
    from elmo_keras.data import dialogue_examples, dialogue_references, split_turns
    from elmo_keras.models.dialogue import (
        diversity,
        encode_history,
        evaluate_dialogue_model,
        greedy_response,
        latent_responses,
        load_dialogue_model,
    )

    directory = _shipped(DIALOGUE_DIR_NAME)
    hred = load_dialogue_model(directory / "hred", kind="hred")
    last_turn = load_dialogue_model(directory / "hred-last-turn", kind="hred")
    vhred = load_dialogue_model(directory / "vhred", kind="vhred")
    references = dialogue_references("heldout")
    histories = {context: encode_history(split_turns(context), hred.vocabulary)[0] for context in references}
    valid, valid_last = ([greedy_response(model, histories[context]).text in replies
                          for context, replies in references.items()] for model in (hred, last_turn))
    assert np.mean(valid) >= 0.9 and np.mean(valid_last) <= np.mean(valid) - 0.3, (np.mean(valid), np.mean(valid_last))
    scores = [diversity([r.text for r in latent_responses(vhred, histories[context], 20, seed=0)], replies)
              for context, replies in list(references.items())[:20]]
    assert np.mean([s["coverage"] for s in scores]) >= 0.6 and np.mean([s["valid"] for s in scores]) >= 0.85
    assert evaluate_dialogue_model(vhred, dialogue_examples("heldout"))["reconstruction_per_token"] < 1.0


@SCORED_ON_TENSORFLOW
def test_the_shipped_classifiers_and_gradient_models_load_and_did_learn():
    from elmo_keras.explorer.gradients.service import final_accuracies, load_gradient_models
    from elmo_keras.models.classifiers import evaluate_classifier, load_classifier

    for kind in ("cnn", "rnn-last", "rnn-pooled"):
        accuracy = evaluate_classifier(load_classifier(_shipped(CLASSIFIERS_DIR_NAME) / kind))["accuracy"]
        assert accuracy >= 0.9, (kind, accuracy)
    accuracies = final_accuracies(load_gradient_models(_shipped(GRADIENTS_DIR_NAME).parent))
    assert accuracies["LSTM"] >= 0.9, accuracies  # the LSTM remembers the first of 50 symbols


def test_a_shipped_directory_counts_only_when_it_holds_models(tmp_path, monkeypatch):
    from elmo_keras.explorer import shipped_models

    monkeypatch.setattr(shipped_models, "shipped_models_directory", lambda: tmp_path)
    (tmp_path / "stray").mkdir()
    (tmp_path / "stray" / "notes.txt").write_text("not a model")
    (tmp_path / "half-set" / "hred").mkdir(parents=True)
    (tmp_path / "half-set" / "hred" / "model.keras").write_bytes(b"x")
    (tmp_path / "half-set" / "vhred").mkdir()
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "rnn.keras").write_bytes(b"x")
    assert shipped_models.shipped_model("stray") is None and shipped_models.shipped_model("half-set") is None
    assert shipped_models.shipped_model("files") == tmp_path / "files"
    assert shipped_models.shipped_model("absent") is None


@tensorflow_only("it compares TensorFlow's outputs with each other installed backend's, in subprocesses")
@pytest.mark.skipif(not OTHER_BACKENDS, reason="no other Keras backend (jax, torch) is installed here")
def test_every_shipped_model_gives_the_same_numbers_on_every_backend(tmp_path):
    """The held-out tests above run on TensorFlow (they are outcomes); here every shipped model gives the outputs
    they score, on a few held-out inputs (``tests/support/shipped_models_worker.py``), to 1e-4 on JAX and PyTorch
    (float32
    rounding through a dozen layers), and the same tags and replies."""
    ours = shipped_model_outputs()
    for backend in OTHER_BACKENDS:
        output = tmp_path / f"{backend}.npz"
        done = subprocess.run([sys.executable, "-m", "tests.support.shipped_models_worker", str(output)], cwd=REPO_ROOT,
                              env=dict(os.environ, KERAS_BACKEND=backend), capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, done.stderr[-3000:]
        theirs = np.load(output)
        assert sorted(theirs) == sorted(ours)
        for key, value in ours.items():
            if value.dtype.kind == "U":
                np.testing.assert_array_equal(theirs[key], value, err_msg=f"{key}: tensorflow vs {backend}")
            else:
                np.testing.assert_allclose(theirs[key], value, rtol=0, atol=1e-4,
                                           err_msg=f"{key}: tensorflow vs {backend}")


@tensorflow_only("loading and scoring the repository's treebank biLMs once; backend parity is tested on the toy models")
@pytest.mark.parametrize("name", ["treebank-lstm", "treebank-transformer"])
def test_the_treebank_biLMs_load_and_model_real_english(name):
    """The repository's treebank biLMs (not in the wheel) load with the current code, were built from a committed
    tree, and, loaded, predict the first 200 dev sentences far better than unigram counts on the same words (the full
    dev figure recorded at build time is reproduced by tools/run_real_text_experiments.py, too slow for CI)."""
    from elmo_keras.data.treebank import treebank_sentences
    from elmo_keras.models.bilm.evaluation import perplexities, unigram_perplexity
    from elmo_keras.real_text.bilms import load_treebank_bilm

    if not (REPO_ROOT / "elmo_keras" / "data" / "shipped_models" / name).is_dir():
        pytest.skip(f"{name} is not built in this checkout (tools/build_shipped_models.py --treebank-only)")
    model = load_treebank_bilm(name)
    summary = model.training_summary
    assert summary["preset"] == name and not summary["provenance"]["git_dirty"]
    assert summary["heldout"]["forward_perplexity"] < summary["heldout_unigram_perplexity"] / 1.5
    dev = treebank_sentences("dev", 200)
    measured = perplexities(model, dev)
    unigram = unigram_perplexity(treebank_sentences("train"), dev, model.vocabulary)
    for direction in ("forward_perplexity", "backward_perplexity"):
        assert measured[direction] < unigram / 1.5, (direction, measured, unigram)
