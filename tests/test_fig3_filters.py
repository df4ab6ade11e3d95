"""Notebook 05's paper-vs-workbook rows (tt_workbook.studies.filters_beta.rows), from hand-made tables."""

from __future__ import annotations

import math

import pandas as pd

from tt_workbook.studies.filters_beta import rows as f3
from tt_workbook.report.summary import NO_CAUSE_YET, comparison

NAN = float("nan")
RAW_COLUMNS = ["optimizer", "filter", "variant", "search", "cost_per_test_x_cea", "share_full_size",
               "paper_cost_per_test_x_cea", "mean_curve_cost_ratio"]


def _curve_ratios(optimizer):
    # CMA-ES: mean curves reach 90% at $0.03 vs CEA's $0.01 (3x); DIRECT never (CEA does): inf; random: no paper row
    return pd.DataFrame([
        {"optimizer": optimizer, "baseline": "CMA-ES", "cost_method": 0.01, "cost_baseline": 0.03, "cost_ratio": 3.0},
        {"optimizer": optimizer, "baseline": "DIRECT", "cost_method": 0.01, "cost_baseline": NAN, "cost_ratio": NAN},
        {"optimizer": optimizer, "baseline": "Random", "cost_method": 0.01, "cost_baseline": 0.02, "cost_ratio": 2.0},
    ])


def _ratios(optimizer, runs):
    cols = ["optimizer", "baseline", "definition", "ratio", "method_reached", "baseline_reached", "runs"]
    return pd.DataFrame([
        (optimizer, "CMA-ES", "first", 2.0, runs, runs - 1, runs),       # median 2x: within a factor 2 of 3.62
        (optimizer, "DIRECT", "first", math.inf, runs, 1, runs),          # DIRECT's median infinite
        (optimizer, "DIRECT", "held", NAN, 1, 0, runs),                   # both medians infinite: no row
        (optimizer, "Random", "held", 0.5, runs, runs, runs),             # random cheaper: CEA not cheaper
    ], columns=cols)


def _levels(optimizer):
    return pd.DataFrame({"optimizer": optimizer, "variant": ["CEA", "DIRECT", "CMA-ES", "Random"],
                         "mean_accuracy_c": [0.90, 0.80, 0.95, 0.99]})


def _ordering(optimizer):
    return pd.DataFrame({"optimizer": optimizer, "ordering": ["CEA above DIRECT", "CEA above CMA-ES", "CEA above Random"],
                         "evidence": ["share 0.9", "share 0.2", "share 0.1"]})


def test_rows_of_the_papers_setting_by_hand():
    o = "trimtuner-gp"
    rows = f3.fig3_rows(_curve_ratios(o), _ratios(o, 10), _levels(o), _ordering(o), pd.DataFrame(columns=RAW_COLUMNS),
                        {o: 10})
    t = comparison(rows).set_index("item")
    p = "RNN trimtuner-gp: "
    assert list(t.index) == [
        p + "cost to 90% of optimum, CMA-ES / CEA (mean-curve reading, the paper's)",
        p + "cost to 90% of optimum, DIRECT / CEA (mean-curve reading, the paper's)",
        p + "cost to 90% of optimum, CMA-ES / CEA (median over runs)",
        p + "CEA reaches 90% of optimum cheaper than CMA-ES",
        p + "cost to 90% of optimum, DIRECT / CEA (median over runs)",
        p + "CEA reaches 90% of optimum cheaper than DIRECT",
        p + "CEA reaches 90% of optimum (held to the end) cheaper than Random",
        p + "CEA's mean Accuracy_C over the BO phase above DIRECT's",
        p + "CEA's mean Accuracy_C over the BO phase above CMA-ES's",
        p + "CEA's mean Accuracy_C over the BO phase above Random's",
    ]
    r = t.loc[p + "cost to 90% of optimum, CMA-ES / CEA (mean-curve reading, the paper's)"]
    assert (r["paper"], r["workbook"], r["status"]) == (3.62, 3.0, "agrees")  # 3.62 / 3 < 2
    assert "$0.0100 (CEA) and $0.0300 (CMA-ES)" in r["note"]
    r = t.loc[p + "cost to 90% of optimum, DIRECT / CEA (mean-curve reading, the paper's)"]
    assert r["workbook"] == math.inf and r["status"] == "differs" and r["cause"] == NO_CAUSE_YET
    r = t.loc[p + "cost to 90% of optimum, CMA-ES / CEA (median over runs)"]
    assert (r["workbook"], r["status"]) == (2.0, "agrees") and r["note"] == "trimtuner-gp: on target in 10/10 CEA runs vs 9/10"
    r = t.loc[p + "cost to 90% of optimum, DIRECT / CEA (median over runs)"]
    assert r["status"] == "differs" and r["cause"].startswith("reading: only 1/10 DIRECT runs reach 90% of the optimum")
    assert "its mean curves, gives not reached (differs from 7)" in r["cause"]
    assert t.loc[p + "CEA reaches 90% of optimum cheaper than DIRECT", "workbook"] is True
    r = t.loc[p + "CEA reaches 90% of optimum (held to the end) cheaper than Random"]
    assert r["workbook"] is False and pd.isna(r["paper"]) and "the paper plots random without a number" in r["note"]
    # the orderings: CEA 0.90 above DIRECT 0.80 (agrees), below CMA-ES 0.95 (differs, the bootstrap share as
    # the evidence), below random (no paper claim, no evidence)
    r = t.loc[p + "CEA's mean Accuracy_C over the BO phase above DIRECT's"]
    assert r["workbook"] is True and r["status"] == "agrees" and r["note"].startswith("0.900 vs 0.800")
    r = t.loc[p + "CEA's mean Accuracy_C over the BO phase above CMA-ES's"]
    assert r["workbook"] is False and r["cause"] == "share 0.2 (fig3_ordering_bootstrap.csv)"
    assert "share 0.2" not in r["note"]  # comparable: the evidence is the cause, not repeated in the note
    r = t.loc[p + "CEA's mean Accuracy_C over the BO phase above Random's"]
    assert r["workbook"] is False and pd.isna(r["paper"]) and r["cause"] in ("", NO_CAUSE_YET)
    assert f3.no_ratio_lines(_ratios(o, 10)) == [
        "trimtuner-gp, DIRECT / CEA (held): no ratio, neither reached the target in most runs (CEA 1/10, DIRECT 0/10)"]


def test_rows_of_another_setting_are_not_comparable_and_carry_the_authors_search():
    o = "trimtuner-dt"
    raw = pd.DataFrame([(o, "DIRECT", "DIRECT", "workbook", 2.0, 0.1, 1.5, NAN),
                        (o, "DIRECT", "DIRECT (raw box)", "authors", 5.0, 0.6, 5.5, 6.0)], columns=RAW_COLUMNS)
    rows = f3.fig3_rows(_curve_ratios(o), _ratios(o, 3), _levels(o), _ordering(o), raw, {o: 3})
    t = comparison(rows).set_index("item")
    assert set(t["status"]) == {"not comparable"}
    r = t.loc["RNN trimtuner-dt: cost to 90% of optimum, DIRECT / CEA (mean-curve reading, the paper's)"]
    # DIRECT per BO test 2x CEA's (10% full size) here, 5x (60%) with the raw box; its ratio 6 agrees with 7
    # not comparable: the status names the settings, and the authors'-code search goes into the note
    assert r["cause"] == "trimtuner-dt (paper: trimtuner-gp); 3 runs per level (paper: 10)"
    assert "per BO test DIRECT costs 2.00x CEA's here (10% of tests at full size)" in r["note"]
    assert "(raw box, one rounded point) 5.00x (60% at full size" in r["note"]
    assert "the mean-curve ratio becomes 6.00 (agrees)" in r["note"]  # 7 / 6 < 2
    r = t.loc["RNN trimtuner-dt: CEA's mean Accuracy_C over the BO phase above CMA-ES's"]
    assert "share 0.2 (fig3_ordering_bootstrap.csv)" in r["note"]  # not comparable: the evidence in the note
    # no CMA-ES raw-box run: its rows carry no search cause
    assert "search of the acquisition" not in t.loc[
        "RNN trimtuner-dt: cost to 90% of optimum, CMA-ES / CEA (mean-curve reading, the paper's)", "note"]


def test_a_filter_that_never_reaches_leaves_a_paper_only_row_out():
    o = "trimtuner-gp"
    cr = _curve_ratios(o).assign(cost_method=NAN, cost_ratio=NAN)  # CEA's mean curve never reaches the target
    rows = f3.fig3_rows(cr, _ratios(o, 10).iloc[:0], _levels(o).iloc[:0], _ordering(o), pd.DataFrame(columns=RAW_COLUMNS),
                        {o: 10})
    assert rows == []


def _metrics(optimizer, seeds_by_filter):
    """A hand-made run-metrics table: one row per (filter, seed)."""
    return pd.DataFrame([{"benchmark": "rnn", "optimizer": optimizer, "variant": v, "seed": s}
                         for v, seeds in seeds_by_filter.items() for s in seeds])


def test_three_seeds_a_filter_are_too_few_runs_and_five_a_verdict():
    from tt_workbook.report.summary import runs_by_arm

    o = "trimtuner-gp"
    args = (_curve_ratios(o), _ratios(o, 10), _levels(o), _ordering(o), pd.DataFrame(columns=RAW_COLUMNS), {o: 10})
    three = runs_by_arm(_metrics(o, {f: [1, 2, 3] for f in ("CEA", "DIRECT", "CMA-ES", "Random")}),
                        ["optimizer", "variant"])
    assert three[(o, "CEA")] == 3
    verdicts = comparison(f3.fig3_rows(*args)).set_index("item")
    t = comparison(f3.fig3_rows(*args, runs_per_arm=three)).set_index("item")
    # every row with a paper value agrees or differs without a count (test_rows_of_the_papers_setting_by_hand);
    # with 3 runs a filter none is a verdict, its agreement still recorded; the random rows (no paper number)
    # stay paper only (10 rows: 8 decided, 2 on random)
    decided = verdicts["status"].isin(["agrees", "differs"])
    assert decided.sum() == 8 and set(verdicts.loc[~decided, "status"]) == {"paper only"}
    assert (t.loc[decided, "status"] == "too few runs").all() and (t.loc[~decided, "status"] == "paper only").all()
    assert t["agrees"].tolist() == verdicts["agrees"].tolist()
    assert t.loc[decided, "cause"].str.startswith("3 runs per arm: a verdict needs at least 5").all()
    # five seeds of every filter: the verdicts of the paper's setting come back
    five = runs_by_arm(_metrics(o, {f: [1, 2, 3, 4, 5] for f in ("CEA", "DIRECT", "CMA-ES", "Random")}),
                       ["optimizer", "variant"])
    assert comparison(f3.fig3_rows(*args, runs_per_arm=five))["status"].tolist() == verdicts["status"].tolist()
    # the fewer of CEA and the other filter decides: DIRECT with 4 seeds makes only its rows too few
    mixed = runs_by_arm(_metrics(o, {"CEA": [1, 2, 3, 4, 5], "DIRECT": [1, 2, 3, 4], "CMA-ES": [1, 2, 3, 4, 5],
                                     "Random": [1, 2, 3, 4, 5]}), ["optimizer", "variant"])
    m = comparison(f3.fig3_rows(*args, runs_per_arm=mixed)).set_index("item")
    few = m.index[m["status"] == "too few runs"]
    assert len(few) and all("DIRECT" in i for i in few)
    assert all(m.loc[i, "status"] == verdicts.loc[i, "status"] for i in m.index if "DIRECT" not in i)
