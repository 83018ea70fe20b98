"""Linear-chain conditional random field: ``p(y | x) = exp(score(y)) / Z`` over tag sequences, in ``keras.ops``.

For emissions ``E`` `(time, num_tags)` of one sentence of ``n`` real tokens and a tag sequence ``y``::

    score(y) = start[y_0] + Σ_{t<n} E[t, y_t] + Σ_{1≤t<n} transitions[y_{t−1}, y_t] + end[y_{n−1}]
    log Z    = logsumexp over all y of score(y)          (forward algorithm, O(n·K²))
    log p(y) = score(y) − log Z

Decoding finds the best (or ``top_k`` best) ``y`` by Viterbi; ``marginals`` gives ``p(y_t = j)`` by
forward-backward. The recursions live in ``crf_math.py``; this module holds the layer, its variables, the
constraints and the input checks.

Constraints ``(allowed, allowed_start, allowed_end)`` forbid transitions, first tags and last tags: a
forbidden step scores −1e30 whatever its variable holds, so it has probability exactly 0 — it is left out of
``log Z`` (in training too) and never decoded. Consequences, all without NaN:

- a gold sequence that breaks the constraints has ``log_likelihood = −inf`` (and the loss is +inf);
- a length for which no allowed sequence exists has ``log_partition = −inf``, ``log_likelihood = −inf`` for
  every gold sequence, Viterbi scores −inf with tags 0, and marginals 0 in that row;
- an emission of −inf forbids that tag at that step in the same way.

Refused eagerly (a ``ValueError`` naming the argument, where the result would otherwise look valid but be
garbage): emissions holding NaN or +inf, and NaN/inf in the layer's variables. ``viterbi_decode`` returns at
most ``num_tags ** time`` paths (every tag sequence there is) and refuses more than ``MAX_TOP_K``.
"""

from __future__ import annotations

import math

import numpy as np

from elmo_keras._backend import is_eager
from elmo_keras._quiet import keras, ops
from elmo_keras.argument_checks import check_int
from elmo_keras.layers.crf_math import (
    IMPOSSIBLE,
    IMPOSSIBLE_BELOW,
    constrained_scores,
    impossible_to_neg_inf,
    log_partition,
    marginals,
    sequence_score,
    viterbi,
)
from elmo_keras.layers.input_checks import first_token_after_padding

INITIAL_SCORE_RANGE = 0.1  # variables start uniform in ±0.1 (as pytorch-crf)
PAD_TAG = -1  # padding in the ``y_true`` of ``CRF.loss``
CONSTRAINT_NAMES = ("allowed", "allowed_start", "allowed_end")
# the longest n-best list viterbi_decode builds: its work and memory grow with batch × num_tags² × top_k per step
MAX_TOP_K = 1_000


@keras.saving.register_keras_serializable(package="elmo_keras")
class CRF(keras.layers.Layer):
    """Linear-chain CRF over ``num_tags`` tags on top of per-token emission scores.

    ``call`` returns the emissions unchanged (and passes their mask on), so a model can output them and a loss
    or decoder can use them: ``log_likelihood``, ``negative_log_likelihood``, ``loss`` (for ``compile``),
    ``log_partition``, ``viterbi_decode`` and ``marginals`` take emissions `(batch, time, num_tags)` of any
    float dtype and compute in float32.

    Masks are `(batch, time)`, bool or 0/1, right-padded (real tokens first), every row at least one token
    long; ``None`` means no padding. A row without tokens or a real token after padding is a ``ValueError``
    when the mask holds values (eager calls); inside a traced function the mask is trusted.

    Args:
        num_tags: int, the number of tags ``K``.
        constraints: None, or ``(allowed, allowed_start, allowed_end)``: bool arrays `(K, K)` indexed
            ``[from, to]``, `(K,)` and `(K,)`; ``False`` forbids that transition / first tag / last tag (see the
            module docstring). Fixed: not a variable. ``elmo_keras.tagging.allowed_transitions`` builds them
            for BIO/BIOES labels. Defaults to None (everything allowed).
        **kwargs: passed to ``keras.layers.Layer`` (``name``, ``dtype``, …).

    Variables: ``transitions`` `(K, K)` ``[from, to]``, ``start_transitions`` `(K,)`, ``end_transitions`` `(K,)`.

    Call arguments:
        emissions: `(batch, time, num_tags)`.
        mask: `(batch, time)` or None.

    Returns:
        ``emissions`` unchanged, `(batch, time, num_tags)`, with the mask passed on.

    Training with ``fit``: a model that outputs this layer's emissions, compiled with ``loss=crf.loss``, and
    ``y_true`` the tag ids `(batch, time)` padded with −1 (see ``loss``, also for saving and loading).

    Example:
        >>> crf = CRF(3)
        >>> emissions = keras.random.normal((2, 5, 3))
        >>> mask = np.array([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]], bool)
        >>> tags, scores = crf.viterbi_decode(emissions, mask)
        >>> tuple(tags.shape), tuple(crf.log_likelihood(emissions, tags, mask).shape)
        ((2, 5), (2,))

    Reference:
        Lafferty, McCallum, Pereira, "Conditional Random Fields: Probabilistic Models for Segmenting and
        Labeling Sequence Data", ICML 2001; Lample et al., "Neural Architectures for Named Entity
        Recognition", NAACL 2016.
    """

    def __init__(self, num_tags, constraints=None, **kwargs):
        super().__init__(**kwargs)
        self.num_tags = check_int(num_tags, "num_tags")
        self.constraints = _checked_constraints(constraints, self.num_tags)
        self.supports_masking = True

    def build(self, input_shape):
        if input_shape[-1] is not None and input_shape[-1] != self.num_tags:
            raise ValueError(
                f"CRF(num_tags={self.num_tags}) expects emissions (batch, time, {self.num_tags}), "
                f"received shape {tuple(input_shape)}"
            )
        initializer = keras.initializers.RandomUniform(-INITIAL_SCORE_RANGE, INITIAL_SCORE_RANGE)
        k = self.num_tags
        self.transitions = self.add_weight(shape=(k, k), initializer=initializer, name="transitions")
        self.start_transitions = self.add_weight(shape=(k,), initializer=initializer, name="start_transitions")
        self.end_transitions = self.add_weight(shape=(k,), initializer=initializer, name="end_transitions")

    def call(self, emissions, mask=None):
        return emissions

    def compute_mask(self, inputs, mask=None):
        return mask

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    # --- scores -------------------------------------------------------------------------------------------

    def log_likelihood(self, emissions, tags, mask=None):
        """``log p(tags | emissions) = score(tags) − log Z``: `(batch,)` float32, −inf for a ``tags`` row the
        constraints forbid.

        Args:
            emissions: `(batch, time, num_tags)`.
            tags: `(batch, time)` int tag ids in ``[0, num_tags)`` (any value at padded steps).
            mask: `(batch, time)` or None.
        """
        emissions, mask = self._checked(emissions, mask)
        tags = self._checked_tags(tags, mask)
        transitions, start, end = self._scores()
        gold = sequence_score(emissions, tags, mask, transitions, start, end)
        log_z = log_partition(*_time_major(emissions, mask), transitions, start, end)
        allowed = gold > IMPOSSIBLE_BELOW  # the gold sequence takes no forbidden step (then log Z is real)
        return ops.where(allowed, gold - log_z, float("-inf"))

    def negative_log_likelihood(self, emissions, tags, mask=None):
        """``−mean(log_likelihood(emissions, tags, mask))`` over the batch: a scalar float32.

        Args:
            emissions: `(batch, time, num_tags)`.
            tags: `(batch, time)` int tag ids in ``[0, num_tags)`` (any value at padded steps).
            mask: `(batch, time)` or None.
        """
        return -ops.mean(self.log_likelihood(emissions, tags, mask))

    def loss(self, y_true, y_pred):
        """The loss for ``model.compile(loss=crf.loss)``: the batch's mean negative log-likelihood, a scalar.

        Args:
            y_true: `(batch, time)` tag ids, padding marked with ``PAD_TAG`` (−1): the mask is ``y_true >= 0``.
            y_pred: the emissions `(batch, time, num_tags)` the model outputs (this layer's output).

        Keras spreads a scalar loss evenly over any mask ``y_pred`` carries, so the value stays the mean over
        sentences. Per-sentence ``sample_weight`` cannot weigh sentences here (it would weigh the scalar):
        weigh ``-log_likelihood(...)`` yourself in a custom loss if you need that.

        A bound method, not a ``keras.losses.Loss``: the loss needs this layer's variables, which a loss
        object cannot carry through serialization. A model compiled with it saves (``.keras``), but Keras
        cannot rebuild the method when loading, so load with ``compile=False`` and compile again::

            model.compile(optimizer="adam", loss=crf.loss)
            model.fit(word_ids, tags)                                  # tags (batch, time), padding −1
            model.save("tagger.keras")
            restored = keras.saving.load_model("tagger.keras", compile=False)
            restored.compile(optimizer="adam", loss=restored.get_layer(crf.name).loss)
        """
        tags = ops.cast(y_true, "int32")
        mask = ops.greater(tags, PAD_TAG)
        return self.negative_log_likelihood(y_pred, ops.where(mask, tags, 0), mask)

    def log_partition(self, emissions, mask=None):
        """``log Z`` `(batch,)` float32; −inf for a row with no allowed tag sequence of its length.

        Args:
            emissions: `(batch, time, num_tags)`.
            mask: `(batch, time)` or None.
        """
        emissions, mask = self._checked(emissions, mask)
        log_z = log_partition(*_time_major(emissions, mask), *self._scores())
        return impossible_to_neg_inf(log_z)

    # --- decoding ---------------------------------------------------------------------------------------

    def viterbi_decode(self, emissions, mask=None, top_k=1):
        """The highest-scoring tag sequences and their (unnormalised) ``score``.

        Args:
            emissions: `(batch, time, num_tags)`.
            mask: `(batch, time)` or None.
            top_k: int in ``[1, MAX_TOP_K]``, how many paths to return per row; capped at ``num_tags ** time``,
                the number of tag sequences of the time axis's length (a larger value costs nothing more).
                Defaults to 1.

        Returns:
            ``(tags, scores)``. ``top_k == 1``: tags `(batch, time)` int32, scores `(batch,)` float32.
            Otherwise tags `(batch, k, time)` and scores `(batch, k)`, ``k = min(top_k, num_tags ** time)``,
            best first; where a row has fewer than ``k`` allowed paths (a shorter row, constraints) the missing
            ones score −inf and hold tags 0. Padded steps hold 0. Among paths of equal score the order is
            unspecified.

        Raises:
            ValueError: ``top_k`` is not a positive int, or (after the cap) above ``MAX_TOP_K``, checked before
                any decoding; and, as for every method, a bad shape or mask, or NaN/+inf emissions.
        """
        top_k = check_int(top_k, "top_k")
        emissions = ops.convert_to_tensor(emissions)
        self._check_shape(emissions)
        paths = _paths_kept(self.num_tags, emissions.shape[1], top_k)
        if paths > MAX_TOP_K:
            raise ValueError(
                f"top_k must be at most {MAX_TOP_K:,} (the longest n-best list viterbi_decode builds), received "
                f"{top_k:,}; ask for fewer paths"
            )
        emissions, mask = self._checked(emissions, mask)
        tags, scores = viterbi(*_time_major(emissions, mask), *self._scores(), paths)
        return (tags[:, 0], scores[:, 0]) if top_k == 1 else (tags, scores)

    def marginals(self, emissions, mask=None):
        """``p(y_t = j | emissions)`` `(batch, time, num_tags)` float32 by forward-backward.

        Rows sum to 1 at real steps; padded steps hold 0, and so does a row with no allowed tag sequence.

        Args:
            emissions: `(batch, time, num_tags)`.
            mask: `(batch, time)` or None.
        """
        emissions, mask = self._checked(emissions, mask)
        probabilities = marginals(*_time_major(emissions, mask), *self._scores())
        return ops.transpose(probabilities, (1, 0, 2))

    # --- helpers ----------------------------------------------------------------------------------------

    def _scores(self):
        """``(transitions, start, end)`` float32, forbidden entries set to ``crf_math.IMPOSSIBLE``."""
        return constrained_scores(
            self.transitions, self.start_transitions, self.end_transitions, self.constraints
        )

    def _check_shape(self, emissions):
        """A ``ValueError`` unless ``emissions`` is `(batch, time ≥ 1, num_tags)`."""
        shape = tuple(emissions.shape)
        if len(shape) != 3 or shape[-1] not in (None, self.num_tags) or shape[1] == 0:
            raise ValueError(
                f"CRF(num_tags={self.num_tags}) expects emissions (batch, time ≥ 1, {self.num_tags}), "
                f"received shape {shape}"
            )

    def _checked(self, emissions, mask):
        """Emissions as float32 `(B, T, K)` (−inf raised to ``IMPOSSIBLE``) and the mask as bool `(B, T)`.

        Eagerly, NaN or +inf emissions and NaN/inf variables are a ``ValueError``: the recursions would read a
        NaN as a forbidden step and return valid-looking tags and scores.
        """
        emissions = ops.convert_to_tensor(emissions)
        self._check_shape(emissions)
        if not self.built:
            self.build(tuple(emissions.shape))
        emissions = ops.cast(emissions, "float32")
        if is_eager(emissions):
            _check_finite(emissions, "emissions", True, "finite or −inf (−inf forbids a tag)",
                          "the model computing them has NaN/inf weights or inputs")
            for variable in (self.transitions, self.start_transitions, self.end_transitions):
                _check_finite(ops.convert_to_tensor(variable), variable.name, False, "finite",
                              "the layer's weights are corrupted: retrain it or load weights that are finite")
        emissions = ops.maximum(emissions, IMPOSSIBLE)
        if mask is None:
            return emissions, ops.ones(ops.shape(emissions)[:2], dtype="bool")
        mask = ops.convert_to_tensor(mask)
        if len(mask.shape) != 2:
            raise ValueError(f"CRF expects a mask (batch, time), received shape {tuple(mask.shape)}")
        mask = ops.cast(mask, "bool")
        _check_mask_values(mask)
        return emissions, mask

    def _checked_tags(self, tags, mask):
        """``tags`` as int32 `(B, T)`; eagerly, a ``ValueError`` for a real step's tag outside ``[0, K)``."""
        tags = ops.convert_to_tensor(tags)
        if len(tags.shape) != 2:
            raise ValueError(f"CRF expects tags (batch, time), received shape {tuple(tags.shape)}")
        if is_eager(tags) and is_eager(mask):
            values = ops.convert_to_numpy(tags)[ops.convert_to_numpy(mask)]
            bad = values[(values < 0) | (values >= self.num_tags) | (values != np.round(values))]
            if bad.size:
                raise ValueError(
                    f"CRF(num_tags={self.num_tags}) received tag {bad[0].item()} at a real step: tags must be "
                    f"whole numbers in [0, {self.num_tags})"
                )
        return ops.cast(tags, "int32")

    def get_config(self):
        config = super().get_config()
        constraints = None if self.constraints is None else [c.tolist() for c in self.constraints]
        config.update({"num_tags": self.num_tags, "constraints": constraints})
        return config


def _paths_kept(num_tags: int, time, top_k: int) -> int:
    """``min(top_k, num_tags ** time)``: no more paths than tag sequences of ``time`` steps (``top_k`` where
    ``time`` is unknown, a traced dynamic axis)."""
    if time is None or (num_tags > 1 and time * math.log2(num_tags) >= 63):  # num_tags ** time > any top_k
        return top_k
    return min(top_k, num_tags ** int(time))


def _check_finite(values, name: str, allow_negative_infinity: bool, expected: str, cause: str) -> None:
    """A ``ValueError`` naming ``name``, the first bad value and its index, where ``values`` holds NaN, +inf or
    (unless ``allow_negative_infinity``) −inf."""
    bad = ops.logical_not(ops.isfinite(values))
    if allow_negative_infinity:
        bad = ops.logical_and(bad, ops.not_equal(values, float("-inf")))
    if not bool(ops.convert_to_numpy(ops.any(bad))):
        return
    index = tuple(int(i) for i in np.argwhere(ops.convert_to_numpy(bad))[0])
    value = ops.convert_to_numpy(values)[index]
    raise ValueError(f"CRF {name} must be {expected}, received {value} at index {list(index)}: {cause}")


def _time_major(emissions, mask):
    """`(B, T, K)`, `(B, T)` → `(T, B, K)`, `(T, B)`."""
    return ops.transpose(emissions, (1, 0, 2)), ops.transpose(mask)


def _checked_constraints(constraints, num_tags):
    """``(allowed, allowed_start, allowed_end)`` as NumPy bool arrays of the right shapes, or None."""
    if constraints is None:
        return None
    if not isinstance(constraints, (list, tuple)) or len(constraints) != len(CONSTRAINT_NAMES):
        raise ValueError(
            f"constraints must be (allowed, allowed_start, allowed_end) or None, received {type(constraints).__name__}"
            + (f" of {len(constraints)} items" if isinstance(constraints, (list, tuple)) else "")
        )
    checked = []
    for name, value, shape in zip(CONSTRAINT_NAMES, constraints, ((num_tags, num_tags), (num_tags,), (num_tags,))):
        array = np.asarray(value)
        if array.dtype != bool or array.shape != shape:
            raise ValueError(
                f"constraints {name} must be a bool array of shape {shape} (num_tags={num_tags}), "
                f"received {array.dtype} of shape {array.shape}"
            )
        checked.append(array)
    return tuple(checked)


def _check_mask_values(mask):
    """Eagerly, a ``ValueError`` for a mask row with no real token or with a real token after padding.

    The second check is ``input_checks.first_token_after_padding``, as for the LSTMs; a CRF's padding comes from
    tags, not ids, so the message here speaks of the mask.
    """
    if not is_eager(mask):
        return
    values = ops.convert_to_numpy(mask)
    empty = np.flatnonzero(~values.any(axis=1))
    if empty.size:
        raise ValueError(f"CRF mask row {empty[0]} has no real token: every sentence needs at least one")
    found = first_token_after_padding(values)
    if found is not None:
        row, step = found
        raise ValueError(
            f"CRF mask row {row} has a real token at step {step} after padding: masks must be right-padded "
            "(true for the real tokens, then false)"
        )
