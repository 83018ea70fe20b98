"""Scores of a tagger on held-out examples: token accuracy, label F1, span F1 (``seqeval``, strict), invalid
sequences.

- **Token accuracy**: the share of tokens whose predicted tag is the gold tag.
- **Label F1** (for tag sets without spans, e.g. semantic frames): micro-averaged F1 over the tokens whose gold
  or predicted tag is not the "nothing" label (``O`` / ``null``): a tagger that predicts "nothing" everywhere
  scores 0, not the share of empty tokens.
- **Span F1** (BIO / BIOES): ``seqeval``'s strict mode — a predicted entity counts only if its type, start and
  end are all right and its tag sequence is valid in the scheme.
- **Invalid sequences**: predicted sentences with at least one transition the scheme forbids (``O`` → ``E-LOC``),
  and the number of such transitions.
"""

from __future__ import annotations

from collections.abc import Sequence

from elmo_keras.tagging.encoding import Example
from elmo_keras.tagging.inputs import check_not_str, check_task, checked_examples
from elmo_keras.tagging.schemes import invalid_transitions

NOTHING_LABELS = frozenset({"O", "null"})
SEQEVAL_SCHEMES = {"BIO": "IOB2", "BIOES": "IOBES"}


def token_accuracy(gold: Sequence[Sequence[str]], predicted: Sequence[Sequence[str]]) -> float:
    """Share of tokens tagged right.

    Args:
        gold, predicted: one tag list per sentence, of equal lengths (``ValueError`` otherwise, and for a str
            where a list is).
    """
    pairs = [(g, p) for gs, ps in _tag_lists(gold, predicted) for g, p in zip(gs, ps)]
    if not pairs:
        raise ValueError("gold and predicted hold no tags: token accuracy needs at least one token")
    return sum(g == p for g, p in pairs) / len(pairs)


def label_f1(gold: Sequence[Sequence[str]], predicted: Sequence[Sequence[str]],
             nothing: frozenset = NOTHING_LABELS) -> float:
    """Micro F1 over tokens with a gold or predicted label outside ``nothing`` (0.0 when neither has any).

    Args:
        gold, predicted: one tag list per sentence, of equal lengths.
        nothing: the labels that mean "no label". Defaults to ``NOTHING_LABELS`` (``O``, ``null``).
    """
    true_positive = predicted_count = gold_count = 0
    for gs, ps in _tag_lists(gold, predicted):
        for g, p in zip(gs, ps):
            predicted_count += p not in nothing
            gold_count += g not in nothing
            true_positive += g == p and g not in nothing
    if true_positive == 0:
        return 0.0
    precision, recall = true_positive / predicted_count, true_positive / gold_count
    return 2 * precision * recall / (precision + recall)


def span_f1(gold: Sequence[Sequence[str]], predicted: Sequence[Sequence[str]], scheme: str = "BIOES") -> float:
    """Entity-level F1 with ``seqeval`` in strict mode.

    Args:
        gold, predicted: one tag list per sentence.
        scheme: ``"BIO"`` or ``"BIOES"``. Defaults to ``"BIOES"``.
    """
    # imported on first use: seqeval pulls in scikit-learn, which taggers that are not scored never need
    from seqeval import scheme as seqeval_schemes
    from seqeval.metrics import f1_score

    _check_scheme(scheme)
    pairs = _tag_lists(gold, predicted)
    scheme_class = getattr(seqeval_schemes, SEQEVAL_SCHEMES[scheme])
    return float(f1_score([g for g, _ in pairs], [p for _, p in pairs], mode="strict", scheme=scheme_class,
                          zero_division=0))


def evaluate_tagger(model, task: str, examples: Sequence[Example], scheme: str | None = None) -> dict:
    """``{"accuracy", "label_f1"}`` of ``model`` on ``task``'s ``examples``, plus ``"span_f1"``,
    ``"invalid_sentences"`` and ``"invalid_transitions"`` when the task uses a ``scheme``.

    Args:
        model: a trained ``SequenceTagger`` (it has a vocabulary).
        task: one of the model's tasks.
        examples: held-out ``(tokens, tags)`` pairs (checked as training examples are).
        scheme: ``"BIO"``, ``"BIOES"`` or None (a tag set without spans). Defaults to None.

    Raises:
        ValueError: before the model runs: a task the model was not trained on, an unknown scheme, a bad example
            (see ``tagging.inputs``).
    """
    check_task(task, getattr(model, "task_names", ()))
    if scheme is not None:
        _check_scheme(scheme)
    examples = checked_examples(task, examples)
    sentences = [tokens for tokens, _ in examples]
    gold = [tags for _, tags in examples]
    predicted = model.predict_tags(sentences, tasks=[task])[task]
    scores = {"accuracy": token_accuracy(gold, predicted), "label_f1": label_f1(gold, predicted)}
    if scheme is not None:
        counts = [invalid_transitions(tags, scheme) for tags in predicted]
        scores.update(span_f1=span_f1(gold, predicted, scheme), invalid_sentences=sum(c > 0 for c in counts),
                      invalid_transitions=sum(counts))
    return scores


def _check_scheme(scheme) -> None:
    if scheme not in SEQEVAL_SCHEMES:
        raise ValueError(f"scheme must be one of {sorted(SEQEVAL_SCHEMES)}, received {scheme!r}")


def _tag_lists(gold, predicted) -> list[tuple[list, list]]:
    """``(gold tags, predicted tags)`` per sentence, as lists; a ``ValueError`` naming the argument for a str where
    a list of tag lists is (a str would be read letter by letter) and for unequal lengths."""
    check_not_str(gold, "gold", "a list of tag lists, one per sentence")
    check_not_str(predicted, "predicted", "a list of tag lists, one per sentence")
    gold, predicted = list(gold), list(predicted)
    if len(gold) != len(predicted):
        raise ValueError(f"gold has {len(gold)} sentences but predicted has {len(predicted)}")
    pairs = []
    for index, (gs, ps) in enumerate(zip(gold, predicted)):
        check_not_str(gs, f"gold[{index}]", "a list of tags")
        check_not_str(ps, f"predicted[{index}]", "a list of tags")
        gs, ps = list(gs), list(ps)
        if len(gs) != len(ps):
            raise ValueError(f"sentence {index}: gold has {len(gs)} tags but predicted has {len(ps)}")
        pairs.append((gs, ps))
    return pairs
