"""CRF beyond the enumeration (``test_crf_enumeration.py``): padding, masks, arguments, constraints, −inf
emissions, compiled calls, low-precision emissions, gradients, the layer contract and training with ``fit``."""

import itertools

import numpy as np
import pytest
from keras import ops

from elmo_keras._backend import compile_function
from elmo_keras._quiet import keras
from elmo_keras.layers import CRF
from elmo_keras.tagging import allowed_transitions, is_valid_sequence
from tests.support.backend_support import tensorflow_only, value_and_gradients
from tests.support.crf_reference import log_sum_exp, make_crf, numpy, reference, variables
from tests.support.layer_checks import check_layer


def test_padding_never_changes_the_unpadded_part():
    crf = make_crf(4, seed=1)
    rng = np.random.default_rng(1)
    alone = rng.normal(size=(1, 3, 4)).astype("float32")
    batch = rng.normal(scale=1e4, size=(3, 6, 4)).astype("float32")  # huge garbage at the padded steps
    batch[1, :3] = alone[0]
    mask = np.arange(6)[None] < np.array([[6], [3], [1]])
    gold = rng.integers(4, size=(3, 6))
    def everything(emissions, m, tags):
        return [crf.log_partition(emissions, m), crf.log_likelihood(emissions, tags, m),
                crf.viterbi_decode(emissions, m, top_k=3)[1], crf.marginals(emissions, m)]

    single = everything(alone, None, gold[1:2, :3])
    padded = everything(batch, mask, gold)
    for one, many in zip(single, padded):
        one, many = numpy(one)[0], numpy(many)[1]
        np.testing.assert_allclose(many[:3] if many.ndim == 2 else many, one, rtol=1e-6, atol=1e-6)
    assert np.all(np.isfinite(numpy(padded[0])))
    for numeric_mask in (mask.astype("int32"), mask.astype("float32")):  # a 0/1 mask means the same
        for got, want in zip(everything(batch, numeric_mask, gold), padded):
            np.testing.assert_array_equal(numpy(got), numpy(want))


def test_length_one_sentences():
    crf = make_crf(3, seed=2)
    emissions = np.array([[[0.5, 2.0, -1.0]]], "float32")
    _, start, end = variables(crf)
    scores = start + emissions[0, 0] + end
    tags, best = crf.viterbi_decode(emissions)
    assert numpy(tags).tolist() == [[int(np.argmax(scores))]]
    np.testing.assert_allclose(numpy(best), [scores.max()], rtol=1e-6)
    np.testing.assert_allclose(numpy(crf.log_partition(emissions)), [log_sum_exp(scores)], rtol=1e-6)


@pytest.mark.parametrize(
    "mask, message",
    [
        ([[1, 1, 0], [0, 0, 0]], "CRF mask row 1 has no real token"),
        ([[1, 0, 1], [1, 1, 1]], "CRF mask row 0 has a real token at step 2 after padding"),
    ],
)
def test_bad_masks_are_refused(mask, message):
    crf = make_crf(2)
    emissions = np.zeros((2, 3, 2), "float32")
    mask = np.array(mask, bool)
    for call in (lambda: crf.log_partition(emissions, mask), lambda: crf.viterbi_decode(emissions, mask),
                 lambda: crf.marginals(emissions, mask), lambda: crf.log_likelihood(emissions, np.zeros((2, 3)), mask)):
        with pytest.raises(ValueError, match=message):
            call()


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: CRF(0), "num_tags must be a positive int, received 0"),
        (lambda: CRF(2, constraints=(np.ones((2, 2), bool),)), "constraints must be .* received tuple of 1 items"),
        (lambda: CRF(2, constraints=(np.ones((2, 3), bool), [True] * 2, [True] * 2)),
         r"constraints allowed must be a bool array of shape \(2, 2\) \(num_tags=2\), received bool of shape \(2, 3\)"),
        (lambda: CRF(2, constraints=(np.ones((2, 2), bool), [1, 1], [True] * 2)),
         r"constraints allowed_start must be a bool array of shape \(2,\) .* received int64 of shape \(2,\)"),
        (lambda: make_crf(2).viterbi_decode(np.zeros((1, 3, 2)), top_k=0), "top_k must be a positive int, received 0"),
        (lambda: make_crf(2).log_partition(np.zeros((1, 3, 4))),
         r"expects emissions \(batch, time ≥ 1, 2\), received shape \(1, 3, 4\)"),
        (lambda: make_crf(2).log_partition(np.zeros((1, 0, 2))), r"received shape \(1, 0, 2\)"),
        (lambda: make_crf(2).log_likelihood(np.zeros((1, 2, 2)), np.array([[0, 2]])), "received tag 2 at a real step"),
        (lambda: make_crf(2).log_likelihood(np.zeros((1, 2, 2)), np.array([[0, -1]])),
         "received tag -1 at a real step"),
    ],
)
def test_invalid_arguments(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_padding_tags_are_ignored_by_the_loss():
    crf = make_crf(3, seed=3)
    emissions = np.random.default_rng(3).normal(size=(2, 4, 3)).astype("float32")
    y_true = np.array([[0, 1, 2, 1], [2, 2, -1, -1]])
    mask = y_true >= 0
    tags = np.where(mask, y_true, 0)
    expected = -numpy(crf.log_likelihood(emissions, tags, mask)).mean()
    assert float(numpy(crf.negative_log_likelihood(emissions, tags, mask))) == pytest.approx(expected)
    assert float(numpy(crf.loss(y_true.astype("float32"), emissions))) == pytest.approx(expected)


# --- constraints ------------------------------------------------------------------------------------------

BIOES_LABELS = ["O", "B-LOC", "I-LOC", "E-LOC", "S-LOC", "B-PER", "I-PER", "E-PER", "S-PER"]


def test_bioes_constrained_decoding_never_outputs_an_invalid_sequence():
    constraints = allowed_transitions("BIOES", BIOES_LABELS)
    crf = make_crf(len(BIOES_LABELS), constraints, seed=4, scale=3.0)
    rng = np.random.default_rng(4)
    emissions = rng.normal(scale=5.0, size=(16, 7, len(BIOES_LABELS))).astype("float32")
    mask = np.arange(7)[None] < rng.integers(1, 8, size=(16, 1))
    tags, scores = map(numpy, crf.viterbi_decode(emissions, mask, top_k=3))
    assert np.all(np.isfinite(scores))  # every length has at least 3 allowed paths (length 1: O, S-LOC, S-PER)
    for b, k in itertools.product(range(16), range(3)):
        assert is_valid_sequence([BIOES_LABELS[i] for i in tags[b, k][mask[b]]], "BIOES")
    marginals = numpy(crf.marginals(emissions, mask))
    first_forbidden = ~constraints[1]
    assert np.all(marginals[:, 0, first_forbidden] == 0.0)  # I-/E- never start a sentence


def test_constraints_hold_whatever_the_variables_hold():
    allowed = np.ones((3, 3), bool)
    allowed[0, 1] = False
    constraints = (allowed, np.array([True, False, True]), np.array([True, True, False]))
    rng = np.random.default_rng(5)
    emissions = rng.normal(size=(4, 5, 3)).astype("float32")
    mask = np.arange(5)[None] < np.array([[5], [4], [2], [1]])
    results = []
    for value in (100.0, -100.0):
        crf = make_crf(3, constraints, seed=5)
        for variable, index in ((crf.transitions, (0, 1)), (crf.start_transitions, 1), (crf.end_transitions, 2)):
            variable.assign(_with(numpy(variable), index, value))
        tags, _ = crf.viterbi_decode(emissions, mask, top_k=3)
        tags = numpy(tags)
        for b, k in itertools.product(range(4), range(3)):
            path = tags[b, k][mask[b]]
            assert path[0] != 1 and path[-1] != 2 and not any(a == 0 and c == 1 for a, c in itertools.pairwise(path))
        results.append((numpy(crf.log_partition(emissions, mask)), numpy(crf.marginals(emissions, mask))))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])
    assert [w.name for w in crf.trainable_weights] == ["transitions", "start_transitions", "end_transitions"]


def _with(array, index, value):
    array = array.copy()
    array[index] = value
    return array


def test_lengths_without_any_allowed_path_give_minus_inf_and_no_nan():
    # tag 0 may only start, tag 1 may only end, and 0 → 1 is the only transition: exactly one path, of length 2
    allowed = np.zeros((2, 2), bool)
    allowed[0, 1] = True
    crf = make_crf(2, (allowed, np.array([True, False]), np.array([False, True])), seed=6)
    emissions = np.random.default_rng(6).normal(size=(3, 3, 2)).astype("float32")
    mask = np.arange(3)[None] < np.array([[1], [2], [3]])
    log_z = numpy(crf.log_partition(emissions, mask))
    assert log_z[0] == -np.inf and np.isfinite(log_z[1]) and log_z[2] == -np.inf
    tags, scores = map(numpy, crf.viterbi_decode(emissions, mask, top_k=2))
    assert tags[1, 0].tolist() == [0, 1, 0] and np.isfinite(scores[1, 0])
    assert np.all(scores[[0, 2]] == -np.inf) and np.all(scores[1, 1] == -np.inf) and np.all(tags[[0, 2]] == 0)
    marginals = numpy(crf.marginals(emissions, mask))
    assert np.all(marginals[[0, 2]] == 0.0)
    np.testing.assert_allclose(marginals[1, :2], [[1.0, 0.0], [0.0, 1.0]], rtol=0, atol=1e-6)
    gold = np.array([[0, 0, 0], [0, 1, 0], [0, 1, 1]])
    log_likelihood = crf.log_likelihood(emissions, gold, mask)
    _, gradients = value_and_gradients(lambda e: ops.sum(crf.log_likelihood(e, gold, mask)), [emissions], crf.weights)
    assert numpy(log_likelihood)[1] == pytest.approx(0.0, abs=1e-6) and np.all(numpy(log_likelihood)[[0, 2]] == -np.inf)
    assert all(np.all(np.isfinite(numpy(g))) for g in gradients)


def test_minus_inf_emissions_forbid_their_tag():
    crf = make_crf(3, seed=12)
    emissions = np.random.default_rng(12).normal(size=(2, 4, 3)).astype("float32")
    emissions[0, 2, 1] = emissions[1, :, 0] = -np.inf  # row 1: tag 0 nowhere
    mask = np.arange(4)[None] < np.array([[4], [3]])
    rows, atol = reference(crf, emissions, mask)
    np.testing.assert_allclose(numpy(crf.log_partition(emissions, mask)), [log_sum_exp(s) for _, s in rows], atol=atol)
    tags, scores = map(numpy, crf.viterbi_decode(emissions, mask, top_k=4))
    assert np.all(np.isfinite(scores)) and np.all(tags[0, :, 2] != 1) and not np.any(tags[1][:, :3] == 0)
    marginals = numpy(crf.marginals(emissions, mask))
    assert marginals[0, 2, 1] == 0.0 and np.all(marginals[1, :, 0] == 0.0) and not np.any(np.isnan(marginals))
    log_likelihood = numpy(crf.log_likelihood(emissions, np.array([[0, 0, 1, 0], [1, 2, 1, 0]]), mask))
    assert log_likelihood[0] == -np.inf and np.isfinite(log_likelihood[1])


# --- precision, compilation ---------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_low_precision_emissions_give_no_nan(dtype):
    allowed = np.ones((3, 3), bool)
    allowed[:, 1] = False  # tag 1 only first: no sentence longer than 1 may use it after step 0
    crf = make_crf(3, (allowed, np.ones(3, bool), np.ones(3, bool)), seed=7, scale=3.0)
    rng = np.random.default_rng(7)
    emissions = ops.cast(rng.normal(scale=30.0, size=(3, 5, 3)), dtype)
    mask = np.arange(5)[None] < np.array([[5], [2], [1]])
    gold = np.array([[0, 1, 2, 2, 0], [1, 0, 0, 0, 0], [2, 0, 0, 0, 0]])  # row 0 forbidden: −inf, not NaN
    as_float32 = ops.cast(emissions, "float32")
    for method, args in ((crf.log_partition, ()), (crf.log_likelihood, (gold,)), (crf.marginals, ())):
        low, full = numpy(method(emissions, *args, mask)), numpy(method(as_float32, *args, mask))
        assert not np.any(np.isnan(low)) and low.dtype == np.float32
        if method == crf.log_likelihood:
            assert low[0] == -np.inf and np.all(np.isfinite(low[1:]))
        np.testing.assert_allclose(low, full, rtol=1e-6, atol=1e-6)  # the same values, computed in float32
    _, scores = crf.viterbi_decode(emissions, mask, top_k=3)
    assert not np.any(np.isnan(numpy(scores)))
    mixed = CRF(3, constraints=crf.constraints, dtype=f"mixed_{dtype}")  # float32 variables, low-precision calls
    mixed.build((None, None, 3))
    mixed.set_weights(crf.get_weights())
    assert all(w.dtype == "float32" for w in mixed.weights)
    assert keras.backend.standardize_dtype(mixed(emissions).dtype) == dtype
    np.testing.assert_array_equal(numpy(mixed.log_partition(mixed(emissions), mask)),
                                  numpy(crf.log_partition(emissions, mask)))


@tensorflow_only("a tf.function with a symbolic time axis")
def test_methods_compile_with_a_dynamic_time_axis():
    import tensorflow as tf  # here: the test exercises TensorFlow's tracing

    crf = make_crf(4, seed=8)
    spec = (tf.TensorSpec((None, None, 4), tf.float32), tf.TensorSpec((None, None), tf.bool),
            tf.TensorSpec((None, None), tf.int32))

    def everything(emissions, mask, tags):
        return (crf.log_likelihood(emissions, tags, mask), crf.log_partition(emissions, mask),
                *crf.viterbi_decode(emissions, mask, top_k=2), crf.marginals(emissions, mask))

    graph = tf.function(everything, input_signature=spec)
    xla = compile_function(everything)
    rng = np.random.default_rng(8)
    for steps in (3, 6):
        emissions = rng.normal(size=(2, steps, 4)).astype("float32")
        mask = np.arange(steps)[None] < np.array([[steps], [2]])
        tags = rng.integers(4, size=(2, steps)).astype("int32")
        eager = [numpy(x) for x in everything(emissions, mask, tags)]
        for compiled in (graph, xla):
            for got, want in zip(compiled(emissions, mask, tags), eager):
                np.testing.assert_allclose(numpy(got), want, rtol=1e-5, atol=1e-5)
    assert graph.experimental_get_tracing_count() == 1  # one trace for both lengths


@tensorflow_only("the gradient tape inside an XLA-compiled tf.function")
def test_gradients_under_xla_match_eager():
    import tensorflow as tf  # here: the test exercises TensorFlow's tape under XLA

    crf = make_crf(4, allowed_transitions("BIO", ["O", "B-X", "I-X", "B-Y"]), seed=11)
    rng = np.random.default_rng(11)
    emissions = tf.constant(rng.normal(size=(3, 5, 4)).astype("float32"))
    mask = np.arange(5)[None] < np.array([[5], [3], [1]])
    tags = np.array([[1, 2, 0, 3, 0], [0, 1, 2, 0, 0], [3, 0, 0, 0, 0]], "int32")

    def gradients(emissions):
        with tf.GradientTape() as tape:
            tape.watch(emissions)
            loss = crf.negative_log_likelihood(emissions, tags, mask)
        return tape.gradient(loss, [emissions, *crf.trainable_weights])

    eager = gradients(emissions)
    assert np.abs(numpy(eager[1])).max() > 0  # the transitions do get a gradient
    for got, want in zip(compile_function(gradients)(emissions), eager):
        np.testing.assert_allclose(numpy(got), numpy(want), rtol=1e-5, atol=1e-6)


# --- layer, training, serialization ------------------------------------------------------------------------

def test_layer_contract(tmp_path):
    emissions = np.random.default_rng(9).normal(size=(2, 4, 3)).astype("float32")
    out = check_layer(lambda: CRF(3, constraints=allowed_transitions("BIO", ["O", "B-X", "I-X"]), name="crf"),
                      emissions, tmp_path, trainable=False)
    np.testing.assert_array_equal(out, emissions)  # call returns the emissions unchanged
    crf = CRF(3)
    assert crf.compute_output_shape((None, 7, 3)) == (None, 7, 3)
    mask = np.array([[1, 1, 0, 0], [1, 1, 1, 1]], bool)
    np.testing.assert_array_equal(numpy(crf.compute_mask(emissions, mask)), mask)
    config = CRF(3, constraints=allowed_transitions("BIO", ["O", "B-X", "I-X"])).get_config()
    assert config["constraints"][1] == [True, True, False] and isinstance(config["constraints"][0][0][0], bool)
    assert CRF(3).get_config()["constraints"] is None


def toy_data(rng, count=64, steps=6, vocab=7):
    """Word 5 is tagged B (1); the word right after a B is tagged I (2) whatever it is; every other word O (0).

    A per-token classifier cannot tag the word after 5 (the same word is O elsewhere); the CRF's
    transitions can.
    """
    lengths = rng.integers(2, steps + 1, size=count)
    words = rng.integers(1, vocab - 2, size=(count, steps))  # ordinary words 1 … 4
    words[rng.random((count, steps)) < 0.3] = 5
    for t in range(1, steps):
        words[(words[:, t - 1] == 5) & (words[:, t] == 5), t] = 1  # no entity right after an entity
    real = np.arange(steps)[None] < lengths[:, None]
    tags = np.where(words == 5, 1, 0)
    tags[:, 1:][words[:, :-1] == 5] = 2
    return np.where(real, words, 0).astype("int32"), np.where(real, tags, -1).astype("int32")


@pytest.mark.slow
def test_fit_learns_a_pattern_only_the_transitions_explain(tmp_path):
    keras.utils.set_random_seed(10)
    words, tags = toy_data(np.random.default_rng(10))
    crf = CRF(3, constraints=allowed_transitions("BIO", ["O", "B-X", "I-X"]), name="crf")
    inputs = keras.Input((None,), dtype="int32")
    hidden = keras.layers.Embedding(7, 8, mask_zero=True)(inputs)  # the emissions carry the padding mask
    model = keras.Model(inputs, crf(keras.layers.Dense(3)(hidden)))
    model.compile(optimizer=keras.optimizers.Adam(0.05), loss=crf.loss)
    history = model.fit(words, tags, batch_size=16, epochs=30, verbose=0).history["loss"]
    assert history[-1] < 0.1 * history[0]
    emissions, mask = model.predict(words, verbose=0), tags >= 0
    decoded, _ = crf.viterbi_decode(emissions, mask)
    np.testing.assert_array_equal(numpy(decoded), np.where(mask, tags, 0))
    # the mean negative log-likelihood is the loss Keras reports (mask spread over the scalar)
    assert float(model.evaluate(words, tags, verbose=0)) == pytest.approx(
        float(numpy(crf.negative_log_likelihood(emissions, np.where(mask, tags, 0), mask))), rel=1e-4)

    path = tmp_path / "tagger.keras"
    model.save(path)
    restored = keras.saving.load_model(path, compile=False)
    restored_crf = restored.get_layer("crf")
    np.testing.assert_array_equal(numpy(restored_crf.transitions), numpy(crf.transitions))
    np.testing.assert_array_equal(restored_crf.constraints[0], crf.constraints[0])
    np.testing.assert_allclose(restored.predict(words, verbose=0), emissions, rtol=0, atol=1e-6)
    np.testing.assert_array_equal(numpy(restored_crf.viterbi_decode(emissions, mask)[0]), numpy(decoded))
    with pytest.raises(TypeError):  # a bound-method loss does not come back: see CRF.loss
        keras.saving.load_model(path)
    restored.compile(optimizer=keras.optimizers.Adam(0.05), loss=restored_crf.loss)
    assert restored.evaluate(words, tags, verbose=0) == pytest.approx(model.evaluate(words, tags, verbose=0), rel=1e-5)
