"""The tagger's building blocks: ``TokenFeatures`` (word + char-CNN + frozen-biLM vectors), ``BiLSTM`` and
``TagHead`` (per-token softmax or CRF over one task's labels).

All are Keras layers that serialize with the tagger (``.keras`` files): the biLM inside ``TokenFeatures``
travels as its config and weights, frozen.
"""

from __future__ import annotations

from elmo_keras._quiet import keras, ops
from elmo_keras.layers.char_cnn import CharCNN
from elmo_keras.layers.crf import CRF
from elmo_keras.layers.elmo import Elmo
from elmo_keras.layers.lstm_stack import LSTMStack, run_lstm_stacks
from elmo_keras.layers.word_embedding import WordEmbedding
from elmo_keras.tagging.encoding import PAD_TAG

BILM_MODES = ("mix", "top")
HEAD_KINDS = ("softmax", "crf")
# a ScalarMix fixed to the top layer: softmax([-1e4, …, 1e4]) is exactly [0, …, 1] in float32
TOP_LAYER_LOGIT = 1e4


def frozen_elmo(bilm, mode: str = "mix", **kwargs) -> Elmo:
    """An ``Elmo`` with one representation over the frozen ``bilm`` (a ``BiLM`` or its serialized config).

    Args:
        bilm: a built ``BiLM`` or its serialized config (dict; deserialized and frozen here).
        mode: ``"mix"``: ELMo's learned ``γ · Σ_j softmax(s)_j h_j``; ``"top"``: exactly the top layer (a fixed,
            non-trainable mix). Defaults to ``"mix"``.
        **kwargs: passed to ``Elmo`` (``name`` defaults to ``"elmo"``, ``dtype``, …).
    """
    if mode not in BILM_MODES:
        raise ValueError(f"bilm_mode must be one of {BILM_MODES}, received {mode!r}")
    if isinstance(bilm, dict):  # deserialized here: ours to freeze (a caller's trainable layer is copied by Elmo)
        bilm = keras.saving.deserialize_keras_object(bilm)
        bilm.trainable = False
    top = None if mode == "mix" else [-TOP_LAYER_LOGIT] * (bilm.num_activation_layers - 1) + [TOP_LAYER_LOGIT]
    return Elmo(bilm, 1, dropout=0.0, scalar_mix_parameters=top, name=kwargs.pop("name", "elmo"), **kwargs)


@keras.saving.register_keras_serializable(package="elmo_keras")
class TokenFeatures(keras.layers.Layer):
    """``[word embedding; char-CNN vector; ELMo vector]`` for every token (each part optional but the first).

    Args:
        vocab_size: int, size of the word vocabulary (id 0 = padding).
        word_dim: int, word embedding size. Defaults to 64.
        char_dim: int, size of the char-CNN token vector. Defaults to 0 (no char-CNN).
        char_filters: the char-CNN's ``[width, count]`` int pairs. Defaults to ``((1, 16), (2, 16), (3, 32))``.
        bilm: a built ``BiLM`` (frozen here; e.g. ``train_bilm(...).bilm``), its serialized config, or None.
            Defaults to None (no biLM vectors).
        bilm_mode: ``"mix"`` (a learned ``ScalarMix`` over every biLM layer: ELMo) or ``"top"`` (the top
            layer only: TagLM). Defaults to ``"mix"``.
        dropout: float, dropout on the output, training only. Defaults to 0.

    Call arguments:
        inputs: dict of int32 ``"words"`` `(batch, time)`, and ``"chars"`` `(batch, time, 50)` /
            ``"bilm"`` `(batch, time)` or `(batch, time, 50)` when used (see ``tagging.encoding``).

    Returns:
        `(batch, time, output_dim)` float, ``output_dim = word_dim + char_dim (+ the biLM's 2 * dim)``; the token
        mask is ``words != 0``.

    Example:
        >>> from elmo_keras.text.char_ids import batch_to_ids
        >>> features = TokenFeatures(vocab_size=20, word_dim=8, char_dim=4)
        >>> inputs = {"words": np.array([[4, 7, 9], [5, 6, 0]]), "chars": batch_to_ids([["a", "b", "c"], ["d", "e"]])}
        >>> tuple(features(inputs).shape), keras.ops.convert_to_numpy(features.compute_mask(inputs)).tolist()
        ((2, 3, 12), [[True, True, True], [True, True, False]])
    """

    def __init__(self, vocab_size, word_dim=64, char_dim=0, char_filters=((1, 16), (2, 16), (3, 32)), bilm=None,
                 bilm_mode="mix", dropout=0.0, **kwargs):
        super().__init__(**kwargs)
        if bilm_mode not in BILM_MODES:
            raise ValueError(f"bilm_mode must be one of {BILM_MODES}, received {bilm_mode!r}")
        self.vocab_size, self.word_dim, self.char_dim = int(vocab_size), int(word_dim), int(char_dim)
        self.char_filters = [tuple(int(v) for v in pair) for pair in char_filters]
        self.bilm_mode, self.dropout = bilm_mode, float(dropout)
        self.word_embedding = WordEmbedding(self.vocab_size, self.word_dim, dtype=self.dtype_policy, name="words")
        self.char_cnn = (CharCNN(embedding_dim=16, filters=self.char_filters, n_highway=1,
                                 projection_dim=self.char_dim, dtype=self.dtype_policy, name="chars")
                         if self.char_dim else None)
        self.elmo = None if bilm is None else frozen_elmo(bilm, bilm_mode, dtype=self.dtype_policy)
        self.dropout_layer = keras.layers.Dropout(self.dropout) if self.dropout else None
        self.output_dim = self.word_dim + self.char_dim + (self.elmo.bilm.output_dim if self.elmo else 0)

    def build(self, input_shape):
        self.word_embedding.build(input_shape["words"])
        if self.char_cnn is not None:
            self.char_cnn.build(input_shape["chars"])
        if self.elmo is not None:
            self.elmo.build(input_shape["bilm"])

    def call(self, inputs, training=None):
        parts = [self.word_embedding(inputs["words"])]
        if self.char_cnn is not None:
            parts.append(self.char_cnn(inputs["chars"]))
        if self.elmo is not None:
            parts.append(ops.cast(self.elmo(inputs["bilm"], training=training)["elmo_representations"][0],
                                  parts[0].dtype))
        features = ops.concatenate(parts, axis=-1) if len(parts) > 1 else parts[0]
        if self.dropout_layer is not None:
            features = self.dropout_layer(features, training=training)
        return features

    def compute_mask(self, inputs, mask=None):
        return ops.not_equal(inputs["words"], 0)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape["words"]) + (self.output_dim,)

    @property
    def bilm_layer_weights(self):
        """The ELMo mix's softmax-normalised layer weights ``s_j`` and ``gamma`` (None without a biLM)."""
        if self.elmo is None:
            return None
        mix = self.elmo.scalar_mixes[0]
        return mix.normalized_weights(), mix.gamma_value()

    def get_config(self):
        config = super().get_config()
        config.update({
            "vocab_size": self.vocab_size, "word_dim": self.word_dim, "char_dim": self.char_dim,
            "char_filters": [list(pair) for pair in self.char_filters],
            "bilm": None if self.elmo is None else keras.saving.serialize_keras_object(self.elmo.bilm),
            "bilm_mode": self.bilm_mode, "dropout": self.dropout,
        })
        return config


@keras.saving.register_keras_serializable(package="elmo_keras")
class BiLSTM(keras.layers.Layer):
    """``[→h_t; ←h_t]``: one LSTM layer read left-to-right and one right-to-left within each sentence.

    Runs the biLM's recurrence (two ``LSTMStack``s through ``run_lstm_stacks``) rather than
    ``Bidirectional(LSTM)``: one time loop for both directions and a hand-written backward pass, where
    ``Bidirectional`` runs two loops and differentiates through them, so the TensorFlow graph traces and trains
    faster.

    Args:
        units: int, memory cells per direction.

    Call arguments:
        inputs: `(batch, time, dim)`.
        mask: `(batch, time)` bool, real tokens first. Defaults to None (all real).
        training: bool or None.

    Returns:
        `(batch, time, 2 * units)`, ``[forward; backward]``, zero at padding; the mask passes through.

    Example:
        >>> bilstm = BiLSTM(8)
        >>> mask = np.array([[True, True, True], [True, True, False]])
        >>> outputs = keras.ops.convert_to_numpy(bilstm(np.ones((2, 3, 4), "float32"), mask=mask))
        >>> outputs.shape, outputs[1, 2].tolist() == [0.0] * 16  # padding is zero
        ((2, 3, 16), True)
    """

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = int(units)
        self.supports_masking = True
        # not ``self.forward``: on the PyTorch backend a layer is a ``torch.nn.Module``, whose ``forward`` method
        # would hide the attribute (files saved before this name: ``models.legacy_files``)
        self.forward_lstm = LSTMStack(self.units, dtype=self.dtype_policy, name="forward")
        self.backward_lstm = LSTMStack(self.units, go_backwards=True, dtype=self.dtype_policy, name="backward")

    def build(self, input_shape):
        self.forward_lstm.build(input_shape)
        self.backward_lstm.build(input_shape)

    def call(self, inputs, mask=None, training=None):
        if mask is None:
            mask = ops.ones(ops.shape(inputs)[:2], dtype="bool")
        forward, backward = run_lstm_stacks([self.forward_lstm, self.backward_lstm], inputs, mask, training=training)
        return ops.concatenate([forward[-1], backward[-1]], axis=-1)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape[:-1]) + (2 * self.units,)

    def get_config(self):
        config = super().get_config()
        config.update({"units": self.units})
        return config


@keras.saving.register_keras_serializable(package="elmo_keras")
class TagHead(keras.layers.Layer):
    """One task's output: ``Dense(num_tags)`` emissions, then a per-token softmax or a ``CRF``.

    Args:
        num_tags: int, the task's label count.
        kind: ``"softmax"`` (independent per-token decisions) or ``"crf"`` (whole-sequence scores). Defaults to
            ``"softmax"``.
        constraints: the CRF's ``(allowed, allowed_start, allowed_end)`` bool arrays `(num_tags, num_tags)`,
            `(num_tags,)`, `(num_tags,)` (``tagging.allowed_transitions``); ``kind="crf"`` only. Defaults to None.

    Call arguments:
        inputs: `(batch, time, dim)` shared token representations.

    Returns:
        Emissions `(batch, time, num_tags)` (unnormalised scores).

    Example:
        >>> head = TagHead(num_tags=3, kind="crf")
        >>> emissions = head(np.ones((2, 4, 8), "float32"))
        >>> tags = np.array([[0, 1, 2, 0], [1, 1, -1, -1]])  # padded with PAD_TAG = -1
        >>> tuple(head.decode(emissions, tags >= 0).shape), tuple(head.loss(emissions, tags).shape)  # loss: a scalar
        ((2, 4), ())
    """

    def __init__(self, num_tags, kind="softmax", constraints=None, **kwargs):
        super().__init__(**kwargs)
        if kind not in HEAD_KINDS:
            raise ValueError(f"kind must be one of {HEAD_KINDS}, received {kind!r}")
        if constraints is not None and kind != "crf":
            raise ValueError("constraints need kind='crf' (a softmax head decides each token on its own)")
        self.num_tags, self.kind = int(num_tags), kind
        self.supports_masking = True  # keeps the time axis: the token mask passes through
        self.dense = keras.layers.Dense(self.num_tags, dtype=self.dtype_policy, name="emissions")
        self.crf = None
        if kind == "crf":
            self.crf = CRF(self.num_tags, constraints=constraints, dtype=self.dtype_policy, name="crf")

    def build(self, input_shape):
        self.dense.build(input_shape)
        if self.crf is not None:
            self.crf.build(tuple(input_shape[:-1]) + (self.num_tags,))

    def call(self, inputs):
        return self.dense(inputs)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape[:-1]) + (self.num_tags,)

    def loss(self, emissions, tags):
        """Mean over sentences of the negative log-likelihood (CRF) or of the summed token cross-entropy
        (softmax), so both heads weigh a sentence alike: a scalar float32.

        Args:
            emissions: `(batch, time, num_tags)`, this layer's output.
            tags: int `(batch, time)` tag ids, padded with ``PAD_TAG``.
        """
        mask = ops.greater(tags, PAD_TAG)
        safe_tags = ops.where(mask, tags, 0)
        emissions = ops.cast(emissions, "float32")
        if self.crf is not None:
            return ops.mean(-self.crf.log_likelihood(emissions, safe_tags, mask=mask))
        token_losses = keras.losses.sparse_categorical_crossentropy(safe_tags, emissions, from_logits=True)
        return ops.mean(ops.sum(ops.where(mask, token_losses, 0.0), axis=1))

    def decode(self, emissions, mask):
        """Best tag ids `(batch, time)` int32 (0 at padding): Viterbi for a CRF, per-token argmax otherwise.

        Args:
            emissions: `(batch, time, num_tags)`, this layer's output.
            mask: `(batch, time)` bool, right-padded.
        """
        if self.crf is not None:
            tags, _ = self.crf.viterbi_decode(ops.cast(emissions, "float32"), mask=mask)
            return tags
        return ops.where(mask, ops.cast(ops.argmax(emissions, axis=-1), "int32"), 0)

    def get_config(self):
        config = super().get_config()
        config.update({"num_tags": self.num_tags, "kind": self.kind,
                       "constraints": None if self.crf is None else self.crf.get_config().get("constraints")})
        return config
