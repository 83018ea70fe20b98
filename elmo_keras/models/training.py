"""Training helpers for ``BiLanguageModel``: encoding, ``train_bilm``, perplexity and a unigram baseline."""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from elmo_keras._backend import gathered_batches, has_native_bfloat16
from elmo_keras._quiet import keras
from elmo_keras.models.bilm_lm import BiLanguageModel
from elmo_keras.models.inference import lm_logits
from elmo_keras.models.persistence import first_nonfinite_weight
from elmo_keras.models.presets import BiLMConfig, build_bilm_lm, check_fits_in_memory, get_preset
from elmo_keras.text.batching import encode_characters, encode_word_ids
from elmo_keras.text.char_ids import MAX_CHARS_PER_TOKEN
from elmo_keras.text.tokenizer import tokenize
from elmo_keras.text.vocabulary import EOS_ID, Vocabulary

ProgressCallback = Callable[[int, dict], None]


def as_token_lists(corpus: Sequence[str | Sequence[str]], name: str = "corpus") -> list[list[str]]:
    """Tokenize strings (``tokenize``), keep token lists.

    Raises:
        TypeError: ``corpus`` is a single str, or a sentence is neither a str nor a list of str tokens (the
            message names the sentence index and the token).
        ValueError: an empty sentence (named by its index), or no sentences at all.
    """
    if isinstance(corpus, str):
        raise TypeError(f"{name} must be a list of sentences, received a single str; wrap it in a list")
    sentences = [sentence_tokens(s, f"{name} sentence {index}") for index, s in enumerate(corpus)]
    if not sentences:
        raise ValueError(f"{name} has no sentences")
    return sentences


def sentence_tokens(sentence: str | Sequence[str], what: str = "sentence") -> list[str]:
    """One sentence as a non-empty list of str tokens: a str is split by ``tokenize``, a token list is copied.

    ``what`` names the sentence in error messages (``"corpus sentence 3"``).

    Raises:
        TypeError: ``sentence`` is not a str or a sequence of str tokens.
        ValueError: no tokens.
    """
    if isinstance(sentence, str):
        tokens = tokenize(sentence)
    elif isinstance(sentence, Iterable) and not isinstance(sentence, (bytes, bytearray, dict)):
        tokens = list(sentence)  # a list, tuple, NumPy array of str, generator …
    else:
        raise TypeError(
            f"{what} must be a str or a list of str tokens, received {type(sentence).__name__} ({sentence!r:.60})"
        )
    for position, token in enumerate(tokens):
        if not isinstance(token, str):
            raise TypeError(
                f"{what}: token {position} is {type(token).__name__} ({token!r:.40}), not str; tokens must be "
                "strings: convert them first, e.g. [str(token) for token in sentence]"
            )
    if not tokens:
        raise ValueError(f"{what} is empty")
    return tokens


def as_keras_callbacks(callbacks, name: str = "callbacks") -> list[keras.callbacks.Callback]:
    """Keras callbacks as they are, plain functions ``fn(epoch, logs)`` wrapped (epochs counted from 1).

    Raises:
        TypeError: ``callbacks`` is a single callback or function instead of a list, or an item is neither a
            Keras callback nor callable (named by its index).
    """
    if callbacks is None:
        return []
    single = isinstance(callbacks, (keras.callbacks.Callback, str)) or callable(callbacks)
    if single or not isinstance(callbacks, Iterable):
        raise TypeError(
            f"{name} must be a list of Keras callbacks and/or functions fn(epoch, logs), received "
            f"{type(callbacks).__name__} ({callbacks!r:.60}); wrap a single one in a list: {name}=[fn]"
        )
    adapted = []
    for index, callback in enumerate(callbacks):
        if isinstance(callback, keras.callbacks.Callback):
            adapted.append(callback)
        elif callable(callback):
            adapted.append(_ProgressAdapter(callback))
        else:
            raise TypeError(
                f"{name}[{index}] must be a Keras callback or a function fn(epoch, logs), received "
                f"{type(callback).__name__} ({callback!r:.60})"
            )
    return adapted


def encode_for_lm(sentences, vocabulary: Vocabulary, encoder: str, length: int | None = None):
    """Model inputs and word-id targets for ``sentences`` (boundaries added).

    Returns:
        ``(inputs, targets)``: inputs are word ids `(batch, T)` (word encoder) or char ids
        `(batch, T, 50)` (char encoder); targets are word ids `(batch, T)`.
    """
    targets = encode_word_ids(sentences, vocabulary, length)
    if encoder == "word":
        return targets, targets
    return encode_characters(sentences, targets.shape[1]), targets


class ShuffledBatches(keras.utils.PyDataset):
    """Shuffled training batches, deterministic for a given ``seed``, each padded to its own longest sentence.

    Every epoch (``on_epoch_end`` moves to the next) the
    sentences are shuffled, cut into pools of ``pool_batches`` batches and sorted by length inside each pool,
    so that a batch's sentences are of similar length and little time is spent on padding; the batch order
    is shuffled too. The last batch of an epoch is filled up with empty rows (no loss) so the batch size never
    changes. The first two batches differ in length whenever the corpus allows, so that a pipeline reading
    its signature from them (Keras does) leaves the time axis symbolic: one trace of the training step.

    ``train_bilm`` feeds ``fit`` from ``training_batches``: on TensorFlow a ``tf.data`` pipeline that
    gathers this plan's rows from the encoded corpus (no Python in the loop: a Python generator behind
    ``tf.data`` stalled epochs by about a second when its pipeline was torn down); elsewhere this
    ``PyDataset`` itself. Items are ``(inputs, targets)`` as ``encode_for_lm`` makes them.
    """

    def __init__(self, sentences, vocabulary, encoder, batch_size, seed=0, pool_batches=8):
        super().__init__()
        self.sentences = list(sentences)
        self.vocabulary = vocabulary
        self.encoder = encoder
        self.batch_size = int(batch_size)
        self.pool_batches = int(pool_batches)
        self.seed = int(seed)
        self._epoch, self._batches = 0, self.epoch_batches(0)

    def epoch_batches(self, epoch: int) -> list[list[int]]:
        """The sentence indices of every batch of ``epoch``, in training order."""
        rng = np.random.default_rng([self.seed, epoch])
        order = rng.permutation(len(self.sentences))
        pool = self.batch_size * self.pool_batches
        batches = []
        for start in range(0, len(order), pool):
            chunk = sorted(order[start : start + pool], key=lambda i: len(self.sentences[i]))
            batches += [chunk[i : i + self.batch_size] for i in range(0, len(chunk), self.batch_size)]
        batches = [[int(i) for i in batches[k]] for k in rng.permutation(len(batches))]
        lengths = [self.batch_length(batch) for batch in batches]
        other = next((i for i in range(1, len(batches)) if lengths[i] != lengths[0]), None)
        if other is not None:  # batches 0 and 1 of different lengths: a symbolic time axis, one trace
            batches[1], batches[other] = batches[other], batches[1]
        return batches

    def batch_length(self, batch: Sequence[int]) -> int:
        """Time steps of a batch: its longest sentence + ``<S>`` and ``</S>``."""
        return max(len(self.sentences[i]) for i in batch) + 2

    def __len__(self):
        """Batches per epoch."""
        return -(-len(self.sentences) // self.batch_size)

    def __getitem__(self, index):
        batch = [self.sentences[i] for i in self._batches[int(index)]]
        inputs, targets = encode_for_lm(batch, self.vocabulary, self.encoder)
        missing = self.batch_size - len(batch)
        if missing:
            inputs = np.concatenate([inputs, np.zeros((missing,) + inputs.shape[1:], inputs.dtype)])
            targets = np.concatenate([targets, np.zeros((missing,) + targets.shape[1:], targets.dtype)])
        return inputs, targets

    def on_epoch_end(self):
        self._epoch += 1
        self._batches = self.epoch_batches(self._epoch)


MAX_GATHERED_BYTES = 256 * 2**20


def training_batches(batches: ShuffledBatches, epochs: int):
    """What ``fit`` trains on for ``epochs`` epochs of ``batches`` (see ``ShuffledBatches``).

    The gathered pipeline holds the whole encoded corpus in memory; past ``MAX_GATHERED_BYTES`` (a large
    character-level corpus) the ``PyDataset`` itself is used, which encodes batch by batch.
    """
    longest = max(len(s) for s in batches.sentences) + 2
    row_bytes = longest * (MAX_CHARS_PER_TOKEN if batches.encoder == "char" else 1) * 4
    if keras.backend.backend() != "tensorflow" or len(batches.sentences) * row_bytes > MAX_GATHERED_BYTES:
        return batches
    inputs, targets = encode_for_lm(batches.sentences, batches.vocabulary, batches.encoder)
    empty = len(batches.sentences)  # an extra all-padding row, the filler of short batches
    inputs = np.concatenate([inputs, np.zeros_like(inputs[:1])])
    targets = np.concatenate([targets, np.zeros_like(targets[:1])])
    plan, lengths = [], []
    for epoch in range(epochs):
        for batch in batches.epoch_batches(epoch):
            plan.append(batch + [empty] * (batches.batch_size - len(batch)))
            lengths.append(batches.batch_length(batch))
    return gathered_batches(inputs, targets, np.asarray(plan, np.int32), np.asarray(lengths, np.int32))


class TrainingDivergedError(ValueError):
    """The training loss or the trained weights became NaN or infinite (nothing is saved or returned)."""


class StopOnNonFiniteLoss(keras.callbacks.Callback):
    """Raises ``TrainingDivergedError`` as soon as a batch's loss is NaN or infinite.

    Keras's own ``TerminateOnNaN`` only stops ``fit``, which then returns a NaN model as if all went well.
    """

    def __init__(self, learning_rate: float):
        super().__init__()
        self.learning_rate = learning_rate
        self.epoch = 0

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch + 1

    def on_train_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is not None and not math.isfinite(float(loss)):
            raise TrainingDivergedError(
                f"training diverged: the loss became {float(loss)} in epoch {self.epoch}, batch {batch + 1}; lower "
                f"the learning rate (it was {self.learning_rate:g}) and train again"
            )


def check_finite_perplexities(scores: dict, learning_rate: float) -> dict:
    """``scores`` (``perplexities``' result on the training corpus) if both are finite.

    A perplexity overflows only past a mean loss of ~709 nats per token, hundreds of times a uniform guess's
    ``log(vocabulary size)``: the weights are finite but the model has diverged.

    Raises:
        TrainingDivergedError: naming the learning rate.
    """
    if not all(math.isfinite(value) for value in scores.values()):
        raise TrainingDivergedError(
            f"training diverged: the trained model's perplexity on its own training corpus is "
            f"{scores['forward_perplexity']} / {scores['backward_perplexity']} (forward / backward); lower the "
            f"learning rate (it was {learning_rate:g}) and train again"
        )
    return scores


def check_finite_weights(model: keras.Model, what: str) -> None:
    """Raise if a weight of ``model`` holds NaN or inf.

    Raises:
        TrainingDivergedError: naming ``what`` (e.g. "the trained model"), the variable and the count.
    """
    problem = first_nonfinite_weight(model)
    if problem is not None:
        raise TrainingDivergedError(f"{what} has {problem}: training diverged; lower the learning rate and train again")


class _ProgressAdapter(keras.callbacks.Callback):
    """Calls ``fn(epoch, logs)`` after every epoch (epochs counted from 1)."""

    def __init__(self, fn: ProgressCallback):
        super().__init__()
        self.fn = fn

    def on_epoch_end(self, epoch, logs=None):
        self.fn(epoch + 1, dict(logs or {}))


def perplexities(model: BiLanguageModel, sentences, batch_size: int = 64) -> dict:
    """Forward and backward perplexity of ``model`` on ``sentences`` (token lists or strings)."""
    sentences = as_token_lists(sentences)
    inputs, targets = encode_for_lm(sentences, model.vocabulary, model.encoder_kind)
    model.forward_perplexity.reset_state()
    model.backward_perplexity.reset_state()
    for start in range(0, len(sentences), batch_size):
        forward_logits, backward_logits = lm_logits(model, inputs[start : start + batch_size])
        outputs = {"forward_logits": forward_logits, "backward_logits": backward_logits}
        model.compute_loss(y=targets[start : start + batch_size], y_pred=outputs, training=False)
    result = {
        "forward_perplexity": float(model.forward_perplexity.result()),
        "backward_perplexity": float(model.backward_perplexity.result()),
    }
    model.forward_perplexity.reset_state()
    model.backward_perplexity.reset_state()
    return result


def unigram_perplexity(train_sentences, eval_sentences, vocabulary: Vocabulary) -> float:
    """Perplexity of an add-one unigram model (over the vocabulary + ``</S>``) on the forward targets."""
    counts = Counter()
    for sentence in train_sentences:
        counts.update(vocabulary.encode(sentence) + [EOS_ID])
    total = sum(counts.values()) + len(vocabulary)
    log_prob, n = 0.0, 0
    for sentence in eval_sentences:
        for token_id in vocabulary.encode(sentence) + [EOS_ID]:
            log_prob += math.log((counts[token_id] + 1) / total)
            n += 1
    return math.exp(-log_prob / n)


def resolve_training_precision(precision: str) -> str:
    """``"auto"`` → ``"mixed_bfloat16"`` where the CPU has native bfloat16 arithmetic, else ``"float32"``."""
    if precision != "auto":
        return precision
    return "mixed_bfloat16" if has_native_bfloat16() else "float32"


def train_bilm(
    corpus=None,
    preset: str | BiLMConfig | dict = "toy",
    epochs: int | None = None,
    seed: int = 0,
    callbacks: Sequence[keras.callbacks.Callback | ProgressCallback] | None = None,
    heldout=None,
    vocabulary: Vocabulary | None = None,
    learning_rate: float | None = None,
    batch_size: int | None = None,
    verbose: int = 0,
) -> BiLanguageModel:
    """Train a ``BiLanguageModel`` from scratch, deterministically for a given ``seed``.

    Args:
        corpus: sentences (strings or token lists); default: the polysemy corpus's training split.
        preset: ``"toy"``, ``"char-toy"``, ``"tiny"``, a ``BiLMConfig`` or its dict.
        epochs, learning_rate, batch_size: override the preset's training defaults. A ``batch_size`` larger
            than the corpus is capped at the corpus size (``model.config.batch_size`` is the batch trained
            with; ``training_summary["requested_batch_size"]`` records the value asked for).
        seed: seeds Python, NumPy and the backend (weights, dropout, shuffling).
        callbacks: Keras callbacks and/or plain functions ``fn(epoch, logs)`` called after each epoch with
            ``loss``, ``forward_perplexity``, ``backward_perplexity``.
        heldout: sentences to report held-out perplexity on; default: the polysemy held-out split when
            ``corpus`` is None, else none.
        vocabulary: a fixed vocabulary; default: built from ``corpus`` (lowercased per the preset).
        verbose: Keras ``fit`` verbosity.

    Returns:
        The trained model, with ``model.vocabulary``, ``model.config`` (the ``BiLMConfig``) and
        ``model.training_summary`` (history, perplexities, unigram baseline, seconds).

    Raises:
        TypeError: ``corpus`` or ``heldout`` is a single str or holds a sentence that is not a str or a list of
            str tokens, or ``callbacks`` is not a list of callbacks/functions (checked before training starts).
        ValueError: an empty sentence, an empty corpus, a bad preset or override (non-finite numbers and
            batch sizes above ``limits.MAX_BATCH_SIZE`` included), or a model too large for this machine's
            memory (naming the field).
        TrainingDivergedError (a ValueError): the loss or the weights became NaN or infinite.
    """
    config = get_preset(preset)
    overrides = {k: v for k, v in (("epochs", epochs), ("learning_rate", learning_rate), ("batch_size", batch_size))
                 if v is not None}
    config = config.replace(**overrides)
    keras_callbacks = as_keras_callbacks(callbacks)
    if corpus is None:
        from elmo_keras.data import polysemy_sentences

        corpus = polysemy_sentences("train")
        if heldout is None:
            heldout = polysemy_sentences("heldout")
    sentences = as_token_lists(corpus)
    heldout_sentences = as_token_lists(heldout, "heldout") if heldout is not None else None
    vocabulary = vocabulary or Vocabulary.from_corpus(sentences, lowercase=config.lowercase)
    check_fits_in_memory(config, len(vocabulary))
    requested_batch_size = config.batch_size
    if config.batch_size > len(sentences):  # a bigger batch would only be padded with empty rows
        config = config.replace(batch_size=len(sentences))

    keras.utils.set_random_seed(int(seed))
    precision = resolve_training_precision(config.training_precision)

    def built_model(dtype=None):
        model = build_bilm_lm(config, len(vocabulary), dtype=dtype)
        model.build((None, None) if config.encoder == "word" else (None, None, MAX_CHARS_PER_TOKEN))
        return model

    model = built_model(precision)
    # A plain graph, not XLA: with the hand-written LSTM backward pass (layers/recurrence/sequence_loop.py) the graph
    # step measured ~2x faster than XLA's while loop on 2 cores, and it builds in ~3 s instead of ~5.
    model.compile(optimizer=keras.optimizers.Adam(config.learning_rate, clipnorm=5.0), jit_compile=False)
    # Adam's slots made now, not during the first step: a step that creates variables is traced twice
    model.optimizer.build(model.trainable_variables)
    batches = ShuffledBatches(sentences, vocabulary, config.encoder, config.batch_size, seed=int(seed))
    started = time.perf_counter()
    history = model.fit(
        training_batches(batches, config.epochs), epochs=config.epochs, steps_per_epoch=len(batches), shuffle=False,
        callbacks=[StopOnNonFiniteLoss(config.learning_rate), *keras_callbacks], verbose=verbose,
    )
    seconds = time.perf_counter() - started
    check_finite_weights(model, "the trained model")  # the last update can break the weights after a finite loss
    if precision != "float32":  # hand back a float32 model with the trained weights (they are float32 already)
        trained, model = model, built_model()
        model.set_weights(trained.get_weights())
    model.vocabulary = vocabulary
    model.config = config
    summary = {
        "config": config.to_dict(),
        "seed": int(seed),
        "training_precision": precision,
        "num_sentences": len(sentences),
        "num_tokens": int(sum(len(s) for s in sentences)),
        "vocab_size": len(vocabulary),
        "train_seconds": round(seconds, 2),
        "history": {k: [float(v) for v in values] for k, values in history.history.items()},
        "train": check_finite_perplexities(perplexities(model, sentences), config.learning_rate),
        "train_unigram_perplexity": unigram_perplexity(sentences, sentences, vocabulary),
    }
    if requested_batch_size != config.batch_size:
        summary["requested_batch_size"] = requested_batch_size
    if heldout_sentences:
        summary["heldout"] = perplexities(model, heldout_sentences)
        summary["heldout_unigram_perplexity"] = unigram_perplexity(sentences, heldout_sentences, vocabulary)
    model.training_summary = summary
    return model
