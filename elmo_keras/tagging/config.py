"""``TaggerConfig``: the sizes and training settings of both taggers, in its own module so that the tagger models
(``SequenceTagger.directory_config``) and their training (``tagging.training``) both read it without an import
cycle."""

from __future__ import annotations

from dataclasses import dataclass

from elmo_keras.argument_checks import check_finite_positive, check_int, check_rate
from elmo_keras.config_dicts import DictConfig
from elmo_keras.limits import check_batch_size


@dataclass(frozen=True)
class TaggerConfig(DictConfig):
    """Sizes and training settings shared by both taggers (the defaults are sized for the shipped toy tasks).

    Attributes:
        word_dim: word embedding size. char_dim: char-CNN token vector size (0 = none).
        units: LSTM units per direction. dropout: training only.
        epochs, batch_size, learning_rate: Adam training. min_count: rarer training words read as ``<unk>``.
        lowercase: lowercase words before lookup. bilm_mode: ``"mix"`` or ``"top"`` (how biLM vectors are read).
    """

    word_dim: int = 48
    char_dim: int = 0
    units: int = 48
    dropout: float = 0.25
    epochs: int = 12
    batch_size: int = 16
    learning_rate: float = 5e-3
    min_count: int = 2
    lowercase: bool = True
    bilm_mode: str = "mix"

    def __post_init__(self):
        for name in ("word_dim", "units", "epochs", "min_count"):
            check_int(getattr(self, name), name)
        check_int(self.char_dim, "char_dim", minimum=0)
        check_batch_size(self.batch_size)
        check_finite_positive(self.learning_rate, "learning_rate")
        check_rate(self.dropout)
