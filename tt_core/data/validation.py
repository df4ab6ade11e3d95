"""Checks of single values where they enter the library, in the style of scikit-learn's ``check_scalar``:
each returns the value converted (``float``, ``int``) or raises one ``ValueError`` naming the value and
what it takes.

The ``tt`` command's argument types (:mod:`tt_workbook.cli.common`) check the same kinds of value on the
command line, where the error is an ``argparse`` error naming the option.
"""

from __future__ import annotations

import math

import numpy as np

from tt_core.data.io import shown

__all__ = ["check_finite", "check_fraction", "check_int", "check_positive"]


def check_finite(name: str, value) -> float:
    """``value`` as a finite float.

    >>> check_finite("budget", "2.5")
    2.5
    >>> check_finite("budget", float("inf"))
    Traceback (most recent call last):
    ...
    ValueError: budget must be a finite number, got inf
    """
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {shown(value)}") from None
    if not math.isfinite(v):
        raise ValueError(f"{name} must be a finite number, got {shown(value)}")
    return v


def check_int(name: str, value, low: int) -> int:
    """``value`` as an int ``>= low`` (a bool or a float is refused, even 3.0).

    >>> check_int("n_representers", 50, 1)
    50
    >>> check_int("gh_roots", 0, 1)
    Traceback (most recent call last):
    ...
    ValueError: gh_roots must be an int >= 1, got 0
    """
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name} must be an int >= {low}, got {shown(value)}")
    return int(value)


def _real(value) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float, np.integer, np.floating)) \
        and math.isfinite(float(value))


def check_fraction(name: str, value, hint: str = "") -> float:
    """``value`` as a float in (0, 1] (a bool, a string or a non-finite number is refused).

    >>> check_fraction("beta", 0.1)
    0.1
    >>> check_fraction("beta", 0, "(the paper uses 0.1)")
    Traceback (most recent call last):
    ...
    ValueError: beta must be a fraction in (0, 1] (the paper uses 0.1), got 0
    """
    if not _real(value) or not 0.0 < float(value) <= 1.0:
        raise ValueError(f"{name} must be a fraction in (0, 1]{' ' + hint if hint else ''}, got {shown(value)}")
    return float(value)


def check_positive(name: str, value, unit: str, hint: str = "") -> float:
    """``value`` as a finite float > 0; the message names its unit (and ``hint``, the allowed range).

    >>> check_positive("budget", 2, "USD")
    2.0
    >>> check_positive("budget", -1, "USD", " of exploration")
    Traceback (most recent call last):
    ...
    ValueError: budget must be a positive number (USD) of exploration, got -1
    """
    if not _real(value) or float(value) <= 0:
        raise ValueError(f"{name} must be a positive number ({unit}){hint}, got {shown(value)}")
    return float(value)
