"""``train_seq2seq``: a ``Seq2Seq`` trained from scratch with teacher forcing, deterministically for a seed."""

from __future__ import annotations

from elmo_keras._quiet import keras
from elmo_keras.data.seq2seq import seq2seq_pairs
from elmo_keras.limits import check_length
from elmo_keras.models.callbacks import as_keras_callbacks
from elmo_keras.models.fitting import train_model
from elmo_keras.models.seq2seq.config import Seq2SeqConfig
from elmo_keras.models.seq2seq.encoding import MAX_SEQ2SEQ_TOKENS, encode_pairs
from elmo_keras.models.seq2seq.model import Seq2Seq
from elmo_keras.text.sentences import sentence_tokens
from elmo_keras.text.vocabulary import Vocabulary


def train_seq2seq(pairs=None, *, config: Seq2SeqConfig | dict | None = None, seed: int = 0, vocabulary=None,
                  callbacks=None, verbose: int = 0, **overrides) -> Seq2Seq:
    """Train a ``Seq2Seq`` from scratch, deterministically for a given ``seed``.

    Args:
        pairs: ``[(source, target)]``, each a word list or a string (split into words by ``tokenize``, the
            tokenizer of the rest of training) of at most ``MAX_SEQ2SEQ_TOKENS`` words; default: the toy corpus's
            weighted training split. Every option after ``pairs`` is keyword-only.
        config: a ``Seq2SeqConfig`` (or its dict). Defaults to None (``Seq2SeqConfig()``).
        seed: int, seeds Python, NumPy and the backend (weights and shuffling). Defaults to 0.
        vocabulary: a fixed ``Vocabulary``; default: built from the whole toy corpus (or from ``pairs``).
        callbacks: Keras callbacks and/or plain ``fn(epoch, logs)`` called after every epoch.
        verbose: Keras ``fit`` verbosity (0: silent). Defaults to 0.
        **overrides: single ``Seq2SeqConfig`` fields replacing the config's (``epochs=5``).

    Returns:
        The model, with ``vocabulary``, ``config`` and ``training_summary`` (history, seconds).

    Raises:
        TypeError: an item of ``pairs`` is not a ``(source, target)`` pair, a side is not a string or a list of
            str words, or ``callbacks`` is not a list (the message names the pair index).
        ValueError: ``pairs`` is empty, a source or target has no words or more than ``MAX_SEQ2SEQ_TOKENS`` (named,
            with its length), or a bad config field; all before any work.
        TrainingDivergedError (a ValueError): the loss or the weights became NaN or infinite.
    """
    config = config if isinstance(config, Seq2SeqConfig) else Seq2SeqConfig.from_dict(config or {})
    config = config.replace(**overrides)
    if pairs is None:
        pairs = seq2seq_pairs("train")
        vocabulary = vocabulary or Vocabulary.from_corpus([s + t for s, t in seq2seq_pairs("all")], lowercase=True)
    adapters = as_keras_callbacks(callbacks)
    pairs = _checked_pairs(pairs)
    vocabulary = vocabulary or Vocabulary.from_corpus([s + t for s, t in pairs], lowercase=True)
    inputs, target_out = encode_pairs(pairs, vocabulary)

    keras.utils.set_random_seed(int(seed))
    model = Seq2Seq(len(vocabulary), **config.model_kwargs())
    return train_model(model, inputs, target_out, config=config, seed=seed, vocabulary=vocabulary, callbacks=adapters,
                       verbose=verbose, details={"num_pairs": len(pairs)}, batch_size=config.batch_size, shuffle=True)


def _checked_pairs(pairs) -> list[tuple[list[str], list[str]]]:
    """``pairs`` as ``(source words, target words)`` lists; errors name the pair (see ``train_seq2seq``)."""
    if isinstance(pairs, (str, bytes)):
        raise TypeError("pairs must be a list of (source, target) pairs, received a single string")
    checked = []
    for index, pair in enumerate(pairs):
        if isinstance(pair, (str, bytes)) or not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise TypeError(f"pairs[{index}] must be a (source, target) pair, received {type(pair).__name__} "
                            f"({pair!r:.60})")
        checked.append(tuple(sentence_tokens(side, f"pairs[{index}] {role}")
                             for side, role in zip(pair, ("source", "target"))))
        for role, words in zip(("source", "target"), checked[-1]):
            check_length(f"pairs[{index}] {role}", len(words), MAX_SEQ2SEQ_TOKENS)
    if not checked:
        raise ValueError("pairs is empty")
    return checked
