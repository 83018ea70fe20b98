"""The LSTM biLM: token encoder + forward and backward LSTM stacks, behind ``BiLMBase``'s output contract."""

from __future__ import annotations

from elmo_keras._quiet import keras
from elmo_keras.layers.bilm_base import BiLMBase, token_encoder_width
from elmo_keras.layers.lstm_stack import LSTMStack, run_lstm_stacks


@keras.saving.register_keras_serializable(package="elmo_keras")
class BiLM(BiLMBase):
    """Token encoder → untied forward and backward ``LSTMStack`` → every layer's activations.

    Output contract (``BiLMBase``'s, relied on by ``ScalarMix``, ``Elmo``, the analysis helpers and the app)::

        {"activations": [layer_0, layer_1, ..., layer_L], "mask": (batch, time) bool}

    ``layer_0 = [x; x]`` (the context-free token vectors, duplicated so every layer has the same width),
    ``layer_j = [forward_j; backward_j]``; each `(batch, time, 2 * dim)`, forward half first. Padded
    positions are zero in every layer. The layer does not add ``<S>``/``</S>``: pass them in the input
    (``add_sentence_boundaries``) as the language model was trained with them. Both directions get the same
    LSTM settings (below) and weights of their own.

    Stateless by default: the same sentence gives the same activations whatever else is in the batch and
    however often it is called. ``stateful=True`` (eager only) carries LSTM state per batch row across
    calls like the original ELMo; ``reset_states()`` clears it.

    Args:
        token_encoder: ``keras.layers.Layer`` mapping the input ids to `(batch, time, dim)` with a `(batch, time)`
            mask (``WordEmbedding`` or ``CharCNN``), or its serialized config (dict); ``dim`` must equal the
            LSTM output width, ``projection_dim or units``.
        units: int, memory cells per LSTM layer.
        num_layers: int, LSTM layers per direction. Defaults to 2.
        projection_dim, cell_clip, proj_clip: see ``ProjectedLSTMCell``. Default to None (no projection, no clip).
        use_skip_connections: bool, residual connections into LSTM layers 2..n. Defaults to False.
        dropout: float in ``[0, 1)``, between LSTM layers, in training only. Defaults to 0.
        stateful: bool, carry LSTM state across calls (see above). Defaults to False.
        unroll: bool, unroll the LSTM time loops when the length is static: the form XLA compiles best, for
            inference only. Defaults to False.

    Call arguments:
        inputs: int word ids `(batch_size, time)` or character ids `(batch_size, time, 50)`, boundaries included.
        training: bool; dropout between LSTM layers only when True.
        matmul_dtype: None, or ``"bfloat16"`` for inference: the matmuls (and a ``CharCNN``'s convolutions) run in
            it, their kernels cast once per call and their inputs at each product, which accumulates in float32;
            LSTM states, nonlinearities, clipping, skip connections and the activations stay in the compute dtype
            (``layers.matmul_dtype``). A ``WordEmbedding`` is a lookup and stays as it is. Defaults to None.

    Returns:
        ``{"activations": num_layers + 1 tensors (batch_size, time, 2 * dim), "mask": (batch_size, time) bool}``.

    Example:
        >>> from elmo_keras.layers import WordEmbedding
        >>> bilm = BiLM(WordEmbedding(50, 16), units=32, projection_dim=16, num_layers=2)
        >>> ids = np.array([[2, 7, 9, 3], [2, 5, 3, 0]])  # <S> … </S>; the second sentence is padded with 0
        >>> outputs = bilm(ids)
        >>> [tuple(layer.shape) for layer in outputs["activations"]]
        [(2, 4, 32), (2, 4, 32), (2, 4, 32)]
        >>> keras.ops.convert_to_numpy(outputs["mask"]).tolist()
        [[True, True, True, True], [True, True, True, False]]
    """

    CONTEXTUALIZER = "lstm"  # BiLMConfig.contextualizer
    # the attributes that fix the weights beside the token encoder's, named as BiLMConfig names them (a saved model
    # directory's training.json is checked against them: models.persistence)
    ARCHITECTURE_FIELDS = ("units", "num_layers", "projection_dim", "cell_clip", "proj_clip", "use_skip_connections")

    def __init__(
        self,
        token_encoder,
        units,
        num_layers=2,
        projection_dim=None,
        cell_clip=None,
        proj_clip=None,
        use_skip_connections=False,
        dropout=0.0,
        stateful=False,
        unroll=False,
        **kwargs,
    ):
        super().__init__(token_encoder, **kwargs)
        stack_args = dict(
            units=units, num_layers=num_layers, projection_dim=projection_dim, cell_clip=cell_clip,
            proj_clip=proj_clip, use_skip_connections=use_skip_connections, dropout=dropout, stateful=stateful,
            unroll=unroll, dtype=self.dtype_policy,
        )
        self.forward_lstm = LSTMStack(go_backwards=False, name="forward_lstm", **stack_args)
        self.backward_lstm = LSTMStack(go_backwards=True, name="backward_lstm", **stack_args)
        self.units = units
        self.num_layers = num_layers
        self.projection_dim = projection_dim
        self.cell_clip = cell_clip
        self.proj_clip = proj_clip
        self.use_skip_connections = bool(use_skip_connections)
        self.dropout = float(dropout)
        self.stateful = bool(stateful)
        self.unroll = bool(unroll)
        self.output_dim = 2 * self.forward_lstm.output_dim
        encoder_dim = token_encoder_width(self.token_encoder)
        if encoder_dim is not None and encoder_dim != self.forward_lstm.output_dim:
            raise ValueError(
                f"the token encoder's output width ({encoder_dim}) must equal the LSTM output width "
                f"(projection_dim or units = {self.forward_lstm.output_dim}) so that layer 0 = [x; x] matches "
                "the other layers; set the encoder's projection_dim accordingly"
            )

    def build_contextualizer(self, token_shape):
        self.forward_lstm.build(token_shape)
        self.backward_lstm.build(token_shape)

    def contextualize(self, tokens, mask, training=None, matmul_dtype=None):
        """Both LSTM stacks over ``tokens`` (``BiLMBase``'s hook): ``num_layers`` forward and backward states."""
        if self.stateful:
            lstm_args = dict(mask=mask, training=training, matmul_dtype=matmul_dtype)
            forward = self.forward_lstm(tokens, **lstm_args)  # L × (B, T, dim)
            backward = self.backward_lstm(tokens, **lstm_args)
            return forward, backward
        # both directions in one loop per layer: same results, half the loop iterations
        return run_lstm_stacks([self.forward_lstm, self.backward_lstm], tokens, mask, training, matmul_dtype)

    def reset_states(self):
        """Clear the carried LSTM state of both directions (``stateful=True`` only; harmless otherwise)."""
        self.forward_lstm.reset_states()
        self.backward_lstm.reset_states()

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "units": self.units,
                "num_layers": self.num_layers,
                "projection_dim": self.projection_dim,
                "cell_clip": self.cell_clip,
                "proj_clip": self.proj_clip,
                "use_skip_connections": self.use_skip_connections,
                "dropout": self.dropout,
                "stateful": self.stateful,
                "unroll": self.unroll,
            }
        )
        return config
