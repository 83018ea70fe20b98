"""``train_dialogue_model``: an HRED or a VHRED trained from scratch with teacher forcing, deterministic for a seed."""

from __future__ import annotations

from elmo_keras._quiet import keras
from elmo_keras.data.dialogue import dialogue_examples
from elmo_keras.models.callbacks import as_keras_callbacks
from elmo_keras.models.dialogue.config import DialogueConfig
from elmo_keras.models.dialogue.encoding import checked_dialogues, encode_dialogues
from elmo_keras.models.dialogue.hred import HRED
from elmo_keras.models.dialogue.vhred import VHRED
from elmo_keras.models.fitting import train_model
from elmo_keras.text.vocabulary import Vocabulary

MODEL_CLASSES = {"hred": HRED, "vhred": VHRED}


def dialogue_vocabulary(examples) -> Vocabulary:
    """A lowercase ``Vocabulary`` of every word in the histories and responses of ``examples`` (turns and responses
    as strings or word lists; see ``checked_dialogues``)."""
    return Vocabulary.from_corpus([[w for turn in history for w in turn] + response
                                   for history, response in checked_dialogues(examples)], lowercase=True)


def train_dialogue_model(examples=None, *, kind: str = "hred", config: DialogueConfig | dict | None = None,
                         seed: int = 0, vocabulary=None, callbacks=None, verbose: int = 0, **overrides) -> HRED:
    """Train an ``HRED`` or a ``VHRED`` from scratch, deterministically for a given ``seed``.

    Args:
        examples: ``[(history turns, response)]`` (word lists or strings), at most ``MAX_HISTORY_TURNS`` turns
            and ``MAX_UTTERANCE_TOKENS`` words per turn or response (checked first); default: the toy corpus's
            ``train`` split (``elmo_keras.data.dialogue``). Every option after it is keyword-only.
        kind: ``"hred"`` or ``"vhred"`` (overrides ``config.kind``). Defaults to ``"hred"``.
        config: a ``DialogueConfig`` (or its dict). Defaults to None (``DialogueConfig()``).
        seed: int, seeds Python, NumPy and the backend (weights, shuffling, word dropout, ``ε``). Defaults to 0.
        vocabulary: a fixed ``Vocabulary``; default: built from the whole toy corpus (or from ``examples``).
        callbacks: Keras callbacks and/or plain ``fn(epoch, logs)`` called after every epoch.
        verbose: Keras ``fit`` verbosity. Defaults to 0.
        **overrides: single ``DialogueConfig`` fields replacing the config's (``epochs=5``).

    Returns:
        The model, with ``vocabulary``, ``config`` and ``training_summary`` (per-epoch history, seconds).

    Raises:
        ValueError: no examples, an empty turn or response, a history without turns, a dialogue over the bounds
            (named, with its length and the limit), or a bad config field.
        TrainingDivergedError (a ValueError): the loss or the weights became NaN or infinite.
    """
    if isinstance(examples, str) and examples in MODEL_CLASSES:
        raise TypeError(f"the kind is keyword-only, the data comes first: train_dialogue_model(examples, "
                        f"kind={examples!r}) (received {examples!r} where the examples go)")
    config = config if isinstance(config, DialogueConfig) else DialogueConfig.from_dict(config or {})
    config = config.replace(kind=kind, **overrides)
    if examples is None:
        examples = dialogue_examples("train")
        vocabulary = vocabulary or dialogue_vocabulary(dialogue_examples("all"))
    examples = checked_dialogues(examples)  # every bound, before a vocabulary, an array or a model is built
    vocabulary = vocabulary or dialogue_vocabulary(examples)
    inputs, response_out = encode_dialogues(examples, vocabulary)
    adapters = as_keras_callbacks(callbacks)

    keras.utils.set_random_seed(int(seed))
    model = MODEL_CLASSES[config.kind](len(vocabulary), seed=int(seed), **config.model_kwargs())
    details = {"num_dialogues": len(examples), "steps_per_epoch": -(-len(examples) // config.batch_size)}
    return train_model(model, inputs, response_out, config=config, seed=seed, vocabulary=vocabulary,
                       callbacks=adapters, verbose=verbose, details=details, batch_size=config.batch_size, shuffle=True)


def train_hred(examples=None, **kwargs) -> HRED:
    """``train_dialogue_model(examples, kind="hred", **kwargs)``."""
    return train_dialogue_model(examples, kind="hred", **kwargs)


def train_vhred(examples=None, **kwargs) -> VHRED:
    """``train_dialogue_model(examples, kind="vhred", **kwargs)``."""
    return train_dialogue_model(examples, kind="vhred", **kwargs)
