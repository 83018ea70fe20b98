"""BIO/BIOES transition tables against hand-written ones, label errors, and the sequence checker against the
tables on every short sequence."""

import itertools

import numpy as np
import pytest

from elmo_keras.tagging import allowed_transitions, invalid_transitions, is_valid_sequence
from elmo_keras.tagging.schemes import parse_label


def test_bio_table():
    labels = ["O", "B-LOC", "I-LOC", "B-PER", "I-PER"]
    allowed, start, end = allowed_transitions("BIO", labels)
    expected = np.array(
        [  # to: O  B-LOC I-LOC B-PER I-PER
            [1, 1, 0, 1, 0],  # from O
            [1, 1, 1, 1, 0],  # from B-LOC
            [1, 1, 1, 1, 0],  # from I-LOC
            [1, 1, 0, 1, 1],  # from B-PER
            [1, 1, 0, 1, 1],  # from I-PER
        ],
        bool,
    )
    np.testing.assert_array_equal(allowed, expected)
    assert start.tolist() == [True, True, False, True, False] and end.all()
    assert allowed.dtype == bool and allowed.shape == (5, 5) and start.shape == end.shape == (5,)


def test_bioes_table():
    labels = ["O", "B-X", "I-X", "E-X", "S-X", "B-Y", "E-Y", "S-Y"]
    allowed, start, end = allowed_transitions("BIOES", labels)
    expected = np.array(
        [  # to: O  B-X I-X E-X S-X B-Y E-Y S-Y
            [1, 1, 0, 0, 1, 1, 0, 1],  # from O
            [0, 0, 1, 1, 0, 0, 0, 0],  # from B-X
            [0, 0, 1, 1, 0, 0, 0, 0],  # from I-X
            [1, 1, 0, 0, 1, 1, 0, 1],  # from E-X
            [1, 1, 0, 0, 1, 1, 0, 1],  # from S-X
            [0, 0, 0, 0, 0, 0, 1, 0],  # from B-Y (no I-Y in this label set)
            [1, 1, 0, 0, 1, 1, 0, 1],  # from E-Y
            [1, 1, 0, 0, 1, 1, 0, 1],  # from S-Y
        ],
        bool,
    )
    np.testing.assert_array_equal(allowed, expected)
    assert start.tolist() == [True, True, False, False, True, True, False, True]
    assert end.tolist() == [True, False, False, True, True, False, True, True]


def test_entity_types_may_contain_dashes_and_any_name():
    assert parse_label("B-GPE-LOC", "BIO") == ("B", "GPE-LOC") and parse_label("O", "BIOES") == ("O", None)
    allowed, _, _ = allowed_transitions("BIO", ["B-GPE-LOC", "I-GPE-LOC", "I-misc_1"])
    assert allowed[0, 1] and not allowed[0, 2]


@pytest.mark.parametrize(
    "scheme, labels, message",
    [
        ("BIO", ["O", "X-LOC"], "label 'X-LOC' is not a BIO label"),
        ("BIO", ["O", "E-LOC"], "label 'E-LOC' is not a BIO label"),
        ("BIOES", ["O", "B-"], "label 'B-' is not a BIOES label"),
        ("BIOES", ["O", "LOC"], "label 'LOC' is not a BIOES label"),
        ("BIOES", ["O-LOC"], "label 'O-LOC' is not a BIOES label"),
        ("BIO", ["O", "B-LOC", "O"], r"labels must be distinct, received \['O'\] more than once"),
        ("BIO", [], "labels must name at least one tag"),
        ("IOB2", ["O"], r"scheme must be one of \['BIO', 'BIOES'\], received 'IOB2'"),
    ],
)
def test_bad_labels_and_schemes_are_refused(scheme, labels, message):
    with pytest.raises(ValueError, match=message):
        allowed_transitions(scheme, labels)


@pytest.mark.parametrize(
    "tag_names, scheme, expected",
    [
        ([], "BIO", 0),
        (["O", "B-LOC", "I-LOC", "O"], "BIO", 0),
        (["I-LOC", "O", "I-PER"], "BIO", 2),  # starts inside; O → I-PER
        (["B-LOC", "I-PER"], "BIO", 1),  # the type changes inside an entity
        (["S-LOC", "B-PER", "I-PER", "E-PER", "O"], "BIOES", 0),
        (["B-LOC"], "BIOES", 1),  # B- at the end: the entity never closes
        (["B-LOC", "O", "E-LOC"], "BIOES", 2),  # B-LOC → O and O → E-LOC
        (["I-LOC", "E-LOC"], "BIOES", 1),  # starts inside
        (["B-LOC", "E-PER"], "BIOES", 1),
    ],
)
def test_invalid_transitions_counts(tag_names, scheme, expected):
    assert invalid_transitions(tag_names, scheme) == expected
    assert is_valid_sequence(tag_names, scheme) == (expected == 0)


def test_invalid_transitions_refuses_unknown_labels():
    with pytest.raises(ValueError, match="label 'E-LOC' is not a BIO label"):
        invalid_transitions(["B-LOC", "E-LOC"], "BIO")


@pytest.mark.parametrize(
    "scheme, labels",
    [("BIO", ["O", "B-A", "I-A", "B-B", "I-B"]), ("BIOES", ["O", "B-A", "I-A", "E-A", "S-A", "B-B", "E-B"])],
)
def test_checker_agrees_with_the_tables_on_every_short_sequence(scheme, labels):
    allowed, start, end = allowed_transitions(scheme, labels)
    for length in range(1, 4):
        for path in itertools.product(range(len(labels)), repeat=length):
            steps = [start[path[0]], *(allowed[a, b] for a, b in itertools.pairwise(path)), end[path[-1]]]
            assert invalid_transitions([labels[i] for i in path], scheme) == steps.count(False)
