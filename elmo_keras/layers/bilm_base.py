"""``BiLMBase``: what every biLM shares — the token encoder, the output contract — around one contextualizer hook."""

from __future__ import annotations

from elmo_keras._quiet import keras, ops
from elmo_keras.layers.char_cnn import CharCNN
from elmo_keras.layers.matmul_dtype import MATMUL_DTYPES, check_matmul_dtype


def token_encoder_from(token_encoder) -> keras.layers.Layer:
    """``token_encoder`` as a layer: a ``keras.layers.Layer`` as is, a serialized config (dict) deserialized.

    Raises:
        ValueError: anything else, naming what was received.
    """
    if isinstance(token_encoder, dict):
        token_encoder = keras.saving.deserialize_keras_object(token_encoder)
    if not isinstance(token_encoder, keras.layers.Layer):
        raise ValueError(f"token_encoder must be a keras Layer (WordEmbedding, CharCNN), received {token_encoder!r}")
    return token_encoder


def token_encoder_width(token_encoder) -> int | None:
    """The width ``dim`` of the token vectors ``token_encoder`` gives (``output_dim``, else ``projection_dim``), or
    None when the layer declares neither."""
    return getattr(token_encoder, "output_dim", getattr(token_encoder, "projection_dim", None))


class BiLMBase(keras.layers.Layer):
    """Token encoder → contextualizer → every layer, forward and backward joined: the contract of every biLM.

    ``activations = [[x; x], [f_1; b_1], ..., [f_L; b_L]]`` with ``x`` the token vectors and ``f_k``, ``b_k`` the
    contextualizer's forward and backward layer ``k`` (each `(batch, time, dim)`); padded positions are zero in
    every layer. ``ScalarMix``, ``Elmo``, the language model, the analysis helpers and the explorer read only this
    contract, ``num_activation_layers`` and ``output_dim``, so any contextualizer plugs in behind them.

    A subclass (``BiLM``: LSTMs; ``TransformerBiLM``: transformer blocks) creates its contextualizer's sublayers in
    ``__init__`` after ``super().__init__(token_encoder, ...)``, sets ``num_layers`` (``L``) and ``output_dim``
    (``2 * dim``), and implements two hooks:

    - ``build_contextualizer(token_shape)``: build those sublayers for token vectors of ``token_shape``;
    - ``contextualize(tokens, mask, training, matmul_dtype) -> (forward_layers, backward_layers)``: two lists of
      ``L`` tensors `(batch, time, dim)`, zero at padding; forward layer ``k`` at position ``t`` has seen tokens
      ``≤ t`` only, backward layer ``k`` tokens ``≥ t`` only (so the tops can predict the next and the previous word).

    ``matmul_dtypes`` (a class attribute) lists the ``matmul_dtype`` values the contextualizer supports; ``stateful``
    is False unless the subclass carries state across calls (then it also overrides ``reset_states``).

    Args:
        token_encoder: ``keras.layers.Layer`` mapping the input ids to `(batch, time, dim)` with a `(batch, time)`
            mask (``WordEmbedding`` or ``CharCNN``), or its serialized config (dict).
        **kwargs: ``keras.layers.Layer`` arguments (``name``, ``dtype``, ``trainable``).

    Call arguments:
        inputs: int word ids `(batch_size, time)` or character ids `(batch_size, time, 50)`, boundaries included.
        training: bool; the contextualizer's dropout only when True.
        matmul_dtype: None, or one of ``matmul_dtypes`` for inference (``layers.matmul_dtype``). Defaults to None.

    Returns:
        ``{"activations": num_layers + 1 tensors (batch_size, time, output_dim), "mask": (batch_size, time) bool}``.
    """

    matmul_dtypes = MATMUL_DTYPES
    stateful = False

    def __init__(self, token_encoder, **kwargs):
        super().__init__(**kwargs)
        self.token_encoder = token_encoder_from(token_encoder)

    @property
    def num_activation_layers(self) -> int:
        """Number of entries in ``activations``: the token layer plus every contextual layer (``num_layers + 1``)."""
        return self.num_layers + 1

    @property
    def token_input(self) -> str:
        """What a token enters this biLM as: ``"char"`` (ELMo character ids, a ``CharCNN``) or ``"word"`` (ids)."""
        return "char" if isinstance(self.token_encoder, CharCNN) else "word"

    @property
    def input_ids_shape(self) -> tuple:
        """The shape of the ids this biLM reads: `(None, None)` word ids or `(None, None, chars)` character ids."""
        if self.token_input == "char":
            return (None, None, self.token_encoder.max_characters_per_token)
        return (None, None)

    @classmethod
    def from_preset(cls, name_or_path, *, stateful: bool = False, include_softmax: bool = False) -> "BiLMBase":
        """The built biLM layer, with its weights, that ``name_or_path`` names: a preset name (``"elmo_small_en"``,
        ``"elmo_transformer_en"``, …), an http(s) URL of a model.tar.gz, a model directory, an AllenNLP archive or
        its folder, or ``(options.json, weights.hdf5)`` (``elmo_keras.pretrained.presets``).

        ``BiLMBase.from_preset`` gives whichever biLM the files hold; ``BiLM.from_preset`` and
        ``TransformerBiLM.from_preset`` refuse the other kind in one line. ``stateful``: carry LSTM state across
        calls (an LSTM ``BiLM`` only); ``include_softmax``: also read an AllenNLP archive's softmax (``.softmax``).

        Raises:
            TypeError, ValueError, FileNotFoundError: as ``elmo_keras.load_preset`` (one line, before any download);
                TypeError also for a biLM of another class than ``cls``.
        """
        # the resolver lives on the pretrained floor, above layers: reached on first use through the package's
        # public names (elmo_keras.load_preset), so this module imports nothing from above it and has no cycle
        import elmo_keras

        bilm = elmo_keras.load_preset(name_or_path, stateful=stateful, include_softmax=include_softmax).bilm
        if not isinstance(bilm, cls):
            raise TypeError(f"{name_or_path!r:.100} holds a {type(bilm).__name__}, not a {cls.__name__}: load it "
                            f"with {type(bilm).__name__}.from_preset or BiLMBase.from_preset")
        return bilm

    def copy(self, **overrides) -> "BiLMBase":
        """A new biLM of this class with this configuration (``overrides`` replace fields, e.g. ``dropout=0.0``)
        and, when this one is built, a copy of its weights."""
        copy = type(self).from_config({**self.get_config(), **overrides})
        if self.built:
            copy.build(self.input_ids_shape)
            copy.set_weights(self.get_weights())
        if getattr(self, "pretrained_files", None):  # the files it was loaded from (export_pretrained checks them)
            copy.pretrained_files = dict(self.pretrained_files)
        return copy

    def build(self, input_shape):
        if not self.token_encoder.built:  # a deserialized encoder arrives built
            self.token_encoder.build(input_shape)
        self.build_contextualizer(self.token_encoder.compute_output_shape(input_shape))

    def build_contextualizer(self, token_shape):
        """Build the contextualizer's sublayers for token vectors of ``token_shape`` `(batch, time, dim)`."""
        raise NotImplementedError(f"{type(self).__name__} must implement build_contextualizer")

    def contextualize(self, tokens, mask, training=None, matmul_dtype=None):
        """``(forward_layers, backward_layers)``: two lists of ``num_layers`` tensors `(batch, time, dim)` from the
        token vectors ``tokens`` `(batch, time, dim)` (zero at padding) and ``mask`` `(batch, time)` bool."""
        raise NotImplementedError(f"{type(self).__name__} must implement contextualize")

    def call(self, inputs, training=None, matmul_dtype=None):
        tokens, forward, backward, mask = self.directional_outputs(inputs, training=training,
                                                                   matmul_dtype=matmul_dtype)
        activations = [ops.concatenate([tokens, tokens], axis=-1)]  # layer 0 = [x; x]
        activations += [ops.concatenate([f, b], axis=-1) for f, b in zip(forward, backward)]  # [f_k; b_k]
        return {"activations": activations, "mask": mask}

    def directional_outputs(self, inputs, training=None, matmul_dtype=None):
        """The pieces ``call`` concatenates: ``(tokens, forward, backward, mask)``.

        The language model reads its top layer from here (``forward[-1]`` predicts the next word, ``backward[-1]``
        the previous one), which spares training the gradient of slicing the concatenation apart. The layer must be
        built (call it once, or ``build``).

        Args:
            inputs: as for ``call``: int `(batch, time)` word ids or `(batch, time, 50)` character ids.
            training: bool or None; the contextualizer's dropout only when True.
            matmul_dtype: as for ``call``.

        Returns:
            ``tokens`` `(batch, time, dim)` (padding zeroed); ``forward`` and ``backward``: lists of
            ``num_layers`` tensors `(batch, time, dim)`; ``mask`` `(batch, time)` bool.

        Raises:
            ValueError: a ``matmul_dtype`` this biLM does not support, or one given with ``training``.
        """
        check_matmul_dtype(matmul_dtype, training)
        if matmul_dtype is not None and matmul_dtype not in self.matmul_dtypes:
            allowed = " or ".join(["None", *map(repr, self.matmul_dtypes)])
            raise ValueError(f"{type(self).__name__} takes matmul_dtype {allowed}, received {matmul_dtype!r}")
        narrowed = matmul_dtype is not None and isinstance(self.token_encoder, CharCNN)
        tokens = self.token_encoder(inputs, matmul_dtype=matmul_dtype) if narrowed else self.token_encoder(inputs)
        mask = self.token_encoder.compute_mask(inputs)  # (B, T)
        keep = ops.expand_dims(ops.cast(mask, tokens.dtype), -1)
        tokens = tokens * keep  # (B, T, dim)
        forward, backward = self.contextualize(tokens, mask, training=training, matmul_dtype=matmul_dtype)
        return tokens, forward, backward, mask

    def reset_states(self):
        """Clear state carried across calls; a stateless biLM has none, so this does nothing."""

    def compute_output_shape(self, input_shape):
        shape = tuple(input_shape[:2]) + (self.output_dim,)
        return {"activations": [shape] * self.num_activation_layers, "mask": tuple(input_shape[:2])}

    def get_config(self):
        config = super().get_config()
        config["token_encoder"] = keras.saving.serialize_keras_object(self.token_encoder)
        return config
