"""The latent-variable arithmetic of VHRED (Serban et al. 2017), as small functions of ``keras.ops``.

* ``reparameterize``: ``z = μ + σ ⊙ ε`` with ``σ = exp(½ log σ²)``, so ``z`` is differentiable in ``μ, log σ²``.
* ``gaussian_kl``: ``KL(q ‖ p)`` for two diagonal Gaussians in closed form,
  ``½ Σ_j [log σ²_p − log σ²_q + (σ²_q + (μ_q − μ_p)²) / σ²_p − 1]``.
* ``kl_weight``: the linear annealing schedule ``min(1, step / annealing_steps)`` (1 when annealing is off).
* ``free_bits_kl``: the KL term with a floor per latent dimension (free bits, Kingma et al. 2016):
  ``Σ_j max(λ, mean over the batch of KL_j)``, so a dimension whose KL is below ``λ`` nats costs nothing more
  and is not pushed further towards the prior.
"""

from __future__ import annotations

from elmo_keras._quiet import ops


def reparameterize(mean, log_var, noise):
    """``z = mean + exp(½ log_var) ⊙ noise``.

    Args:
        mean, log_var: float `(batch, latent_dim)`, the Gaussian's ``μ`` and ``log σ²``.
        noise: float `(batch, latent_dim)`, ``ε ~ N(0, I)`` (drawn by the caller, so a fixed ``ε`` gives a fixed z).

    Returns:
        float `(batch, latent_dim)`.
    """
    mean, log_var, noise = (ops.convert_to_tensor(t) for t in (mean, log_var, noise))
    return mean + ops.exp(0.5 * log_var) * noise


def gaussian_kl(mean_q, log_var_q, mean_p, log_var_p):
    """``KL(N(mean_q, exp(log_var_q)) ‖ N(mean_p, exp(log_var_p)))`` per row, summed over the latent dimensions.

    Args:
        mean_q, log_var_q: float `(batch, latent_dim)`, the posterior ``q``.
        mean_p, log_var_p: float `(batch, latent_dim)`, the prior ``p``.

    Returns:
        float `(batch,)`, ≥ 0 (0 exactly when the two Gaussians are equal).
    """
    return ops.sum(gaussian_kl_terms(mean_q, log_var_q, mean_p, log_var_p), axis=-1)


def gaussian_kl_terms(mean_q, log_var_q, mean_p, log_var_p):
    """``gaussian_kl`` per latent dimension: float `(batch, latent_dim)`, each ≥ 0 (the arguments as there)."""
    mean_q, log_var_q, mean_p, log_var_p = (ops.convert_to_tensor(t) for t in (mean_q, log_var_q, mean_p, log_var_p))
    terms = log_var_p - log_var_q + (ops.exp(log_var_q) + ops.square(mean_q - mean_p)) * ops.exp(-log_var_p) - 1.0
    return 0.5 * terms


def free_bits_kl(kl_terms, floor: float):
    """The KL term with free bits: ``Σ_j max(floor, mean over the batch of kl_terms[:, j])``.

    With ``floor = 0`` it is the batch mean of ``Σ_j KL_j`` (the plain term). A dimension whose batch-mean KL is
    below ``floor`` adds exactly ``floor`` and passes no gradient back: the optimizer stops pulling it to the prior.

    Args:
        kl_terms: float `(batch, latent_dim)`, ``gaussian_kl_terms``.
        floor: float ≥ 0, nats per latent dimension.

    Returns:
        float scalar.
    """
    per_dimension = ops.mean(ops.convert_to_tensor(kl_terms), axis=0)  # (latent_dim,)
    return ops.sum(ops.maximum(per_dimension, ops.cast(floor, per_dimension.dtype)))


def kl_weight(step, annealing_steps: int):
    """The KL term's weight after ``step`` optimizer updates: ``min(1, step / annealing_steps)``, or 1 when
    ``annealing_steps`` is 0 (no annealing).

    Args:
        step: int scalar (tensor or number), updates done so far (the first update sees 0).
        annealing_steps: int ≥ 0, updates over which the weight grows linearly from 0 to 1.

    Returns:
        float32 scalar in ``[0, 1]``.
    """
    if annealing_steps == 0:
        return ops.convert_to_tensor(1.0, "float32")
    return ops.minimum(1.0, ops.cast(step, "float32") / float(annealing_steps))
