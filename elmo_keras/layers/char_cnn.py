"""Character-CNN token encoder, configured exactly like the original ELMo ``options.json`` ``char_cnn`` block."""

from __future__ import annotations

from elmo_keras._quiet import keras, ops
from elmo_keras.layers.allennlp_layer_norm import AllenNLPLayerNorm
from elmo_keras.layers.highway import Highway
from elmo_keras.layers.input_checks import check_ids
from elmo_keras.layers.matmul_dtype import check_matmul_dtype, kernel_for, product
from elmo_keras.text.char_ids import MAX_CHARS_PER_TOKEN, NUM_CHAR_IDS

PROJECTION_LOCATIONS = ("after_highway", "after_cnn")  # AllenNLP's CnnHighwayEncoder(projection_location=...)


@keras.saving.register_keras_serializable(package="elmo_keras")
class CharCNN(keras.layers.Layer):
    """Token vectors from character ids: embed → convolve → max-pool → activation → highway → project (→ norm).

    For every token, characters are embedded, convolved with filters of several widths (each width with its
    own number of filters, "valid" padding), max-pooled over character positions, passed through the
    activation, concatenated, sent through ``n_highway`` highway layers and projected linearly to
    ``projection_dim``. Character id 0 means "no character": row 0 of the character embedding is ignored
    for padding tokens via the mask (token mask = any character id > 0).

    AllenNLP's ``CnnHighwayEncoder`` (its transformer ELMo's token encoder) adds two options: the projection
    ``"after_cnn"``, before the highways (which then have ``projection_dim`` units), and an ``AllenNLPLayerNorm``
    after everything (``layer_norm=True``, its ``do_layer_norm``).

    Args:
        embedding_dim: int, character embedding size (``char_cnn.embedding.dim``). Defaults to 16.
        filters: list of ``[width, count]`` int pairs (``char_cnn.filters``). Defaults to ELMo's seven widths
            1–7 with 2048 filters in all.
        n_highway: int, number of highway layers (``char_cnn.n_highway``). Defaults to 2.
        activation: ``"relu"`` or ``"tanh"`` after pooling (``char_cnn.activation``). Defaults to ``"relu"``.
        n_characters: int, rows of the character embedding (``char_cnn.n_characters``). Defaults to
            ``NUM_CHAR_IDS`` = 262 (261 character ids + "no character").
        max_characters_per_token: int, characters per token (``char_cnn.max_characters_per_token``). Defaults to
            ``MAX_CHARS_PER_TOKEN`` = 50.
        projection_dim: int, output size (``lstm.projection_dim`` in ELMo, so that ``[x; x]`` matches the LSTM
            width). Defaults to 512.
        projection_location: ``"after_highway"`` (ELMo's: highways at the filters' width, then the projection) or
            ``"after_cnn"`` (the projection, then highways at ``projection_dim``). Defaults to ``"after_highway"``.
        layer_norm: bool, AllenNLP's layer norm on the output (``AllenNLPLayerNorm``). Defaults to False.

    Call arguments:
        inputs: int `(batch_size, time, max_characters_per_token)` character ids (see ``batch_to_ids``), or those
            ids cut by ``text.char_ids.trim_character_padding`` to fewer positions (the same vectors, less work).
        matmul_dtype: None, or ``"bfloat16"`` for inference: convolutions, highway and projection products in
            bfloat16, pooling, biases, activations and the output in the compute dtype (``layers.matmul_dtype``).
            Defaults to None (the compute dtype).

    Returns:
        `(batch_size, time, projection_dim)`, with mask `(batch_size, time)`.

    Example:
        >>> from elmo_keras.text.char_ids import batch_to_ids
        >>> cnn = CharCNN(filters=[[1, 4], [2, 8]], n_highway=1, projection_dim=16)
        >>> ids = batch_to_ids([["Hello", "world", "!"], ["Hi"]])  # (2, 3, 50)
        >>> tuple(cnn(ids).shape), keras.ops.convert_to_numpy(cnn.compute_mask(ids)).tolist()
        ((2, 3, 16), [[True, True, True], [True, False, False]])
    """

    def __init__(
        self,
        embedding_dim=16,
        filters=((1, 32), (2, 32), (3, 64), (4, 128), (5, 256), (6, 512), (7, 1024)),
        n_highway=2,
        activation="relu",
        n_characters=NUM_CHAR_IDS,
        max_characters_per_token=MAX_CHARS_PER_TOKEN,
        projection_dim=512,
        projection_location="after_highway",
        layer_norm=False,
        **kwargs,
    ):
        super().__init__(**kwargs)
        filters = [tuple(int(v) for v in pair) for pair in filters]
        if not filters or any(len(pair) != 2 or min(pair) < 1 for pair in filters):
            raise ValueError(f"filters must be a non-empty list of [width, count] pairs >= 1, received {filters!r}")
        if max(width for width, _ in filters) > max_characters_per_token:
            raise ValueError(f"a filter width in {filters} exceeds max_characters_per_token={max_characters_per_token}")
        if activation not in ("relu", "tanh"):
            raise ValueError(f"activation must be 'relu' or 'tanh' (as in ELMo options), received {activation!r}")
        if projection_location not in PROJECTION_LOCATIONS:
            raise ValueError(f"projection_location must be one of {PROJECTION_LOCATIONS}, received "
                             f"{projection_location!r}")
        if not isinstance(layer_norm, bool):
            raise ValueError(f"layer_norm must be a bool, received {layer_norm!r}")
        self.embedding_dim = int(embedding_dim)
        self.filters = filters
        self.n_highway = int(n_highway)
        self.activation = activation
        self.n_characters = int(n_characters)
        self.max_characters_per_token = int(max_characters_per_token)
        self.projection_dim = int(projection_dim)
        self.projection_location = projection_location
        self.layer_norm = layer_norm
        self.num_filters = sum(count for _, count in filters)
        self.char_embedding = keras.layers.Embedding(
            self.n_characters, self.embedding_dim, dtype=self.dtype_policy, name="char_embedding",
            embeddings_initializer=keras.initializers.RandomUniform(-1.0, 1.0),
        )
        self.convolutions = [
            keras.layers.Conv1D(count, width, padding="valid", dtype=self.dtype_policy, name=f"conv_{i}")
            for i, (width, count) in enumerate(filters)
        ]
        self.highway = Highway(self.n_highway, activation="relu", dtype=self.dtype_policy, name="highway")
        self.projection = keras.layers.Dense(self.projection_dim, dtype=self.dtype_policy, name="projection")
        self.output_norm = AllenNLPLayerNorm(dtype=self.dtype_policy, name="layer_norm") if layer_norm else None

    @property
    def widest_filter(self) -> int:
        """The widest convolution's width: the padding positions ``trim_character_padding`` keeps."""
        return max(width for width, _ in self.filters)

    @property
    def highway_dim(self) -> int:
        """The highway layers' width: ``projection_dim`` after an ``"after_cnn"`` projection, else ``num_filters``."""
        return self.projection_dim if self.projection_location == "after_cnn" else self.num_filters

    def build(self, input_shape):
        self.char_embedding.build((None, self.max_characters_per_token))
        for conv in self.convolutions:
            conv.build((None, self.max_characters_per_token, self.embedding_dim))
        self.highway.build((None, self.highway_dim))
        self.projection.build((None, self.num_filters))
        if self.output_norm is not None:
            self.output_norm.build((None, self.projection_dim))

    def call(self, inputs, matmul_dtype=None):
        check_matmul_dtype(matmul_dtype)
        check_ids(
            inputs, 3, self.n_characters, f"CharCNN {self.name!r}",
            f"character ids (batch, time, {self.max_characters_per_token}) from batch_to_ids",
        )
        width = inputs.shape[-1]
        if width is not None and not self.widest_filter <= width <= self.max_characters_per_token:
            raise ValueError(
                f"CharCNN {self.name!r} expects {self.max_characters_per_token} character ids per token (batch_to_ids "
                f"pads and cuts every token to that; trim_character_padding keeps at least {self.widest_filter}), "
                f"received {width} (shape {tuple(inputs.shape)})"
            )
        inputs = ops.cast(inputs, "int32")
        shape = ops.shape(inputs)
        chars = ops.reshape(inputs, (-1, shape[2]))  # (B*T, C)
        embedded = self.char_embedding(chars)  # (B*T, C, E)
        if matmul_dtype is not None:
            embedded = ops.cast(embedded, matmul_dtype)
        pooled = []
        for conv in self.convolutions:
            # each conv layer's own arithmetic, with the bias added after the max over character positions (the
            # same numbers: rounding is monotonic) on the narrower (B*T, count)
            responses = ops.conv(embedded, kernel_for(conv.kernel, matmul_dtype, self.compute_dtype))  # (B*T, C-w+1, n)
            features = ops.cast(ops.max(responses, axis=1), self.compute_dtype) + conv.bias  # (B*T, count)
            pooled.append(ops.relu(features) if self.activation == "relu" else ops.tanh(features))
        tokens = ops.concatenate(pooled, axis=-1)  # (B*T, num_filters)
        if self.projection_location == "after_cnn":
            tokens = self._project(tokens, matmul_dtype)  # (B*T, projection_dim)
        tokens = self.highway(tokens, matmul_dtype=matmul_dtype)  # (B*T, highway_dim)
        if self.projection_location == "after_highway":
            tokens = self._project(tokens, matmul_dtype)  # (B*T, projection_dim)
        if self.output_norm is not None:
            tokens = self.output_norm(tokens)
        return ops.reshape(tokens, (shape[0], shape[1], self.projection_dim))

    def _project(self, tokens, matmul_dtype):
        """``tokens · W + b``: `(B*T, num_filters)` → `(B*T, projection_dim)`."""
        projection = kernel_for(self.projection.kernel, matmul_dtype, self.compute_dtype)
        return product(tokens, projection) + self.projection.bias

    def compute_mask(self, inputs, mask=None):
        return ops.any(ops.cast(inputs, "int32") > 0, axis=-1)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape[:2]) + (self.projection_dim,)

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "embedding_dim": self.embedding_dim,
                "filters": [list(pair) for pair in self.filters],
                "n_highway": self.n_highway,
                "activation": self.activation,
                "n_characters": self.n_characters,
                "max_characters_per_token": self.max_characters_per_token,
                "projection_dim": self.projection_dim,
                "projection_location": self.projection_location,
                "layer_norm": self.layer_norm,
            }
        )
        return config
