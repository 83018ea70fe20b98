"""``VHRED``: HRED with a latent variable ``z`` per response (Serban et al. 2017): first sample "what to say", then
say it word by word.

* prior ``p(z | c) = N(μ_p, diag σ²_p)``: a small MLP on the context ``c`` (what inference samples from);
* posterior ``q(z | c, x_n) = N(μ_q, diag σ²_q)``: an MLP on ``[c; m_n]``, ``m_n`` the real response encoded by
  the shared utterance encoder (training only);
* ``z = μ_q + σ_q ⊙ ε`` (reparameterisation) in training; the decoder starts from ``tanh(W [c; z] + b)``;
* loss = −ELBO = reconstruction (per-response token cross-entropy sum) + ``w · KL(q ‖ p)`` (closed form), with
  ``w`` annealed linearly from 0 to 1 over ``kl_annealing_steps`` updates (0: always 1).

Remedies for KL (posterior) collapse, each off by default: KL annealing (above) with word dropout on the decoder
input (``word_dropout``, Bowman et al. 2016: the decoder cannot lean on the previous word alone); a bag-of-words
loss on ``z`` (``bow_weight``, Zhao et al. 2017: an MLP on ``[c; z]`` must predict the reply's words in any order,
so ``z`` has to carry them); free bits (``free_bits``, Kingma et al. 2016: the KL term is
``Σ_j max(λ, batch-mean KL_j)``, no pull towards the prior below ``λ`` nats per dimension).

The logs track ``reconstruction_per_token``, ``kl_per_token`` (the real KL, before any floor), ``kl_weight`` and,
with the bag-of-words loss, ``bow_per_token``.
"""

from __future__ import annotations

import numpy as np

from elmo_keras._quiet import keras, ops
from elmo_keras.argument_checks import check_int, check_non_negative
from elmo_keras.decoding._checks import MAX_DECODE_CANDIDATES
from elmo_keras.models.dialogue.encoding import check_history_ids
from elmo_keras.models.dialogue.gaussian import free_bits_kl, gaussian_kl_terms, kl_weight, reparameterize
from elmo_keras.models.dialogue.hred import HRED, response_cross_entropy


@keras.saving.register_keras_serializable(package="elmo_keras")
class VHRED(HRED):
    """HRED whose decoder also reads a latent ``z`` drawn from a prior given the context.

    Args:
        vocab_size, embedding_dim, utterance_units, context_units, decoder_units, cell, word_dropout, seed,
            pad_id, bos_id, eos_id, unk_id: as ``HRED`` (``seed`` also seeds the training ``ε``).
        latent_dim: int, the width of ``z``. Defaults to 16.
        latent_hidden: int, hidden units of the prior and posterior MLPs. Defaults to 64.
        kl_annealing_steps: int ≥ 0, updates over which the KL weight grows linearly 0 → 1 (0: no annealing).
            Defaults to 0.
        bow_weight: float ≥ 0, weight of the bag-of-words loss on ``z`` (0: no bag-of-words network). Defaults to 0.
        free_bits: float ≥ 0, the KL floor λ in nats per latent dimension (0: the plain KL term). Defaults to 0.

    Call arguments:
        inputs: dict ``{"history": int (batch, turns, words), "response_in": int (batch, response_len)}`` and
            optionally ``"noise"``: float `(batch, latent_dim)`, a fixed ``ε`` (then ``z = μ_q + σ_q ⊙ ε`` in any
            mode). Without it, training draws ``ε ~ N(0, I)`` and inference uses ``z = μ_q``.
        training: bool.

    Returns:
        dict ``{"logits": (batch, response_len, vocab_size), "kl": (batch,) KL(q ‖ p), "kl_terms": (batch,
        latent_dim) its terms per dimension}``, and with ``bow_weight > 0`` ``"bow_logits"``: (batch, vocab_size),
        the bag-of-words scores from ``[c; z]``.

    Example:
        >>> import numpy as np
        >>> model = VHRED(vocab_size=20, utterance_units=8, context_units=8, decoder_units=8, latent_dim=4)
        >>> out = model({"history": np.array([[[5, 6], [7, 0]]]), "response_in": np.array([[2, 9, 4]])})
        >>> tuple(out["logits"].shape), tuple(out["kl"].shape)
        ((1, 3, 20), (1,))
    """

    def __init__(self, vocab_size, latent_dim=16, latent_hidden=64, kl_annealing_steps=0, bow_weight=0.0,
                 free_bits=0.0, **kwargs):
        super().__init__(vocab_size, **kwargs)
        check_int(latent_dim, "latent_dim")
        check_int(latent_hidden, "latent_hidden")
        if isinstance(kl_annealing_steps, bool) or not isinstance(kl_annealing_steps, (int, np.integer)) \
                or kl_annealing_steps < 0:
            raise ValueError("kl_annealing_steps must be an int >= 0 (0: no annealing), "
                             f"received {kl_annealing_steps!r}")
        self.latent_dim, self.latent_hidden = latent_dim, latent_hidden
        self.kl_annealing_steps = int(kl_annealing_steps)
        self.bow_weight = check_non_negative(bow_weight, "bow_weight")
        self.free_bits = check_non_negative(free_bits, "free_bits")

        def mlp(name):
            hidden = keras.layers.Dense(latent_hidden, activation="tanh", name=f"{name}_hidden",
                                        dtype=self.dtype_policy)
            return [hidden, keras.layers.Dense(2 * latent_dim, name=f"{name}_gaussian", dtype=self.dtype_policy)]

        self.prior_net, self.posterior_net = mlp("prior"), mlp("posterior")
        self.bow_net = None
        if self.bow_weight > 0:
            self.bow_net = [keras.layers.Dense(latent_hidden, activation="tanh", name="bow_hidden",
                                               dtype=self.dtype_policy),
                            keras.layers.Dense(vocab_size, name="bow_output", dtype=self.dtype_policy)]
            self.bow_per_token = keras.metrics.Mean(name="bow_per_token")
        self.noise_seed = keras.random.SeedGenerator(self.seed + 1, name="noise_seed")
        self.kl_per_token = keras.metrics.Mean(name="kl_per_token")
        self.kl_weight = keras.metrics.Mean(name="kl_weight")

    def decoder_init_width(self) -> int:
        return self.context_units + self.latent_dim

    def build(self, input_shape=None):
        super().build(input_shape)
        for net, width in ((self.prior_net, self.context_units),
                           (self.posterior_net, self.context_units + self.utterance_units)):
            net[0].build((None, width))
            net[1].build((None, self.latent_hidden))
        if self.bow_net is not None:
            self.bow_net[0].build((None, self.context_units + self.latent_dim))
            self.bow_net[1].build((None, self.latent_hidden))
        # training updates seen, for the KL annealing (a model variable, so every backend's compiled step updates
        # it, and a saved model resumes its schedule)
        self.training_updates = self.add_weight(shape=(), initializer="zeros", trainable=False, dtype="float32",
                                                name="training_updates")

    def _gaussian(self, net, x):
        """``(μ, log σ²)``, each `(batch, latent_dim)`."""
        out = net[1](net[0](x))
        return out[:, : self.latent_dim], out[:, self.latent_dim :]

    def prior(self, context):
        """``p(z | c)``: ``(μ_p, log σ²_p)`` for ``context`` `(batch, context_units)`."""
        return self._gaussian(self.prior_net, context)

    def posterior(self, context, response_vector):
        """``q(z | c, x_n)``: ``(μ_q, log σ²_q)`` from ``context`` and the response's ``m_n``
        `(batch, utterance_units)`."""
        return self._gaussian(self.posterior_net, ops.concatenate([context, response_vector], axis=-1))

    def decoder_states(self, context, z=None):
        """The decoder's initial states from ``[c; z]`` (``z`` `(batch, latent_dim)`; None: the prior's mean)."""
        if z is None:
            z = self.prior(context)[0]
        z = ops.broadcast_to(ops.cast(z, context.dtype), (ops.shape(context)[0], self.latent_dim))
        return super().decoder_states(ops.concatenate([context, z], axis=-1))

    def initial_states(self, history, z=None):
        """The decoder's initial states for int `(batch, turns, words)` histories and ``z`` (None: the prior's
        mean), as ``decoder_states`` gives them."""
        return self.decoder_states(self.context_vector(history), z)

    def call(self, inputs, training=None):
        history, response_in = inputs["history"], ops.cast(inputs["response_in"], "int32")
        context = self.context_vector(history)  # (B, H_c)
        prior_mean, prior_log_var = self.prior(context)
        response_vector = self.utterance_vectors(response_in[:, 1:])  # the real response's words, no <bos>
        mean, log_var = self.posterior(context, response_vector)
        noise = inputs.get("noise") if isinstance(inputs, dict) else None
        if noise is None and training:
            noise = keras.random.normal(ops.shape(mean), seed=self.noise_seed)
        z = mean if noise is None else reparameterize(mean, log_var, ops.cast(noise, mean.dtype))
        context_z = ops.concatenate([context, z], axis=-1)
        logits = self.decoder_logits(super().decoder_states(context_z), response_in, training)
        kl_terms = gaussian_kl_terms(mean, log_var, prior_mean, prior_log_var)
        outputs = {"logits": logits, "kl": ops.sum(kl_terms, axis=-1), "kl_terms": kl_terms}
        if self.bow_net is not None:
            outputs["bow_logits"] = self.bow_net[1](self.bow_net[0](context_z))
        return outputs

    def current_kl_weight(self, training):
        """The KL weight now: ``kl_weight(training updates so far)`` while training (counting this update), else 1."""
        if not training:
            return ops.convert_to_tensor(1.0, "float32")
        weight = kl_weight(self.training_updates, self.kl_annealing_steps)
        self.training_updates.assign_add(1.0)
        return weight

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        """``mean over the batch of (reconstruction + bow_weight · bag-of-words) + w · KL term``: reconstruction
        = the per-response token cross-entropy sum (padding masked), bag-of-words = the same sum under one softmax
        of ``bow_logits`` (every word of ``y``, ``</S>`` included, in any order), KL term = the batch mean of KL
        (``free_bits_kl`` with ``free_bits``). Updates ``reconstruction_per_token``, ``kl_per_token`` (the real
        KL), ``bow_per_token`` (all per real token) and ``kl_weight``."""
        sums, count = response_cross_entropy(y, y_pred["logits"], self.pad_id)
        kl = y_pred["kl"]
        weight = ops.cast(self.current_kl_weight(training), kl.dtype)
        tokens = ops.maximum(count, 1.0)
        self.reconstruction_per_token.update_state(ops.sum(sums) / tokens, sample_weight=count)
        self.kl_per_token.update_state(ops.sum(kl) / tokens, sample_weight=count)
        self.kl_weight.update_state(weight)
        kl_term = free_bits_kl(y_pred["kl_terms"], self.free_bits) if self.free_bits > 0 else ops.mean(kl)
        loss = ops.mean(sums) + weight * kl_term
        if self.bow_net is not None:
            bow = self.bag_of_words_loss(y, y_pred["bow_logits"])
            self.bow_per_token.update_state(ops.sum(bow) / tokens, sample_weight=count)
            loss = loss + self.bow_weight * ops.mean(bow)
        return loss

    def bag_of_words_loss(self, targets, bow_logits):
        """``−Σ_t log softmax(bow_logits)[y_t]`` per response: float `(batch,)` for int ``targets``
        `(batch, response_len)` (padding masked) and ``bow_logits`` `(batch, vocab_size)`."""
        length = ops.shape(targets)[1]
        repeated = ops.repeat(ops.expand_dims(bow_logits, 1), length, axis=1)  # (B, L, V): one softmax per reply
        return response_cross_entropy(targets, repeated, self.pad_id)[0]

    # -- inference -----------------------------------------------------------------------------------------
    def sample_prior(self, context, num_samples: int, seed: int = 0) -> np.ndarray:
        """``num_samples`` draws of ``z ~ p(z | c)`` for one context `(1, context_units)`: float32
        `(num_samples, latent_dim)`, reproducible for a ``seed`` (NumPy's generator draws ``ε``); ``num_samples ×
        latent_dim`` at most ``MAX_DECODE_CANDIDATES``."""
        num_samples = check_int(num_samples, "num_samples")
        if num_samples * self.latent_dim > MAX_DECODE_CANDIDATES:
            raise ValueError(f"num_samples = {num_samples:,} draws of z ({self.latent_dim} values each) are more than "
                             f"{MAX_DECODE_CANDIDATES:,} values (MAX_DECODE_CANDIDATES): draw fewer")
        mean, log_var = (ops.convert_to_numpy(t)[0] for t in self.prior(context))
        noise = np.random.default_rng(seed).standard_normal((num_samples, self.latent_dim))
        return (mean + np.exp(0.5 * log_var) * noise).astype(np.float32)

    def log_prob_fn(self, history, z=None):
        """``fn(prefixes) -> (n, vocab)`` for one history int `(turns, words)` and one ``z`` `(latent_dim,)`
        (None: the prior's mean); ``history`` is checked as ``HRED.log_prob_fn`` checks it."""
        history = check_history_ids(history, self)
        z = None if z is None else ops.reshape(ops.convert_to_tensor(z, "float32"), (1, self.latent_dim))
        return self.log_prob_fn_from_states(self.initial_states(ops.expand_dims(history, 0), z))

    def architecture(self) -> dict:
        return {**super().architecture(), "latent_dim": self.latent_dim, "latent_hidden": self.latent_hidden,
                "bow_weight": self.bow_weight}

    def get_config(self):
        config = super().get_config()
        config.update({"latent_dim": self.latent_dim, "latent_hidden": self.latent_hidden,
                       "kl_annealing_steps": self.kl_annealing_steps, "bow_weight": self.bow_weight,
                       "free_bits": self.free_bits})
        return config
