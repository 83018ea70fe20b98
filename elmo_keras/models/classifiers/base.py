"""``TextClassifier``: what the CNN and the RNN classifier share — the embedding, the dropout on the sentence
vector, the softmax layer, the class names, and the arguments and checks of all that."""

from __future__ import annotations

from elmo_keras._quiet import keras
from elmo_keras.argument_checks import check_int, check_rate
from elmo_keras.models.classifiers.config import ClassifierConfig
from elmo_keras.models.model_directory import ModelDirectory
from elmo_keras.text.vocabulary import PAD_ID

POOLINGS = ("last", "mean", "max")


class TextClassifier(ModelDirectory, keras.Model):
    """Base of ``CNNTextClassifier`` and ``RNNTextClassifier``: ``softmax(W · dropout(sentence_vector) + b)``.

    Subclasses build their feature extractor and implement ``sentence_vectors(ids, training)`` → `(batch,
    sentence_dim)` and ``sentence_dim``.

    Args:
        vocab_size: int, rows of the word embedding.
        num_classes: int ≥ 2, classes of the softmax.
        embedding_dim: int, width of the word embeddings.
        dropout: float in ``[0, 1)``, on the sentence vector (training only).
        pad_id: int in ``[0, vocab_size)``, the padding id (masked everywhere).
        class_names: ``num_classes`` distinct strings, or None.

    Raises:
        ValueError: a size that is not a positive int, fewer than 2 classes, ``dropout`` outside ``[0, 1)``,
            ``pad_id`` outside ``[0, vocab_size)``, or ``class_names`` not ``num_classes`` distinct strings.
    """

    directory_config = ClassifierConfig  # model.save(directory) / TextClassifier.from_preset(directory)

    def __init__(self, vocab_size, num_classes, embedding_dim, dropout, pad_id=PAD_ID, class_names=None, **kwargs):
        super().__init__(**kwargs)
        for name, value in (("vocab_size", vocab_size), ("num_classes", num_classes),
                            ("embedding_dim", embedding_dim)):
            check_int(value, name)
        if num_classes < 2:
            raise ValueError(f"num_classes must be at least 2 (a classifier chooses between classes), "
                             f"received {num_classes}")
        if isinstance(pad_id, bool) or not isinstance(pad_id, int) or not 0 <= pad_id < vocab_size:
            raise ValueError(f"pad_id must be an int in [0, vocab_size={vocab_size}), received {pad_id!r}")
        if class_names is not None:
            names = (class_names,) if isinstance(class_names, str) else tuple(class_names)
            if len(names) != num_classes or len(set(names)) != len(names) or not all(isinstance(n, str) for n in names):
                raise ValueError(f"class_names must be {num_classes} distinct strings (one per class), "
                                 f"received {class_names!r}")
            class_names = names
        self.vocab_size, self.num_classes, self.embedding_dim = int(vocab_size), int(num_classes), int(embedding_dim)
        self.dropout, self.pad_id, self.class_names = check_rate(dropout), pad_id, class_names
        self.embedding = keras.layers.Embedding(vocab_size, embedding_dim, name="embedding", dtype=self.dtype_policy)
        self.dropout_layer = keras.layers.Dropout(self.dropout, name="dropout")
        self.output_layer = keras.layers.Dense(num_classes, activation="softmax", name="output",
                                               dtype=self.dtype_policy)
        self.vocabulary = None  # set by train_text_classifier / load_classifier
        self.config = None
        self.training_summary = {}

    @property
    def sentence_dim(self) -> int:
        """Width of the sentence vector the softmax reads."""
        raise NotImplementedError

    def sentence_vectors(self, ids, training=None):
        """int `(batch, time)` ids → float `(batch, sentence_dim)` sentence vectors."""
        raise NotImplementedError

    def call(self, inputs, training=None):
        vectors = self.sentence_vectors(inputs, training=training)  # (B, sentence_dim)
        return self.output_layer(self.dropout_layer(vectors, training=training))  # (B, C) probabilities

    def get_config(self):
        config = super().get_config()
        config.update({
            "vocab_size": self.vocab_size, "num_classes": self.num_classes, "embedding_dim": self.embedding_dim,
            "dropout": self.dropout, "pad_id": self.pad_id,
            "class_names": None if self.class_names is None else list(self.class_names),
        })
        return config
