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
