"""Held-out scores of HRED and VHRED on the toy dialogues: per-token negative log-likelihood and, for VHRED, the
ELBO bound with its two terms."""

from __future__ import annotations

import numpy as np
from keras import ops

from elmo_keras.data.dialogue import dialogue_examples
from elmo_keras.models.dialogue.encoding import encode_dialogues
from elmo_keras.models.dialogue.hred import response_cross_entropy
from elmo_keras.models.dialogue.vhred import VHRED


def evaluate_dialogue_model(model, examples=None, seed: int = 0) -> dict:
    """Teacher-forced held-out scores, per real response token (``</S>`` included).

    HRED: ``nll_per_token`` (exact) and ``perplexity = exp(nll_per_token)``. VHRED: ``reconstruction_per_token``
    (``−E_q log p(x | c, z)``, one ``z = μ_q + σ_q ε`` per response, ``ε`` seeded), ``kl_per_token`` and
    ``elbo_per_token`` = their sum, an upper bound on the per-token NLL (``perplexity`` is ``exp`` of that
    bound); also ``prior_mean_nll_per_token``: the NLL decoding from ``z = μ_p`` (what inference without
    sampling uses), comparable to HRED's.

    Args:
        model: an ``HRED`` or ``VHRED`` carrying its ``vocabulary``.
        examples: ``[(history turns, response)]``. Defaults to None (the toy corpus's ``heldout`` split).
        seed: int, seeds VHRED's ``ε``. Defaults to 0.
    """
    examples = dialogue_examples("heldout") if examples is None else examples
    inputs, response_out = encode_dialogues(examples, model.vocabulary)
    tokens = float((response_out != model.pad_id).sum())

    def per_token(logits):
        sums, _ = response_cross_entropy(response_out, logits, model.pad_id)
        return float(ops.convert_to_numpy(ops.sum(sums))) / tokens

    if not isinstance(model, VHRED):
        nll = per_token(model(inputs, training=False))
        return {"nll_per_token": nll, "perplexity": float(np.exp(nll)), "num_dialogues": len(examples)}
    noise = np.random.default_rng(seed).standard_normal((len(examples), model.latent_dim)).astype(np.float32)
    out = model({**inputs, "noise": noise}, training=False)
    reconstruction = per_token(out["logits"])
    kl = float(ops.convert_to_numpy(ops.sum(out["kl"]))) / tokens
    prior_logits = model.decode_sequence(model.decoder_states(model.encode_context(inputs["history"])),
                                         inputs["response_in"])
    return {"reconstruction_per_token": reconstruction, "kl_per_token": kl, "elbo_per_token": reconstruction + kl,
            "perplexity": float(np.exp(reconstruction + kl)), "prior_mean_nll_per_token": per_token(prior_logits),
            "num_dialogues": len(examples)}
