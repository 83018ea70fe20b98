"""Sizes refused early: absurd batch sizes, non-finite hyper-parameters, models larger than memory; training
that diverges stops with an error instead of returning a NaN model."""

import math

import numpy as np
import pytest

from elmo_keras import limits
from elmo_keras._quiet import keras
from elmo_keras.limits import MAX_BATCH_SIZE, check_batch_size, largest_factor, memory_shortfall
from elmo_keras.models import BiLMConfig, build_bilm_lm, get_size, train_bilm
from elmo_keras.models.bilm import training
from elmo_keras.models.callbacks import TrainingDivergedError
from elmo_keras.models.seq2seq import Seq2SeqConfig

SMALL_CORPUS = ["a b c", "d e f"] * 10


@pytest.fixture
def no_model(monkeypatch):
    """The errors must come before a model is built: building one here fails the test."""

    def build_bilm_lm(*args, **kwargs):
        raise AssertionError("a model was built although a setting was refused")

    monkeypatch.setattr(training, "build_bilm_lm", build_bilm_lm)


def test_check_batch_size():
    assert check_batch_size(MAX_BATCH_SIZE) == MAX_BATCH_SIZE
    for bad in (0, -1, 2.0, True, None):
        with pytest.raises(ValueError, match="batch_size must be a positive int"):
            check_batch_size(bad)
    with pytest.raises(ValueError, match=r"batch_size = 1,000,000 is far more sentences per batch than is useful"):
        check_batch_size(10**6)


def test_absurd_batch_sizes_are_refused_before_training(no_model):
    """batch_size=10**6 used to pad every batch to a million rows (92 s, 23 GB); 10**9 ended in a TF error."""
    for size in (10**6, 10**9):
        with pytest.raises(ValueError, match=f"batch_size = {size:,} is far more"):
            train_bilm(SMALL_CORPUS, size="tiny", epochs=1, batch_size=size)
    with pytest.raises(ValueError, match="batch_size = 1,000,000"):
        Seq2SeqConfig(batch_size=10**6)


def test_a_batch_larger_than_the_corpus_is_capped_and_the_summary_says_so():
    model = train_bilm(SMALL_CORPUS, size="tiny", epochs=1, batch_size=5000)
    assert model.config.batch_size == len(SMALL_CORPUS) == 20
    assert model.training_summary["requested_batch_size"] == 5000
    assert model.training_summary["config"]["batch_size"] == 20
    assert "requested_batch_size" not in train_bilm(SMALL_CORPUS, size="tiny", epochs=1).training_summary


@pytest.mark.parametrize("field, value, message", [
    ("learning_rate", math.inf, r"learning_rate must be a finite number > 0, received inf"),
    ("learning_rate", math.nan, r"learning_rate must be a finite number > 0, received nan"),
    ("dropout", math.nan, r"dropout must be in \[0, 1\), received nan"),
    ("dropout", 1.0, r"dropout must be in \[0, 1\), received 1.0"),
    ("cell_clip", math.inf, r"cell_clip \(None for no clipping\) must be a finite number > 0, received inf"),
    ("proj_clip", -1.0, r"proj_clip \(None for no clipping\) must be a finite number > 0"),
    ("projection_dim", 0, r"projection_dim must be a positive int or None, received 0"),
])
def test_non_finite_and_out_of_range_settings(field, value, message):
    with pytest.raises(ValueError, match=message):
        BiLMConfig(**{field: value})


def test_non_finite_learning_rates_are_refused_before_training(no_model):
    with pytest.raises(ValueError, match="learning_rate must be a finite number > 0, received inf"):
        train_bilm(SMALL_CORPUS, size="tiny", learning_rate=math.inf)
    with pytest.raises(ValueError, match="learning_rate must be a finite number > 0, received nan"):
        Seq2SeqConfig(learning_rate=math.nan)


@pytest.mark.parametrize("preset, overrides", [
    ("toy", {}), ("toy", {"projection_dim": 128}), ("char-toy", {}), ("tiny", {"num_layers": 3}),
    ("bilm-tf", {"units": 32, "projection_dim": 16}),  # the original ELMo's CNN and options, small LSTMs
])
def test_parameter_count_is_exact(preset, overrides):
    config = get_size(preset).replace(**overrides)
    model = build_bilm_lm(config, 57)
    model.build((None, None) if config.token_input == "word" else (None, None, 50))
    assert config.parameter_count(57) == model.count_params()


def test_largest_factor_names_the_setting_that_makes_a_count_large():
    def count(a, b, c):
        return a * b * b + c

    assert largest_factor(count, {"a": 3, "b": 1000, "c": 5}) == "b"
    assert largest_factor(count, {"a": 10**9, "b": 2, "c": 5}) == "a"


def test_memory_shortfall(monkeypatch):
    monkeypatch.setattr(limits, "available_memory_bytes", lambda: 2**30)
    assert memory_shortfall(2**20, copies=4) is None
    assert memory_shortfall(2**28, copies=4) == (
        "the model would have 268,435,456 parameters, needing about 4.0 GiB of memory, but 1.0 GiB is available"
    )
    monkeypatch.setattr(limits, "available_memory_bytes", lambda: None)  # unknown: nothing is refused
    assert memory_shortfall(10**15, copies=4) is None


def test_available_memory_is_read():
    available = limits.available_memory_bytes()
    assert available is None or available > 2**20


@pytest.mark.parametrize("overrides, field", [
    ({"units": 10**9}, "units = 1,000,000,000"),
    ({"num_layers": 10**8}, "num_layers = 100,000,000"),
    ({"embedding_dim": 10**9}, "embedding_dim = 1,000,000,000"),
])
def test_a_model_too_large_for_memory_is_refused_naming_the_field(no_model, overrides, field):
    config = get_size("tiny").replace(**overrides)
    with pytest.raises(ValueError, match=f"{field} is too large for this machine: the model would have"):
        train_bilm(SMALL_CORPUS, size=config, epochs=1)


class _BreakWeightsAt(keras.callbacks.Callback):
    """Writes a NaN into the last weight (the softmax bias) before batch ``step`` of epoch 1 (a diverging step)."""

    def __init__(self, step):
        super().__init__()
        self.step = step

    def on_train_batch_begin(self, batch, logs=None):
        if batch == self.step:
            variable = self.model.trainable_variables[-1]
            values = np.array(variable.numpy())
            values.flat[0] = np.nan
            variable.assign(values)


def test_a_nan_loss_stops_training_with_a_clear_error():
    with pytest.raises(TrainingDivergedError, match=r"the loss became nan in epoch 1, batch 2; lower the learning "
                                                    r"rate \(it was 0.01\)"):
        train_bilm(SMALL_CORPUS, size="tiny", epochs=2, batch_size=4, callbacks=[_BreakWeightsAt(1)])


def test_nan_weights_after_the_last_step_are_an_error(monkeypatch):
    """The last update can break the weights after a finite loss: checked once training ends."""
    monkeypatch.setattr(training, "StopOnNonFiniteLoss", lambda learning_rate: keras.callbacks.Callback())
    with pytest.raises(TrainingDivergedError, match=r"the trained model has \d+ non-finite value\(s\) \(NaN or inf\) "
                                                    r"in '.*': training diverged"):
        train_bilm(SMALL_CORPUS, size="tiny", epochs=1, batch_size=4, callbacks=[_BreakWeightsAt(4)])


def test_a_huge_learning_rate_is_a_divergence_error():
    """lr=1e38 makes the loss NaN; lr=1e30 leaves finite weights with an infinite perplexity: both are errors."""
    for learning_rate, message in ((1e38, "the loss became nan"), (1e30, "perplexity on its own training corpus is")):
        with pytest.raises(TrainingDivergedError, match=message):
            train_bilm(SMALL_CORPUS, size="tiny", epochs=2, learning_rate=learning_rate)
