"""``fine_tune_pretrained``: continue training an original ELMo (``options.json`` + ``weights.hdf5``) on a domain
corpus, as a ``BiLanguageModel`` with a new softmax over the domain's vocabulary.

The released weight files hold no softmax, so one is added (randomly initialised, one row per word of the
domain vocabulary) and trained in two phases:

1. ``softmax_epochs`` epochs with the pretrained biLM frozen: only the new softmax learns, so the first, large
   gradients of a random softmax do not disturb the pretrained weights;
2. ``epochs`` epochs of everything (or of the softmax only, with ``freeze_bilm=True``).

Both phases train like ``train_bilm``: ``models.fitting.compile_for_training`` (``DenseGradientAdam`` with gradient
clipping, ``fit_jit_compile()``), ``ShuffledBatches`` (deterministic for the seed), ``guarded_fit``. The result carries
``vocabulary``, ``config`` (a ``BiLMConfig`` describing the pretrained architecture) and ``training_summary``,
so ``model.save(directory)`` writes a model directory that ``load_bilm`` reads back, and
``export_pretrained`` writes it back in the original layout.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Sequence

from elmo_keras._quiet import keras
from elmo_keras.argument_checks import check_finite_positive, check_int, check_rate
from elmo_keras.models.bilm.batches import ShuffledBatches, training_batches
from elmo_keras.models.bilm.evaluation import perplexities
from elmo_keras.models.bilm.language_model import BiLanguageModel
from elmo_keras.models.bilm.presets import BiLMConfig, check_fits_in_memory
from elmo_keras.models.bilm.training import perplexity_summary
from elmo_keras.models.bilm.training_data import check_vocabulary_coverage, training_sentences
from elmo_keras.models.callbacks import ProgressCallback, as_keras_callbacks, check_finite_weights
from elmo_keras.models.fitting import compile_for_training, guarded_fit, training_summary
from elmo_keras.pretrained.loader import load_pretrained_bilm
from elmo_keras.pretrained.model_files import local_model_files
from elmo_keras.pretrained.options import ElmoOptions
from elmo_keras.text.char_ids import MAX_CHARS_PER_TOKEN
from elmo_keras.text.sentences import DEFAULT_MAX_SENTENCE_TOKENS, as_token_lists
from elmo_keras.text.vocabulary import Vocabulary

# Defaults chosen from tools/run_fine_tuning_experiment.py (the fixture model fine-tuned on the polysemy corpus)
DEFAULT_SOFTMAX_EPOCHS = 2
DEFAULT_EPOCHS = 6  # + DEFAULT_SOFTMAX_EPOCHS: the 8 epochs measured
DEFAULT_BATCH_SIZE = 32
DEFAULT_LEARNING_RATE = 4e-3
MODEL_NAME = "bi_language_model"


def config_from_options(options: ElmoOptions, **training) -> BiLMConfig:
    """The ``BiLMConfig`` describing the pretrained architecture (``token_input="char"``), with ``training``'s
    fields (``epochs``, ``batch_size``, ``learning_rate``, ``dropout``, ``lowercase``, ``max_sentence_tokens``) set.

    ``BiLMConfig`` has no field for ``char_cnn.activation``; the model itself keeps it (its ``CharCNN``).
    """
    cnn, lstm = options.char_cnn, options.lstm
    return BiLMConfig(
        token_input="char", embedding_dim=cnn.embedding_dim, units=lstm.dim,
        projection_dim=lstm.projection_dim if lstm.has_projection else None, num_layers=lstm.n_layers,
        cell_clip=lstm.cell_clip, proj_clip=lstm.proj_clip, use_skip_connections=lstm.use_skip_connections,
        char_filters=cnn.filters, n_highway=cnn.n_highway, training_precision="float32", **training,
    )


def fine_tune_pretrained(
    options_file: str | os.PathLike,
    weight_file: str | os.PathLike | None,
    corpus,
    heldout=None,
    vocabulary: Vocabulary | None = None,
    epochs: int = DEFAULT_EPOCHS,
    batch_size: int = DEFAULT_BATCH_SIZE,
    learning_rate: float = DEFAULT_LEARNING_RATE,
    seed: int = 0,
    callbacks: Sequence[keras.callbacks.Callback | ProgressCallback] | None = None,
    freeze_bilm: bool = False,
    softmax_epochs: int = DEFAULT_SOFTMAX_EPOCHS,
    dropout: float = 0.0,
    lowercase: bool = False,
    token_input: str = "char",
    verbose: int = 0,
    max_sentence_tokens: int = DEFAULT_MAX_SENTENCE_TOKENS,
) -> BiLanguageModel:
    """Fine-tune the original ELMo in ``options_file`` + ``weight_file`` on ``corpus`` with a new softmax.

    Args:
        options_file, weight_file: the original model, paths or URLs, or a released model's name and None (see
            ``load_pretrained_bilm``).
        corpus: domain sentences (strings or token lists), without ``<S>``/``</S>``.
        heldout: sentences to report held-out perplexity on before and after. Defaults to None (none).
        vocabulary: the softmax's words. Defaults to None: built from ``corpus`` (every word; ``lowercase``).
        epochs: int ≥ 0, epochs of phase 2 (everything trains). Defaults to ``DEFAULT_EPOCHS``.
        batch_size: int, sentences per batch (capped at the corpus size). Defaults to ``DEFAULT_BATCH_SIZE``.
        learning_rate: float, Adam's learning rate in both phases. Defaults to ``DEFAULT_LEARNING_RATE``.
        seed: int, seeds the new softmax, dropout and the batch order. Defaults to 0.
        callbacks: Keras callbacks and/or functions ``fn(epoch, logs)``, called after each epoch of both phases
            (epochs numbered on across them). Defaults to None.
        freeze_bilm: bool, train the softmax only in phase 2 too (the biLM stays as released). Defaults to False.
        softmax_epochs: int ≥ 0, epochs of phase 1 (the biLM frozen). Defaults to ``DEFAULT_SOFTMAX_EPOCHS``.
        dropout: float in ``[0, 1)``, between the LSTM layers and before the softmax, training only. Defaults to 0.
        lowercase: bool, lowercase the words of a vocabulary built here (the characters keep their case).
            Defaults to False.
        token_input: must be ``"char"``: the original models read characters. Defaults to ``"char"``.
        verbose: Keras ``fit`` verbosity. Defaults to 0.
        max_sentence_tokens: int, tokens per training sentence: a longer sentence of ``corpus`` or ``heldout`` is
            split into consecutive pieces, each trained (or scored) as a sentence, with a ``TrainingDataWarning``
            (as ``train_bilm``): a batch never exceeds ``batch_size × (max_sentence_tokens + 2)`` steps. Defaults
            to ``DEFAULT_MAX_SENTENCE_TOKENS`` (200).

    Returns:
        A trained ``BiLanguageModel`` (stateless biLM) with ``vocabulary``, ``config`` (``config_from_options``;
        ``config.epochs`` = both phases) and ``training_summary``: ``heldout_before`` (the new softmax
        untrained), ``heldout_after_softmax`` (after phase 1) and ``heldout`` (at the end), each
        ``{"forward_perplexity", "backward_perplexity"}``, plus ``pretrained`` (the two files), the history and
        the training perplexities.

    Raises:
        FileNotFoundError, OptionsError, WeightFileError: as ``load_pretrained_bilm`` (e.g. options and weights of
            different models).
        TypeError, ValueError: a bad corpus (a single str, an empty sentence, no sentences), ``token_input`` other
            than ``"char"``, nothing to train (``epochs`` and ``softmax_epochs`` both 0), a bad number, or a
            ``vocabulary`` holding none of the corpus's tokens (over 10 % unknown: a ``TrainingDataWarning``).
        TrainingDivergedError (a ValueError): the loss or the weights became NaN or infinite.
    """
    if token_input != "char":
        raise ValueError(f"token_input must be 'char', received {token_input!r}: the original ELMo models read "
                         "characters (a CharCNN); to train a word-level biLM from scratch use train_bilm")
    epochs = check_int(epochs, "epochs", minimum=0)
    softmax_epochs = check_int(softmax_epochs, "softmax_epochs", minimum=0)
    if epochs + softmax_epochs == 0:
        raise ValueError("epochs and softmax_epochs are both 0: nothing to train")
    check_int(batch_size, "batch_size")
    check_finite_positive(learning_rate, "learning_rate")
    check_rate(dropout)
    keras_callbacks = as_keras_callbacks(callbacks)
    sentences, split, heldout_sentences = fine_tuning_sentences(corpus, heldout, max_sentence_tokens)
    options_file, weight_file = local_model_files(options_file, weight_file)  # a name or URLs → cached files
    options = ElmoOptions.load(options_file)
    given = vocabulary is not None
    vocabulary = vocabulary or Vocabulary.from_corpus(sentences, lowercase=lowercase)
    check_vocabulary_coverage(Counter(token for sentence in sentences for token in sentence), vocabulary, given)
    config = config_from_options(options, epochs=softmax_epochs + epochs, batch_size=min(batch_size, len(sentences)),
                                 learning_rate=float(learning_rate), dropout=float(dropout),
                                 lowercase=vocabulary.lowercase, max_sentence_tokens=int(max_sentence_tokens))
    check_fits_in_memory(config, len(vocabulary))

    keras.utils.set_random_seed(int(seed))
    model = pretrained_language_model(options_file, weight_file, vocabulary, dropout)
    summary = {"pretrained": {"options_file": os.path.abspath(options_file),
                              "weight_file": os.path.abspath(weight_file)}}
    if heldout_sentences:
        summary["heldout_before"] = perplexities(model, heldout_sentences)
    train = dict(learning_rate=config.learning_rate, callbacks=keras_callbacks, verbose=verbose)
    phases = [(softmax_epochs + (epochs if freeze_bilm else 0), False)]
    if epochs and not freeze_bilm:
        phases.append((epochs, True))
    # each phase's batches start from epoch 0's order (on every backend: training_batches plans from epoch 0)
    batches = ShuffledBatches(sentences, vocabulary, "char", config.batch_size, seed=int(seed))
    history, started, done, heldout_now = {}, time.perf_counter(), 0, None  # heldout_now: of the current weights
    for phase_epochs, bilm_trainable in phases:
        if not phase_epochs:
            continue
        set_bilm_trainable(model, bilm_trainable)
        for key, values in fit_epochs(model, phase_epochs, batches, initial_epoch=done, **train).items():
            history.setdefault(key, []).extend(values)
        done += phase_epochs
        heldout_now = None
        if heldout_sentences and not bilm_trainable:
            summary["heldout_after_softmax"] = heldout_now = perplexities(model, heldout_sentences)
    seconds = time.perf_counter() - started
    check_finite_weights(model, "the fine-tuned model")
    model.config = config
    summary.update({
        **training_summary(config, seed, seconds, history, softmax_epochs=softmax_epochs, epochs=epochs,
                           freeze_bilm=bool(freeze_bilm), num_sentences=len(sentences),
                           num_tokens=int(sum(len(s) for s in sentences)),
                           **({"split_sentences": split.sentences} if split.sentences else {}),
                           vocab_size=len(vocabulary)),
        **perplexity_summary(model, sentences, heldout_sentences, vocabulary, config.learning_rate, heldout_now),
    })
    model.training_summary = summary
    return model


def fine_tuning_sentences(corpus, heldout, max_sentence_tokens: int):
    """``(sentences, split, heldout_sentences)``: ``corpus`` and ``heldout`` (None: None) as token lists, a sentence
    over ``max_sentence_tokens`` split into pieces (``training_data.training_sentences``; ``split`` says how many).

    Raises:
        TypeError, ValueError: a bad corpus, heldout or ``max_sentence_tokens`` (named).
    """
    check_int(max_sentence_tokens, "max_sentence_tokens")
    sentences, split = training_sentences(as_token_lists(corpus), max_sentence_tokens)
    heldout_sentences = None
    if heldout is not None:
        heldout_sentences, _ = training_sentences(as_token_lists(heldout, "heldout"), max_sentence_tokens, "heldout")
    return sentences, split, heldout_sentences


def pretrained_language_model(options_file, weight_file, vocabulary: Vocabulary,
                              dropout: float = 0.0) -> BiLanguageModel:
    """A built ``BiLanguageModel``: the pretrained biLM (stateless) + a new, untrained softmax over ``vocabulary``.

    Where the character CNN's filters already have the LSTM width, the original has no token projection and the
    loader puts an identity there; it is frozen so the model stays exportable (``export_pretrained``).

    Raises:
        FileNotFoundError, OptionsError, WeightFileError: as ``load_pretrained_bilm``.
    """
    bilm = load_pretrained_bilm(options_file, weight_file)
    if dropout:
        bilm = bilm.copy(dropout=float(dropout))
    model = BiLanguageModel(bilm, len(vocabulary), dropout=dropout, name=MODEL_NAME)
    model.build((None, None, MAX_CHARS_PER_TOKEN))
    model.vocabulary = vocabulary
    return model


def set_bilm_trainable(model: BiLanguageModel, trainable: bool) -> None:
    """Freeze or unfreeze the biLM (the softmax always trains); an identity token projection stays frozen."""
    model.bilm.trainable = trainable
    encoder = model.bilm.token_encoder
    if encoder.num_filters == encoder.projection_dim:  # bilm-tf has no projection here (see pretrained_language_model)
        encoder.projection.trainable = False


def fit_epochs(model: BiLanguageModel, epochs: int, batches: ShuffledBatches, learning_rate: float,
               callbacks: list, initial_epoch: int = 0, verbose: int = 0) -> dict:
    """Compile ``model`` afresh (a new optimizer for what is trainable now) and ``fit`` it for ``epochs`` epochs
    of ``batches``, numbered from ``initial_epoch``; returns the history (``{metric: [value per epoch]}``)."""
    compile_for_training(model, learning_rate)
    return guarded_fit(model, training_batches(batches, epochs), learning_rate=learning_rate, callbacks=callbacks,
                       epochs=initial_epoch + epochs, initial_epoch=initial_epoch, steps_per_epoch=len(batches),
                       shuffle=False, verbose=verbose)
