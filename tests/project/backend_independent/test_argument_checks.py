"""The shared argument checks: one wording per kind of error, the value converted on success."""

import math

import numpy as np
import pytest

from elmo_keras.argument_checks import check_finite_positive, check_int, check_rate


def test_int_is_positive_by_default():
    assert check_int(3, "units") == 3 and type(check_int(np.int64(4), "units")) is int
    assert check_int(None, "projection_dim", allow_none=True) is None
    for bad in (0, -2, 2.0, True, "3", None):
        with pytest.raises(ValueError, match=rf"^units must be a positive int, received {bad!r}$".replace("(", r"\(")):
            check_int(bad, "units")
    with pytest.raises(ValueError, match=r"^projection_dim must be a positive int or None, received 0$"):
        check_int(0, "projection_dim", allow_none=True)


def test_int_with_another_minimum():
    assert check_int(0, "bos_id", minimum=0) == 0 and check_int(np.int32(7), "order", minimum=2) == 7
    assert check_int(None, "pad_id", minimum=0, allow_none=True) is None
    for bad, minimum in ((-1, 0), (1, 2), (0.0, 0), (False, 0)):
        with pytest.raises(ValueError, match=rf"^bos_id must be an int >= {minimum}, received {bad!r}$"):
            check_int(bad, "bos_id", minimum=minimum)
    with pytest.raises(ValueError, match=r"^pad_id must be an int >= 0 or None, received -1$"):
        check_int(-1, "pad_id", minimum=0, allow_none=True)
    with pytest.raises(TypeError):  # keyword-only: the old check_int(name, value, minimum) order cannot slip through
        check_int(3, "units", 1)


def test_rate():
    assert check_rate(0) == 0.0 and check_rate(np.float32(0.5)) == 0.5
    for bad in (1.0, -0.1, math.nan, True, "0.1"):
        with pytest.raises(ValueError, match=r"^dropout must be in \[0, 1\), received "):
            check_rate(bad)


def test_finite_positive():
    assert check_finite_positive(2, "learning_rate") == 2.0
    for bad in (0, -1e-3, math.inf, math.nan, False, "1"):
        with pytest.raises(ValueError, match=r"^learning_rate must be a finite number > 0, received "):
            check_finite_positive(bad, "learning_rate")
