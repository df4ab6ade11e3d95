"""Notebook 09's thesis-vs-workbook rows (tt_workbook.studies.nephele.rows) count the runs behind each compared optimiser
or horizon: from fewer than 5 a row is *too few runs* (its agreement still recorded). Hand-made run tables."""

from __future__ import annotations

import pandas as pd
import pytest

from tt_workbook.studies.nephele import rows as rn
from tt_workbook.report.summary import comparison

OPTIMA = pd.DataFrame([{"network": "rnn", "cno_floor_full_size": 2.0}])


def _runs(seeds_by_opt: dict, bench: str = "rnn", horizon: int = 0) -> pd.DataFrame:
    """Six explorations of $0.10 per run. Nephele: 4 initial samples, CNO 5, 4, 3, 2, 1, 1 (its incumbent costs
    $0.01 x CNO); Lynceus and CherryPick: 2 initial samples, CNO 6, 5, 4, 3, 2, 2 (own-space CNO one lower)."""
    rows = []
    for opt, seeds in seeds_by_opt.items():
        n_init = 4 if opt == "nephele" else 2
        for s in seeds:
            for it in range(1, 7):
                cno = max(1.0, 6 - it) if opt == "nephele" else max(2.0, 7 - it)
                rows.append({"benchmark": bench, "optimizer": opt, "horizon": horizon, "seed": s, "iteration": it,
                             "phase": "init" if it <= n_init else "bo", "cumulative_cost": 0.1 * it,
                             "cumulative_time": 10.0 * it, "cumulative_wall": 11.0 * it, "budget": 0.6,
                             "initial_budget": 0.2, "cno": cno, "cno_space": cno if opt == "nephele" else cno - 1,
                             "incumbent_cost": 0.01 * cno, "charged_cost": 0.1, "overhead_s": 1.0, "config_id": it,
                             "size": 1000})
    return pd.DataFrame(rows)


def _table(seeds_by_opt):
    return comparison(rn.section_6_4_rows(_runs(seeds_by_opt), OPTIMA)).set_index("item")


def test_section_6_4_rows_from_three_seeds_are_too_few_runs_and_from_five_verdicts():
    three = _table({o: [1, 2, 3] for o in ("nephele", "lynceus", "cherrypick")})
    five = _table({o: [1, 2, 3, 4, 5] for o in ("nephele", "lynceus", "cherrypick")})
    # initial samples 4 / 2 = 2.0; final incumbents $0.02 (Lynceus, CNO 2) / $0.01 (Nephele, CNO 1) = 2.0
    for t in (three, five):
        assert t.loc["RNN: initial samples, nephele / lynceus, same B_init (ratio)", "workbook"] == pytest.approx(2.0)
        assert t.loc["RNN: final incumbent cost, lynceus / nephele (ratio)", "workbook"] == pytest.approx(2.0)
    assert len(three) == 9 and (three["status"] == "too few runs").all()
    assert three["cause"].str.startswith("3 runs per arm: a verdict needs at least 5").all()
    # the same values with five seeds: the agreement recorded in both, a verdict only with five
    assert three["agrees"].tolist() == five["agrees"].tolist()
    assert five["status"].tolist() == ["agrees" if a else "differs" for a in five["agrees"]]


def test_section_6_4_the_fewer_optimiser_decides():
    t = _table({"nephele": [1, 2, 3, 4, 5], "lynceus": [1, 2, 3, 4], "cherrypick": [1, 2, 3, 4, 5]})
    few = set(t.index[t["status"] == "too few runs"])
    # every row that reads Lynceus (4 runs) is too few, among them "CherryPick is always the worst" (three arms)
    assert "RNN: CherryPick is always the worst (statement)" in few
    assert all("lynceus" in i or "CherryPick is always" in i for i in few)
    assert t.loc["RNN: exploration cost cherrypick / nephele to reach CNO = 2 (ratio)", "status"] in ("agrees", "differs")
    assert t.loc["RNN: exploration cost lynceus / nephele to reach CNO = 2 (ratio)", "cause"].startswith("4 runs per arm")


def test_section_6_5_rows_count_the_runs_at_each_horizon_compared():
    look = pd.concat([_runs({"nephele": [1, 2, 3, 4, 5]}, horizon=0), _runs({"nephele": [1, 2, 3]}, horizon=1),
                      _runs({"nephele": [1, 2, 3, 4, 5, 6]}, horizon=2)], ignore_index=True)
    t = comparison(rn.section_6_5_rows(look)).set_index("item")
    # every horizon reaches CNO 1 at $0.50: h2 / h0 = 1.0 (a verdict: 6 and 5 runs), h1 / h0 = 1.0, similar (3 runs)
    h2 = t.loc["RNN: spend to find the optimum, h = 2 / h = 0 (ratio)"]
    h1 = t.loc["RNN: spend to find the optimum is similar for h = 0 and h = 1 (statement)"]
    assert h2["workbook"] == pytest.approx(1.0) and h2["status"] == ("agrees" if h2["agrees"] else "differs")
    assert bool(h1["workbook"]) and bool(h1["agrees"]) and h1["status"] == "too few runs"   # h = 1 has 3 runs
    assert h1["cause"].startswith("3 runs per arm")


def test_table_6_1_and_projected_rows_count_their_runs():
    def t61(seeds):
        runs = pd.DataFrame([{"benchmark": "cnn", "optimizer": "lynceus", "horizon": 0, "seed": s, "phase": "init",
                              "iteration": i, "charged_cost": 0.2} for s in seeds for i in range(24)])
        return comparison(rn.table_6_1_rows(runs, {("cnn", "lynceus"): 288}))

    three, five = t61([1, 2, 3]), t61([1, 2, 3, 4, 5])
    assert three["workbook"].tolist() == five["workbook"].tolist() == [24.0, round(100 * 24 / 288, 2)]
    assert (three["status"] == "too few runs").all()
    assert five["status"].tolist() == ["agrees" if a else "differs" for a in five["agrees"]]
    # projected total time: the fewer runs of h = 1 (3) and h = 0 (5) -> too few; h = 2 (6) with h = 0 -> a verdict
    projected = pd.DataFrame({"benchmark": "cnn", "horizon": [0, 1, 2], "runs": [5, 3, 6],
                              "projected_ratio": [1.0, 1.2, 1.5], "recommendations_per_run": 10.0,
                              "wall_per_rec_full_gamma_s": 2.0, "exploration_time_s": 100.0,
                              "implied_wall_per_rec_s": float("nan")})
    p = comparison(rn.projected_time_rows(projected))
    assert p["item"].str.contains("h = 1").tolist() == [True, False]
    # a projected time rests on seconds measured here: a timing check whatever the runs; the note says h = 1 had 3
    assert p["status"].tolist() == ["timing", "timing"]
    assert p["note"].iloc[0].endswith("; 3 runs per arm") and "runs per arm" not in p["note"].iloc[1]
