"""CRF refusals before any work (issue #25): ``top_k`` capped at the number of tag paths and bounded by
``MAX_TOP_K``; NaN / +inf emissions and non-finite variables refused where the result would look valid."""

import re

import numpy as np
import pytest

from elmo_keras.layers.crf import MAX_TOP_K, _paths_kept
from tests.support.backend_support import tensorflow_only
from tests.support.crf_reference import make_crf, numpy


def test_top_k_is_capped_at_the_number_of_tag_paths():
    """2 tags over 3 steps have 8 paths: a huge top_k returns those 8 at once (it used to allocate 3.2 GB)."""
    crf = make_crf(2, seed=1)
    emissions = np.random.default_rng(1).normal(size=(2, 3, 2)).astype("float32")
    mask = np.array([[1, 1, 1], [1, 1, 0]], bool)
    tags, scores = map(numpy, crf.viterbi_decode(emissions, mask, top_k=2 * 10**8))
    assert tags.shape == (2, 8, 3) and scores.shape == (2, 8)
    assert np.all(np.isfinite(scores[0])) and len({tuple(path) for path in tags[0]}) == 8
    assert np.all(np.isfinite(scores[1, :4])) and np.all(scores[1, 4:] == -np.inf)  # a 2-step row has 4 paths
    np.testing.assert_array_equal(scores, numpy(crf.viterbi_decode(emissions, mask, top_k=8)[1]))


@pytest.mark.parametrize("top_k", [MAX_TOP_K + 1, 2 * 10**8])
def test_top_k_beyond_the_maximum_is_refused_naming_it(top_k):
    crf = make_crf(4)
    message = f"top_k must be at most {MAX_TOP_K:,} (the longest n-best list viterbi_decode builds), received {top_k:,}"
    with pytest.raises(ValueError, match=re.escape(message)):
        crf.viterbi_decode(np.zeros((1, 30, 4), "float32"), top_k=top_k)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nan_and_plus_inf_emissions_are_refused_by_every_method(bad):
    crf = make_crf(3)
    emissions = np.zeros((2, 4, 3), "float32")
    emissions[1, 2, 0] = bad
    message = re.escape(f"CRF emissions must be finite or −inf (−inf forbids a tag), received {bad} at index [1, 2, 0]")
    for call in (lambda: crf.viterbi_decode(emissions), lambda: crf.viterbi_decode(emissions, top_k=3),
                 lambda: crf.log_partition(emissions), lambda: crf.marginals(emissions),
                 lambda: crf.log_likelihood(emissions, np.zeros((2, 4), "int32"))):
        with pytest.raises(ValueError, match=message):
            call()


@pytest.mark.parametrize("name", ["transitions", "start_transitions", "end_transitions"])
def test_non_finite_variables_are_refused(name):
    crf = make_crf(3)
    variable = getattr(crf, name)
    values = numpy(variable).copy()
    values.flat[1] = -np.inf if name == "end_transitions" else np.nan
    variable.assign(values)
    index = [int(i) for i in np.unravel_index(1, values.shape)]
    with pytest.raises(ValueError, match=re.escape(f"CRF {name} must be finite, received {values.flat[1]} at index "
                                                   f"{index}: the layer's weights are corrupted")):
        crf.viterbi_decode(np.zeros((1, 2, 3), "float32"))


def test_the_cap_needs_no_huge_power_and_leaves_an_unknown_time_axis_alone():
    assert _paths_kept(2, 3, 100) == 8 and _paths_kept(1, 10**6, 9) == 1 and _paths_kept(13, 50_000, 7) == 7
    assert _paths_kept(4, None, 5) == 5  # a traced dynamic time axis: the shape is top_k, missing paths −inf


@tensorflow_only("a tf.function with a symbolic time axis")
def test_a_traced_call_skips_the_value_checks_and_keeps_top_k():
    import tensorflow as tf  # here: the test exercises TensorFlow's tracing

    crf = make_crf(2, seed=4)
    decode = tf.function(lambda emissions: crf.viterbi_decode(emissions, top_k=5),
                         input_signature=(tf.TensorSpec((None, None, 2), tf.float32),))
    emissions = np.random.default_rng(4).normal(size=(1, 2, 2)).astype("float32")
    tags, scores = map(numpy, decode(emissions))
    eager_tags, eager_scores = map(numpy, crf.viterbi_decode(emissions, top_k=5))
    assert scores.shape == (1, 5) and eager_scores.shape == (1, 4) and scores[0, 4] == -np.inf
    np.testing.assert_allclose(scores[:, :4], eager_scores, rtol=1e-6)
    np.testing.assert_array_equal(tags[:, :4], eager_tags)
