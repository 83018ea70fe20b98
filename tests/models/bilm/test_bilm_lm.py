"""BiLanguageModel: the loss is the two directions' mean cross-entropies; training; save/load round trip."""


import numpy as np
import pytest

import elmo_keras
from elmo_keras._quiet import keras
from elmo_keras.models import (
    BiLanguageModel,
    BiLMConfig,
    build_bilm_lm,
    get_size,
    load_bilm,
    train_bilm,
    unigram_perplexity,
)
from elmo_keras.text import BOS_ID, EOS_ID, Vocabulary, lm_inputs_and_targets
from tests.support.backend_support import to_numpy

CORPUS = [
    "I deposited money at the bank .",
    "We sat on the river bank .",
    "The children play football in the park .",
    "The actors rehearsed the play on stage .",
    "Turn right at the corner .",
    "That answer is right .",
]


def log_softmax(x):
    x = x - x.max(-1, keepdims=True)
    return x - np.log(np.exp(x).sum(-1, keepdims=True))


def test_loss_is_forward_plus_backward_mean_cross_entropy():
    vocab = Vocabulary.from_corpus(CORPUS, lowercase=True)
    keras.utils.set_random_seed(0)
    model = build_bilm_lm(get_size("tiny"), len(vocab))
    sentences = [elmo_keras.tokenize(s) for s in CORPUS[:3]]
    inputs, targets = lm_inputs_and_targets(sentences, vocab, "word")
    assert targets[0, 0] == BOS_ID and targets[0, len(sentences[0]) + 1] == EOS_ID
    outputs = model(inputs)
    loss = float(model.compute_loss(y=targets, y_pred=outputs))
    forward = log_softmax(to_numpy(outputs["forward_logits"]).astype("float64"))
    backward = log_softmax(to_numpy(outputs["backward_logits"]).astype("float64"))
    f_terms, b_terms = [], []
    for i, sentence in enumerate(sentences):
        n = len(sentence) + 2
        f_terms += [-forward[i, t, targets[i, t + 1]] for t in range(n - 1)]
        b_terms += [-backward[i, t, targets[i, t - 1]] for t in range(1, n)]
    assert loss == pytest.approx(np.mean(f_terms) + np.mean(b_terms), rel=1e-5)
    assert float(model.forward_perplexity.result()) == pytest.approx(np.exp(np.mean(f_terms)), rel=1e-5)


def test_train_bilm_is_deterministic_and_reports_perplexity():
    runs = [train_bilm(CORPUS * 4, size="tiny", epochs=2, seed=3) for _ in range(2)]
    weights = [[keras.ops.convert_to_numpy(w) for w in m.weights] for m in runs]
    for a, b in zip(*weights):
        np.testing.assert_array_equal(a, b)
    summary = runs[0].training_summary
    assert len(summary["history"]["loss"]) == 2
    assert set(summary["train"]) == {"forward_perplexity", "backward_perplexity"}
    assert summary["num_sentences"] == 24 and summary["vocab_size"] == len(runs[0].vocabulary)


def test_progress_callbacks_are_called_every_epoch():
    seen = []
    train_bilm(CORPUS, size="tiny", epochs=3, callbacks=[lambda epoch, logs: seen.append((epoch, sorted(logs)))])
    assert [e for e, _ in seen] == [1, 2, 3]
    assert seen[0][1] == ["backward_perplexity", "forward_perplexity", "loss"]


def test_model_directory_round_trip(tmp_path):
    model = train_bilm(CORPUS, size="tiny", epochs=1)
    model.save(tmp_path / "bilm")
    assert sorted(p.name for p in (tmp_path / "bilm").iterdir()) == ["model.keras", "training.json", "vocabulary.json"]
    loaded = load_bilm(tmp_path / "bilm")
    assert loaded.vocabulary == model.vocabulary and loaded.config == model.config
    inputs, _ = lm_inputs_and_targets([elmo_keras.tokenize(s) for s in CORPUS], model.vocabulary, "word")
    for key in ("forward_logits", "backward_logits"):
        np.testing.assert_array_equal(to_numpy(loaded(inputs)[key]), to_numpy(model(inputs)[key]))


def test_keras_file_round_trip(tmp_path):
    model = train_bilm(CORPUS, size=get_size("tiny").replace(token_input="char", embedding_dim=4,
                                                                 char_filters=((1, 4), (2, 4))), epochs=1)
    model.save(tmp_path / "m.keras")
    loaded = keras.saving.load_model(tmp_path / "m.keras")
    assert isinstance(loaded, BiLanguageModel)
    inputs, _ = lm_inputs_and_targets([elmo_keras.tokenize(s) for s in CORPUS], model.vocabulary, "char")
    np.testing.assert_array_equal(to_numpy(loaded(inputs)["forward_logits"]),
                                  to_numpy(model(inputs)["forward_logits"]))


def test_load_bilm_errors_name_the_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="nowhere"):
        load_bilm(tmp_path / "nowhere")
    model = train_bilm(CORPUS, size="tiny", epochs=1)
    model.save(tmp_path / "m")
    (tmp_path / "m" / "model.keras").write_bytes(b"this is not a zip file")
    with pytest.raises(ValueError, match="model.keras is corrupted"):
        load_bilm(tmp_path / "m")
    (tmp_path / "m" / "vocabulary.json").unlink()
    with pytest.raises(FileNotFoundError, match="vocabulary.json is missing"):
        load_bilm(tmp_path / "m")


def test_bad_corpus_and_config_errors():
    with pytest.raises(ValueError, match="sentence 1 is empty"):
        train_bilm(["fine .", "   "], size="tiny", epochs=1)
    with pytest.raises(TypeError, match="single str"):
        train_bilm("just one string", size="tiny")
    with pytest.raises(ValueError, match="unknown size"):
        train_bilm(CORPUS, size="huge")
    with pytest.raises(ValueError, match="token_input must be one of"):
        BiLMConfig(token_input="bytes")


def test_unigram_perplexity_of_uniform_corpus():
    vocab = Vocabulary(["a", "b"])
    # train counts a=1, b=1, </S>=1; add-one over the 6 ids → p(a) = p(</S>) = 2/9
    value = unigram_perplexity([["a", "b"]], [["a"]], vocab)
    assert value == pytest.approx(4.5)


def test_bfloat16_training_hands_back_a_float32_model():
    """``training_precision="mixed_bfloat16"``: bfloat16 compute while training, a float32 model afterwards."""
    config = get_size("tiny").replace(training_precision="mixed_bfloat16", epochs=2)
    model = train_bilm(CORPUS * 4, size=config, seed=3)
    assert model.training_summary["training_precision"] == "mixed_bfloat16"
    assert model.dtype_policy.name == "float32" and model.bilm.forward_lstm.cells[0].compute_dtype == "float32"
    assert all(np.isfinite(keras.ops.convert_to_numpy(w)).all() for w in model.weights)
    loss = model.training_summary["history"]["loss"]
    assert loss[-1] < loss[0]  # it learned
    inputs = np.array([[BOS_ID, 5, 6, 7, EOS_ID]], "int32")
    assert all(keras.backend.standardize_dtype(a.dtype) == "float32" for a in model.bilm(inputs)["activations"])


def test_native_bfloat16_is_read_off_the_cpu_flags(tmp_path):
    from elmo_keras import _backend

    with_bf16, without = tmp_path / "with", tmp_path / "without"
    with_bf16.write_text("flags\t\t: fpu sse avx512f avx512_bf16 fma\n")
    without.write_text("flags\t\t: fpu sse avx2 fma\n")
    assert _backend.has_native_bfloat16(str(with_bf16)) is (keras.backend.backend() == "tensorflow")
    assert _backend.has_native_bfloat16(str(without)) is False
    assert _backend.has_native_bfloat16(str(tmp_path / "missing")) is False
    assert get_size("toy").training_precision == "auto" and get_size("tiny").training_precision == "float32"
    with pytest.raises(ValueError, match="training_precision must be one of"):
        get_size("tiny").replace(training_precision="float16")


def test_auto_precision_is_measured_once_and_bfloat16_must_be_faster(tmp_path, monkeypatch):
    from elmo_keras.models.bilm import precision

    monkeypatch.setenv("ELMO_KERAS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(precision, "machine_key", lambda config: f"this machine, units {config.units}")
    monkeypatch.setattr(precision, "has_native_bfloat16", lambda: True)
    timings, calls = {"float32": 0.10, "mixed_bfloat16": 0.08}, []
    monkeypatch.setattr(precision, "measure_precisions", lambda config: calls.append(config) or dict(timings))
    auto = get_size("tiny").replace(training_precision="auto")
    assert precision.resolve_training_precision(auto) == ("mixed_bfloat16", timings)  # 1.25x faster
    timings["mixed_bfloat16"] = 0.095  # measured again for other sizes: only 1.05x faster, not enough
    assert precision.resolve_training_precision(auto.replace(units=8))[0] == "float32"
    assert precision.resolve_training_precision(auto)[0] == "mixed_bfloat16" and len(calls) == 2  # cached
    assert precision.resolve_training_precision(auto.replace(training_precision="float32")) == ("float32", None)
    (tmp_path / "cache" / precision.CACHE_FILE).write_text("{not json")  # a damaged cache is measured again
    assert precision.resolve_training_precision(auto)[0] == "float32" and len(calls) == 3
    monkeypatch.setenv("ELMO_KERAS_CACHE", str(tmp_path / "cache" / precision.CACHE_FILE / "inside-a-file"))
    assert precision.resolve_training_precision(auto)[0] == "float32"  # an unwritable cache keeps nothing
    monkeypatch.setattr(precision, "has_native_bfloat16", lambda: False)
    assert precision.resolve_training_precision(auto) == ("float32", None)  # emulated bfloat16: no probe


@pytest.mark.skipif(keras.backend.backend() != "tensorflow", reason="the precision probe times TensorFlow graphs")
def test_the_precision_probe_times_both_precisions():
    from elmo_keras.models.bilm.precision import measure_precisions

    seconds = measure_precisions(get_size("tiny"), rounds=1)
    assert set(seconds) == {"float32", "mixed_bfloat16"} and all(0 < s < 60 for s in seconds.values())
