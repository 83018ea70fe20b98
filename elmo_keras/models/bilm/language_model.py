"""``BiLanguageModel``: a biLM (``BiLM`` or ``TransformerBiLM``) plus one softmax shared by both directions,
trained with ``fit``; and ``build_bilm_lm``, which builds one from a ``BiLMConfig``."""

from __future__ import annotations

import os

from elmo_keras._quiet import keras, ops
from elmo_keras.argument_checks import check_int, check_rate
from elmo_keras.layers.bilm import BiLM
from elmo_keras.layers.bilm_base import BiLMBase
from elmo_keras.layers.char_cnn import CharCNN
from elmo_keras.layers.transformer_bilm import TransformerBiLM
from elmo_keras.layers.word_embedding import WordEmbedding
from elmo_keras.models.bilm.distribution import global_token_means
from elmo_keras.models.bilm.presets import BiLMConfig
from elmo_keras.models.bilm.sampled_softmax import sample_candidates, sampled_softmax_losses
from elmo_keras.models.persistence import read_model_dir, save_model_dir
from elmo_keras.text.vocabulary import PAD_ID


@keras.saving.register_keras_serializable(package="elmo_keras")
class Perplexity(keras.metrics.Mean):
    """``perplexity = exp(sum(w_i * loss_i) / sum(w_i))``: a weighted mean cross-entropy, reported as its ``exp``.

    ``BiLanguageModel`` feeds it one mean loss per batch weighted by the batch's real target tokens, so the
    result is the per-token perplexity of everything seen since the last ``reset_state()``.

    Args:
        name: str, the metric's name. Defaults to ``"mean"`` (``keras.metrics.Mean``'s).
        dtype: the metric's dtype. Defaults to None (float32).

    ``update_state(values, sample_weight=None)``: ``values`` are mean cross-entropies in nats, a scalar or
    `(n,)`; ``sample_weight`` the matching token counts, same shape (None: weight 1 each).

    Example:
        >>> metric = Perplexity()
        >>> metric.update_state([1.0, 2.0], sample_weight=[3.0, 1.0])  # 1.25 nats per token
        >>> round(float(metric.result()), 4)
        3.4903
    """

    def result(self):
        return ops.exp(super().result())


@keras.saving.register_keras_serializable(package="elmo_keras")
class BiLanguageModel(keras.Model):
    """Forward and backward language models over one biLM, with a softmax shared by both (as in ELMo).

    The forward direction predicts token ``t+1`` from tokens ``≤ t``; the backward direction predicts
    ``t−1`` from tokens ``≥ t``. Sentences carry ``<S>`` … ``</S>`` (the training helpers add them), so the
    forward model learns to predict ``</S>`` and the backward model ``<S>``. The loss is the forward mean
    cross-entropy plus the backward mean cross-entropy, each averaged over real (non-padding) target tokens;
    ``forward_perplexity`` and ``backward_perplexity`` are reported as metrics.

    With ``n_negative_samples`` set, training (``fit``) uses a sampled softmax (``models.bilm.sampled_softmax``, as
    bilm-tf): each direction's loss is over the true word and ``n_negative_samples`` log-uniform draws shared by the
    whole batch, and the `(batch, time, vocab)` logits are never computed. The perplexity metrics in ``fit``'s logs
    and history are then ``exp`` of that *sampled* loss, an estimate of the full-softmax perplexity (biased low,
    since ``E[log Ẑ] ≤ log Z``); ``evaluate`` and ``models.bilm.evaluation.perplexities`` use the full softmax.

    Args:
        bilm: a biLM layer, ``BiLM`` (LSTMs) or ``TransformerBiLM`` (or its serialized config, a dict): the model
            reads only ``directional_outputs`` (its top forward and backward layers) and ``output_dim``.
        vocab_size: int ≥ 5, size of the output vocabulary (the 4 special tokens + words; ``PAD_ID`` = 0 is
            never a target).
        dropout: float in ``[0, 1)``, dropout on the top layer before the softmax, training only. Defaults to 0.
        n_negative_samples: int ≥ 1, negatives drawn per direction and training step for a sampled softmax
            (bilm-tf drew 8192 from a 793,471-word vocabulary), or None for the full softmax. Defaults to None.

    Call arguments:
        inputs: the biLM's input, boundaries included: int word ids `(batch, time)` or char ids
            `(batch, time, 50)`.
        training: bool; dropout only when True. Defaults to None (False).

    Returns:
        ``{"forward_logits": (batch, time, vocab), "backward_logits": (batch, time, vocab), "mask": (batch, time)}``
        (float32 logits, bool mask); ``forward_logits[:, t]`` scores token ``t+1``, ``backward_logits[:, t]``
        scores token ``t−1``. With ``n_negative_samples`` set and ``training=True``, instead
        ``{"forward_hidden": (batch, time, dim), "backward_hidden": (batch, time, dim), "mask": (batch, time)}``: the
        top layer's states after the softmax dropout (``dim`` = ``bilm.output_dim // 2``), which ``compute_loss``
        scores against sampled candidates only.

    ``fit(x=inputs, y=word_ids)``: ``y`` holds the int word ids `(batch, time)` of the same padded sentences
    (for a word-level model ``y`` is ``x``).

    Raises:
        ValueError: ``bilm`` is not a biLM (``BiLMBase``), ``vocab_size`` is not an int ≥ 5, ``dropout`` is outside
            ``[0, 1)``, or ``n_negative_samples`` is not None or an int ≥ 1.

    Example:
        >>> import numpy as np
        >>> from elmo_keras.layers import WordEmbedding
        >>> bilm = BiLM(WordEmbedding(20, 8), units=16, projection_dim=8, num_layers=1)
        >>> model = BiLanguageModel(bilm, vocab_size=20)
        >>> ids = np.array([[2, 7, 9, 3], [2, 5, 3, 0]])  # <S> … </S>; the second sentence is padded with 0
        >>> outputs = model(ids)
        >>> tuple(outputs["forward_logits"].shape), tuple(outputs["backward_logits"].shape)
        ((2, 4, 20), (2, 4, 20))
    """

    def __init__(self, bilm, vocab_size, dropout=0.0, n_negative_samples=None, **kwargs):
        super().__init__(**kwargs)
        if isinstance(bilm, dict):
            bilm = keras.saving.deserialize_keras_object(bilm)
        if not isinstance(bilm, BiLMBase):
            raise ValueError(f"bilm must be a biLM layer (BiLM or TransformerBiLM), received {type(bilm).__name__}")
        if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < 5:
            raise ValueError(f"vocab_size must be an int >= 5 (4 special tokens + words), received {vocab_size!r}")
        self.bilm = bilm
        self.vocab_size = vocab_size
        check_rate(dropout)
        self.dropout = float(dropout)
        self.softmax_dropout = keras.layers.Dropout(self.dropout, dtype=self.dtype_policy, name="softmax_dropout")
        self.softmax = keras.layers.Dense(vocab_size, dtype=self.dtype_policy, name="softmax")
        self.forward_perplexity = Perplexity(name="forward_perplexity")
        self.backward_perplexity = Perplexity(name="backward_perplexity")
        self.n_negative_samples = check_int(n_negative_samples, "n_negative_samples", allow_none=True)
        # made last and only when sampling: the full-softmax model draws its dropout seeds exactly as before
        self.sampler_seed = None if self.n_negative_samples is None else keras.random.SeedGenerator(
            name="sampler_seed")
        self.vocabulary = None  # set by the training helpers and load_bilm; saved beside the model
        self.training_summary = {}

    @property
    def token_input(self) -> str:
        """What a token enters the model as: ``"char"`` for a ``CharCNN`` token encoder (character ids), else
        ``"word"`` (word ids)."""
        return self.bilm.token_input

    def row_sparse_variables(self) -> dict[str, int]:
        """``{variable.path: row axis}`` of the weights a training step reads only at some ids, for the optimizers
        that update only the rows a step touched (``models.sparse_optimizers``): a word-level model's embedding
        (axis 0, the batch's words) and, with ``n_negative_samples``, the softmax kernel `(dim, vocab)` (axis 1) and
        bias (axis 0), read at the targets and the sampled candidates. The full softmax reads every column.

        Raises:
            ValueError: the model is not built (its variables do not exist yet).
        """
        if not self.built:
            raise ValueError("build the model before asking for its row-sparse variables")
        axes = {}
        if self.token_input == "word":
            axes[self.bilm.token_encoder.embedding.embeddings.path] = 0
        if self.n_negative_samples is not None:
            axes[self.softmax.kernel.path] = 1
            axes[self.softmax.bias.path] = 0
        return axes

    def build(self, input_shape):
        if not self.bilm.built:
            self.bilm.build(input_shape)
        self.softmax.build((None, None, self.bilm.output_dim // 2))

    def call(self, inputs, training=None):
        _, forward, backward, mask = self.bilm.directional_outputs(inputs, training=training)
        tops = ops.concatenate([forward[-1], backward[-1]], axis=0)  # (2B, T, dim): one dropout, one softmax matmul
        tops = self.softmax_dropout(tops, training=training)
        if training and self.n_negative_samples is not None:  # the sampled loss needs no (2B, T, V) logits
            forward_hidden, backward_hidden = ops.split(tops, 2, axis=0)
            return {"forward_hidden": forward_hidden, "backward_hidden": backward_hidden, "mask": mask}
        logits = ops.cast(self.softmax(tops), "float32")  # (2B, T, V)
        forward_logits, backward_logits = ops.split(logits, 2, axis=0)
        return {"forward_logits": forward_logits, "backward_logits": backward_logits, "mask": mask}

    def _direction_sums(self, y_pred, direction, targets):
        """The cross-entropy summed over non-padding targets, and their count (float): two scalars.

        ``y_pred[f"{direction}_logits"]`` → the full softmax; ``y_pred[f"{direction}_hidden"]`` (training with
        ``n_negative_samples``) → the sampled softmax, over candidates drawn for this direction and step.
        """
        logits = y_pred.get(f"{direction}_logits")
        if logits is not None:
            losses = keras.losses.sparse_categorical_crossentropy(targets, logits, from_logits=True)
        else:
            losses = self._sampled_losses(y_pred[f"{direction}_hidden"], targets)
        weights = ops.cast(ops.not_equal(targets, PAD_ID), losses.dtype)
        return ops.sum(losses * weights), ops.sum(weights)

    def _sampled_losses(self, hidden, targets):
        """Sampled softmax losses `(batch, time)` of the top states ``hidden`` `(batch, time, dim)` (one draw of
        ``n_negative_samples`` candidates from ``sampler_seed``)."""
        if self.n_negative_samples is None:
            raise ValueError("the outputs hold hidden states, not logits, but this model has no n_negative_samples; "
                             "pass the outputs of model(inputs) (full-softmax logits) to compute_loss")
        candidate_ids, log_expected_counts = sample_candidates(self.n_negative_samples, self.vocab_size,
                                                               self.sampler_seed)
        return sampled_softmax_losses(hidden, targets, self.softmax.kernel, self.softmax.bias, candidate_ids,
                                      log_expected_counts)

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        """Forward + backward mean cross-entropy over real target tokens; updates both perplexity metrics.

        Args:
            x: the inputs, used as the targets when ``y`` is None (a word-level model).
            y: int word ids `(batch, time)` with boundaries, ``PAD_ID`` where padded.
            y_pred: the model's output dict: ``forward_logits``, ``backward_logits`` `(batch, time, vocab)` (full
                softmax), or, training with ``n_negative_samples``, ``forward_hidden``, ``backward_hidden``
                `(batch, time, dim)` (sampled softmax).
            sample_weight: unused (padding is weighted out through ``PAD_ID``).

        Returns:
            The scalar loss.
        """
        if y is None:
            y = x
        targets = ops.cast(y, "int32")
        # shift the targets, not the logits (cheaper to differentiate); the padding targets weigh nothing
        padding = ops.full_like(targets[:, :1], PAD_ID)
        next_tokens = ops.concatenate([targets[:, 1:], padding], axis=1)  # forward_logits[:, t] predicts t+1
        previous_tokens = ops.concatenate([padding, targets[:, :-1]], axis=1)  # backward_logits[:, t] predicts t−1
        forward_total, forward_count = self._direction_sums(y_pred, "forward", next_tokens)
        backward_total, backward_count = self._direction_sums(y_pred, "backward", previous_tokens)
        # Under tf.distribute (``models.bilm.distribution``) the token counts are summed over the replicas (one
        # all-reduce per step): each replica's loss is its share of the global batch's means, so the replicas'
        # summed gradients are the one-device gradient of the whole batch (Keras scales only compiled losses for
        # the replicas); the metrics take the global means and counts, so fit logs the one-device perplexities.
        (forward_loss, backward_loss), (forward_mean, backward_mean), (forward_tokens, backward_tokens) = (
            global_token_means([forward_total, backward_total], [forward_count, backward_count]))
        self.forward_perplexity.update_state(forward_mean, sample_weight=forward_tokens)
        self.backward_perplexity.update_state(backward_mean, sample_weight=backward_tokens)
        return forward_loss + backward_loss

    def save(self, filepath, overwrite=True, **kwargs):
        """``path.keras`` → a Keras file; any other path → a model directory (weights + vocabulary + config).

        Raises:
            ValueError, FileExistsError: for a model directory, as ``models.persistence.save_model_dir``.
        """
        if str(filepath).endswith(".keras"):
            return super().save(filepath, overwrite=overwrite, **kwargs)
        return save_model_dir(self, filepath)

    @classmethod
    def from_preset(cls, directory: str | os.PathLike) -> "BiLanguageModel":
        """The language model (biLM, softmax, vocabulary) saved in ``directory`` by ``model.save(directory)`` or the
        ``train`` command: the one load verb for models with a softmax. The released presets hold no softmax: load
        their biLM with ``BiLM.from_preset`` or ``ElmoEmbedder.from_preset``, or fine-tune one
        (``fine_tune_pretrained``) into a model directory.

        Returns:
            The ``BiLanguageModel``, compiled, with ``vocabulary``, ``training_summary`` and ``config`` (a
            ``BiLMConfig``, or None when ``training.json`` has none) set.

        Raises:
            TypeError: ``directory`` is not a str or path.
            FileNotFoundError: not a folder (one line saying what to pass instead), or one of its files is missing.
            ValueError: a file is corrupted or is not what it should be, or ``training.json``'s config disagrees with
                ``model.keras`` (the message names the file, the field and how to fix it).
        """
        if not isinstance(directory, (str, os.PathLike)):
            raise TypeError(f"BiLanguageModel.from_preset takes a model directory, received "
                            f"{type(directory).__name__} ({directory!r:.60})")
        if not os.path.isdir(directory):
            raise FileNotFoundError(f"model directory not found: {os.fspath(directory)} (BiLanguageModel.from_preset "
                                    "loads what model.save(directory) or the train command wrote; for a released "
                                    "preset's biLM, which has no softmax, use BiLM.from_preset or "
                                    "ElmoEmbedder.from_preset)")
        return read_model_dir(directory, cls, BiLMConfig)

    def get_config(self):
        return {
            "bilm": keras.saving.serialize_keras_object(self.bilm),
            "vocab_size": self.vocab_size,
            "dropout": self.dropout,
            "n_negative_samples": self.n_negative_samples,
            "name": self.name,
        }

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def build_bilm_lm(config: BiLMConfig, vocab_size: int, dtype=None) -> BiLanguageModel:
    """An untrained, unbuilt ``BiLanguageModel`` for ``config`` over a word vocabulary of ``vocab_size``.

    Args:
        config: the architecture (``token_input`` picks a ``WordEmbedding`` or a ``CharCNN`` token encoder,
            ``contextualizer`` a ``BiLM`` or a ``TransformerBiLM``).
        vocab_size: int, the word vocabulary's size (special tokens included).
        dtype: the Keras dtype policy of every layer, e.g. ``"mixed_bfloat16"``. Defaults to None (the global
            policy, normally float32).

    Raises:
        ValueError: ``vocab_size`` < 5 (from ``BiLanguageModel``).
    """
    if config.token_input == "word":
        projection = config.token_dim if config.token_dim != config.embedding_dim else None
        token_encoder = WordEmbedding(
            vocab_size, config.embedding_dim, projection_dim=projection, dtype=dtype, name="token_encoder"
        )
    else:
        token_encoder = CharCNN(
            embedding_dim=config.embedding_dim, filters=config.char_filters, n_highway=config.n_highway,
            projection_dim=config.token_dim, dtype=dtype, name="token_encoder",
        )
    if config.contextualizer == "transformer":
        bilm = TransformerBiLM(token_encoder, hidden_dim=config.hidden_dim, num_layers=config.num_layers,
                               num_heads=config.num_heads, dropout=config.dropout, dtype=dtype, name="bilm")
    else:
        bilm = BiLM(
            token_encoder, units=config.units, num_layers=config.num_layers, projection_dim=config.projection_dim,
            cell_clip=config.cell_clip, proj_clip=config.proj_clip, use_skip_connections=config.use_skip_connections,
            dropout=config.dropout, dtype=dtype, name="bilm",
        )
    return BiLanguageModel(bilm, vocab_size, dropout=config.dropout, n_negative_samples=config.n_negative_samples,
                           dtype=dtype, name="bi_language_model")
