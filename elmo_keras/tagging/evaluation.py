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
from elmo_keras.tagging.schemes import invalid_transitions

NOTHING_LABELS = frozenset({"O", "null"})
SEQEVAL_SCHEMES = {"BIO": "IOB2", "BIOES": "IOBES"}


def token_accuracy(gold: Sequence[Sequence[str]], predicted: Sequence[Sequence[str]]) -> float:
    """Share of tokens tagged right.

    Args:
        gold, predicted: one tag list per sentence, of equal lengths (``ValueError`` otherwise).
    """
    pairs = [(g, p) for gs, ps in zip(gold, predicted, strict=True) for g, p in zip(gs, ps, strict=True)]
    return sum(g == p for g, p in pairs) / len(pairs)


def label_f1(gold: Sequence[Sequence[str]], predicted: Sequence[Sequence[str]],
             nothing: frozenset = NOTHING_LABELS) -> float:
    """Micro F1 over tokens with a gold or predicted label outside ``nothing`` (0.0 when neither has any).

    Args:
        gold, predicted: one tag list per sentence, of equal lengths.
        nothing: the labels that mean "no label". Defaults to ``NOTHING_LABELS`` (``O``, ``null``).
    """
    true_positive = predicted_count = gold_count = 0
    for gs, ps in zip(gold, predicted, strict=True):
        for g, p in zip(gs, ps, strict=True):
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

    if scheme not in SEQEVAL_SCHEMES:
        raise ValueError(f"scheme must be one of {sorted(SEQEVAL_SCHEMES)}, received {scheme!r}")
    scheme_class = getattr(seqeval_schemes, SEQEVAL_SCHEMES[scheme])
    return float(f1_score([list(g) for g in gold], [list(p) for p in predicted], mode="strict", scheme=scheme_class,
                          zero_division=0))


def evaluate_tagger(model, task: str, examples: Sequence[Example], scheme: str | None = None) -> dict:
    """``{"accuracy", "label_f1"}`` of ``model`` on ``task``'s ``examples``, plus ``"span_f1"``,
    ``"invalid_sentences"`` and ``"invalid_transitions"`` when the task uses a ``scheme``.

    Args:
        model: a trained ``SequenceTagger`` (it has a vocabulary).
        task: one of the model's tasks.
        examples: held-out ``(tokens, tags)`` pairs.
        scheme: ``"BIO"``, ``"BIOES"`` or None (a tag set without spans). Defaults to None.
    """
    sentences = [list(tokens) for tokens, _ in examples]
    gold = [list(tags) for _, tags in examples]
    predicted = model.predict_tags(sentences, tasks=[task])[task]
    scores = {"accuracy": token_accuracy(gold, predicted), "label_f1": label_f1(gold, predicted)}
    if scheme is not None:
        counts = [invalid_transitions(tags, scheme) for tags in predicted]
        scores.update(span_f1=span_f1(gold, predicted, scheme), invalid_sentences=sum(c > 0 for c in counts),
                      invalid_transitions=sum(counts))
    return scores
