"""Fine-tuning AllenNLP's transformer ELMo with its own softmax and vocabulary.

The pipeline: ``transformer_elmo_from_archive(path, include_softmax=True)`` (the biLM and the ``_softmax_loss``
tensors) → ``archive_vocabulary`` (``vocabulary/tokens.txt`` as a ``Vocabulary`` and, per id, the softmax row it
was trained at) → ``archive_softmax`` (the rows in that order, as a ``Dense`` kernel and bias) →
``archive_language_model`` (a built ``BiLanguageModel`` that scores exactly as the archive did) →
``fine_tune_transformer_archive`` (trained on a corpus like ``train_bilm``: ``compile_for_training``, shuffled
batches deterministic for the seed), ready for ``model.save(directory)``.

AllenNLP's ``tokens`` namespace is padded: softmax row 0 is padding, row 1 the first line of ``tokens.txt``
(``@@UNKNOWN@@``), row ``k + 1`` its line ``k``. ``Vocabulary`` fixes ``<pad>``, ``<unk>``, ``<S>``, ``</S>`` at ids
0–3 and the words after them, so the softmax rows are permuted, never changed: every word keeps its trained row.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence

import numpy as np

from elmo_keras._quiet import keras
from elmo_keras.argument_checks import check_finite_positive, check_int
from elmo_keras.models.bilm.batches import ShuffledBatches
from elmo_keras.models.bilm.evaluation import perplexities
from elmo_keras.models.bilm.language_model import BiLanguageModel
from elmo_keras.models.bilm.presets import BiLMConfig
from elmo_keras.models.bilm.training import perplexity_summary
from elmo_keras.models.callbacks import ProgressCallback, as_keras_callbacks, check_finite_weights
from elmo_keras.models.fitting import training_summary
from elmo_keras.pretrained.allennlp_archive import read_archive_text
from elmo_keras.pretrained.allennlp_config import ArchiveError
from elmo_keras.pretrained.fine_tuning import MODEL_NAME, fine_tuning_sentences, fit_epochs
from elmo_keras.pretrained.transformer_loader import TransformerElmo, transformer_elmo_from_archive
from elmo_keras.text.char_ids import MAX_CHARS_PER_TOKEN
from elmo_keras.text.sentences import DEFAULT_MAX_SENTENCE_TOKENS
from elmo_keras.text.vocabulary import BOS_TOKEN, EOS_TOKEN, Vocabulary

TOKENS_FILE = "vocabulary/tokens.txt"  # AllenNLP's "tokens" namespace, one token a line
ALLENNLP_UNKNOWN = "@@UNKNOWN@@"  # allennlp.data.vocabulary.DEFAULT_OOV_TOKEN, the padded namespace's first line
ALLENNLP_NEWLINE = "@@NEWLINE@@"  # how Vocabulary.save_to_files writes a newline inside a token
SAMPLED_SOFTMAX_KEYS = ("_softmax_loss.softmax_w.weight", "_softmax_loss.softmax_b.weight")  # (V, dim), (V, 1)
FULL_SOFTMAX_KEYS = ("_softmax_loss.softmax_w", "_softmax_loss.softmax_b")  # (dim, V), (V,)
DEFAULT_EPOCHS = 2
DEFAULT_BATCH_SIZE = 32
DEFAULT_LEARNING_RATE = 1e-3


def archive_vocabulary(lines: Sequence[str], source: str) -> tuple[Vocabulary, np.ndarray]:
    """``(vocabulary, rows)``: ``tokens.txt``'s ``lines`` as a ``Vocabulary`` (case kept) and, for each of its ids,
    the AllenNLP softmax row of that token (padding → 0, ``@@UNKNOWN@@`` → 1, line ``k`` → ``k + 1``).

    Raises:
        ArchiveError: the first line is not ``@@UNKNOWN@@``, ``<S>`` or ``</S>`` is missing, or a token repeats or
            is one of ``Vocabulary``'s own special tokens (naming ``source`` and the token).
    """
    if not lines or lines[0] != ALLENNLP_UNKNOWN:
        raise ArchiveError(source, TOKENS_FILE, f"does not start with {ALLENNLP_UNKNOWN}: not a padded 'tokens' "
                                                "namespace of an AllenNLP vocabulary")
    row_of = {token: k + 1 for k, token in enumerate(lines)}
    for boundary in (BOS_TOKEN, EOS_TOKEN):
        if boundary not in row_of:
            raise ArchiveError(source, TOKENS_FILE, f"has no {boundary}: the language model predicts it, so its "
                                                    "softmax row is needed")
    words = [token for token in lines[1:] if token not in (BOS_TOKEN, EOS_TOKEN)]
    try:
        vocabulary = Vocabulary(words)
    except ValueError as error:
        raise ArchiveError(source, TOKENS_FILE, f"cannot be a Vocabulary: {error}") from None
    rows = [0, 1, row_of[BOS_TOKEN], row_of[EOS_TOKEN], *(row_of[word] for word in words)]
    return vocabulary, np.asarray(rows, dtype=np.int64)


def archive_softmax(tensors: dict[str, np.ndarray], rows: np.ndarray, dim: int,
                    source: str) -> tuple[np.ndarray, np.ndarray]:
    """``(kernel (dim, len(rows)), bias (len(rows),))``, a ``Dense`` softmax from AllenNLP's ``_softmax_loss``
    tensors (a ``SampledSoftmaxLoss``'s embeddings or a ``_SoftmaxLoss``'s matrices), its rows taken in ``rows``'
    order.

    Raises:
        ArchiveError: neither layout's tensors, or a shape that does not fit ``dim`` (the biLM's width) and the
            vocabulary's ``len(rows)`` (naming the tensor).
    """
    words = len(rows)
    if all(key in tensors for key in SAMPLED_SOFTMAX_KEYS):
        w_key, b_key = SAMPLED_SOFTMAX_KEYS
        weights, biases, expected = tensors[w_key], tensors[b_key], ((words, dim), (words, 1))
    elif all(key in tensors for key in FULL_SOFTMAX_KEYS):
        w_key, b_key = FULL_SOFTMAX_KEYS
        weights, biases, expected = tensors[w_key], tensors[b_key], ((dim, words), (words,))
    else:
        raise ArchiveError(source, None, f"has no softmax ({' and '.join(SAMPLED_SOFTMAX_KEYS)}, or "
                                         f"{' and '.join(FULL_SOFTMAX_KEYS)}): fine-tune its biLM under a new softmax")
    for key, value, shape in ((w_key, weights, expected[0]), (b_key, biases, expected[1])):
        if tuple(value.shape) != shape:
            raise ArchiveError(source, None, f"{key} has shape {tuple(value.shape)}, expected {shape} (the "
                                             f"{words:,} words of {TOKENS_FILE} with padding, width {dim})")
    weights = weights if w_key == SAMPLED_SOFTMAX_KEYS[0] else weights.T  # (V, dim) either way
    return np.ascontiguousarray(weights[rows].T, dtype=np.float32), biases.reshape(-1)[rows].astype(np.float32)


def archive_config(loaded: TransformerElmo, **training) -> BiLMConfig:
    """The ``BiLMConfig`` describing the archive's architecture (``contextualizer="transformer"``, characters), with
    ``training``'s fields set. ``BiLMConfig`` has no field for the CNN's projection place, layer norm or activation;
    the model itself keeps them (its ``CharCNN``)."""
    cnn, transformer = loaded.config.char_cnn, loaded.config.contextualizer
    return BiLMConfig(
        token_input="char", contextualizer="transformer", embedding_dim=cnn.embedding_dim, units=loaded.bilm.units,
        hidden_dim=transformer.hidden_dim, num_heads=transformer.num_heads, num_layers=transformer.num_layers,
        dropout=transformer.dropout, char_filters=tuple(tuple(pair) for pair in cnn.filters),
        n_highway=cnn.num_highway, lowercase=False, training_precision="float32", **training)


def archive_language_model(path: str | os.PathLike) -> BiLanguageModel:
    """The built ``BiLanguageModel`` of an AllenNLP transformer ELMo archive (``model.tar.gz`` or its folder): its
    biLM, and its softmax over its vocabulary, so it scores as the archive did. ``vocabulary`` and ``config``
    (``archive_config``) are set.

    Raises:
        FileNotFoundError, ArchiveError, TorchFileError: as ``transformer_elmo_from_archive``, and a vocabulary or
            softmax that does not fit (``archive_vocabulary``, ``archive_softmax``).
    """
    loaded = transformer_elmo_from_archive(path, include_softmax=True)
    lines = read_archive_text(path, TOKENS_FILE).splitlines()
    vocabulary, rows = archive_vocabulary([line.replace(ALLENNLP_NEWLINE, "\n") for line in lines], os.fspath(path))
    kernel, bias = archive_softmax(loaded.softmax, rows, loaded.bilm.units, os.fspath(path))
    model = BiLanguageModel(loaded.bilm, len(vocabulary), name=MODEL_NAME)
    model.build((None, None, MAX_CHARS_PER_TOKEN))
    model.softmax.set_weights([kernel, bias])
    model.vocabulary = vocabulary
    model.config = archive_config(loaded)
    return model


def fine_tune_transformer_archive(
    path: str | os.PathLike,
    corpus,
    *,
    heldout=None,
    epochs: int = DEFAULT_EPOCHS,
    batch_size: int = DEFAULT_BATCH_SIZE,
    learning_rate: float = DEFAULT_LEARNING_RATE,
    seed: int = 0,
    callbacks: Sequence[keras.callbacks.Callback | ProgressCallback] | None = None,
    verbose: int = 0,
    max_sentence_tokens: int = DEFAULT_MAX_SENTENCE_TOKENS,
) -> BiLanguageModel:
    """Continue training an AllenNLP transformer ELMo archive, biLM and softmax together, on ``corpus``.

    Args:
        path: the archive, ``model.tar.gz`` or its folder.
        corpus: sentences (strings or token lists) without ``<S>``/``</S>``; words outside the archive's vocabulary
            are ``<unk>`` targets (the characters still read them).
        heldout: sentences to report held-out perplexity on, before and after. Defaults to None.
        epochs: int ≥ 1. Defaults to ``DEFAULT_EPOCHS``.
        batch_size: int, sentences per batch (capped at the corpus size). Defaults to ``DEFAULT_BATCH_SIZE``.
        learning_rate: float, Adam's. Defaults to ``DEFAULT_LEARNING_RATE``.
        seed: int, seeds dropout (the archive's, in every block) and the batch order. Defaults to 0.
        callbacks: Keras callbacks and/or functions ``fn(epoch, logs)``. Defaults to None.
        verbose: Keras ``fit`` verbosity. Defaults to 0.
        max_sentence_tokens: int, a longer sentence is split into pieces (as ``train_bilm``). Defaults to 200.

    Returns:
        The trained ``BiLanguageModel`` with ``vocabulary`` (the archive's), ``config`` and ``training_summary``
        (``heldout_before`` and ``heldout`` with ``heldout``, the history, the training perplexities).

    Raises:
        As ``archive_language_model``; TypeError, ValueError: a bad corpus or number (named).
        TrainingDivergedError (a ValueError): the loss or the weights became NaN or infinite.
    """
    epochs = check_int(epochs, "epochs")
    check_int(batch_size, "batch_size")
    check_finite_positive(learning_rate, "learning_rate")
    keras_callbacks = as_keras_callbacks(callbacks)
    sentences, split, heldout_sentences = fine_tuning_sentences(corpus, heldout, max_sentence_tokens)
    keras.utils.set_random_seed(int(seed))
    model = archive_language_model(path)
    vocabulary = model.vocabulary
    config = model.config.replace(epochs=epochs, batch_size=min(batch_size, len(sentences)),
                                  learning_rate=float(learning_rate), max_sentence_tokens=int(max_sentence_tokens))
    summary = {"pretrained": {"archive": os.path.abspath(path)}}
    if heldout_sentences:
        summary["heldout_before"] = perplexities(model, heldout_sentences)
    batches = ShuffledBatches(sentences, vocabulary, "char", config.batch_size, seed=int(seed))
    started = time.perf_counter()
    history = fit_epochs(model, epochs, batches, config.learning_rate, keras_callbacks, verbose=verbose)
    seconds = time.perf_counter() - started
    check_finite_weights(model, "the fine-tuned model")
    model.config = config
    summary.update({
        **training_summary(config, seed, seconds, history, num_sentences=len(sentences),
                           num_tokens=int(sum(len(s) for s in sentences)), vocab_size=len(vocabulary),
                           **({"split_sentences": split.sentences} if split.sentences else {})),
        **perplexity_summary(model, sentences, heldout_sentences, vocabulary, config.learning_rate),
    })
    model.training_summary = summary
    return model
