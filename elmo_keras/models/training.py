"""``train_bilm``: a ``BiLanguageModel`` trained from scratch, deterministically for a seed."""

from __future__ import annotations

import time
from collections.abc import Sequence

from elmo_keras._backend import fit_jit_compile
from elmo_keras._quiet import keras
from elmo_keras.data.polysemy import polysemy_sentences
from elmo_keras.models.batches import ShuffledBatches, training_batches
from elmo_keras.models.bilm_lm import BiLanguageModel, build_bilm_lm
from elmo_keras.models.callbacks import (
    ProgressCallback,
    StopOnNonFiniteLoss,
    as_keras_callbacks,
    check_finite_perplexities,
    check_finite_weights,
)
from elmo_keras.models.evaluation import perplexities, unigram_perplexity
from elmo_keras.models.optimizer import DenseGradientAdam
from elmo_keras.models.precision import resolve_training_precision
from elmo_keras.models.presets import BiLMConfig, check_fits_in_memory, get_preset
from elmo_keras.text.char_ids import MAX_CHARS_PER_TOKEN
from elmo_keras.text.sentences import as_token_lists
from elmo_keras.text.vocabulary import Vocabulary


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
        epochs, learning_rate, batch_size: override the preset's training defaults (None: the preset's). A
            ``batch_size`` larger than the corpus is capped at the corpus size (``model.config.batch_size`` is
            the batch trained with; ``training_summary["requested_batch_size"]`` records the value asked for).
        seed: int, seeds Python, NumPy and the backend (weights, dropout, shuffling). Defaults to 0.
        callbacks: Keras callbacks and/or plain functions ``fn(epoch, logs)`` called after each epoch with
            ``loss``, ``forward_perplexity``, ``backward_perplexity``.
        heldout: sentences to report held-out perplexity on; default: the polysemy held-out split when
            ``corpus`` is None, else none.
        vocabulary: a fixed vocabulary; default: built from ``corpus`` (lowercased per the preset).
        verbose: Keras ``fit`` verbosity (0: silent). Defaults to 0.

    Returns:
        The trained model (float32 whatever ``training_precision``), with ``model.vocabulary``, ``model.config``
        (the ``BiLMConfig``) and ``model.training_summary`` (history, perplexities, unigram baseline, seconds).

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

    precision, precision_probe = resolve_training_precision(config)  # before seeding: the probe builds models
    keras.utils.set_random_seed(int(seed))

    def built_model(dtype=None):
        model = build_bilm_lm(config, len(vocabulary), dtype=dtype)
        model.build((None, None) if config.token_input == "word" else (None, None, MAX_CHARS_PER_TOKEN))
        return model

    model = built_model(precision)
    # On TensorFlow a plain graph, not XLA: with the hand-written LSTM backward pass (layers/recurrence/
    # sequence_loop.py) the graph step runs faster than XLA's while loop on CPU and is built sooner; jax.jit on JAX
    model.compile(optimizer=DenseGradientAdam(config.learning_rate, clipnorm=5.0), jit_compile=fit_jit_compile())
    # Adam's slots made now, not during the first step: a step that creates variables is traced twice
    model.optimizer.build(model.trainable_variables)
    batches = ShuffledBatches(sentences, vocabulary, config.token_input, config.batch_size, seed=int(seed))
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
        "precision_probe_seconds": precision_probe,
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
