"""Notebook 98's table: every row that differs or is not comparable, with its cause."""

from __future__ import annotations

from tt_workbook.report.discrepancies import discrepancies, status_counts
from tt_workbook.report.summary import NO_CAUSE_YET, comparison, save_comparison


MECHANISM = "seed 3 draws its initial design at the smallest size only, so its tests cost less (fig_x.csv)"


def test_lists_exactly_the_rows_that_do_not_agree(tmp_path):
    save_comparison(comparison([
        {"source": "A", "item": "same", "paper": 1.0, "workbook": 1.0},
        {"source": "A", "item": "off, explained", "paper": 1.0, "workbook": 3.0, "cause": MECHANISM},
        {"source": "A", "item": "off, unexplained", "paper": 1.0, "workbook": 3.0},
        {"source": "A", "item": "off, a pointer only", "paper": 1.0, "workbook": 3.0, "cause": "measured in fig_x.csv"},
    ]), "01_a", tmp_path)
    save_comparison(comparison([
        {"source": "B", "item": "other setting", "paper": 2.0, "workbook": 2.0, "not_comparable": "3 runs (paper: 10)"},
        {"source": "B", "item": "paper only", "paper": 2.0, "workbook": None},
        {"source": "B", "item": "3 runs a level", "paper": True, "workbook": True, "runs_per_arm": 3},
        {"source": "B", "item": "a count in the data", "paper": 111, "workbook": 112, "check": "data"},
        {"source": "B", "item": "a count that matches", "paper": 111, "workbook": 111, "check": "data"},
    ]), "02_b", tmp_path)
    d = discrepancies(tmp_path)
    assert list(d["item"]) == ["off, explained", "off, unexplained", "off, a pointer only", "other setting",
                               "3 runs a level", "a count in the data"]
    assert list(d["notebook"]) == ["01_a"] * 3 + ["02_b"] * 3
    assert list(d["cause"])[:4] == [MECHANISM, NO_CAUSE_YET, "measured in fig_x.csv", "3 runs (paper: 10)"]
    assert list(d["mechanism"]) == ["", "no cause", "only a pointer or a label: no sentence beside the evidence", "", "",
                                    ""]
    c = status_counts(tmp_path).set_index("notebook")
    assert c.loc["01_a", "agrees"] == 1 and c.loc["01_a", "differs"] == 3
    assert c.loc["01_a", "differs without a cause"] == 2        # the pointer names no mechanism
    assert c.loc["02_b", "not comparable"] == 1 and c.loc["02_b", "paper only"] == 1
    assert c.loc["02_b", "too few runs"] == 1 and c.loc["02_b", "data check"] == 2 and c.loc["02_b", "agrees"] == 0


def test_empty_folder(tmp_path):
    assert discrepancies(tmp_path).empty and status_counts(tmp_path).empty


def test_a_notebook_with_an_empty_summary_is_counted_with_no_rows(tmp_path):
    save_comparison(comparison([{"source": "A", "item": "same", "paper": 1.0, "workbook": 1.0}]), "01_a", tmp_path)
    save_comparison(comparison([]), "02_empty", tmp_path)  # e.g. a smoke run that computed no row
    c = status_counts(tmp_path).set_index("notebook")
    assert list(c.index) == ["01_a", "02_empty"]
    assert c.loc["02_empty", "rows"] == 0 and c.loc["01_a", "rows"] == 1 and c.loc["01_a", "agrees"] == 1
    assert discrepancies(tmp_path).empty
