"""Sampled softmax: a language model's training loss over a few sampled negative words instead of the whole
vocabulary, as bilm-tf trained (``tf.nn.sampled_softmax_loss`` with the log-uniform candidate sampler).

The pipeline, per direction and training step:

1. ``sample_candidates``: ``S`` candidate word ids drawn **with replacement** from a log-uniform (Zipfian)
   distribution over the frequency-sorted vocabulary, shared by every position of the batch. ``Vocabulary`` ids
   are ``PAD_ID = 0``, then ``<unk>``, ``<S>``, ``</S>``, then words most frequent first. ``PAD_ID`` is never a
   target, so it is not drawn: rank ``r = 0 … V−2`` is id ``r + 1`` (the three other special tokens take the three
   most likely ranks, as bilm-tf's vocabulary files put ``</S>``, ``<S>``, ``<UNK>`` first). But the full softmax
   that evaluation uses normalises over ``PAD_ID`` too, so it joins every draw as one extra candidate counted
   exactly (expected count 1, no correction): its logit is trained down as the full softmax would, and the
   sampled normaliser estimates the full one without bias (the loss, its log, is biased low; the bias shrinks as
   ``S`` grows).
2. ``sampled_softmax_losses``: for each position, a softmax over the true word and the ``S`` draws, each draw's
   logit lowered by the log of its expected count ``S · q(id)``, draws equal to the true word ("accidental hits")
   removed.

Why with replacement: every shape is fixed and the draw is a few ``keras.ops`` on every backend (TensorFlow's unique
sampler rejects duplicates in a loop whose length depends on the draws, and its expected-count correction is itself
an approximation from the number of tries), and the normaliser it gives,

    Ẑ = exp(s_true) + exp(s_PAD) + Σ_j [id_j ≠ true] · exp(s_{id_j}) / (S · q(id_j)),

is an unbiased estimate of the full softmax's ``Z = Σ_k exp(s_k)`` (each of the ``S`` draws is an importance
sample of the sum over the other words). So ``loss = log Ẑ − s_true`` tends to the full cross-entropy as ``S``
grows (``tests/models/bilm/test_sampled_softmax.py`` checks it). The true word is in the candidate set with
probability 1, so
its logit gets no correction: subtracting ``log(S · q(true))`` from it too, as ``tf.nn.sampled_softmax_loss`` does
with its unique sampler's expected counts (which tend to 1), would here scale the negatives' sum by ``S · q(true)``,
which grows without bound with ``S``. The price of replacement: frequent words are drawn several times, so ``S``
draws hold fewer distinct negatives than TensorFlow's ``S`` unique ones (the compute per step is the same).
"""

from __future__ import annotations

import math

from elmo_keras._quiet import keras, ops
from elmo_keras.text.vocabulary import PAD_ID

FIRST_CANDIDATE_ID = PAD_ID + 1  # rank 0 of the sampler; PAD_ID is never a target, so never a negative
# the logit given to an accidental hit: exp() of it is 0 in float32, and it stays finite (no NaN in gradients)
ACCIDENTAL_HIT_LOGIT = -1e9


def candidate_count(vocab_size: int) -> int:
    """How many ids the sampler can draw: every id but ``PAD_ID`` (``vocab_size − 1``)."""
    return vocab_size - FIRST_CANDIDATE_ID


def log_uniform_log_probabilities(candidate_ids, vocab_size: int):
    """``log q(id)`` of the log-uniform sampler: ``q(r) = log((r + 2) / (r + 1)) / log(R + 1)`` for rank
    ``r = id − FIRST_CANDIDATE_ID`` among ``R = vocab_size − 1`` candidates (sums to 1 over ``r = 0 … R−1``).

    Args:
        candidate_ids: int tensor of any shape, ids in ``[1, vocab_size)``.
        vocab_size: int, the vocabulary's size (special tokens included).

    Returns:
        float32 tensor, same shape.
    """
    ranks = ops.cast(candidate_ids - FIRST_CANDIDATE_ID, "float32")
    return ops.log(ops.log1p(1.0 / (ranks + 1.0))) - math.log(math.log(candidate_count(vocab_size) + 1.0))


def sample_candidates(num_sampled: int, vocab_size: int, seed):
    """``PAD_ID`` and ``num_sampled`` ids drawn with replacement from the log-uniform distribution, with their log
    expected counts (``PAD_ID``'s is 0: it is always a candidate, once).

    A draw is ``r = ⌊x⌋ − 1`` with ``log x`` uniform in ``[0, log(R + 1))`` (as TensorFlow's ``LogUniformSampler``),
    so ``P(r) = q(r)`` of ``log_uniform_log_probabilities``. ``x = 2^b · exp(v)`` is drawn in two parts, the octave
    ``b`` from one uniform and ``v`` in ``[0, log 2)`` from another: a float32 uniform has only 2^23 values, too
    few to give each of the rarest ranks of a large vocabulary (``q ≈ 9e-8`` at 793k words) its share in one
    draw, and a float32 ``log x`` ≈ 13.6 is only precise to about one rank there; this way ``x`` is precise to
    ~0.05 of a rank at 793k words.

    Args:
        num_sampled: int ≥ 1, the number of draws ``S``.
        vocab_size: int, the vocabulary's size (special tokens included).
        seed: a ``keras.random.SeedGenerator`` (advanced by one draw) or an int.

    Returns:
        ``(candidate_ids, log_expected_counts)``: int32 `(1 + num_sampled,)` ids, ``PAD_ID`` then the draws in
        ``[1, vocab_size)``, and float32 `(1 + num_sampled,)` ``0`` then ``log(S · q(id))``.
    """
    num_candidates = candidate_count(vocab_size)
    octaves = math.log2(num_candidates + 1.0)  # log2 x is uniform in [0, octaves): full octaves, then a partial one
    uniforms = keras.random.uniform((2, num_sampled), dtype="float32", seed=seed)
    octave = ops.minimum(ops.floor(uniforms[0] * octaves), math.floor(octaves))  # (S,) b, each full one 1/octaves
    octave_width = ops.minimum(octaves - octave, 1.0)  # 1, or what the last (partial) octave holds
    x = ops.power(2.0, octave) * ops.exp(uniforms[1] * octave_width * math.log(2.0))  # density ∝ 1/x in [1, R+1)
    ranks = ops.clip(ops.cast(ops.floor(x), "int32") - 1, 0, num_candidates - 1)  # float rounding at the ends
    drawn_ids = ranks + FIRST_CANDIDATE_ID
    log_expected_counts = log_uniform_log_probabilities(drawn_ids, vocab_size) + math.log(num_sampled)
    candidate_ids = ops.concatenate([ops.full((1,), PAD_ID, "int32"), drawn_ids])
    return candidate_ids, ops.concatenate([ops.zeros((1,), "float32"), log_expected_counts])


def sampled_softmax_losses(hidden, targets, kernel, bias, candidate_ids, log_expected_counts):
    """Per-position sampled softmax cross-entropy ``log Ẑ − s_true`` (see the module docstring).

    ``s_k = hidden · kernel[:, k] + bias[k]``: the logits the full softmax ``Dense(vocab)`` would give, computed
    only for the true word and the candidates (never the `(…, vocab)` logits).

    Args:
        hidden: float `(..., dim)` inputs of the softmax (e.g. `(batch, time, dim)`).
        targets: int `(...)` true word ids, same leading shape.
        kernel: `(dim, vocab)` the softmax ``Dense``'s kernel.
        bias: `(vocab,)` its bias.
        candidate_ids: int32 `(C,)` the candidate ids (``sample_candidates``), shared by every position.
        log_expected_counts: float32 `(C,)` ``log`` of each candidate's expected count (0: counted exactly).

    Returns:
        float32 `(...)` losses, shaped like ``targets`` (padding positions included: weight them out).
    """
    leading_shape = ops.shape(targets)
    dim = ops.shape(kernel)[0]
    flat_hidden = ops.reshape(hidden, (-1, dim))  # (N, dim)
    flat_targets = ops.reshape(ops.cast(targets, "int32"), (-1,))  # (N,)
    true_kernel = ops.cast(ops.take(kernel, flat_targets, axis=1), flat_hidden.dtype)  # (dim, N)
    true_logits = ops.sum(flat_hidden * ops.transpose(true_kernel), axis=-1)  # (N,)
    true_logits = ops.cast(true_logits, "float32") + ops.cast(ops.take(bias, flat_targets), "float32")
    sampled_kernel = ops.cast(ops.take(kernel, candidate_ids, axis=1), flat_hidden.dtype)  # (dim, C)
    sampled_logits = ops.cast(ops.matmul(flat_hidden, sampled_kernel), "float32")  # (N, C)
    sampled_logits = sampled_logits + ops.cast(ops.take(bias, candidate_ids), "float32") - log_expected_counts
    accidental_hits = ops.equal(flat_targets[:, None], ops.cast(candidate_ids, "int32")[None, :])  # (N, C)
    sampled_logits = ops.where(accidental_hits, ACCIDENTAL_HIT_LOGIT, sampled_logits)
    all_logits = ops.concatenate([true_logits[:, None], sampled_logits], axis=-1)  # (N, 1 + C)
    losses = ops.logsumexp(all_logits, axis=-1) - true_logits  # (N,)
    return ops.reshape(losses, leading_shape)
