"""Per-layer vectors of chosen words, embedded statelessly."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from elmo_keras.models.bilm_lm import BiLanguageModel
from elmo_keras.models.inference import bilm_activations
from elmo_keras.models.training import encode_for_lm

DEFAULT_BATCH_SIZE = 64


def sentence_activations(model: BiLanguageModel, sentences: Sequence[Sequence[str]], batch_size: int = DEFAULT_BATCH_SIZE):
    """Every layer's activations for each sentence, boundaries removed.

    Returns:
        A list with one float32 array `(num_layers, len(sentence), 2 * dim)` per sentence.
    """
    if model.vocabulary is None:
        raise ValueError("the model has no vocabulary: load it with load_bilm or train it with train_bilm")
    sentences = [list(s) for s in sentences]
    for index, sentence in enumerate(sentences):
        if not sentence:
            raise ValueError(f"sentence {index} is empty")
    results = []
    for start in range(0, len(sentences), batch_size):
        batch = sentences[start : start + batch_size]
        inputs, _ = encode_for_lm(batch, model.vocabulary, model.encoder_kind)
        stacked = bilm_activations(model, inputs)  # (L, B, T, D)
        results += [stacked[:, i, 1 : len(s) + 1] for i, s in enumerate(batch)]
    return results


def layer_embeddings(
    model: BiLanguageModel, sentences: Sequence[Sequence[str]], positions: Sequence[int], batch_size: int = DEFAULT_BATCH_SIZE
) -> np.ndarray:
    """Every layer's vector for the word at ``positions[i]`` of ``sentences[i]``.

    Sentences are embedded without state: a sentence's vectors do not depend on the other sentences, on
    their order or on earlier calls (they are batched only for speed).

    Args:
        model: a trained ``BiLanguageModel`` carrying its ``vocabulary``.
        sentences: tokenized sentences, without boundary tokens.
        positions: token index of the word of interest in each sentence.

    Returns:
        float32 `(num_layers, len(sentences), 2 * dim)`.
    """
    if len(sentences) != len(positions):
        raise ValueError(f"got {len(sentences)} sentences but {len(positions)} positions")
    if not sentences:
        raise ValueError("no sentences given")
    for index, (sentence, position) in enumerate(zip(sentences, positions)):
        if not 0 <= int(position) < len(sentence):
            raise ValueError(f"position {position} is outside sentence {index} ({len(sentence)} tokens)")
    activations = sentence_activations(model, sentences, batch_size)
    return np.stack([a[:, int(p)] for a, p in zip(activations, positions)], axis=1).astype(np.float32)
