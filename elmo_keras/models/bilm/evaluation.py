"""How good a ``BiLanguageModel`` is: forward and backward perplexity, and an add-one unigram baseline."""

from __future__ import annotations

import math
from collections import Counter

from elmo_keras.models.bilm.compiled import lm_logits
from elmo_keras.models.bilm.language_model import BiLanguageModel
from elmo_keras.text.batching import lm_inputs_and_targets
from elmo_keras.text.sentences import as_token_lists
from elmo_keras.text.vocabulary import EOS_ID, Vocabulary


def perplexities(model: BiLanguageModel, sentences, batch_size: int = 64) -> dict:
    """Forward and backward perplexity of ``model`` on ``sentences`` (token lists or strings).

    ``<S>``/``</S>`` are added; each direction's perplexity is over every real target token, ``</S>`` (forward)
    or ``<S>`` (backward) included. The model's perplexity metrics are reset before and after.

    Args:
        model: a ``BiLanguageModel`` carrying its ``vocabulary``.
        sentences: token lists or strings (split by ``tokenize``).
        batch_size: int, sentences per forward pass. Defaults to 64.

    Returns:
        ``{"forward_perplexity": float, "backward_perplexity": float}``.

    Raises:
        TypeError, ValueError: as ``text.sentences.as_token_lists`` (a single str, an empty sentence, ...).
    """
    sentences = as_token_lists(sentences)
    length = max(len(sentence) for sentence in sentences) + 2  # every batch as long: the same arrays as one encoding
    model.forward_perplexity.reset_state()
    model.backward_perplexity.reset_state()
    for start in range(0, len(sentences), batch_size):  # encoded batch by batch: memory bounded by the batch
        inputs, targets = lm_inputs_and_targets(sentences[start : start + batch_size], model.vocabulary,
                                                model.token_input, length)
        forward_logits, backward_logits = lm_logits(model, inputs)
        outputs = {"forward_logits": forward_logits, "backward_logits": backward_logits}
        model.compute_loss(y=targets, y_pred=outputs, training=False)
    result = {
        "forward_perplexity": float(model.forward_perplexity.result()),
        "backward_perplexity": float(model.backward_perplexity.result()),
    }
    model.forward_perplexity.reset_state()
    model.backward_perplexity.reset_state()
    return result


def unigram_perplexity(train_sentences, eval_sentences, vocabulary: Vocabulary) -> float:
    """Perplexity of an add-one unigram model (over the vocabulary + ``</S>``) on the forward targets.

    Args:
        train_sentences: token lists the unigram counts come from.
        eval_sentences: token lists scored (each contributes its tokens and one ``</S>``).
        vocabulary: the ``Vocabulary`` mapping tokens to ids (unknown words count as ``<unk>``).

    Returns:
        ``exp(−mean log P)`` over every token of ``eval_sentences`` and their ``</S>``.
    """
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
