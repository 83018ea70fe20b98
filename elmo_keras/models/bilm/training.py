"""``train_bilm``: a ``BiLanguageModel`` trained from scratch, deterministically for a seed."""

from __future__ import annotations

import time
from collections.abc import Sequence

from elmo_keras._quiet import keras
from elmo_keras.data.polysemy import polysemy_sentences
from elmo_keras.models.bilm.checkpoint_files import restore_state, run_identity
from elmo_keras.models.bilm.checkpoints import (
    CheckpointCallback,
    ContinueGlobalRandomStream,
    RestoreEpochMetrics,
    check_checkpoint_arguments,
    start_checkpointing,
)
from elmo_keras.models.bilm.distribution import (
    adapt_to_multi_worker,
    distribution_scope,
    replica_count,
    strategy_name,
    writes_checkpoints,
)
from elmo_keras.models.bilm.evaluation import perplexities, unigram_perplexity
from elmo_keras.models.bilm.language_model import BiLanguageModel, build_bilm_lm
from elmo_keras.models.bilm.precision import resolve_training_precision
from elmo_keras.models.bilm.presets import BiLMConfig, check_fits_in_memory, get_size
from elmo_keras.models.bilm.training_data import InMemoryData, fit_from_step, prepare_training_data, training_sentences
from elmo_keras.models.bilm.training_sizes import check_training_sizes
from elmo_keras.models.callbacks import (
    ProgressCallback,
    StopOnNonFiniteLoss,
    as_keras_callbacks,
    check_finite_perplexities,
    check_finite_weights,
)
from elmo_keras.models.fitting import compile_for_training, training_summary
from elmo_keras.text.char_ids import MAX_CHARS_PER_TOKEN
from elmo_keras.text.sentences import as_token_lists
from elmo_keras.text.vocabulary import Vocabulary


def train_bilm(
    corpus=None,
    *,
    size: str | BiLMConfig | dict = "toy",
    epochs: int | None = None,
    seed: int = 0,
    callbacks: Sequence[keras.callbacks.Callback | ProgressCallback] | None = None,
    heldout=None,
    vocabulary: Vocabulary | None = None,
    learning_rate: float | None = None,
    batch_size: int | None = None,
    verbose: int = 0,
    min_count: int = 1,
    max_size: int | None = None,
    n_negative_samples: int | None = None,
    max_sentence_tokens: int | None = None,
    optimizer: str | None = None,
    strategy=None,
    checkpoint_dir=None,
    checkpoint_every: int | None = None,
    resume: bool = False,
    preset: str | BiLMConfig | dict | None = None,
) -> BiLanguageModel:
    """Train a ``BiLanguageModel`` from scratch, deterministically for a given ``seed``; resumable from checkpoints.

    Args:
        corpus: sentences (strings or token lists, held in memory); or text files streamed without loading them
            (``data.streaming.StreamingCorpus``): a str path or glob (``"shards/*.txt.gz"``), an ``os.PathLike``,
            or a list of ``os.PathLike`` (a list of str is sentences). Default: the polysemy corpus's training
            split.
        size: the training size, ``"toy"``, ``"char-toy"``, ``"tiny"`` (``models.bilm.presets.SIZES``), a
            ``BiLMConfig`` or its dict. Defaults to ``"toy"``. Every option after ``corpus`` is keyword-only.
        epochs, learning_rate, batch_size, n_negative_samples, max_sentence_tokens, optimizer: override the size's
            fields (None: the size's). ``optimizer``: ``"adam"``, ``"lazy_adam"`` or ``"adagrad"`` (``BiLMConfig``;
            the last two update only the rows of the embedding and sampled softmax that a step touched). A sentence
            of ``corpus`` or ``heldout`` longer than ``max_sentence_tokens`` (200 in every size) is split into
            consecutive pieces trained as sentences, with a ``TrainingDataWarning`` (``models.bilm.training_data``):
            the work per batch is bounded by ``batch_size × (max_sentence_tokens + 2)``.
            A ``batch_size`` larger than the corpus is capped at the corpus size (``model.config.batch_size`` is
            the batch trained with; ``training_summary["requested_batch_size"]`` records the value asked for).
        seed: int, seeds Python, NumPy and the backend (weights, dropout, shuffling). Defaults to 0.
        callbacks: Keras callbacks and/or plain functions ``fn(epoch, logs)`` called after each epoch with
            ``loss``, ``forward_perplexity``, ``backward_perplexity``.
        heldout: sentences to report held-out perplexity on; default: the polysemy held-out split when
            ``corpus`` is None, else none.
        vocabulary: a fixed vocabulary (e.g. ``text.vocabulary_files``' bilm-tf file); default: built from
            ``corpus`` (lowercased per the size; one streaming pass for files) with ``min_count`` (default 1)
            and ``max_size`` (default None: all).
        verbose: Keras ``fit`` verbosity (0: silent). Defaults to 0.
        strategy: None (one device), ``"mirrored"``, ``"data-parallel"`` or a ``tf.distribute.Strategy``
            (``models.bilm.distribution.distribution_scope``); ``batch_size`` is the global batch, split evenly over
            the replicas.
        checkpoint_dir: a directory for checkpoints (``models.bilm.checkpoints``): one at the end of every epoch and
            every ``checkpoint_every`` optimizer steps (None: only at epoch ends); the latest 2 are kept. A
            directory that the corpus's files or glob could match is refused (a resume would read its
            checkpoints as corpus), and a checkpoint is checked like a weight file on resuming. Under a
            ``MultiWorkerMirroredStrategy`` only the chief writes there (``distribution.writes_checkpoints``) and
            every worker resumes from it: give every worker the same path, on storage they all see.
        resume: bool, continue from ``checkpoint_dir``'s newest intact checkpoint (the same corpus, settings and
            seed are required): the result equals an uninterrupted run's. Without a checkpoint the run starts
            from scratch (``training_summary["checkpoints"]["note"]`` says so). Defaults to False.
        preset: alias of ``size`` (the keyword of rounds 1–3, kept for their scripts). Defaults to None.

    Returns:
        The trained model (float32 whatever ``training_precision``), with ``model.vocabulary``, ``model.config``
        (the ``BiLMConfig``) and ``model.training_summary`` (history, perplexities, unigram baseline, seconds;
        for a streamed corpus the train perplexities cover its first ``SUMMARY_SAMPLE_SENTENCES`` sentences).

    Raises:
        TypeError: ``corpus`` or ``heldout`` is a single str that names no file, or holds a sentence that is not
            a str or a list of str tokens, or ``callbacks`` is not a list of callbacks/functions (checked before
            training starts).
        ValueError: an empty sentence, an empty corpus, a bad size or override (non-finite numbers and
            batch sizes above ``limits.MAX_BATCH_SIZE`` included), a batch size that the replicas do not divide,
            an ``n_negative_samples`` not below the vocabulary size or too large for memory (each checked before
            any work: ``models.bilm.training_sizes``),
            a model too large for this machine's memory (naming the field), or a ``vocabulary`` that holds none of
            the corpus's tokens (more than ``training_data.UNKNOWN_RATE_WARNING`` unknown: a warning).
        CheckpointError (a ValueError): a damaged checkpoint with no intact one before it, or one written by a
            different run (naming what differs).
        TrainingDivergedError (a ValueError): the loss or the weights became NaN or infinite.
    """
    if preset is not None:  # the keyword of rounds 1–3, kept as an alias of size
        size = preset
    config = get_size(size)
    overrides = {k: v for k, v in (("epochs", epochs), ("learning_rate", learning_rate), ("batch_size", batch_size),
                                   ("n_negative_samples", n_negative_samples),
                                   ("max_sentence_tokens", max_sentence_tokens), ("optimizer", optimizer))
                 if v is not None}
    config = config.replace(**overrides)
    keras_callbacks = as_keras_callbacks(callbacks)
    check_checkpoint_arguments(checkpoint_dir, checkpoint_every, resume, corpus)
    replicas, origin = replica_count(strategy), ("" if batch_size is not None else "the size's")
    check_training_sizes(config, replicas, vocabulary and len(vocabulary), strategy, origin)  # before any work
    if corpus is None:
        corpus = polysemy_sentences("train")
        if heldout is None:
            heldout = polysemy_sentences("heldout")
    requested_batch_size, vocabulary_given = config.batch_size, vocabulary is not None
    data, vocabulary, config = prepare_training_data(corpus, config, int(seed), vocabulary, min_count, max_size)
    if config.batch_size != requested_batch_size or not vocabulary_given:  # what the corpus decided, checked once
        origin = "capped at the corpus size" if config.batch_size != requested_batch_size else origin
        check_training_sizes(config, replicas, len(vocabulary), strategy, origin)
    heldout_sentences = None
    if heldout is not None:
        heldout_sentences, _ = training_sentences(as_token_lists(heldout, "heldout"), config.max_sentence_tokens,
                                                  "heldout")
    check_fits_in_memory(config, len(vocabulary))

    precision, precision_probe = resolve_training_precision(config)  # before seeding: the probe builds models
    keras.utils.set_random_seed(int(seed))

    def built_model(dtype=None):
        model = build_bilm_lm(config, len(vocabulary), dtype=dtype)
        model.build((None, None) if config.token_input == "word" else (None, None, MAX_CHARS_PER_TOKEN))
        return model

    steps = data.steps_per_epoch
    identity = run_identity({**config.to_dict(), "training_precision": precision}, int(seed), vocabulary,
                            data.fingerprint() if checkpoint_dir is not None else "", steps, strategy_name(strategy))
    state, checkpoint_report, writer = None, None, writes_checkpoints(strategy)
    if checkpoint_dir is not None:
        state, checkpoint_report = start_checkpointing(checkpoint_dir, resume, identity, config.epochs * steps, writer)
    with distribution_scope(strategy) as replicas:
        if config.batch_size % replicas:
            raise ValueError(f"batch_size {config.batch_size} is not divisible by the {replicas} replicas of "
                             f"strategy={strategy!r}: choose a multiple of {replicas}")
        model = built_model(precision)
        adapt_to_multi_worker(model)  # Keras 3.15's fit fails under MultiWorkerMirroredStrategy otherwise
        compile_for_training(model, config.learning_rate, optimizer=config.optimizer,
                             row_sparse=model.row_sparse_variables())
        if state is not None:
            restore_state(model, state, groups=("model", "optimizer"))
        start_step = state.step if state is not None else 0
        recorder = CheckpointCallback(checkpoint_dir, checkpoint_every, identity, vocabulary, step=start_step,
                                      history=state.history if state is not None else None, steps_per_epoch=steps,
                                      writer=writer)
        mid_epoch = state if start_step % steps else None  # its running epoch metrics continue
        started = time.perf_counter()
        fit_from_step(model, data, config.epochs, start_step, verbose=verbose, callbacks=[
            ContinueGlobalRandomStream(state), StopOnNonFiniteLoss(config.learning_rate), recorder,
            RestoreEpochMetrics(mid_epoch), *keras_callbacks])
        seconds = time.perf_counter() - started
    check_finite_weights(model, "the trained model")  # the last update can break the weights after a finite loss
    if precision != "float32":  # hand back a float32 model with the trained weights (they are float32 already)
        trained, model = model, built_model()
        model.set_weights(trained.get_weights())
    model.vocabulary = vocabulary
    model.config = config
    sample = data.summary_sentences
    summary = {
        **training_summary(config, seed, seconds, recorder.history, training_precision=precision,
                           precision_probe_seconds=precision_probe, num_sentences=data.num_sentences,
                           num_tokens=data.num_tokens, vocab_size=len(vocabulary)),
        **perplexity_summary(model, sample, heldout_sentences, vocabulary, config.learning_rate),
    }
    if not isinstance(data, InMemoryData):
        summary["train_sample_sentences"] = len(sample)  # the train scores cover the corpus's first sentences
    if strategy is not None:
        summary["replicas"] = replicas
    if checkpoint_report is not None:
        summary["checkpoints"] = {"directory": str(checkpoint_dir), "every": checkpoint_every, **checkpoint_report}
    if requested_batch_size != config.batch_size:
        summary["requested_batch_size"] = requested_batch_size
    if data.split.sentences:
        summary["split_sentences"] = data.split.sentences  # over config.max_sentence_tokens, trained in pieces
    model.training_summary = summary
    return model


def perplexity_summary(model, train_sentences, heldout_sentences, vocabulary: Vocabulary, learning_rate: float,
                       heldout_scores: dict | None = None) -> dict:
    """What a training summary reports of a trained biLM: ``train`` (its perplexities on ``train_sentences``,
    checked finite) and ``train_unigram_perplexity``, plus, for non-empty ``heldout_sentences``, ``heldout`` and
    ``heldout_unigram_perplexity`` (unigram counts from ``train_sentences``).

    Args:
        model: the trained ``BiLanguageModel``.
        train_sentences, heldout_sentences: token lists (``heldout_sentences`` may be None).
        vocabulary: the model's ``Vocabulary``.
        learning_rate: float, named in the error as the thing to lower.
        heldout_scores: ``perplexities(model, heldout_sentences)`` if already computed on these weights (None:
            computed here).

    Raises:
        TrainingDivergedError: a training perplexity is not finite (``check_finite_perplexities``).
    """
    summary = {
        "train": check_finite_perplexities(perplexities(model, train_sentences), learning_rate),
        "train_unigram_perplexity": unigram_perplexity(train_sentences, train_sentences, vocabulary),
    }
    if heldout_sentences:
        summary["heldout"] = heldout_scores if heldout_scores is not None else perplexities(model, heldout_sentences)
        summary["heldout_unigram_perplexity"] = unigram_perplexity(train_sentences, heldout_sentences, vocabulary)
    return summary
