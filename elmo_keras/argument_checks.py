"""Argument checks shared by every layer, model, configuration and decoding strategy, with one wording for each kind
of error: ``"units must be a positive int, received 0"``, ``"dropout must be in [0, 1), received 1.5"``.

Every check takes ``(value, name, ...)`` and returns the value checked (as an int or a float)."""

from __future__ import annotations

import math
import numbers


def check_int(value, name: str, *, minimum: int = 1, allow_none: bool = False) -> int | None:
    """``value`` as an int if it is a whole number ≥ ``minimum`` (not a bool, not a float); None passes when
    ``allow_none``.

    Args:
        value: the value received.
        name: the argument's name, for the message.
        minimum: the smallest value allowed. Defaults to 1 (a size or a count: ``"units must be a positive int,
            received 0"``); another minimum is said as it is (``"bos_id must be an int >= 0, received -1"``).
        allow_none: whether None passes (and is returned). Defaults to False.

    Raises:
        ValueError: naming ``name``, what it must be (``" or None"`` added when ``allow_none``) and the value received.
    """
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        expected = "a positive int" if minimum == 1 else f"an int >= {minimum}"
        raise ValueError(f"{name} must be {expected}{' or None' if allow_none else ''}, received {value!r}")
    return int(value)


def check_rate(value, name: str = "dropout") -> float:
    """``value`` as a float if it is a number in ``[0, 1)`` (a dropout rate; NaN is refused).

    Raises:
        ValueError: naming ``name`` and the value received.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0.0 <= value < 1.0:
        raise ValueError(f"{name} must be in [0, 1), received {value!r}")
    return float(value)


def check_finite_positive(value, name: str) -> float:
    """``value`` as a float if it is a finite number > 0.

    Raises:
        ValueError: naming ``name`` and the value received (NaN and infinities included).
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0, received {value!r}")
    return float(value)


def check_non_negative(value, name: str) -> float:
    """``value`` as a float if it is a finite number ≥ 0 (a loss weight, a floor).

    Raises:
        ValueError: naming ``name`` and the value received (NaN and infinities included).
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number >= 0, received {value!r}")
    return float(value)
