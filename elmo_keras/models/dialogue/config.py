"""``DialogueConfig``: the architecture and training settings of ``train_dialogue_model`` (HRED or VHRED)."""

from __future__ import annotations

from dataclasses import dataclass

from elmo_keras.argument_checks import check_finite_positive, check_int, check_non_negative, check_rate
from elmo_keras.config_dicts import DictConfig
from elmo_keras.limits import check_batch_size

KINDS = ("hred", "vhred")
HRED_FIELDS = ("embedding_dim", "utterance_units", "context_units", "decoder_units", "cell", "word_dropout",
               "last_turn_only", "feed_context")
VHRED_FIELDS = ("latent_dim", "latent_hidden", "kl_annealing_steps", "bow_weight", "free_bits")

CELLS = ("gru", "lstm")  # the recurrent cells of HRED and VHRED


@dataclass(frozen=True)
class DialogueConfig(DictConfig):
    """Architecture and training settings for ``train_dialogue_model`` (the defaults are the page's toy models).

    Attributes:
        kind: ``"hred"`` or ``"vhred"``.
        cell: ``"gru"`` or ``"lstm"``.
        embedding_dim, utterance_units, context_units, decoder_units: the ``HRED`` sizes (positive ints).
        latent_dim, latent_hidden: VHRED's ``z`` width and prior/posterior MLP width (ignored by HRED).
        kl_annealing_steps: int ≥ 0, VHRED's linear KL warm-up in updates (0: off).
        word_dropout: float in ``[0, 1)``, decoder input words replaced by ``<unk>`` in training (never at
            inference).
        last_turn_only: bool, the model reads only the last history turn (the ablation without context).
        feed_context: bool, the decoder reads its conditioning (``c``; VHRED ``[c; z]``) at every step.
        bow_weight: float ≥ 0, VHRED's bag-of-words loss on ``z`` (0: off).
        free_bits: float ≥ 0, VHRED's KL floor in nats per latent dimension (0: off).
        epochs, batch_size, learning_rate: training settings (Adam, gradients clipped to norm 5).

    Raises:
        ValueError: a field of the wrong type or out of range (named, with the value received).
    """

    kind: str = "hred"
    cell: str = "gru"
    embedding_dim: int = 24
    utterance_units: int = 32
    context_units: int = 32
    decoder_units: int = 48
    latent_dim: int = 8
    latent_hidden: int = 32
    kl_annealing_steps: int = 0
    word_dropout: float = 0.0
    last_turn_only: bool = False
    feed_context: bool = False
    bow_weight: float = 0.0
    free_bits: float = 0.0
    epochs: int = 12
    batch_size: int = 32
    learning_rate: float = 1e-2

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, received {self.kind!r}")
        if self.cell not in CELLS:
            raise ValueError(f"cell must be one of {CELLS}, received {self.cell!r}")
        for name in ("embedding_dim", "utterance_units", "context_units", "decoder_units", "latent_dim",
                     "latent_hidden", "epochs"):
            check_int(getattr(self, name), name)
        check_int(self.kl_annealing_steps, "kl_annealing_steps", minimum=0)
        check_batch_size(self.batch_size)
        check_rate(self.word_dropout, "word_dropout")
        for name in ("last_turn_only", "feed_context"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be True or False, received {getattr(self, name)!r}")
        check_non_negative(self.bow_weight, "bow_weight")
        check_non_negative(self.free_bits, "free_bits")
        check_finite_positive(self.learning_rate, "learning_rate")

    def model_kwargs(self) -> dict:
        """The fields that are constructor arguments of the model ``kind`` names."""
        names = HRED_FIELDS + (VHRED_FIELDS if self.kind == "vhred" else ())
        return {name: getattr(self, name) for name in names}
