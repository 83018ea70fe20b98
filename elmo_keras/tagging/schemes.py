"""Tagging schemes (BIO, BIOES): which tag follows which, as the CRF's ``constraints`` and as a checker.

A label is ``O`` or ``<prefix>-<type>`` (``B-LOC``, ``I-PER``, ``S-MISC``; the type is any non-empty name and
may itself contain ``-``). The rules, with ``T`` one entity type:

- BIO (prefixes ``B``, ``I``): ``I-T`` only after ``B-T`` or ``I-T``, so never first; anything may end.
- BIOES (prefixes ``B``, ``I``, ``E``, ``S``): after ``B-T`` or ``I-T`` only ``I-T`` or ``E-T``; after
  ``E-T``, ``S-T`` or ``O`` only ``O``, ``B-*`` or ``S-*``; a sentence starts with ``O``, ``B-*`` or ``S-*`` and
  ends with ``O``, ``E-*`` or ``S-*``.

One rule function (``_follows``) holds them; ``allowed_transitions`` tabulates it for a label set and
``invalid_transitions`` applies it along a sequence of tag names, start and end included.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

OUTSIDE = "O"
SCHEME_PREFIXES = {"BIO": ("B", "I"), "BIOES": ("B", "I", "E", "S")}
_SENTENCE_EDGE = (None, None)  # the parsed "label" before the first and after the last tag


def parse_label(label: str, scheme: str) -> tuple[str, str | None]:
    """``"B-LOC"`` → ``("B", "LOC")``, ``"O"`` → ``("O", None)``; ``ValueError`` naming a label ``scheme`` lacks.

    Args:
        label: the tag name.
        scheme: ``"BIO"`` or ``"BIOES"``.
    """
    prefixes = _scheme_prefixes(scheme)
    if label == OUTSIDE:
        return OUTSIDE, None
    prefix, dash, entity_type = str(label).partition("-")
    if not dash or prefix not in prefixes or not entity_type:
        raise ValueError(
            f"label {label!r} is not a {scheme} label: expected {OUTSIDE!r} or one of "
            f"{', '.join(p + '-<type>' for p in prefixes)}"
        )
    return prefix, entity_type


def allowed_transitions(scheme: str, labels: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``constraints`` of a ``CRF`` over ``labels`` under ``scheme``.

    Args:
        scheme: ``"BIO"`` or ``"BIOES"``.
        labels: the tag names in tag-id order (``labels[i]`` is tag ``i``), e.g. ``["O", "B-LOC", "I-LOC"]``.

    Returns:
        ``(allowed, allowed_start, allowed_end)``: bool arrays `(K, K)` indexed ``[from, to]``, `(K,)` and `(K,)`,
        ``K = len(labels)``.

    Example:
        >>> allowed, start, end = allowed_transitions("BIO", ["O", "B-LOC", "I-LOC"])
        >>> allowed.astype(int).tolist(), start.tolist()
        ([[1, 1, 0], [1, 1, 1], [1, 1, 1]], [True, True, False])
    """
    parsed = [parse_label(label, scheme) for label in labels]
    if not parsed:
        raise ValueError("labels must name at least one tag, received an empty list")
    if len(set(labels)) != len(labels):
        duplicates = sorted({label for label in labels if list(labels).count(label) > 1})
        raise ValueError(f"labels must be distinct, received {duplicates} more than once")
    allowed = np.array([[_follows(scheme, a, b) for b in parsed] for a in parsed], dtype=bool)
    allowed_start = np.array([_follows(scheme, _SENTENCE_EDGE, b) for b in parsed], dtype=bool)
    allowed_end = np.array([_follows(scheme, a, _SENTENCE_EDGE) for a in parsed], dtype=bool)
    return allowed, allowed_start, allowed_end


def invalid_transitions(tag_names: Sequence[str], scheme: str) -> int:
    """How many steps of the sentence ``tag_names`` break ``scheme``, the start and the end included.

    A sentence of ``n`` tags has ``n + 1`` steps (start → first, …, last → end); an empty sentence has none.
    Used to count the invalid outputs of a tagger that decodes each token on its own (a softmax tagger).

    Args:
        tag_names: the sentence's tags.
        scheme: ``"BIO"`` or ``"BIOES"`` (a tag outside it is a ``ValueError``).

    Example:
        >>> invalid_transitions(["I-LOC", "O", "I-PER"], "BIO")  # starts with I-LOC; O → I-PER
        2
    """
    if len(tag_names) == 0:
        return 0
    path = [_SENTENCE_EDGE, *(parse_label(name, scheme) for name in tag_names), _SENTENCE_EDGE]
    return sum(not _follows(scheme, a, b) for a, b in itertools.pairwise(path))


def is_valid_sequence(tag_names: Sequence[str], scheme: str) -> bool:
    """True when ``tag_names`` follows every rule of ``scheme`` (``invalid_transitions(...) == 0``).

    Args:
        tag_names, scheme: as for ``invalid_transitions``.
    """
    return invalid_transitions(tag_names, scheme) == 0


def _scheme_prefixes(scheme: str) -> tuple[str, ...]:
    if scheme not in SCHEME_PREFIXES:
        raise ValueError(f"scheme must be one of {sorted(SCHEME_PREFIXES)}, received {scheme!r}")
    return SCHEME_PREFIXES[scheme]


def _follows(scheme: str, previous: tuple, following: tuple) -> bool:
    """Whether the parsed label ``following`` may come right after ``previous`` (``_SENTENCE_EDGE``: start/end)."""
    (prev_prefix, prev_type), (next_prefix, next_type) = previous, following
    continues = next_prefix in ("I", "E")  # needs an open entity of its type right before it
    if scheme == "BIO":  # (parse_label refuses E- there)
        return not continues or (prev_prefix in ("B", "I") and prev_type == next_type)
    # BIOES: an entity opened by B- or continued by I- must go on with I-/E- of its type, and nothing else may
    opened = prev_prefix in ("B", "I")
    if next_prefix is None:  # end of sentence
        return not opened
    if opened:
        return continues and prev_type == next_type
    return not continues
