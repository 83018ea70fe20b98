"""Per-layer vectors of chosen words, embedded statelessly through the embedder's job runner
(``embedding.jobs.embed_job``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from elmo_keras.embedding.choices import AUTO, check_execution
from elmo_keras.embedding.jobs import embed_job
from elmo_keras.embedding.precision import inference_matmul_dtype
from elmo_keras.models.bilm.language_model import BiLanguageModel
from elmo_keras.text.batching import check_token_lists, sentence_ids
from elmo_keras.text.vocabulary import UNK_ID

DEFAULT_BATCH_SIZE = 64


def sentence_activations(model: BiLanguageModel, sentences: Sequence[Sequence[str]],
                         batch_size: int = DEFAULT_BATCH_SIZE, execution: str = AUTO, precision: str = AUTO):
    """Every layer's activations for each sentence, boundaries removed, embedded without state.

    Args:
        model: a ``BiLanguageModel`` carrying its ``vocabulary``.
        sentences: token lists, without boundary tokens.
        batch_size: int, sentences per biLM call, in the order given. Defaults to 64.
        execution: ``"auto"`` (the graph), ``"graph"``, ``"xla"`` or ``"eager"`` (``embedding.jobs``). Defaults to
            ``"auto"``.
        precision: ``"auto"``, ``"float32"`` or ``"bfloat16"`` (``embedding.precision``: ``"auto"`` is float32 but for
            models of ELMo's published sizes on a CPU with native bfloat16). Defaults to ``"auto"``.

    Returns:
        A list with one float32 array `(num_layers, len(sentence), 2 * dim)` per sentence (an empty sentence: 0
        tokens).

    Raises:
        TypeError, ValueError: as ``text.batching.check_token_lists`` (a str instead of a token list, a token that is
            not a str; for a character model an empty token), naming the sentence and the token.
        ValueError: the model has no vocabulary, or an unknown ``execution`` or ``precision``.
    """
    if model.vocabulary is None:
        raise ValueError("the model has no vocabulary: load it with load_bilm or train it with train_bilm")
    check_execution(execution)
    matmul_dtype = inference_matmul_dtype(model.bilm, precision)
    ids = sentence_ids(model.token_input, model.vocabulary)
    # sort=False: the batches are the sentences in the order given, as this function has always cut them
    return list(embed_job(model.bilm, ids, sentences, batch_size, execution=execution, matmul_dtype=matmul_dtype,
                          sort=False))


def is_unknown_word(model: BiLanguageModel, word: str) -> bool:
    """True when ``model`` is word-level and reads ``word`` as ``<unk>`` (a character model knows every word)."""
    return (model.token_input == "word" and model.vocabulary is not None
            and model.vocabulary.token_to_id(word) == UNK_ID)


def layer_embeddings(
    model: BiLanguageModel,
    sentences: Sequence[Sequence[str]],
    positions: Sequence[int],
    batch_size: int = DEFAULT_BATCH_SIZE,
    allow_unknown: bool = False,
    execution: str = AUTO,
    precision: str = AUTO,
) -> np.ndarray:
    """Every layer's vector for the word at ``positions[i]`` of ``sentences[i]``.

    Sentences are embedded without state: a sentence's vectors do not depend on the other sentences, on
    their order or on earlier calls (they are batched only for speed).

    Args:
        model: a trained ``BiLanguageModel`` carrying its ``vocabulary``.
        sentences: tokenized sentences, without boundary tokens.
        positions: token index of the word of interest in each sentence (ints).
        batch_size: int, sentences per biLM call. Defaults to 64.
        allow_unknown: bool, embed a word a word-level model does not know (it reads ``<unk>``) instead of
            raising. Defaults to False.
        execution: as for ``sentence_activations``. Defaults to ``"auto"`` (the graph).
        precision: as for ``sentence_activations``. Defaults to ``"auto"``.

    Returns:
        float32 `(num_layers, len(sentences), 2 * dim)`.

    Raises:
        TypeError, ValueError: as ``sentence_activations`` (``text.batching.check_token_lists``).
        ValueError: lengths differ, no sentences, a position outside its sentence (an empty sentence has none), or
            (unless ``allow_unknown``) a word-level model does not know the word at a position.
    """
    check_token_lists(sentences, model.token_input)
    if len(sentences) != len(positions):
        raise ValueError(f"got {len(sentences)} sentences but {len(positions)} positions")
    if not sentences:
        raise ValueError("no sentences given")
    for index, (sentence, position) in enumerate(zip(sentences, positions)):
        if not 0 <= int(position) < len(sentence):
            raise ValueError(f"position {position} is outside sentence {index} ({len(sentence)} tokens)")
        word = sentence[int(position)]
        if not allow_unknown and is_unknown_word(model, word):
            raise ValueError(
                f"the word {word!r} (sentence {index}, position {position}) is not in the model's vocabulary: a "
                "word-level model sees it as <unk>, the same vector as every other unknown word; choose a word the "
                "model was trained on, or train a character-level model (token_input='char'); allow_unknown=True "
                "embeds it anyway"
            )
    activations = sentence_activations(model, sentences, batch_size, execution, precision)
    return np.stack([a[:, int(p)] for a, p in zip(activations, positions)], axis=1).astype(np.float32)

