"""Tables III-IV from measurements: ratios computed by hand on a made-up summary."""

import pandas as pd
import pytest

from tt_workbook.studies.recommendation_time import rows as rt


def _summary():
    rows = [("rnn", "eic", "eic", "none", 1.0, 2.0), ("rnn", "trimtuner-dt", "trimtuner-dt", "cea", 0.1, 3.0),
            ("rnn", "trimtuner-gp", "trimtuner-gp", "cea", 0.1, 30.0), ("rnn", "fabolas", "fabolas", "none", 1.0, 20.0),
            ("rnn", "trimtuner-dt/direct-10%", "trimtuner-dt", "direct", 0.1, 6.0),
            ("rnn", "trimtuner-dt/cmaes-10%", "trimtuner-dt", "cmaes", 0.1, 9.0)]
    return pd.DataFrame([{"benchmark": b, "setting": s, "optimizer": o, "filter": f, "beta": be, "median": m,
                          "iqr": 0.1, "min": m, "max": m, "n": 3} for b, s, o, f, be, m in rows])


def test_table3_ratios_to_eic():
    t3 = rt.table3(_summary()).set_index("setting")
    assert t3.loc["trimtuner-gp", "x EIc"] == pytest.approx(15.0) and t3.loc["eic", "x EIc"] == 1.0
    assert t3.loc["trimtuner-gp", "paper x EIc"] == pytest.approx(18.65 / 1.17)


def test_comparison_rows_by_hand(monkeypatch):
    from tt_workbook import bench

    summary = _summary()
    labels = set(summary["setting"])
    monkeypatch.setitem(bench.SETTING_GROUPS, "table4", [type("S", (), {"label": lab})() for lab in labels])
    t3, t4 = rt.table3(summary), rt.table4(summary)
    assert t4.set_index("heuristic").loc["DIRECT (10%)", "x CEA 10%"] == pytest.approx(2.0)
    rows = {r["item"]: r for r in rt.comparison_rows(t3, t4)}
    assert rows["RNN: recommendation time trimtuner-gp / trimtuner-dt"]["workbook"] == pytest.approx(10.0)
    assert rows["RNN: recommendation time fabolas / eic"]["workbook"] == pytest.approx(10.0)
    assert rows["RNN: recommendation time trimtuner-dt / eic"]["workbook"] == pytest.approx(1.5)
    assert rows["RNN trimtuner-dt: CEA (10%) faster than DIRECT and CMA-ES (10%)"]["workbook"] is True
    assert "RNN trimtuner-gp: CEA (10%) faster than DIRECT and CMA-ES (10%)" not in rows  # not measured
    tg = rt.targets(t4).set_index(["optimizer", "heuristic"])
    assert bool(tg.loc[("trimtuner-dt", "CEA (10%)"), "met"]) is False  # 3 s > 1 s
    assert pd.isna(tg.loc[("trimtuner-dt", "no filter"), "met"])
    busy = pd.DataFrame({"load_1min": [1.0, 3.5], "n_cores": [2, 2]})
    assert rt.busy_warning(busy).startswith("WARNING: 1 measurements") and rt.busy_warning(busy.iloc[:1]) == ""


def _measured():
    """GP timed at one state (n_obs 20, seed 1); DT at three numbers of observations."""
    rows = [("trimtuner-gp", 20, 10.0), ("trimtuner-gp", 20, 12.0),
            ("trimtuner-dt", 8, 1.0), ("trimtuner-dt", 8, 1.0), ("trimtuner-dt", 8, 1.0),
            ("trimtuner-dt", 20, 4.0), ("trimtuner-dt", 20, 4.0), ("trimtuner-dt", 44, 100.0)]
    return pd.DataFrame([{"benchmark": "rnn", "setting": s, "n_obs": n, "seed": 1, "cpu_s": c, "total_s": 50 * c}
                         for s, n, c in rows])


def test_paired_ratio_uses_only_the_states_both_settings_were_measured_at():
    m = _measured()
    # by hand: GP median(10, 12) = 11 over DT's median at n_obs 20, median(4, 4) = 4; pooling DT over
    # all its states would give median(1, 1, 1, 4, 4, 100) = 2.5 and a ratio of 4.4
    assert rt.paired_ratio(m, "trimtuner-gp", "trimtuner-dt") == pytest.approx(11 / 4)
    assert rt.paired_ratio(m, "trimtuner-dt", "trimtuner-gp") == pytest.approx(4 / 11)
    assert rt.paired_ratio(m, "trimtuner-gp", "trimtuner-dt", value="total_s") == pytest.approx(11 / 4)
    assert rt.paired_ratio(m, "trimtuner-gp", "eic") is None  # nothing in common
    by_n = rt.ratio_by_n_obs(m, "trimtuner-gp", "trimtuner-dt")
    assert list(by_n["n_obs"]) == [20] and by_n["x"].iloc[0] == pytest.approx(2.75)


def test_comparison_rows_with_measurements_pair_the_states():
    summary = _summary()
    t3 = rt.table3(summary)
    rows = {r["item"]: r for r in rt.comparison_rows(t3, rt.table4(summary), measured=_measured())}
    assert rows["RNN: recommendation time trimtuner-gp / trimtuner-dt"]["workbook"] == pytest.approx(2.75)
    # fabolas and eic were not measured in _measured(): no common state, so their row is left out
    assert "RNN: recommendation time fabolas / eic" not in rows


def test_fantasy_cause_reports_the_median_counts_at_common_states():
    m = pd.DataFrame([{"benchmark": "rnn", "setting": s, "n_obs": n, "seed": 1, "n_fantasised": f, "n_evaluated": 142}
                      for s, n, f in (("dt-direct", 20, 142), ("dt-direct", 20, 140), ("dt-cea", 20, 6), ("dt-cea", 20, 8),
                                      ("dt-cea", 44, 100))])
    text = rt.fantasy_cause(m, "dt-direct", "dt-cea")
    assert "median of 141 candidates" in text and "CEA (10%) for 7 of its 142 kept" in text  # n_obs 44 left out
    assert rt.fantasy_cause(m.drop(columns="n_fantasised"), "dt-direct", "dt-cea") == ""


def test_a_ratio_timed_at_one_state_only_is_not_comparable():
    from tt_workbook.report.summary import comparison

    summary = _summary()
    t3 = rt.table3(summary)
    one = {r["item"]: r for r in rt.comparison_rows(t3, rt.table4(summary), measured=_measured())}
    # GP and DT share only n_obs = 20 in _measured(): a single state, while the paper's times are over runs
    assert "timed at 20 observations only" in one["RNN: recommendation time trimtuner-gp / trimtuner-dt"]["not_comparable"]
    row = one["RNN: recommendation time trimtuner-gp / trimtuner-dt"]
    # a timing row is its own kind; timed at one state it gets no verdict, and its note says why
    assert row["check"] == "timing" and row["verdict"] is None and "not comparable, so no verdict" in row["note"]
    table = rt.timing_comparison([row])
    assert table.iloc[0]["status"] == "timing" and table.iloc[0]["agrees"] is None
    assert comparison([row]).iloc[0]["status"] == "timing"
    # GP timed at 8, 20 and 44 as well: the states cover the run, so the row is compared
    extra = pd.DataFrame([{"benchmark": "rnn", "setting": "trimtuner-gp", "n_obs": n, "seed": 1, "cpu_s": c,
                           "total_s": 50 * c} for n, c in ((8, 5.0), (44, 900.0))])
    rows = {r["item"]: r for r in rt.comparison_rows(t3, rt.table4(summary),
                                                     measured=pd.concat([_measured(), extra], ignore_index=True))}
    assert "not_comparable" not in rows["RNN: recommendation time trimtuner-gp / trimtuner-dt"]


def test_a_table4_ratio_timed_at_one_state_only_is_not_comparable(monkeypatch):
    from tt_workbook import bench

    summary = _summary()
    monkeypatch.setitem(bench.SETTING_GROUPS, "table4", [type("S", (), {"label": lab})() for lab in set(summary["setting"])])
    t3, t4 = rt.table3(summary), rt.table4(summary)

    def measured(n_obs):
        return pd.DataFrame([{"benchmark": "rnn", "setting": s, "n_obs": n, "seed": 1, "cpu_s": c, "total_s": c}
                             for n in n_obs for s, c in (("trimtuner-dt/direct-10%", 6.0), ("trimtuner-dt", 3.0))])

    item = "RNN trimtuner-dt: DIRECT (10%) / CEA (10%) time"
    one = {r["item"]: r for r in rt.comparison_rows(t3, t4, measured=measured([20]))}[item]
    assert one["workbook"] == pytest.approx(2.0) and "timed at 20 observations only" in one["not_comparable"]
    two = {r["item"]: r for r in rt.comparison_rows(t3, t4, measured=measured([8, 20]))}[item]
    assert two["workbook"] == pytest.approx(2.0) and "not_comparable" not in two


# ------------------------------------------------------------------------------------------------
# Intervals and verdicts of timing ratios, on hand-made samples (no clock involved)
# ------------------------------------------------------------------------------------------------
def _timed(cells):
    """Measurements from ``{(setting, n_obs): [cpu seconds per repeat]}`` (seed 1, wall = 2 x CPU, load 0.5)."""
    return pd.DataFrame([{"benchmark": "rnn", "setting": s, "n_obs": n, "seed": 1, "repeat": r, "cpu_s": c,
                          "total_s": 2 * c, "load_1min": 0.5, "warmup": 1}
                         for (s, n), values in cells.items() for r, c in enumerate(values)])


def test_ratio_interval_one_state_by_hand():
    # a: 2, 2, 2; b: 1, 1, 4. A bootstrap draw of b's three repeats has median 1 when at least two draws
    # are 1: P = (2/3)^3 + 3 (2/3)^2 (1/3) = 20/27; else 4 (P = 7/27 = 0.26). So the ratio is 2 with
    # P 0.74 and 0.5 with P 0.26: its 2.5% quantile is 0.5, its 97.5% quantile 2.
    m = _timed({("a", 20): [2.0, 2.0, 2.0], ("b", 20): [1.0, 1.0, 4.0]})
    iv = rt.ratio_interval(m, "a", "b")
    assert iv["ratio"] == pytest.approx(2.0) and (iv["lo"], iv["hi"]) == pytest.approx((0.5, 2.0))
    assert iv["states"] == 1 and iv["repeats"] == 3 and iv["reason"] == ""
    # per repeat: 2/1, 2/1, 2/4
    assert iv["per_repeat"] == pytest.approx([2.0, 2.0, 0.5])
    assert rt.ratio_interval(m, "a", "b", seed=7)["lo"] == pytest.approx(0.5)  # not a seed's accident


def test_ratio_interval_pools_the_states_and_needs_three_repeats():
    # no noise: every draw is the data. a pooled over the states: 1, 1, 1, 3, 3, 3 -> median 2; b: 1 -> ratio 2
    m = _timed({("a", 8): [1.0] * 3, ("a", 44): [3.0] * 3, ("b", 8): [1.0] * 3, ("b", 44): [1.0] * 3,
                ("b", 20): [9.0] * 3})  # b's state 20 is not a's: left out
    iv = rt.ratio_interval(m, "a", "b")
    assert (iv["ratio"], iv["lo"], iv["hi"]) == pytest.approx((2.0, 2.0, 2.0)) and iv["states"] == 2
    two = _timed({("a", 8): [1.0, 1.0], ("b", 8): [1.0, 1.0, 1.0]})
    iv = rt.ratio_interval(two, "a", "b")
    assert iv["ratio"] == pytest.approx(1.0) and iv["lo"] is None and "fewer than 3" in iv["reason"]
    assert rt.ratio_interval(m, "a", "nosuch")["reason"] == "no optimiser state measured for both"


@pytest.mark.parametrize("paper, lo, hi, verdict", [
    (1.0, 0.5, 2.0, True),     # band [0.5, 2]: the interval fills it exactly
    (1.5, 0.5, 2.0, None),     # band [0.75, 3]: 0.5 is below it, 2 inside -> crosses an edge
    (10.0, 0.5, 2.0, False),   # band [5, 20]: wholly below
    (0.1, 0.5, 2.0, False),    # band [0.05, 0.2]: wholly above
    (1.0, None, None, None),   # no interval
])
def test_interval_verdict_by_hand(paper, lo, hi, verdict):
    assert rt.interval_verdict(paper, lo, hi, factor=2.0) is verdict


def test_interval_flips_by_hand():
    # paper 1.5, interval [0.5, 2]: inside the band from max(1.5/0.5, 2/1.5) = 3x; 1.5 lies inside the interval
    assert rt.interval_flips(1.5, 0.5, 2.0) == pytest.approx((3.0, 1.0))
    # paper 10, interval [0.5, 2]: agrees from 20x, differs below 10/2 = 5x
    assert rt.interval_flips(10.0, 0.5, 2.0) == pytest.approx((20.0, 5.0))


def test_timing_rows_get_the_interval_verdict_not_the_point_one():
    # DT / EIc: the paper's 1.36 / 1.17 = 1.16, band [0.58, 2.32]. Point ratio 2 agrees, but the interval
    # [0.5, 2] crosses 0.58: undetermined.
    m = _timed({("trimtuner-dt", 8): [2.0, 2.0, 2.0], ("eic", 8): [1.0, 1.0, 4.0],
                ("trimtuner-dt", 20): [2.0, 2.0, 2.0], ("eic", 20): [1.0, 1.0, 4.0]})
    summary = _summary()
    t3 = rt.table3(summary)
    rows = {r["item"]: r for r in rt.comparison_rows(t3, rt.table4(summary).iloc[:0], measured=m)}
    row = rows["RNN: recommendation time trimtuner-dt / eic"]
    assert row["check"] == "timing" and row["workbook"] == pytest.approx(2.0) and row["verdict"] is None
    assert "interval [0.50, 2.00]" in row["note"] and "one repeat alone would give 0.50 to 2.00" in row["note"]
    assert "within 1.5x undetermined, within 2x undetermined" in row["note"]
    # CPU beside wall (wall = 2 x CPU here) and the load
    assert "trimtuner-dt 2 s CPU / 4 s wall" in row["note"] and "load average 0.50-0.50" in row["note"]
    table = rt.timing_comparison([row])
    assert table.iloc[0]["agrees"] is None and table.iloc[0]["status"] == "timing"
    from tt_workbook.report.summary import comparison

    assert comparison([row]).iloc[0]["agrees"] is None  # the summary reads the row's verdict too
    # without the noisy repeat, the interval is the point 2 (inside the band) and the row agrees
    quiet = _timed({("trimtuner-dt", 8): [2.0] * 3, ("eic", 8): [1.0] * 3,
                    ("trimtuner-dt", 20): [2.0] * 3, ("eic", 20): [1.0] * 3})
    row = {r["item"]: r for r in rt.comparison_rows(t3, rt.table4(summary).iloc[:0], measured=quiet)}[
        "RNN: recommendation time trimtuner-dt / eic"]
    assert row["verdict"] is True and rt.timing_comparison([row]).iloc[0]["agrees"] is True


def test_cea_faster_claim_from_intervals(monkeypatch):
    from tt_workbook import bench

    summary = _summary()
    monkeypatch.setitem(bench.SETTING_GROUPS, "table4", [type("S", (), {"label": lab})() for lab in set(summary["setting"])])
    t3, t4 = rt.table3(summary), rt.table4(summary)
    item = "RNN trimtuner-dt: CEA (10%) faster than DIRECT and CMA-ES (10%)"

    def claim(direct):
        cells = {}
        for n in (8, 20):
            cells.update({("trimtuner-dt", n): [1.0] * 3, ("trimtuner-dt/direct-10%", n): direct,
                          ("trimtuner-dt/cmaes-10%", n): [3.0] * 3})
        return {r["item"]: r for r in rt.comparison_rows(t3, t4, measured=_timed(cells))}[item]

    # CEA / CMA-ES = 1/3 always; CEA / DIRECT: 1/2 always -> both intervals below 1: holds
    assert claim([2.0] * 3)["verdict"] is True
    # DIRECT 0.5, 0.5, 4 at each of the 2 states: a draw pools 6 values, K of them 4 (K ~ Bin(6, 1/3)); its median
    # is 0.5 for K <= 2 (P 0.68), 2.25 for K = 3 (P 0.22), 4 for K >= 4 (P 0.10). So CEA / DIRECT is 2, 0.44 or
    # 0.25, its 95% interval [0.25, 2] contains 1: undetermined; the point (pooled median 0.5) gives 2
    row = claim([0.5, 0.5, 4.0])
    assert row["workbook"] is False and row["verdict"] is None  # the point says "fails", the interval cannot tell
    # DIRECT always 0.5: CEA / DIRECT = 2, interval above 1: fails
    assert claim([0.5] * 3)["verdict"] is False


def test_time_table_by_hand():
    m = _timed({("a", 8): [1.0, 2.0, 3.0], ("a", 20): [5.0, 5.0, 5.0]})
    t = rt.time_table(m).set_index("setting").loc["a"]
    # pooled medians: CPU median(1, 2, 3, 5, 5, 5) = 4, wall 8
    assert (t["cpu_s"], t["wall_s"], t["cpu_over_wall"]) == pytest.approx((4.0, 8.0, 0.5))
    assert (t["states"], t["repeats"], t["warmup"], t["load_max"]) == (2, 3, 1, 0.5)
