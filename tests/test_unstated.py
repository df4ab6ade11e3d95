"""Verdicts under unstated settings (tt_core.reporting.unstated): ranges and flips computed by hand."""

import pytest

from tt_core.reporting import unstated as us
from tt_core.reporting.summary import agree


@pytest.mark.parametrize("paper, workbook, flip", [(2.4, 4.48, 4.48 / 2.4), (10.0, 4.0, 2.5), (1.0, 1.0, 1.0),
                                                   (1.0, 0.0, None), (None, 1.0, None), (1.0, float("nan"), None)])
def test_factor_flip_by_hand(paper, workbook, flip):
    assert us.factor_flip(paper, workbook) == (pytest.approx(flip) if flip is not None else None)


def test_tolerance_note_by_hand():
    # 4.48 vs 2.4: 1.87x apart -> differs within 1.5x, agrees within 2x
    assert us.tolerance_note(2.4, 4.48) == "tolerance: within 1.5x differs, within 2x agrees (flips at 1.87x)"
    # the rule is the summary's: agree(p, w, factor=f) is True exactly when f >= the flip
    for f in (1.5, 1.86, 1.87, 2.0):
        assert agree(2.4, 4.48, factor=f) is (us.factor_flip(2.4, 4.48) <= f)
    assert us.tolerance_note(10.0, 4.0) == "tolerance: within 1.5x differs, within 2x differs (flips at 2.5x)"
    row = us.with_tolerance_note({"paper": 10.0, "workbook": 4.0, "factor": 2.0, "note": "n"})
    assert row["note"] == "n; tolerance: within 1.5x differs, within 2x differs (flips at 2.5x)"
    for untouched in ({"paper": True, "workbook": True}, {"paper": 1.0, "workbook": 1.1, "rel_tol": 0.2},
                      {"paper": 1.0, "workbook": None, "factor": 2.0}):
        assert us.with_tolerance_note(untouched) == untouched


def test_holds_ranges_and_range_note_by_hand():
    xs = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    ok = [True, True, False, None, True, False]
    assert us.holds_ranges(xs, ok) == [(1.0, 2.0), (5.0, 5.0)]
    text = us.range_note(xs, ok, "B", fmt="${:g}", current=6.0)
    # the verdict changes at 3 (True -> False), 4 (False -> None), 5 (None -> True) and 6 (True -> False)
    assert text == ("holds for B in [$1, $2] and [$5, $5] (grid $1 to $6, 6 points); flips at $3, $4, $5, $6; "
                    "this row: $6")
    assert us.range_note([1.0, 2.0], [True, True], "B") == "holds for B in [1, 2] (grid 1 to 2, 2 points); never flips on the grid"
    assert us.range_note([1.0, 2.0], [False, False], "B").startswith("holds for B in no value")
    with pytest.raises(ValueError, match="ascending"):
        us.holds_ranges([2.0, 1.0], [True, True])


def test_settings_note_by_hand():
    rule = lambda v: agree(2.4, v, factor=2.0)  # noqa: E731
    values = {"DT, BO tests": 5.2, "DT, all tests": 4.48, "GP, BO tests": 3.0, "GP, all tests": None}
    text = us.settings_note(values, rule, "DT, BO tests")
    # 5.2 / 2.4 = 2.17 > 2: differs; 4.48 / 2.4 = 1.87: agrees; 3.0 / 2.4 = 1.25: agrees
    assert text == ("under other unstated settings: DT, all tests 4.48 (agrees); GP, BO tests 3.00 (agrees); the "
                    "verdict (differs under DT, BO tests) flips under: DT, all tests, GP, BO tests "
                    "(not run here: GP, all tests)")
    same = us.settings_note({"a": 5.2, "b": 6.0}, rule, "a")
    assert same.endswith("the verdict (differs under a) holds under all of them")
    assert us.settings_note({"a": 5.2, "b": None}, rule, "a") == ""
