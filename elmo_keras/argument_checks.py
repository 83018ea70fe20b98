"""Argument checks shared by every layer, model and configuration, with one wording for each kind of error:
``"units must be a positive int, received 0"``, ``"dropout must be in [0, 1), received 1.5"``."""

from __future__ import annotations

import math
import numbers


def check_positive_int(value, name: str, allow_none: bool = False) -> int | None:
    """``value`` as an int if it is a whole number ≥ 1 (not a bool); None passes when ``allow_none``.

    Raises:
        ValueError: naming ``name`` and the value received.
    """
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a positive int{' or None' if allow_none else ''}, received {value!r}")
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
