"""LCDB outside data: the converter (tt_workbook/studies/outside_data/lcdb.py) and the claims (tt_workbook/studies/outside_data/analysis.py).

Hand-made slices and curves with answers worked out by hand; one value of the real lcdb table recomputed by
scanning its lines (skipped when the lcdb extra is not installed)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from tt_workbook.studies.outside_data import analysis as od
from tt_workbook.studies.outside_data import lcdb
from tt_core.data.benchmarks import load_benchmark, sha256_of

ANCHORS = [16, 23, 32, 45, 64, 91, 128, 181, 256, 362, 512, 724, 1000]


def _slice() -> pd.DataFrame:
    """Two learners on data set 99, 2 outer x 3 inner splits (6 fits) per anchor; learner "B" has only 3 fits
    at anchor 512. Fit k (0..5) of learner A at anchor a takes a/1000 * (k + 1) s and scores 0.5 + a/4000 + k/100."""
    rows = []
    for learner in ("A", "B"):
        for a in ANCHORS:
            fits = 3 if (learner == "B" and a == 512) else 6
            for k in range(fits):
                rows.append({"openmlid": 99, "learner": learner, "size_train": a, "outer_seed": k // 3,
                             "inner_seed": k % 3, "traintime": a / 1000 * (k + 1),
                             "score_valid": 0.5 + a / 4000 + k / 100 - (0.1 if learner == "B" else 0.0)})
    rows.append({"openmlid": 5, "learner": "A", "size_train": 16, "outer_seed": 0, "inner_seed": 0,
                 "traintime": 1.0, "score_valid": 0.9})
    return pd.DataFrame(rows)


def test_sizes_are_the_anchors_nearest_to_trimtuner_fractions():
    # 1000/60 = 16.7 -> 16; 100 -> 91 (ln 100 - ln 91 = 0.094 < ln 128 - ln 100 = 0.247); 250 -> 256; 500 -> 512
    assert lcdb.sizes_for(ANCHORS) == [16, 91, 256, 512, 1000]
    # a small data set: 1/60 and 1/10 of 64 (1.07 and 6.4) both meet the smallest anchor, 16
    assert lcdb.sizes_for([16, 23, 32, 45, 64]) == [16, 32, 64]


def test_curve_table_by_hand():
    table, info = lcdb.curve_table(_slice(), 99)
    assert info["splits"] == 6 and info["sizes"] == [16, 91, 256, 512, 1000]
    assert info["learners"] == ["A"] and list(info["dropped"]) == ["B"] and "[512]" in info["dropped"]["B"]
    a = table.set_index("size").loc[1000]
    # accuracy: mean of 0.5 + 0.25 + k/100 over k = 0..5 = 0.75 + 0.025; time: sum of (k + 1) s = 21 s
    assert a["accuracy"] == pytest.approx(0.775)
    assert a["time"] == pytest.approx(21.0)
    assert a["cost"] == pytest.approx(21.0 * 0.0464 / 3600)
    assert table.set_index("size").loc[16, "time"] == pytest.approx(0.016 * 21)


def test_convert_writes_a_loadable_file_with_its_provenance(tmp_path):
    src = tmp_path / "database-accuracy.csv"
    _slice().to_csv(src, index=False)
    # B lacks size 512; with a second complete learner the file is loadable
    rows = _slice()
    extra = rows[rows["learner"] == "A"].assign(learner="C", score_valid=lambda d: d["score_valid"] - 0.2)
    rows = pd.concat([rows, extra], ignore_index=True)
    rows.to_csv(src, index=False)
    path = lcdb.convert(99, tmp_path / "out", source=src)
    meta = json.loads(path.with_suffix(".json").read_text())
    assert meta["sha256"] == sha256_of(path) and meta["source_sha256"] == sha256_of(src)
    assert meta["learners"] == ["A", "C"] and meta["price_per_hour_usd"] == 0.0464
    bench = load_benchmark(path)
    assert bench.sizes == (16, 91, 256, 512, 1000) and bench.n_configs == 2
    full = bench.full_size().set_index("learner")
    assert full.loc["C", "accuracy"] == pytest.approx(0.575)
    mtime = path.stat().st_mtime_ns
    assert lcdb.convert(99, tmp_path / "out", source=src) == path and path.stat().st_mtime_ns == mtime  # reused


def test_unknown_data_set_and_missing_columns_are_one_line_errors(tmp_path):
    with pytest.raises(lcdb.LcdbError, match="OpenML data set 7 has no learning curves"):
        lcdb.curve_table(_slice(), 7)
    bad = tmp_path / "database-accuracy.csv"
    bad.write_text("openmlid,learner\n1,A\n")
    with pytest.raises(lcdb.LcdbError, match=r"line 1: missing column\(s\)"):
        lcdb.read_source(bad)


@pytest.mark.skipif(lcdb.installed_version() != lcdb.LCDB_VERSION, reason="the lcdb extra is not installed")
def test_one_real_value_against_a_scan_of_the_lcdb_table(tmp_path):
    """SVC_linear on OpenML 6 (letter) at its full size 16,200: 125 fits; accuracy and time recomputed by
    reading the table's lines with plain string operations (no pandas)."""
    times, scores = [], []
    header = None
    with open(lcdb.source_csv(), encoding="utf-8") as fh:
        for line in fh:
            if header is None:
                header = line.strip().split(",")
                continue
            if line.startswith("6,SVC_linear,16200,"):
                f = dict(zip(header, line.strip().split(",")))
                times.append(float(f["traintime"]))
                scores.append(float(f["score_valid"]))
    assert len(times) == 125
    path = lcdb.convert(6, tmp_path)
    row = pd.read_csv(path).set_index(["learner", "size"]).loc[("SVC_linear", 16200)]
    assert row["time"] == pytest.approx(sum(times), rel=1e-9)
    assert row["accuracy"] == pytest.approx(sum(scores) / 125, rel=1e-9)


# ------------------------------------------------------------------------------------------------ the claims

def _run(arm, seed, acc, cost):
    """A run whose incumbent's Accuracy_C after test i is acc[i], at cumulative cost cost[i]."""
    return pd.DataFrame({"arm": arm, "seed": seed, "iteration": np.arange(1, len(acc) + 1),
                         "accuracy_c": acc, "cumulative_cost": cost})


def test_cost_to_target_and_accuracy_at_spend_by_hand():
    r = _run("x", 1, [0.5, 0.95, 0.99, 0.98], [1.0, 2.0, 4.0, 8.0])
    assert od.cost_to_target(r, 0.99) == (4.0, True)
    assert od.cost_to_target(r, 0.995) == (8.0, False)
    assert od.accuracy_at_spend(r, 3.0) == 0.95
    assert od.accuracy_at_spend(r, 0.5) == 0.0


def test_claims_on_hand_made_curves():
    best = 1.0  # target: 0.99
    runs = []
    for s in range(1, 6):
        runs.append(_run("TrimTuner-DT", s, [0.9, 0.99, 0.99], [1.0, 2.0, 3.0]))          # reaches at 2, spends 3
        runs.append(_run("TrimTuner-DT no filter", s, [0.5, 0.5, 0.99], [1.0, 2.0, 3.0]))  # mean 0.663
        runs.append(_run("EIc", s, [0.8, 0.99, 0.99], [10.0, 20.0, 30.0]))                # reaches at 20
        runs.append(_run("EIc/USD", s, [0.8, 0.9, 0.99], [1.0, 2.0, 30.0]))               # 0.9 at spend 3
        runs.append(_run("FABOLAS", s, [0.99, 0.99, 0.99], [1.0, 2.0, 3.0]))              # 0.99 at spend 3
        runs.append(_run("Random", s, [0.0, 0.0, 0.0], [1.0, 2.0, 3.0]))
    c = od.claims(pd.concat(runs, ignore_index=True), best).set_index("claim")
    fig2 = c.loc["Fig. 2: EIc's cost to target / TrimTuner-DT's"]
    assert (fig2["value"], fig2["lo"], fig2["hi"], fig2["verdict"]) == (10.0, 10.0, 10.0, "holds")
    filt = c.loc["Fig. 3/4: mean Accuracy_C, CEA 10% - no filter"]
    assert filt["value"] == pytest.approx((0.9 + 0.99 + 0.99) / 3 - (0.5 + 0.5 + 0.99) / 3) and filt["verdict"] == "holds"
    at = lambda b: c.loc[f"Fig. 1: Accuracy_C at equal spend, TrimTuner-DT - {b}"]  # noqa: E731
    assert at("EIc")["value"] == pytest.approx(0.99) and at("EIc")["verdict"] == "holds"       # EIc: 0 within 3
    assert at("EIc/USD")["value"] == pytest.approx(0.09) and at("EIc/USD")["verdict"] == "holds"
    assert at("FABOLAS")["value"] == pytest.approx(0.0) and at("FABOLAS")["verdict"] == "undecided"


def test_a_run_that_never_reaches_counts_as_infinitely_expensive():
    runs = []
    for s in range(1, 6):
        dt = [0.99, 0.99] if s <= 2 else [0.5, 0.5]  # 3 of 5 never reach: the median is infinite
        runs += [_run("TrimTuner-DT", s, dt, [1.0, 2.0]), _run("TrimTuner-DT no filter", s, dt, [1.0, 2.0]),
                 _run("EIc", s, [0.99, 0.99], [5.0, 6.0])]
        runs += [_run(a, s, [0.5, 0.5], [1.0, 2.0]) for a in ("EIc/USD", "FABOLAS", "Random")]
    c = od.claims(pd.concat(runs, ignore_index=True), 1.0).set_index("claim")
    fig2 = c.loc["Fig. 2: EIc's cost to target / TrimTuner-DT's"]
    assert fig2["value"] == 0.0 and "TrimTuner-DT 2/5" in fig2["note"]


def test_selection_rule_and_limit_by_hand():
    s = pd.DataFrame({"openml_id": [1, 2, 3, 4, 5], "sizes": [5, 5, 4, 5, 5], "learners": [20, 14, 20, 20, 20],
                      "median_full_time_s": [50.0, 50.0, 50.0, 5.0, 20.0], "share_near_best": [0.1, 0.1, 0.1, 0.1, 0.6]})
    assert od.eligible(s)["openml_id"].tolist() == [1]
    s2 = pd.DataFrame({"openml_id": range(10)})
    assert od.spread(s2, 3) == [0, 4, 9] and od.spread(s2, None) == list(range(10))
    t = pd.DataFrame({"size": [10, 100, 10, 100, 10, 100], "cost": [1.0, 4.0, 1.0, 8.0, 1.0, 2.0]})
    assert od.limit_of(t) == 4.0


def test_claim_counts():
    t = pd.DataFrame({"claim": ["a", "a", "a", "b"], "verdict": ["holds", "fails", "holds", "undecided"],
                      "openml_id": [1, 2, 3, 1]})
    got = od.claim_counts(t).set_index("claim")
    assert got.loc["a"].tolist() == [3, 2, 1, 0] and got.loc["b"].tolist() == [1, 0, 0, 1]


def test_summary_rows_count_the_data_sets_where_each_claim_holds():
    """Two claims on three data sets, verdicts set by hand: claim a holds on 2 of 3 (fails on 9 for a named reason),
    claim b on 0 of 3 (undecided twice, fails once); the fewest runs behind each is 4 and 5."""
    t = pd.DataFrame({"claim": ["a", "a", "a", "b", "b", "b"], "openml_id": [3, 6, 9, 3, 6, 9],
                      "value": [2.0, 1.25, 0.5, 0.01, -0.02, -0.1], "lo": [1.5, 1.1, 0.25, -0.01, -0.05, -0.2],
                      "hi": [3.0, 1.5, 0.75, 0.03, 0.01, -0.05],
                      "verdict": ["holds", "holds", "fails", "undecided", "undecided", "fails"],
                      "runs": [5, 4, 5, 5, 5, 5], "reason": ["", "", "an easy target", "", "", "small sizes mislead"]})
    rows = od.summary_rows(t, "TrimTuner on outside data (LCDB)", setting="LCDB curves")
    assert [(r["item"], r["paper"], r["workbook"], r["check"], r["cause"]) for r in rows] == [
        ("a: data sets where it holds, of those studied", 3, 2, "outside", "LCDB curves"),
        ("b: data sets where it holds, of those studied", 3, 0, "outside", "LCDB curves")]
    assert rows[0]["note"] == ("holds on 2 of 3 data sets; per data set, value [95% interval]: 3: 2 [1.5, 3] holds; "
                               "6: 1.25 [1.1, 1.5] holds; 9: 0.5 [0.25, 0.75] fails (an easy target); 4 runs per arm")
    assert rows[1]["note"].startswith("holds on 0 of 3 data sets;")
    assert "9: -0.1 [-0.2, -0.05] fails (small sizes mislead); 5 runs per arm" in rows[1]["note"]
    from tt_workbook.report.summary import comparison

    assert comparison(rows)["status"].tolist() == ["outside data", "outside data"]
