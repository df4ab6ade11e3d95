"""tt_core.data.validation: single values checked where they enter, with the messages the library gave before
the checks were gathered (each written out here, not read from the code)."""

from __future__ import annotations

import numpy as np
import pytest

from tt_core.data.validation import check_finite, check_fraction, check_int, check_positive


@pytest.mark.parametrize("value, expected", [("2.5", 2.5), (3, 3.0), (np.float32(0.5), 0.5), (-1e300, -1e300)])
def test_check_finite_converts(value, expected):
    got = check_finite("budget", value)
    assert got == expected and type(got) is float


@pytest.mark.parametrize("value, message", [
    ("abc", "budget must be a number, got 'abc'"),
    (None, "budget must be a number, got None"),
    (float("nan"), "budget must be a finite number, got nan"),
    (float("-inf"), "budget must be a finite number, got -inf"),
])
def test_check_finite_refuses(value, message):
    with pytest.raises(ValueError) as e:
        check_finite("budget", value)
    assert str(e.value) == message


@pytest.mark.parametrize("value", [1, 50, np.int64(7)])
def test_check_int_converts(value):
    got = check_int("n_representers", value, 1)
    assert got == int(value) and type(got) is int


@pytest.mark.parametrize("value, message", [
    (0, "gh_roots must be an int >= 1, got 0"),
    (True, "gh_roots must be an int >= 1, got True"),
    (3.0, "gh_roots must be an int >= 1, got 3.0"),
    ("3", "gh_roots must be an int >= 1, got '3'"),
])
def test_check_int_refuses(value, message):
    with pytest.raises(ValueError) as e:
        check_int("gh_roots", value, 1)
    assert str(e.value) == message


def test_the_library_reports_through_them():
    # an optimiser option and an observation, checked where they enter (tt_core.optimizers)
    from tt_core.optimizers.parts import Acquisition

    with pytest.raises(ValueError, match=r"^n_representers must be an int >= 1, got 0$"):
        Acquisition("fabolas", n_representers=0)
    with pytest.raises(ValueError, match=r"^unknown constraint_factor 'both'; known: \['probability', 'cea'\]$"):
        Acquisition("trimtuner", constraint_factor="both")
    with pytest.raises(ValueError, match=r"^acquisition 'eic' has no option gh_roots; its options: none$"):
        Acquisition("eic", gh_roots=2)


@pytest.mark.parametrize("value, expected", [(0.1, 0.1), (1, 1.0), (np.float64(0.5), 0.5), (1e-12, 1e-12)])
def test_check_fraction_converts(value, expected):
    got = check_fraction("beta", value)
    assert got == expected and type(got) is float


@pytest.mark.parametrize("value, message", [
    (0, "beta must be a fraction in (0, 1] (the paper uses 0.1), got 0"),
    (1.0000001, "beta must be a fraction in (0, 1] (the paper uses 0.1), got 1.0000001"),
    (True, "beta must be a fraction in (0, 1] (the paper uses 0.1), got True"),
    ("0.1", "beta must be a fraction in (0, 1] (the paper uses 0.1), got '0.1'"),
    (float("nan"), "beta must be a fraction in (0, 1] (the paper uses 0.1), got nan"),
])
def test_check_fraction_refuses(value, message):
    with pytest.raises(ValueError) as e:
        check_fraction("beta", value, "(the paper uses 0.1)")
    assert str(e.value) == message


@pytest.mark.parametrize("value, message", [
    (0, "budget must be a positive number (USD) of exploration, got 0"),
    (-2.5, "budget must be a positive number (USD) of exploration, got -2.5"),
    (float("inf"), "budget must be a positive number (USD) of exploration, got inf"),
])
def test_check_positive_refuses(value, message):
    assert check_positive("budget", 2, "USD") == 2.0
    with pytest.raises(ValueError) as e:
        check_positive("budget", value, "USD", " of exploration")
    assert str(e.value) == message


def test_beta_is_checked_by_one_function_with_one_message():
    # the filter part (where an optimiser's beta enters) and the filters' n_keep say the same thing
    from tt_core.bo.filters import n_keep
    from tt_core.optimizers.parts import CandidateFilter

    message = r"^beta must be a fraction in \(0, 1\] \(the paper uses 0\.1\), got 1\.5$"
    with pytest.raises(ValueError, match=message):
        CandidateFilter("cea", beta=1.5)
    with pytest.raises(ValueError, match=message):
        n_keep(1.5, 10)
    assert n_keep(0.1, 1440) == 144 and n_keep(0.1, 5) == 1  # ceil(0.1 x 1440) = 144, at least one kept
