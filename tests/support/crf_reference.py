"""The CRF's NumPy reference: every tag sequence enumerated (K ≤ 4 tags, length ≤ 5), the Hypothesis cases drawn
for it, and small helpers shared by the CRF tests.

Tolerance: float32 sums of scores of size ``M`` carry rounding errors proportional to ``M``, so every
comparison with the float64 enumeration uses ``atol = 1e-5 · max(1, M)``, ``M`` the largest ``|score|`` of any
path of the batch (log-quantities, and probabilities, whose error is that of their log); −inf must match
exactly.
"""

import itertools

import numpy as np
from hypothesis import strategies as st
from keras import ops

from elmo_keras.layers import CRF

TOLERANCE = 1e-5


def numpy(x):
    return ops.convert_to_numpy(x)


def make_crf(num_tags, constraints=None, seed=0, scale=1.0, **kwargs):
    """A built CRF whose variables are normal(0, scale)."""
    crf = CRF(num_tags, constraints=constraints, **kwargs)
    crf.build((None, None, num_tags))
    rng = np.random.default_rng(seed)
    for variable in crf.weights:
        variable.assign(rng.normal(scale=scale, size=variable.shape).astype("float32"))
    return crf


def variables(crf):
    return [numpy(v).astype(np.float64) for v in (crf.transitions, crf.start_transitions, crf.end_transitions)]


def enumerate_paths(emissions, transitions, start, end, constraints):
    """Every tag sequence of one sentence `(n, K)`: paths `(K**n, n)` and scores `(K**n,)`, −inf if forbidden."""
    length, num_tags = emissions.shape
    paths = np.array(list(itertools.product(range(num_tags), repeat=length)))
    scores = (start[paths[:, 0]] + emissions[np.arange(length), paths].sum(1)
              + transitions[paths[:, :-1], paths[:, 1:]].sum(1) + end[paths[:, -1]])
    if constraints is not None:
        allowed, allowed_start, allowed_end = constraints
        valid = allowed_start[paths[:, 0]] & allowed[paths[:, :-1], paths[:, 1:]].all(1) & allowed_end[paths[:, -1]]
        scores = np.where(valid, scores, -np.inf)
    return paths, scores


def log_sum_exp(scores):
    top = scores.max()
    return top if top == -np.inf else top + np.log(np.exp(scores - top).sum())


@st.composite
def cases(draw):
    """A random batch: emissions, mask, variables (up to scale 100; integer values give ties), constraints.

    ``constraint_kind``: "none"; "feasible" (random, plus one tag allowed to start, end and follow itself, so
    every length has an allowed path); "random" (may leave no allowed path for some lengths).
    """
    num_tags, steps = draw(st.integers(1, 4)), draw(st.integers(1, 5))
    lengths = draw(st.lists(st.integers(1, steps), min_size=1, max_size=3))
    scale = draw(st.sampled_from([0.1, 1.0, 10.0, 100.0]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    emissions = rng.normal(scale=scale, size=(len(lengths), steps, num_tags))
    if draw(st.booleans()):
        emissions = np.round(emissions)  # ties between paths
    kind = draw(st.sampled_from(["none", "feasible", "random"]))
    constraints = None
    if kind != "none":
        density = draw(st.sampled_from([0.3, 0.6, 0.9]))
        constraints = [rng.random(shape) < density for shape in ((num_tags, num_tags), (num_tags,), (num_tags,))]
        if kind == "feasible":
            tag = rng.integers(num_tags)
            constraints[0][tag, tag] = constraints[1][tag] = constraints[2][tag] = True
    mask = np.arange(steps)[None, :] < np.array(lengths)[:, None]
    return (num_tags, constraints, scale), emissions.astype("float32"), mask, rng


def case_crf(case):
    """The case's CRF (built in the test: layers draw from Python's ``random`` while they build)."""
    (num_tags, constraints, scale), *_, rng = case
    return make_crf(num_tags, constraints, seed=int(rng.integers(2**31)), scale=scale)


def reference(crf, emissions, mask):
    """Per row: (paths, float64 scores) over the row's real tokens, and the tolerance for the batch."""
    transitions, start, end = variables(crf)
    rows = [enumerate_paths(e[:n].astype(np.float64), transitions, start, end, crf.constraints)
            for e, n in zip(emissions, mask.sum(1))]
    largest = max(np.abs(scores[np.isfinite(scores)]).max(initial=0.0) for _, scores in rows)
    return rows, TOLERANCE * max(1.0, largest)
