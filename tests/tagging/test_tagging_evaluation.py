"""Tagger scores: token accuracy, label F1 without the 'nothing' label, strict span F1 (seqeval)."""

import pytest

from elmo_keras.tagging.evaluation import label_f1, span_f1, token_accuracy


def test_token_accuracy_and_label_f1():
    gold = [["null", "Opening", "null"], ["B_Place#Opening", "null"]]
    predicted = [["null", "Opening", "Opening"], ["null", "null"]]
    assert token_accuracy(gold, predicted) == pytest.approx(3 / 5)
    # 1 true positive; predicted non-null 2, gold non-null 2 → P = R = 1/2
    assert label_f1(gold, predicted) == pytest.approx(0.5)
    assert label_f1(gold, [["null"] * 3, ["null"] * 2]) == 0.0  # "nothing" everywhere scores 0
    with pytest.raises(ValueError):
        token_accuracy(gold, predicted[:1])


def test_span_f1_is_strict():
    gold = [["B-LOC", "E-LOC", "O", "S-PER"]]
    assert span_f1(gold, gold) == 1.0
    # the second span is wrong (type), the first right: P = R = 1/2
    assert span_f1(gold, [["B-LOC", "E-LOC", "O", "S-ORG"]]) == pytest.approx(0.5)
    # an invalid sequence (I- without B-) is no entity in strict mode: predicted {PER}, P = 1, R = 1/2
    assert span_f1(gold, [["I-LOC", "E-LOC", "O", "S-PER"]]) == pytest.approx(2 / 3)
    assert span_f1([["B-LOC", "I-LOC"]], [["B-LOC", "I-LOC"]], scheme="BIO") == 1.0
    with pytest.raises(ValueError, match="scheme must be one of"):
        span_f1(gold, gold, scheme="IOB1")
