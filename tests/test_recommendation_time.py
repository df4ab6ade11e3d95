"""Tables III-IV from measurements: ratios computed by hand on a made-up summary."""

import pandas as pd
import pytest

from tt_core.reporting import recommendation_time as rt


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
    from tt_core.experiments import bench

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
    from tt_core.reporting.summary import comparison

    summary = _summary()
    t3 = rt.table3(summary)
    one = {r["item"]: r for r in rt.comparison_rows(t3, rt.table4(summary), measured=_measured())}
    # GP and DT share only n_obs = 20 in _measured(): a single state, while the paper's times are over runs
    assert "timed at 20 observations only" in one["RNN: recommendation time trimtuner-gp / trimtuner-dt"]["not_comparable"]
    status = comparison([one["RNN: recommendation time trimtuner-gp / trimtuner-dt"]]).iloc[0]["status"]
    assert status == "not comparable"
    # GP timed at 8, 20 and 44 as well: the states cover the run, so the row is compared
    extra = pd.DataFrame([{"benchmark": "rnn", "setting": "trimtuner-gp", "n_obs": n, "seed": 1, "cpu_s": c,
                           "total_s": 50 * c} for n, c in ((8, 5.0), (44, 900.0))])
    rows = {r["item"]: r for r in rt.comparison_rows(t3, rt.table4(summary),
                                                     measured=pd.concat([_measured(), extra], ignore_index=True))}
    assert "not_comparable" not in rows["RNN: recommendation time trimtuner-gp / trimtuner-dt"]


def test_a_table4_ratio_timed_at_one_state_only_is_not_comparable(monkeypatch):
    from tt_core.experiments import bench

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
