"""Rows of notebooks 03-05/07 (tt_workbook.studies.fig1_fig2.rows): hand-made cases."""

from __future__ import annotations

import pandas as pd
import pytest

from tt_workbook.studies.fig1_fig2 import rows as tf
from tt_workbook.runs.settings import settings_table
from tt_workbook.report.summary import comparison


def test_paper_step_costs_by_hand():
    pts = [(0.0, 0.0, True), (0.01, 0.5, True), (0.02, 0.6, False), (0.03, 0.7, False), (0.05, 0.8, False),
           (0.06, 0.9, False), (0.2, 0.9, False)]  # the last point lies on the axis limit: cut
    c = pd.DataFrame([{"benchmark": "rnn", "optimizer": "eic", "x": x, "y": y, "initial": i} for x, y, i in pts])
    s = tf.paper_step_costs(c)
    assert s["steps"].iloc[0] == 3 and s["step_cost"].iloc[0] == pytest.approx(0.01)  # steps .01, .02, .01


def test_size_mix_counts_untested_sizes():
    class B:
        sizes, max_size = (1000, 6000, 60000), 60000
    runs = pd.DataFrame({"benchmark": "rnn", "optimizer": "trimtuner-dt", "phase": ["init", "bo", "bo", "bo", "bo"],
                         "size": [6000, 1000, 1000, 1000, 60000]})
    m = tf.size_mix(runs, {"rnn": B()})
    assert list(m["share"]) == [0.75, 0.0, 0.25] and list(m["s"]) == [round(1 / 60, 4), 0.1, 1.0]


def test_not_comparable_names_each_setting():
    assert tf.study_not_comparable("trimtuner-gp", 10, "rnn", paper_optimizer="trimtuner-gp") == ""
    s = tf.study_not_comparable("trimtuner-dt", 3, "cnn", paper_optimizer="trimtuner-gp")
    assert "trimtuner-dt (paper: trimtuner-gp)" in s and "CNN" in s and "3 runs" in s
    assert "runs per optimiser: 3" in tf.differing_settings(settings_table("quick", "fig1"))
    assert tf.differing_settings(settings_table("paper", "fig3")) == ""


def test_fig2_rows_mark_a_baseline_that_never_reaches_the_target():
    ours = pd.DataFrame([{"benchmark": "rnn", "method": "trimtuner-dt", "baseline": "eic", "target": 0.88,
                          "cost_method": 0.02, "cost_baseline": float("nan"), "cost_ratio": float("nan"),
                          "time_method": 100.0, "time_baseline": 300.0, "time_ratio": 3.0}])
    bars = pd.DataFrame([{"benchmark": "rnn", "baseline": "eic", "time": 65.4, "cost": 50.3}])
    rows = comparison(tf.fig2_rows(ours, pd.DataFrame(), bars, 10))
    cost = rows[rows["item"].str.contains("cost")].iloc[0]
    assert cost["workbook"] == float("inf") and cost["status"] == "differs" and "never" in cost["cause"]
    time = rows[rows["item"].str.contains("time")].iloc[0]
    assert time["workbook"] == 3.0 and "300 s" in time["cause"]
    nc = comparison(tf.fig2_rows(ours, pd.DataFrame(), bars, 8, not_comparable="8 runs (paper: 10)"))
    assert set(nc["status"]) == {"not comparable"}
    # with 3 runs a curve the rows are no verdict, the other setting still named beside their cause
    few = comparison(tf.fig2_rows(ours, pd.DataFrame(), bars, 3, not_comparable="3 runs (paper: 10)"))
    assert set(few["status"]) == {"too few runs"}
    assert few["cause"].iloc[0].startswith("3 runs per arm: a verdict needs at least 5")
    assert "; another setting too: 3 runs (paper: 10); the mean curves over 3 runs reach" in few["cause"].iloc[0]


def test_fig2_rows_without_the_papers_bars_show_the_workbook_and_say_why():
    """A machine without ../shared has no digitised Fig. 2: the rows keep the workbook's ratios (3.0 = 300 s /
    100 s here) beside no paper number, not comparable, and name the missing file."""
    ours = pd.DataFrame([{"benchmark": "rnn", "method": "trimtuner-dt", "baseline": "eic", "target": 0.88,
                          "cost_method": 0.02, "cost_baseline": 0.05, "cost_ratio": 2.5,
                          "time_method": 100.0, "time_baseline": 300.0, "time_ratio": 3.0}])
    no_bars = pd.DataFrame(columns=["benchmark", "baseline", "time", "cost"])
    rows = comparison(tf.fig2_rows(ours, pd.DataFrame(), no_bars, 10))
    assert len(rows) == 2 and set(rows["status"]) == {"not comparable"}
    assert rows["paper"].isna().all()
    assert sorted(rows["workbook"]) == [2.5, 3.0]
    assert all("../shared/data/paper_figures" in c for c in rows["cause"])


def test_test_costs_by_variant_by_hand():
    from tt_workbook.studies.filters_beta.analysis import test_costs

    rows = []
    # CEA: BO tests of $1, $1, $4 at sizes 1000, 1000, 60000; DIRECT: $6, $6 at 60000; an initial test is ignored
    for variant, tests in (("CEA", [(1.0, 1000), (1.0, 1000), (4.0, 60000)]), ("DIRECT", [(6.0, 60000), (6.0, 60000)])):
        rows.append({"benchmark": "rnn", "optimizer": "trimtuner-gp", "variant": variant, "phase": "init",
                     "cost": 100.0, "size": 15000})
        rows += [{"benchmark": "rnn", "optimizer": "trimtuner-gp", "variant": variant, "phase": "bo", "cost": c, "size": s}
                 for c, s in tests]
    t = test_costs(pd.DataFrame(rows)).set_index("variant")
    assert t.loc["CEA", "cost_per_test"] == pytest.approx(2.0) and t.loc["DIRECT", "cost_per_test"] == pytest.approx(6.0)
    assert t.loc["DIRECT", "x_reference"] == pytest.approx(3.0) and t.loc["CEA", "x_reference"] == pytest.approx(1.0)
    assert t.loc["CEA", "share_smallest"] == pytest.approx(2 / 3) and t.loc["CEA", "share_full"] == pytest.approx(1 / 3)
    assert t.loc["DIRECT", "share_full"] == 1.0 and t.loc["DIRECT", "tests"] == 2


def test_paper_step_costs_per_variant_by_hand():
    c = pd.DataFrame({"benchmark": "rnn", "variant": ["A"] * 5 + ["B"] * 4,
                      "x": [0.1, 0.2, 0.25, 0.3, 0.9, 0.1, 0.2, 0.5, 0.9], "initial": [True] + [False] * 4 + [True] + [False] * 3})
    # A after the design: 0.2, 0.25, 0.3 (0.9 is the axis limit, left out): steps 0.05, 0.05 -> 0.05;
    # B: 0.2, 0.5: one step 0.3
    st = tf.paper_step_costs(c, by=("benchmark", "variant")).set_index("variant")
    assert st.loc["A", "step_cost"] == pytest.approx(0.05) and st.loc["B", "step_cost"] == pytest.approx(0.3)
    assert st.loc["A", "steps"] == 2 and st.loc["B", "steps"] == 1


def test_share_of_tests_over_the_cost_limit_by_hand():
    from tt_workbook.studies.fig1_fig2.trajectories import exploration_stats

    runs = pd.DataFrame({"benchmark": "rnn", "optimizer": "eic-usd", "seed": 1, "iteration": [1, 2, 3, 4],
                         "phase": ["init", "bo", "bo", "bo"], "cost": [0.5, 0.01, 0.03, 0.05],
                         "size": 60000, "accuracy_c": 0.9, "cumulative_cost": [0.5, 0.51, 0.54, 0.59], "overhead_s": 0.1})
    st = exploration_stats(runs, key="optimizer", max_costs={"rnn": 0.02}).iloc[0]
    assert st["share_over_limit"] == pytest.approx(2 / 3)  # 0.03 and 0.05 of the three BO tests
    assert st["cost_per_test"] == pytest.approx(0.03)
    assert "share_over_limit" not in exploration_stats(runs, key="optimizer").columns


def test_fig3_median_cause_by_hand():
    from tt_workbook.studies.fig1_fig2.rows import fig3_median_cause

    # 4 of 10 CMA-ES runs hold the target: the median over runs is infinite; the mean curves give 2.06,
    # within a factor of two of the paper's 3.62 (3.62 / 2.06 = 1.76)
    c = fig3_median_cause(float("inf"), 4, 10, "CMA-ES", True, 2.06, 3.62)
    assert c.startswith("reading: only 4/10 CMA-ES runs reach 90% of the optimum and hold it to the end")
    assert "gives 2.06 (agrees)" in c
    # mean curve 1.42 vs the paper's 7: 4.9x apart, so it differs too
    assert "gives 1.42 (differs from 7)" in fig3_median_cause(float("inf"), 3, 10, "DIRECT", False, 1.42, 7.0)
    # a finite median that differs carries the search cause; one that agrees (7 / 4 = 1.75 <= 2) has none
    assert fig3_median_cause(1.87, 9, 10, "DIRECT", False, 1.42, 7.0, "search of the acquisition: x") == \
        "search of the acquisition: x"
    assert fig3_median_cause(4.0, 9, 10, "DIRECT", False, 1.42, 7.0, "search") == ""


def test_table_iv_dt_rows_are_ours_and_other_dt_rows_undetermined():
    """A Table IV ratio of TrimTuner-DT is decided by this workbook's exact branch-and-bound argmax: side ours."""
    from tt_workbook.report.summary import SIDE_OURS, SIDE_UNDETERMINED

    t4 = {"source": "TrimTuner Table IV", "item": "RNN trimtuner-dt: DIRECT (10%) / CEA (10%) time", "paper": 1.53,
          "workbook": 12.74, "factor": 2.0}          # 12.74 / 1.53 = 8.3 > 2: differs
    t3 = {"source": "TrimTuner Table III", "item": "RNN: recommendation time trimtuner-dt / eic", "paper": 1.16,
          "workbook": 0.34, "factor": 2.0}           # 1.16 / 0.34 = 3.4 > 2: differs
    df = comparison([tf.dt_row_without_authors(t4, tf.NO_AUTHORS_TIMES),
                     tf.dt_row_without_authors({**t4, "workbook": 2.0}, tf.NO_AUTHORS_TIMES),   # 1.3x: agrees
                     tf.dt_row_without_authors(t3, tf.NO_AUTHORS_TIMES),
                     tf.dt_row_without_authors({**t4, "check": "timing", "verdict": None}, tf.NO_AUTHORS_TIMES)])
    assert df["side"].iloc[0] == f"{SIDE_OURS}: {tf.TABLE_IV_DT_MECHANISM}"
    assert "branch-and-bound" in df["side"].iloc[0] and "bench_recommend.csv" in df["side"].iloc[0]
    assert df["side"].iloc[1] == ""
    assert df["side"].iloc[2] == f"{SIDE_UNDETERMINED}: {tf.NO_AUTHORS_TIMES}"
    assert df["side"].iloc[3] == "" and df["status"].iloc[3] == "timing"   # an undetermined timing row takes no side


def test_fig4_rows_from_three_runs_a_level_are_no_verdict():
    trend = pd.DataFrame([{"benchmark": "rnn", "optimizer": "trimtuner-dt", "best_level": "no filter",
                           "spearman_rho": 0.4, "spearman_p": 0.2, "welch_p": 0.6, "no_filter_minus_beta10": 0.01,
                           "runs_per_level": 3}])
    boot = pd.DataFrame(columns=["benchmark", "optimizer", "ordering", "evidence"])
    df = comparison(tf.fig4_rows(trend, boot))
    # all three claims hold here (no filter best, rho > 0, Welch p = 0.6), yet 3 runs a level decide nothing
    assert df["agrees"].tolist() == [True, True, True]
    assert df["status"].tolist() == ["too few runs"] * 3
    assert all(c.startswith("3 runs per arm: a verdict needs at least 5") for c in df["cause"])
    assert all("; another setting too: 3 runs per level (paper: 10)" in c for c in df["cause"])
    ten = comparison(tf.fig4_rows(trend.assign(runs_per_level=10), boot))
    assert ten["status"].tolist() == ["agrees"] * 3


def test_the_paper_curves_give_their_own_per_network_ratios():
    """Fig. 1's text: EIc/USD tests cost 2.4x TrimTuner-DT's 'on average over three networks'; the paper's own curves
    step $0.0651 / $0.0409 (CNN), $0.0098 / $0.0081 (RNN), $0.0074 / $0.0237 (MLP) per test."""
    from tt_workbook.studies.fig1_fig2 import paper_figures as pf

    curves = pf.paper_curves("fig1")
    if curves.empty:
        pytest.skip("the paper's digitised Fig. 1 curves are in ../shared/data/paper_figures, not on this machine")
    steps = tf.paper_step_costs(curves).set_index(["benchmark", "optimizer"])
    text = tf.paper_curve_ratios_text(steps, "eic-usd", "EIc-USD")
    assert text == ("the text calls its 2.4 an average over three networks, but the paper's own curves give "
                    "EIc-USD / TrimTuner-DT 1.6 (CNN), 1.2 (RNN), 0.3 (MLP): mean 1.0, not 2.4")
    hand = pd.DataFrame([{"benchmark": "cnn", "optimizer": "eic", "step_cost": 0.3},
                         {"benchmark": "cnn", "optimizer": "trimtuner-dt", "step_cost": 0.05},
                         {"benchmark": "mlp", "optimizer": "trimtuner-dt", "step_cost": 0.02}]).set_index(
        ["benchmark", "optimizer"])
    assert tf.paper_curve_ratios_text(hand, "eic", "EIc") == (
        "the text calls its 10 an average over three networks, but the paper's own curves give EIc / TrimTuner-DT "
        "6.0 (CNN) (no EIc step on the MLP)")


def _fig1_runs(seeds_dt, seeds_eic):
    """A hand-made run table: per seed, one initial test and two BO tests; TrimTuner-DT's BO tests cost $0.01 at
    1/60 of the size, EIc's $0.06 at full size (a ratio of 6)."""
    rows = []
    for opt, seeds, cost, size in (("trimtuner-dt", seeds_dt, 0.01, 1000), ("eic", seeds_eic, 0.06, 60000)):
        for seed in seeds:
            for it, phase in enumerate(("init", "bo", "bo"), start=1):
                rows.append({"benchmark": "rnn", "optimizer": opt, "seed": seed, "iteration": it, "phase": phase,
                             "cost": cost, "size": size, "accuracy_c": 0.9, "cumulative_cost": cost * it,
                             "overhead_s": 0.1})
    return pd.DataFrame(rows)


def test_fig1_rows_from_three_seeds_are_no_verdict_and_from_five_a_verdict():
    from tt_workbook.studies.fig1_fig2.trajectories import exploration_stats

    mix = pd.DataFrame({"benchmark": ["rnn"], "s": [1 / 60], "share": [1.0]})
    steps = pd.DataFrame(columns=["benchmark", "optimizer", "step_cost"])

    def table(seeds_dt, seeds_eic):
        stats = exploration_stats(_fig1_runs(seeds_dt, seeds_eic), {"rnn": 60000}, key="optimizer")
        return comparison(tf.fig1_rows(stats, steps, mix)).set_index("item")

    few = table([1, 2, 3], [1, 2, 3])
    ratio = few.loc["rnn: cost per test, EIc / TrimTuner-DT"]
    rate = few.loc["rnn: mean sub-sampling rate of TrimTuner-DT tests"]
    # EIc / DT = 0.06 / 0.01 = 6, within 2x of the paper's 10 -> agrees; rate 1/60 vs 1/4 (15x) -> differs
    assert ratio["workbook"] == pytest.approx(6.0) and bool(ratio["agrees"])
    assert rate["workbook"] == pytest.approx(1 / 60) and not bool(rate["agrees"])
    assert ratio["status"] == rate["status"] == "too few runs"
    assert ratio["cause"].startswith("3 runs per arm: a verdict needs at least 5")
    five = table([1, 2, 3, 4, 5], [1, 2, 3, 4, 5])
    assert five["status"].tolist() == ["agrees", "differs"]
    # the fewer arm decides: 5 TrimTuner-DT runs against 4 of EIc is too few for the ratio, not for the rate
    mixed = table([1, 2, 3, 4, 5], [1, 2, 3, 4])
    assert mixed["status"].tolist() == ["too few runs", "differs"]
    assert mixed["cause"].iloc[0].startswith("4 runs per arm")


def test_fig2_rows_count_the_fewer_arm_per_curve():
    from tt_workbook.report.summary import runs_by_arm

    ours = pd.DataFrame([{"benchmark": "rnn", "method": "trimtuner-dt", "baseline": "eic", "target": 0.88,
                          "cost_method": 0.02, "cost_baseline": 0.6, "cost_ratio": 30.0,
                          "time_method": 100.0, "time_baseline": 3000.0, "time_ratio": 30.0}])
    bars = pd.DataFrame([{"benchmark": "rnn", "baseline": "eic", "time": 65.4, "cost": 50.3}])
    runs = pd.DataFrame({"benchmark": "rnn", "optimizer": ["trimtuner-dt"] * 5 + ["eic"] * 3 + ["random"] * 9,
                         "seed": list(range(1, 6)) + [1, 2, 3] + list(range(1, 10))})
    counts = runs_by_arm(runs, ["benchmark", "optimizer"])
    assert counts == {("rnn", "trimtuner-dt"): 5, ("rnn", "eic"): 3, ("rnn", "random"): 9}
    few = comparison(tf.fig2_rows(ours, pd.DataFrame(), bars, counts))
    # 50.3 / 30 = 1.7 (cost agrees), 65.4 / 30 = 2.2 (time differs); EIc's 3 runs decide: no verdict
    assert few["agrees"].tolist() == [True, False] and few["status"].tolist() == ["too few runs"] * 2
    assert "the mean curves over 3 runs" in few["cause"].iloc[0]
    five = comparison(tf.fig2_rows(ours, pd.DataFrame(), bars, {**counts, ("rnn", "eic"): 5}))
    assert five["status"].tolist() == ["agrees", "differs"]
