"""``Seq2SeqConfig``: the architecture and training settings of ``train_seq2seq``."""

from __future__ import annotations

from dataclasses import dataclass

from elmo_keras.argument_checks import check_finite_positive, check_int, check_rate
from elmo_keras.config_dicts import DictConfig
from elmo_keras.limits import check_batch_size

CELLS = ("gru", "lstm")  # the recurrent cells Seq2Seq offers


@dataclass(frozen=True)
class Seq2SeqConfig(DictConfig):
    """Architecture and training settings for ``train_seq2seq`` (the defaults are the app's toy model).

    Attributes:
        cell: ``"gru"`` or ``"lstm"``.
        embedding_dim, units, num_layers: the ``Seq2Seq`` sizes (positive ints).
        dropout: float in ``[0, 1)``, on embeddings and between layers, training only.
        epochs, batch_size, learning_rate: training settings (Adam, gradients clipped to norm 5).

    Raises:
        ValueError: a field of the wrong type or out of range (named, with the value received).
    """

    cell: str = "gru"
    embedding_dim: int = 64
    units: int = 128
    num_layers: int = 1
    dropout: float = 0.1
    epochs: int = 25
    batch_size: int = 32
    learning_rate: float = 1e-2

    def __post_init__(self):
        if self.cell not in CELLS:
            raise ValueError(f"cell must be one of {CELLS}, received {self.cell!r}")
        for name in ("embedding_dim", "units", "num_layers", "epochs"):
            check_int(getattr(self, name), name)
        check_batch_size(self.batch_size)
        check_rate(self.dropout)
        check_finite_positive(self.learning_rate, "learning_rate")

    def model_kwargs(self) -> dict:
        """The fields that are ``Seq2Seq`` constructor arguments."""
        return {k: getattr(self, k) for k in ("cell", "embedding_dim", "units", "num_layers", "dropout")}
