"""``RNNTextClassifier``: word embeddings → (Bi)LSTM or (Bi)GRU → one sentence vector → softmax.

The sentence vector is the last hidden state (Ravuri & Stolcke 2015) or a pool over all of them
(Lee & Dernoncourt 2016). With two directions, "last" means each direction's own last step: the forward RNN's
state at the last real token and the backward RNN's state at the first token (it reads right to left).
"""

from __future__ import annotations

from elmo_keras._quiet import keras, ops
from elmo_keras.argument_checks import check_int
from elmo_keras.models.classifiers.base import POOLINGS, TextClassifier
from elmo_keras.models.classifiers.config import CELLS
from elmo_keras.text.vocabulary import PAD_ID


@keras.saving.register_keras_serializable(package="elmo_keras")
class RNNTextClassifier(TextClassifier):
    """A recurrent sentence classifier: ``softmax(W · pool(h_1 … h_T) + b)``.

    Args:
        vocab_size: int, rows of the word embedding.
        num_classes: int ≥ 2, classes of the softmax.
        embedding_dim: int, width of the word embeddings. Defaults to 32.
        units: int, hidden units per direction. Defaults to 32.
        cell: ``"lstm"`` or ``"gru"``. Defaults to ``"lstm"``.
        bidirectional: bool, a backward RNN too (states concatenated, forward half first). Defaults to True.
        pooling: ``"last"`` (forward: state at the last real token; backward: state at the first token),
            ``"mean"`` or ``"max"`` over the real tokens' states. Defaults to ``"last"``.
        dropout: float in ``[0, 1)``, on the embeddings and on the sentence vector, training only. Defaults to 0.
        pad_id: int, the padding id (masked everywhere). Defaults to ``PAD_ID`` (0).
        class_names: ``num_classes`` distinct strings, or None. Defaults to None.

    Call arguments:
        inputs: int `(batch, time)` word ids, right-padded with ``pad_id``; every row needs a real token.
        training: bool; dropout only when True. Defaults to None (False).

    Returns:
        Class probabilities `(batch, num_classes)`. Padding never changes a sentence's output: the RNNs skip
        masked steps and the pooling reads real tokens only.

    Raises:
        ValueError: a bad size, an unknown ``cell`` or ``pooling``, ``dropout`` outside ``[0, 1)``, a ``pad_id``
            outside the vocabulary or bad ``class_names``.

    Example:
        >>> model = RNNTextClassifier(vocab_size=50, num_classes=2, pooling="mean")
        >>> tuple(model(np.array([[5, 6, 7, 0]])).shape)
        (1, 2)
    """

    def __init__(self, vocab_size, num_classes, embedding_dim=32, units=32, cell="lstm", bidirectional=True,
                 pooling="last", dropout=0.0, pad_id=PAD_ID, class_names=None, **kwargs):
        super().__init__(vocab_size, num_classes, embedding_dim, dropout, pad_id, class_names, **kwargs)
        if cell not in CELLS:
            raise ValueError(f"cell must be one of {CELLS}, received {cell!r}")
        if pooling not in POOLINGS:
            raise ValueError(f"pooling must be one of {POOLINGS}, received {pooling!r}")
        if not isinstance(bidirectional, bool):
            raise ValueError(f"bidirectional must be True or False, received {bidirectional!r}")
        self.units = check_int(units, "units")
        self.cell, self.bidirectional, self.pooling = cell, bidirectional, pooling
        rnn = keras.layers.LSTM if cell == "lstm" else keras.layers.GRU
        self.rnn = rnn(units, return_sequences=True, name=cell, dtype=self.dtype_policy)
        if bidirectional:
            self.rnn = keras.layers.Bidirectional(self.rnn, merge_mode="concat", name=f"bi{cell}",
                                                  dtype=self.dtype_policy)

    @property
    def sentence_dim(self) -> int:
        """Width of the sentence vector: ``units``, twice that with two directions."""
        return self.units * (2 if self.bidirectional else 1)

    def build(self, input_shape=None):
        self.embedding.build((None, None))
        self.rnn.build((None, None, self.embedding_dim))
        self.output_layer.build((None, self.sentence_dim))

    def sentence_vectors(self, ids, training=None):
        """The pooled sentence vectors `(batch, sentence_dim)` for int `(batch, time)` ids."""
        ids = ops.cast(ids, "int32")
        mask = ops.not_equal(ids, self.pad_id)  # (B, T)
        x = self.dropout_layer(self.embedding(ids), training=training)  # (B, T, E)
        states = self.rnn(x, mask=mask, training=training)  # (B, T, D); backward half re-aligned to positions
        real = ops.cast(mask, states.dtype)[..., None]  # (B, T, 1)
        if self.pooling == "mean":
            return ops.sum(states * real, axis=1) / ops.maximum(ops.sum(real, axis=1), 1.0)
        if self.pooling == "max":
            return ops.max(ops.where(real > 0, states, float("-inf")), axis=1)
        last = ops.maximum(ops.sum(ops.cast(mask, "int32"), axis=1) - 1, 0)  # (B,) index of the last real token
        forward = ops.take_along_axis(states[..., : self.units], last[:, None, None], axis=1)[:, 0]  # (B, U)
        if not self.bidirectional:
            return forward
        return ops.concatenate([forward, states[:, 0, self.units :]], axis=-1)  # backward: its state at token 0

    def architecture(self) -> dict:
        """The fields that fix the weights (compared with ``training.json``'s config on loading)."""
        return {"kind": f"rnn-{'last' if self.pooling == 'last' else 'pooled'}", "embedding_dim": self.embedding_dim,
                "units": self.units, "cell": self.cell, "bidirectional": self.bidirectional}

    def get_config(self):
        config = super().get_config()
        config.update({"units": self.units, "cell": self.cell, "bidirectional": self.bidirectional,
                       "pooling": self.pooling})
        return config
