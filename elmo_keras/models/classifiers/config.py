"""``ClassifierConfig``: which classifier ``train_text_classifier`` builds, its sizes and its training settings."""

from __future__ import annotations

from dataclasses import dataclass

from elmo_keras.argument_checks import check_finite_positive, check_int, check_rate
from elmo_keras.config_dicts import DictConfig
from elmo_keras.limits import check_batch_size

KINDS = ("cnn", "rnn-last", "rnn-pooled")
CELLS = ("lstm", "gru")  # the recurrent cells of the RNN classifier
POOLED_WITH = ("max", "mean")


@dataclass(frozen=True)
class ClassifierConfig(DictConfig):
    """Architecture and training settings for ``train_text_classifier`` (defaults: the page's and the
    experiments' models).

    Attributes:
        kind: ``"cnn"`` (``CNNTextClassifier``), ``"rnn-last"`` (``RNNTextClassifier``, ``pooling="last"``) or
            ``"rnn-pooled"`` (``pooling=pooled_with``).
        embedding_dim: int, word embedding width (both kinds).
        filter_heights, filters_per_height: the CNN's filters.
        units, cell, bidirectional, pooled_with: the RNN's (``pooled_with``: ``"max"`` or ``"mean"``, for
            ``rnn-pooled``).
        dropout: float in ``[0, 1)``, on the sentence vector, training only.
        epochs, batch_size, learning_rate: training settings (Adam).

    Raises:
        ValueError: a field of the wrong type or out of range (named, with the value received).
    """

    kind: str = "cnn"
    embedding_dim: int = 32
    filter_heights: tuple = (2, 3, 4)
    filters_per_height: int = 16
    units: int = 32
    cell: str = "lstm"
    bidirectional: bool = True
    pooled_with: str = "max"
    dropout: float = 0.3
    epochs: int = 12
    batch_size: int = 32
    learning_rate: float = 5e-3

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, received {self.kind!r}")
        if self.cell not in CELLS:
            raise ValueError(f"cell must be one of {CELLS}, received {self.cell!r}")
        if self.pooled_with not in POOLED_WITH:
            raise ValueError(f"pooled_with must be one of {POOLED_WITH}, received {self.pooled_with!r}")
        if isinstance(self.filter_heights, (int, str)) or not self.filter_heights:
            raise ValueError(f"filter_heights must be a non-empty sequence of positive ints, "
                             f"received {self.filter_heights!r}")
        object.__setattr__(self, "filter_heights", tuple(check_int(h, "each of filter_heights")
                                                         for h in self.filter_heights))
        for name in ("embedding_dim", "filters_per_height", "units", "epochs"):
            check_int(getattr(self, name), name)
        check_batch_size(self.batch_size)
        check_rate(self.dropout)
        check_finite_positive(self.learning_rate, "learning_rate")

    def model_kwargs(self) -> dict:
        """The constructor arguments of the model ``kind`` names (besides the vocabulary and the classes)."""
        if self.kind == "cnn":
            return {"embedding_dim": self.embedding_dim, "filter_heights": self.filter_heights,
                    "filters_per_height": self.filters_per_height, "dropout": self.dropout}
        return {"embedding_dim": self.embedding_dim, "units": self.units, "cell": self.cell,
                "bidirectional": self.bidirectional, "dropout": self.dropout,
                "pooling": "last" if self.kind == "rnn-last" else self.pooled_with}
