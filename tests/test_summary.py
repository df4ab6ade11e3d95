"""Paper-vs-workbook records: agreement rules."""

import pytest

from tt_core.reporting.summary import agree, comparison


def test_agree_rules():
    assert agree(111, 111) is True and agree(111, 112) is False
    assert agree(0.755, 0.7554, abs_tol=0.0005) is True
    assert agree(10.0, 4.9, factor=2.0) is False and agree(10.0, 5.0, factor=2.0) is True
    assert agree(2.4, 4.8, factor=2.0) is True and agree(2.4, -4.8, factor=2.0) is False
    assert agree(None, 1.0) is None and agree(1.0, float("nan")) is None
    assert agree("6000", "6000") is True
    with pytest.raises(ValueError, match="factor must be >= 1"):
        agree(1.0, 1.0, factor=0.5)


def test_comparison_computes_agrees():
    df = comparison([{"source": "s", "item": "a (count)", "paper": 3, "workbook": 3},
                     {"source": "s", "item": "b", "paper": 10.0, "workbook": 30.0, "factor": 2.0}])
    assert df["agrees"].tolist() == [True, False]


def test_status_and_cause():
    df = comparison([
        {"source": "s", "item": "same", "paper": 3, "workbook": 3},
        {"source": "s", "item": "off, explained", "paper": 10.0, "workbook": 30.0, "factor": 2.0,
         "cause": "seeds (fig. x)"},
        {"source": "s", "item": "off, unexplained", "paper": 1.0, "workbook": 2.0},
        {"source": "s", "item": "other setting", "paper": 1.0, "workbook": 1.0, "not_comparable": "3 seeds, not 10"},
        {"source": "s", "item": "paper only", "paper": 1.0, "workbook": None},
    ])
    assert df["status"].tolist() == ["agrees", "differs", "differs", "not comparable", "paper only"]
    assert df["cause"].tolist() == ["", "seeds (fig. x)", "cause not measured yet", "3 seeds, not 10", ""]


def test_collect_completes_old_tables(tmp_path):
    import pandas as pd

    from tt_core.reporting.summary import collect

    pd.DataFrame({"source": ["s", "s", "s"], "item": ["a", "b", "c"], "paper": [1, 1, 1], "workbook": [1, 2, None],
                  "agrees": [True, False, None], "note": ["", "", ""]}).to_csv(tmp_path / "summary_old.csv", index=False)
    df = collect(tmp_path)
    assert df["status"].tolist() == ["agrees", "differs", "paper only"]
    assert df["cause"].tolist() == ["", "cause not measured yet", ""]


def test_deduplicate_keeps_one_row_per_item_and_value_and_lists_its_notebooks():
    import pandas as pd

    from tt_core.reporting.summary import deduplicate

    rows = pd.DataFrame([
        {"source": "S", "item": "x", "paper": 3.0, "workbook": 0.1 + 0.2, "status": "agrees", "notebook": "13_a"},
        {"source": "S", "item": "x", "paper": 3.0, "workbook": 0.3, "status": "agrees", "notebook": "14_b"},  # same to 12 digits
        {"source": "S", "item": "x", "paper": 3.0, "workbook": 0.31, "status": "differs", "notebook": "14_b"},  # other value
        {"source": "T", "item": "x", "paper": 3.0, "workbook": 0.3, "status": "agrees", "notebook": "14_b"},  # other source
        {"source": "S", "item": "y", "paper": "True", "workbook": True, "status": "agrees", "notebook": "13_a"},
        {"source": "S", "item": "y", "paper": "True", "workbook": "True", "status": "agrees", "notebook": "13_a"},
    ])
    out = deduplicate(rows)
    assert len(out) == 4
    assert out.loc[0, "notebook"] == "13_a, 14_b"
    assert list(out["workbook"][:3]) == [0.1 + 0.2, 0.31, 0.3]
    assert out.loc[3, "notebook"] == "13_a"  # the same notebook twice is listed once


def test_input_and_consistency_checks_are_their_own_statuses():
    df = comparison([
        {"source": "s", "item": "price, same as the source", "paper": 0.4, "workbook": 0.4, "check": "input"},
        {"source": "s", "item": "price, source differs", "paper": 0.33, "workbook": 0.333, "check": "input",
         "cause": "the paper prints 0.33"},
        {"source": "s", "item": "the paper's arithmetic", "paper": 15.73, "workbook": 15.73, "abs_tol": 0.005,
         "check": "consistency"},
    ])
    assert df["status"].tolist() == ["input check", "input check", "consistency check"]
    assert df["agrees"].tolist() == [True, False, True]       # the match is still recorded
    assert df["cause"].tolist()[1] == "the paper prints 0.33"
    with pytest.raises(ValueError, match="unknown row kind"):
        comparison([{"source": "s", "item": "x", "paper": 1, "workbook": 1, "check": "sanity"}])
