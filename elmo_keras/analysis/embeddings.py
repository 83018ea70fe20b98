"""Per-layer vectors of chosen words, embedded statelessly (through ``models.bilm.inference.embed_token_lists``, each
job planned by ``models.bilm.inference_plan``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from elmo_keras.models.bilm.inference import embed_token_lists
from elmo_keras.models.bilm.inference_plan import AUTO, ExecutionPlan, check_execution, steps_per_batch, window_batches
from elmo_keras.models.bilm.inference_precision import execution_with, inference_matmul_dtype
from elmo_keras.models.bilm.language_model import BiLanguageModel
from elmo_keras.text.batching import sentence_ids
from elmo_keras.text.vocabulary import UNK_ID

DEFAULT_BATCH_SIZE = 64


def sentence_activations(model: BiLanguageModel, sentences: Sequence[Sequence[str]],
                         batch_size: int = DEFAULT_BATCH_SIZE, execution: str = AUTO, precision: str = AUTO):
    """Every layer's activations for each sentence, boundaries removed, embedded without state.

    Args:
        model: a ``BiLanguageModel`` carrying its ``vocabulary``.
        sentences: token lists, without boundary tokens.
        batch_size: int, sentences per biLM call. Defaults to 64.
        execution: ``"auto"``, ``"graph"``, ``"xla"`` or ``"eager"`` (``models.bilm.inference_plan``: ``"auto"``
            compiles only where the sentences' work repays it, never for a few sentences). Defaults to ``"auto"``.
        precision: ``"auto"``, ``"float32"`` or ``"bfloat16"`` (``models.bilm.inference_precision``: ``"auto"`` is
            float32 but for models of ELMo's published sizes on a CPU with native bfloat16). Defaults to ``"auto"``.

    Returns:
        A list with one float32 array `(num_layers, len(sentence), 2 * dim)` per sentence.

    Raises:
        TypeError: a sentence is a str (not a token list) or holds a non-str token.
        ValueError: the model has no vocabulary, a sentence is empty, or an unknown ``execution`` or ``precision``.
    """
    if model.vocabulary is None:
        raise ValueError("the model has no vocabulary: load it with load_bilm or train it with train_bilm")
    check_execution(execution)
    matmul_dtype = inference_matmul_dtype(model.bilm, precision)
    execution = execution_with(execution, matmul_dtype)
    sentences = _token_lists(sentences)
    ids = sentence_ids(model.token_input, model.vocabulary)
    lengths = [len(sentence) for sentence in sentences]
    batches = window_batches(lengths, batch_size, sort=False)  # in order: the job is known, no need to sort
    plan = ExecutionPlan(model.bilm, execution, batch_size)
    plan.add(steps_per_batch(lengths, batches))
    results = []
    for batch in batches:
        run = plan.run_for(max(lengths[i] for i in batch) + 2)
        results += embed_token_lists(model.bilm, ids, [sentences[i] for i in batch], run.execution, run.time_bucket,
                                     rows=run.rows, matmul_dtype=matmul_dtype)
    return results


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
        execution: as for ``sentence_activations``. Defaults to ``"auto"`` (the graph for a few sentences).
        precision: as for ``sentence_activations``. Defaults to ``"auto"``.

    Returns:
        float32 `(num_layers, len(sentences), 2 * dim)`.

    Raises:
        TypeError: a sentence is a str (not a token list) or holds a non-str token.
        ValueError: lengths differ, no or empty sentences, a position outside its sentence, or (unless
            ``allow_unknown``) a word-level model does not know the word at a position.
    """
    sentences = _token_lists(sentences)
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


def _token_lists(sentences) -> list[list[str]]:
    """``sentences`` as lists of str tokens; a str where a token list belongs, or a non-str token, is an error."""
    if isinstance(sentences, str):
        raise TypeError("sentences must be a list of token lists, received a single str")
    result = []
    for index, sentence in enumerate(sentences):
        if isinstance(sentence, str):
            raise TypeError(
                f"sentence {index} is a str ({sentence[:40]!r}); pass token lists, e.g. elmo_keras.text.tokenize(text)"
            )
        tokens = list(sentence)
        if not tokens:
            raise ValueError(f"sentence {index} is empty")
        for token in tokens:
            if not isinstance(token, str):
                raise TypeError(f"sentence {index} holds a {type(token).__name__} token ({token!r}); "
                                "tokens must be str")
        result.append(tokens)
    return result
