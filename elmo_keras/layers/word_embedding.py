"""Word-level token encoder (``torch.nn.Embedding`` in a word-level biLM), with an optional linear projection."""

from __future__ import annotations

from elmo_keras._quiet import keras, ops
from elmo_keras.argument_checks import check_int
from elmo_keras.layers.input_checks import check_ids
from elmo_keras.text.vocabulary import PAD_ID


@keras.saving.register_keras_serializable(package="elmo_keras")
class WordEmbedding(keras.layers.Layer):
    """Token vectors from word ids: an embedding lookup, optionally followed by a linear projection.

    The projection lets a word-level biLM keep a small embedding (e.g. 128) while its layer 0, ``[x; x]``,
    has the same width as the LSTM layers above it (ELMo's character CNN projects the same way).
    Id ``PAD_ID`` (0) is padding: the mask is ``ids != 0``.

    Args:
        vocab_size: int, number of word ids (rows of the embedding table, padding included).
        embedding_dim: int, embedding size.
        projection_dim: int or None, the output size after a linear projection. Defaults to None (no
            projection: the output size is ``embedding_dim``).

    Call arguments:
        inputs: int `(batch_size, time)` word ids in ``[0, vocab_size)``.

    Returns:
        `(batch_size, time, projection_dim or embedding_dim)`, with mask `(batch_size, time)`.

    Example:
        >>> embed = WordEmbedding(vocab_size=50, embedding_dim=8, projection_dim=16)
        >>> ids = np.array([[2, 7, 3], [2, 3, 0]])  # 0 = padding
        >>> tuple(embed(ids).shape), keras.ops.convert_to_numpy(embed.compute_mask(ids)).tolist()
        ((2, 3, 16), [[True, True, True], [True, True, False]])
    """

    def __init__(self, vocab_size, embedding_dim, projection_dim=None, **kwargs):
        super().__init__(**kwargs)
        check_int(vocab_size, "vocab_size")
        check_int(embedding_dim, "embedding_dim")
        check_int(projection_dim, "projection_dim", allow_none=True)
        self.vocab_size = vocab_size
        self.embedding_dim = embedding_dim
        self.projection_dim = projection_dim
        self.output_dim = projection_dim or embedding_dim
        self.embedding = keras.layers.Embedding(vocab_size, embedding_dim, dtype=self.dtype_policy, name="embedding")
        self.projection = (
            keras.layers.Dense(projection_dim, dtype=self.dtype_policy, name="projection") if projection_dim else None
        )

    def build(self, input_shape):
        self.embedding.build(input_shape)
        if self.projection is not None:
            self.projection.build(tuple(input_shape) + (self.embedding_dim,))

    def call(self, inputs):
        check_ids(inputs, 2, self.vocab_size, f"WordEmbedding {self.name!r}", "word ids (batch, time)")
        x = self.embedding(ops.cast(inputs, "int32"))
        return self.projection(x) if self.projection is not None else x

    def compute_mask(self, inputs, mask=None):
        return ops.not_equal(inputs, PAD_ID)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape) + (self.output_dim,)

    def get_config(self):
        config = super().get_config()
        config.update(
            {"vocab_size": self.vocab_size, "embedding_dim": self.embedding_dim, "projection_dim": self.projection_dim}
        )
        return config
