"""Held-out scores of HRED and VHRED on the toy dialogues: per-token negative log-likelihood and, for VHRED, the
ELBO bound with its two terms."""

from __future__ import annotations

import numpy as np

from elmo_keras._quiet import ops
from elmo_keras.data.dialogue import dialogue_examples
from elmo_keras.limits import check_batch_size
from elmo_keras.models.dialogue.encoding import encode_dialogues
from elmo_keras.models.dialogue.hred import response_cross_entropy
from elmo_keras.models.dialogue.vhred import VHRED


def evaluate_dialogue_model(model, examples=None, seed: int = 0, batch_size: int = 64) -> dict:
    """Teacher-forced held-out scores, per real response token (``</S>`` included).

    HRED: ``nll_per_token`` (exact) and ``perplexity = exp(nll_per_token)``. VHRED: ``reconstruction_per_token``
    (``−E_q log p(x | c, z)``, one ``z = μ_q + σ_q ε`` per response, ``ε`` seeded), ``kl_per_token`` and
    ``elbo_per_token`` = their sum, an upper bound on the per-token NLL (``perplexity`` is ``exp`` of that
    bound); also ``prior_mean_nll_per_token``: the NLL decoding from ``z = μ_p`` (what inference without
    sampling uses), comparable to HRED's.

    Args:
        model: an ``HRED`` or ``VHRED`` carrying its ``vocabulary``.
        examples: ``[(history turns, response)]``, within the bounds of ``encoding.checked_dialogues``. Defaults
            to None (the toy corpus's ``heldout`` split).
        seed: int, seeds VHRED's ``ε``. Defaults to 0.
        batch_size: int, dialogues the model reads at once (the scores do not depend on it). Defaults to 64.

    Raises:
        ValueError: a bad ``batch_size``, or a dialogue ``encoding.checked_dialogues`` refuses, before any work.
    """
    batch_size = check_batch_size(batch_size)
    examples = dialogue_examples("heldout") if examples is None else examples
    inputs, response_out = encode_dialogues(examples, model.vocabulary)
    tokens = float((response_out != model.pad_id).sum())
    vhred = isinstance(model, VHRED)
    noise = np.random.default_rng(seed).standard_normal((len(examples), model.latent_dim)).astype(np.float32) \
        if vhred else None
    totals = {"nll": 0.0, "kl": 0.0, "prior": 0.0}
    for start in range(0, len(examples), batch_size):
        rows = slice(start, start + batch_size)
        batch = {key: value[rows] for key, value in inputs.items()}

        def summed(logits, rows=rows):
            sums, _ = response_cross_entropy(response_out[rows], logits, model.pad_id)
            return float(ops.convert_to_numpy(ops.sum(sums)))

        if not vhred:
            totals["nll"] += summed(model(batch, training=False))
            continue
        out = model({**batch, "noise": noise[rows]}, training=False)
        totals["nll"] += summed(out["logits"])
        totals["kl"] += float(ops.convert_to_numpy(ops.sum(out["kl"])))
        totals["prior"] += summed(model.decoder_logits(model.initial_states(batch["history"]), batch["response_in"]))
    nll, kl, prior = (totals[key] / tokens for key in ("nll", "kl", "prior"))
    if not vhred:
        return {"nll_per_token": nll, "perplexity": float(np.exp(nll)), "num_dialogues": len(examples)}
    return {"reconstruction_per_token": nll, "kl_per_token": kl, "elbo_per_token": nll + kl,
            "perplexity": float(np.exp(nll + kl)), "prior_mean_nll_per_token": prior, "num_dialogues": len(examples)}
