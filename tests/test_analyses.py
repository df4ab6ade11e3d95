"""Tests of the deterministic analyses (feasibility, sub-sampling, data set) and the paper values.

Synthetic benchmarks have answers computed by hand in the comments; tests on the real data
recompute invariants independently with plain pandas (from the raw CSV where it matters), never
with the papers' numbers typed in.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from tt_workbook.studies.dataset import analysis as ds
from tt_workbook.studies.feasibility import analysis as fz
from tt_workbook.studies.nephele import subsampling as ss
from tt_workbook.studies.feasibility.analysis import feasibility, feasibility_table
from tt_core.data.benchmarks import benchmark_from_table, load_benchmark, locate
from tt_workbook.studies.dataset import rows as ds_report
from tt_workbook import paper_values as pv
from tt_workbook.studies.nephele import subsampling_rows as ss_report
from tt_workbook.studies.feasibility.rows import comparison_rows, table2, table7_1

# ---------------------------------------------------------------------------------------------
# A hand-checkable benchmark: 3 configurations (a = 1, 2, 3) x 2 sizes (10, 100 images)
#
#   config  size  accuracy  time  cost
#   1       10    0.86       5    0.010
#   2       10    0.70       3    0.005
#   3       10    0.90      50    0.030
#   1       100   0.90      50    0.050
#   2       100   0.96      80    0.080
#   3       100   0.99     400    0.200
# ---------------------------------------------------------------------------------------------

ROWS = [
    (1, 10, 0.86, 5, 0.010), (2, 10, 0.70, 3, 0.005), (3, 10, 0.90, 50, 0.030),
    (1, 100, 0.90, 50, 0.050), (2, 100, 0.96, 80, 0.080), (3, 100, 0.99, 400, 0.200),
]


@pytest.fixture
def toy():
    df = pd.DataFrame(ROWS, columns=["a", "size", "accuracy", "time", "cost"])
    return benchmark_from_table(df, ["a"], name="toy", max_cost=0.10)


# ------------------------------------------------------------------ feasibility (Table II, 7.1)

def test_feasibility_trimtuner_by_hand(toy):
    r = feasibility(toy)                      # max cost 0.10 -> configs 1, 2 feasible at s = 1
    assert r["n_configs"] == 3 and r["max_cost"] == 0.10
    assert r["feasible"] == 2
    assert r["feasible_pct"] == pytest.approx(200 / 3)
    assert r["best_accuracy"] == pytest.approx(0.96)
    assert r["accuracy_threshold"] == pytest.approx(0.95 * 0.96)   # 0.912: only config 2
    assert r["high_accuracy"] == 1
    assert r["high_accuracy_pct"] == pytest.approx(100 / 3)


def test_feasibility_boundary_is_inclusive(toy):
    assert feasibility(toy, max_cost=0.08)["feasible"] == 2        # cost == limit is feasible
    assert feasibility(toy, max_cost=0.0799)["feasible"] == 1
    r = feasibility(toy, max_cost=0.0)
    assert r["feasible"] == 0 and r["best_accuracy"] is None and r["high_accuracy"] == 0


def test_feasibility_thesis_by_hand(toy):
    r = feasibility(toy, variant="thesis")    # accuracy >= 0.85: configs 1, 2, 3; feasible: 1, 2
    assert r["high_accuracy"] == 2 and r["high_accuracy_unconstrained"] == 3
    assert r["high_accuracy_unconstrained_pct"] == pytest.approx(100.0)
    r = feasibility(toy, variant="thesis", min_accuracy=0.95)
    assert r["high_accuracy"] == 1 and r["high_accuracy_unconstrained"] == 2


@pytest.mark.parametrize("kwargs, match", [
    ({"max_cost": -0.01}, "max_cost"),
    ({"max_cost": float("nan")}, "max_cost"),
    ({"max_cost": "cheap"}, "max_cost"),
    ({"variant": "paper"}, "variant"),
    ({"variant": "thesis", "min_accuracy": 85}, "fraction"),
    ({"relative_accuracy": 1.5}, "relative_accuracy"),
])
def test_feasibility_rejects_bad_arguments(toy, kwargs, match):
    with pytest.raises(ValueError, match=match):
        feasibility(toy, **kwargs)


def test_feasibility_needs_a_cost_limit():
    df = pd.DataFrame(ROWS, columns=["a", "size", "accuracy", "time", "cost"])
    bench = benchmark_from_table(df, ["a"], name="nolimit")
    with pytest.raises(ValueError, match="max_cost"):
        feasibility(bench)


@pytest.mark.parametrize("name", ["nope", "mlp"])
def test_unknown_or_unavailable_benchmark(name):
    with pytest.raises(ValueError):
        feasibility(name)
    with pytest.raises(ValueError):
        ss.subsampling_gain(name)


def _raw_full_size(name):
    """The authors' CSV read with plain pandas, cost recomputed from the formula in SOURCE.md."""
    raw = pd.read_csv(locate(name)[0])
    prices = {"t2.small": 0.023, "t2.medium": 0.0464, "t2.xlarge": 0.1856, "t2.2xlarge": 0.3712}
    price = raw["vm_flavor"].map(prices)
    raw["cost"] = ((raw["n_workers"] + raw["n_ps"]) * price / 60 + 0.3712 / 60) * (raw["training_time"] / 60)
    return raw, raw[raw["training_set_size"] == raw["training_set_size"].max()]


@pytest.mark.parametrize("name, limit", [("cnn", 0.10), ("rnn", 0.02), ("cnn", 0.05), ("rnn", 0.5)])
def test_feasibility_real_data_matches_plain_pandas(name, limit):
    _, full = _raw_full_size(name)
    feas = full[full["cost"] <= limit]
    best = feas["acc"].max()
    r = feasibility(name, limit)
    assert r["n_configs"] == len(full)
    assert r["feasible"] == len(feas)
    assert r["high_accuracy"] == int((feas["acc"] >= 0.95 * best).sum())
    t = feasibility(name, limit, "thesis")
    assert t["high_accuracy"] == int((feas["acc"] >= 0.85).sum())
    assert t["high_accuracy_unconstrained"] == int((full["acc"] >= 0.85).sum())


def test_feasibility_monotone_in_cost_limit(cnn):
    counts = [feasibility(cnn, c)["feasible"] for c in (0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 1.0)]
    assert counts == sorted(counts)
    assert counts[-1] == cnn.n_configs


def test_paper_tables_structure(cnn, rnn):
    t2 = table2([cnn, rnn])
    assert list(t2["network"]) == ["RNN", "MLP", "CNN"]          # the paper's row order
    mlp = t2.set_index("network").loc["MLP"]
    assert pd.isna(mlp["feasible_workbook"]) and mlp["note"] == "data not public"
    assert t2.set_index("network").loc["CNN", "feasible_workbook"] == feasibility(cnn)["feasible"]
    rows = comparison_rows(table7_1([cnn]), "thesis Table 7.1")
    assert {r["item"].split(":")[0] for r in rows} == {"CNN", "RNN", "MLP"}
    assert all(r["workbook"] is None for r in rows if r["item"].startswith("RNN"))   # not computed
    assert len(feasibility_table([cnn, rnn])) == 2


# ------------------------------------------------------------------ Eq. 6.2 (thesis §6.3)

def test_subsampling_gain_by_hand(toy):
    g = ss.subsampling_gain(toy, 0.85, 300)
    # feasible: (1,10) 0.010, (3,10) 0.030, (1,100) 0.050, (2,100) 0.080
    assert g["feasible_all_sizes"] == 4 and g["n_points"] == 6
    assert g["feasible_full_size"] == 2 and g["feasible_full_size_pct"] == pytest.approx(200 / 3)
    assert g["optimum_size"] == 10 and g["optimum_config"]["a"] == 1
    assert g["optimum_cost_all_sizes"] == pytest.approx(0.010)
    assert g["optimum_cost_full_size"] == pytest.approx(0.050)
    assert g["cost_reduction"] == pytest.approx((0.05 - 0.01) / 0.05)      # 0.8
    assert g["cost_ratio"] == pytest.approx(5.0)
    assert g["status"] == "subsampling_helps"


def test_subsampling_gain_zero_when_optimum_needs_full_size(toy):
    g = ss.subsampling_gain(toy, 0.95, 300)   # only (2, 100) reaches 95% within 300 s
    assert g["status"] == "full_size_optimal"
    assert g["cost_reduction"] == 0.0
    assert g["optimum_size"] == 100 and g["optimum_cost_all_sizes"] == pytest.approx(0.08)


def test_subsampling_gain_none_when_infeasible(toy):
    g = ss.subsampling_gain(toy, 0.999, 300)
    assert g["status"] == "infeasible" and g["cost_reduction"] is None
    assert g["optimum_size"] is None and g["optimum_config"] is None and g["feasible_all_sizes"] == 0


def test_subsampling_gain_none_when_only_subsampled_feasible(toy):
    g = ss.subsampling_gain(toy, 0.85, 10)    # (1, 10) trains in 5 s; nothing at s = 1 within 10 s
    assert g["status"] == "full_size_infeasible"
    assert g["cost_reduction"] is None and g["cost_ratio"] is None
    assert g["optimum_size"] == 10 and g["optimum_config_full_size"] is None


def test_tie_in_cost_goes_to_full_size():
    df = pd.DataFrame([(1, 10, 0.9, 5, 0.02), (1, 100, 0.9, 9, 0.02)], columns=["a", "size", "accuracy", "time", "cost"])
    g = ss.subsampling_gain(benchmark_from_table(df, ["a"]), 0.85, 300)
    assert g["optimum_size"] == 100 and g["cost_reduction"] == 0.0 and g["status"] == "full_size_optimal"


@pytest.mark.parametrize("kwargs", [{"min_accuracy": 1.2}, {"min_accuracy": -0.1}, {"max_time": -1},
                                    {"max_time": float("inf")}])
def test_subsampling_rejects_bad_constraints(toy, kwargs):
    with pytest.raises(ValueError):
        ss.subsampling_gain(toy, **kwargs)
    with pytest.raises(ValueError):
        ss.feasible_per_size(toy, **kwargs)


def test_grid_by_hand(toy):
    acc, times = [0.85, 0.95, 0.999], [10, 300]
    red = ss.cost_reduction_grid(toy, acc, times)
    status = ss.feasibility_grid(toy, acc, times)
    assert red.shape == (3, 2) and list(red.index) == acc and list(red.columns) == times
    assert red.loc[0.85, 300] == pytest.approx(0.8)
    assert red.loc[0.95, 300] == 0.0
    assert np.isnan(red.loc[0.999, 300]) and np.isnan(red.loc[0.85, 10])
    assert status.loc[0.85, 300] == 3 and status.loc[0.95, 300] == 2
    assert status.loc[0.85, 10] == 1 and status.loc[0.999, 10] == 0


@pytest.mark.parametrize("acc, times", [([], [1]), ([0.5], []), ([1.5], [10]), ([0.5], [-1]), ([np.nan], [1])])
def test_grid_rejects_bad_axes(toy, acc, times):
    with pytest.raises(ValueError):
        ss.cost_reduction_grid(toy, acc, times)


def _plain_gain(table, a, t):
    """Eq. 6.2 recomputed with plain pandas from the raw CSV table."""
    ok = table[(table["acc"] >= a) & (table["training_time"] <= t)]
    full = ok[ok["training_set_size"] == table["training_set_size"].max()]
    if full.empty:
        return None, len(ok), len(full)
    return (full["cost"].min() - ok["cost"].min()) / full["cost"].min(), len(ok), len(full)


@pytest.mark.parametrize("name", ["cnn", "rnn"])
@pytest.mark.parametrize("a, t", [(0.85, 300), (0.5, 60), (0.9, 1000), (0.97, 100), (0.7, 20)])
def test_eq_6_2_real_data_matches_plain_pandas(name, a, t):
    raw, _ = _raw_full_size(name)
    expected, n_all, n_full = _plain_gain(raw, a, t)
    g = ss.subsampling_gain(name, a, t)
    assert g["feasible_all_sizes"] == n_all and g["feasible_full_size"] == n_full
    if expected is None:
        assert g["cost_reduction"] is None
    else:
        assert g["cost_reduction"] == pytest.approx(expected, abs=1e-12)
    grid = ss.cost_reduction_grid(name, [a], [t])
    value = grid.iloc[0, 0]
    assert (np.isnan(value) and expected is None) or value == pytest.approx(expected, abs=1e-12)


def test_grid_monotone_when_relaxing_constraints(cnn, rnn):
    accuracies = np.round(np.arange(0.5, 0.991, 0.07), 2)
    times = np.logspace(1, 3, 7)
    for bench in (cnn, rnn):
        counts = np.array([[ss.subsampling_gain(bench, a, t)["feasible_all_sizes"] for t in times] for a in accuracies])
        assert (np.diff(counts, axis=1) >= 0).all()     # longer time limit: never fewer feasible
        assert (np.diff(counts, axis=0) <= 0).all()     # higher accuracy limit: never more
        feasible_full = ss.feasibility_grid(bench, accuracies, times).to_numpy() >= 2
        assert (np.diff(feasible_full.astype(int), axis=1) >= 0).all()
        assert (np.diff(feasible_full.astype(int), axis=0) <= 0).all()
        red = ss.cost_reduction_grid(bench, accuracies, times).to_numpy()
        assert np.array_equal(np.isfinite(red), feasible_full)
        assert np.nanmin(red) >= 0 and np.nanmax(red) < 1


# ------------------------------------------------------------------ Fig. 6.9 and Tables 6.3-6.4

def test_feasible_per_size_by_hand(toy):
    d = ss.feasible_per_size(toy, 0.85, 300).set_index("size")
    assert d.loc[10, ["feasible", "time_ok", "accuracy_ok", "time_only", "accuracy_only", "neither"]].tolist() == [2, 3, 2, 1, 0, 0]
    assert d.loc[100, ["feasible", "time_ok", "accuracy_ok", "time_only", "accuracy_only", "neither"]].tolist() == [2, 2, 3, 0, 1, 0]
    assert d.loc[10, "s"] == pytest.approx(0.1)


def test_crosstab_by_hand(toy):
    ct = ss.constraint_crosstab(toy, 10, 0.85, 300)
    assert list(ct.index) == list(ss.STATUS_LABELS) == list(ct.columns)
    # full: 1 Time/Acc, 2 Time/Acc, 3 notTime/Acc; size 10: 1 Time/Acc, 2 Time/notAcc, 3 Time/Acc
    expected = pd.DataFrame(0, index=list(ss.STATUS_LABELS), columns=list(ss.STATUS_LABELS))
    expected.loc["Time/Acc", "Time/Acc"] = 1
    expected.loc["Time/Acc", "Time/notAcc"] = 1
    expected.loc["notTime/Acc", "Time/Acc"] = 1
    assert (ct.to_numpy() == expected.to_numpy()).all()
    pct = ss.constraint_crosstab(toy, 10, 0.85, 300, percent=True)
    assert pct.to_numpy().sum() == pytest.approx(100.0)
    assert ss.format_crosstab(ct).loc["Time/Acc", "Time/Acc"] == "33.33% (1)"
    with pytest.raises(ValueError):
        ss.constraint_crosstab(toy, 11)
    with pytest.raises(ValueError):
        ss.constraint_crosstab(toy, 10.0)


@pytest.mark.parametrize("name", ["cnn", "rnn"])
def test_crosstab_real_data_consistent(name):
    bench = load_benchmark(name)
    per_size = ss.feasible_per_size(bench).set_index("size")
    gain = ss.subsampling_gain(bench)
    full = per_size.loc[bench.max_size]
    for size in bench.sizes:
        ct = ss.constraint_crosstab(bench, size)
        assert ct.to_numpy().sum() == bench.n_configs
        # rows = the full-size statuses, columns = the sub-sampled ones
        assert ct.sum(axis=1).tolist() == [full["feasible"], full["accuracy_only"], full["time_only"], full["neither"]]
        sub = per_size.loc[size]
        assert ct.sum(axis=0).tolist() == [sub["feasible"], sub["accuracy_only"], sub["time_only"], sub["neither"]]
        if size == bench.max_size:
            assert (ct.to_numpy() == np.diag(np.diag(ct.to_numpy()))).all()
    assert per_size["feasible"].sum() == gain["feasible_all_sizes"]
    # independent plain-pandas count of one cell at the smallest size
    t = bench.table
    ok = (t["accuracy"] >= 0.85) & (t["training_time"] <= 300)
    small = set(t.loc[ok & (t["size"] == bench.sizes[0]), "config_id"])
    big = set(t.loc[ok & (t["size"] == bench.max_size), "config_id"])
    assert ss.constraint_crosstab(bench, bench.sizes[0]).loc["Time/Acc", "Time/Acc"] == len(small & big)


def test_crosstab_comparison_layout(cnn):
    comp = ss_report.crosstab_comparison(cnn)
    assert len(comp) == 16 * (len(cnn.sizes) - 1)
    assert comp.groupby("size")["workbook"].sum().eq(cnn.n_configs).all()
    assert comp["paper"].notna().all()       # the thesis tabulates every sub-sampled size of the CNN


def test_size_facts_and_time_floor(toy, cnn):
    f = ss.size_facts(toy, 0.85, 300)
    assert f["smallest_feasible_size"] == 10
    assert f["dataset_size_reduction_pct"] == pytest.approx(90.0)
    assert f["accuracy_violated_at_smallest_pct"] == pytest.approx(100 / 3)
    assert ss.time_limit_floor(toy, 0.85) == 50
    assert ss.time_limit_floor(toy, 0.999) is None
    assert ss.accurate_time_range(toy, 0.85) == (5, 400)
    full = cnn.full_size()
    assert ss.time_limit_floor(cnn, 0.5) == full.loc[full["accuracy"] >= 0.5, "training_time"].min()


# ------------------------------------------------------------------ paper values (transcription checks)

@pytest.mark.parametrize("net", ["cnn", "rnn", "mlp"])
def test_paper_crosstabs_are_internally_consistent(net):
    """The four sub-tables of one network share the full-size row sums, each sums to 288, and the
    feasible counts over all sizes add up to the network's Table 6.2 entry: a check of the
    transcription, independent of the data."""
    tables = pv.CROSSTABS[net]
    row_sums = {size: tuple(int(sum(r)) for r in m) for size, m in tables.items()}
    assert len(set(row_sums.values())) == 1
    assert all(sum(s) == pv.TABLE_I["n_configs"] for s in row_sums.values())
    feasible_sub = sum(sum(row[0] for row in m) for m in tables.values())
    full_feasible = next(iter(row_sums.values()))[0]
    assert full_feasible == pv.TABLE_6_2[net]["feasible_full_size"]
    assert feasible_sub + full_feasible == pv.TABLE_6_2[net]["feasible_all_sizes"]
    assert pv.CROSSTAB_ORDER == ss.STATUS_LABELS


def test_analysis_constants_match_the_papers():
    """The experiment constants of the analysis layer (which may not import the paper values) are the
    ones the papers state."""
    assert ds.T2_VCPUS == pv.TABLE_I["vcpus"]
    assert fz.THESIS_HIGH_ACCURACY == pv.THESIS_HIGH_ACCURACY
    assert (ss.THESIS_MIN_ACCURACY, ss.THESIS_MAX_TIME) == (pv.NEPHELE_CONSTRAINTS["min_accuracy"],
                                                            pv.NEPHELE_CONSTRAINTS["max_time"])


def test_reported_tolerance():
    assert pv.reported_tolerance(38.5) == pytest.approx(0.05)
    assert pv.reported_tolerance(9.72) == pytest.approx(0.005)
    assert pv.reported_tolerance(60) == pytest.approx(0.5)
    assert pv.reported_tolerance(4.1) == pytest.approx(0.05)


# ------------------------------------------------------------------ data-set helpers

def test_search_space_real_data(cnn):
    s = ds.search_space(cnn)
    configs = cnn.configs()
    assert s["n_configs"] == len(configs.drop_duplicates(list(cnn.config_columns)))
    assert s["n_points"] == len(cnn.table) == s["n_configs"] * s["n_sizes"]
    assert s["cores"] == sorted(set(ds.with_cores(configs)["n_cores"].astype(int)))


def test_rank_agreement(cnn, toy):
    ra = ds.rank_agreement(cnn)
    full = ra[ra["size"] == cnn.max_size]
    assert np.allclose(full[["spearman", "kendall", "top_overlap"]].to_numpy(), 1.0)
    sub = cnn.at_size(6000).set_index("config_id")["accuracy"]
    ref = cnn.full_size().set_index("config_id")["accuracy"]
    rho = sub.corr(ref.reindex(sub.index), method="spearman")
    got = ra[(ra["size"] == 6000) & (ra["metric"] == "accuracy")]["spearman"].item()
    assert got == pytest.approx(rho)
    assert ra[["spearman", "kendall"]].abs().le(1 + 1e-12).all().all()
    with pytest.raises(ValueError):
        ds.rank_agreement(cnn, metrics=("loss",))
    with pytest.raises(ValueError):
        ds.rank_agreement(cnn, top_fraction=0)


def test_summaries_and_curves(cnn):
    by_size = ds.summary_by_size(cnn)
    assert by_size["n_configs"].tolist() == [cnn.n_configs] * len(cnn.sizes)
    assert by_size["accuracy_median"].tolist() == cnn.table.groupby("size")["accuracy"].median().tolist()
    f = ds.summary_by_factor(cnn, "vm_flavor", cnn.max_size)
    assert len(f) == cnn.configs()["vm_flavor"].nunique()
    with pytest.raises(ValueError):
        ds.summary_by_factor(cnn, "accuracy")
    ids = ds.representative_configs(cnn, 4)
    assert len(ids) == 4
    lc = ds.learning_curves(cnn, ids[:2], [cnn.max_size])
    lengths = cnn.full_size().set_index("config_id").loc[ids[:2], "curve"].apply(len)
    assert len(lc) == lengths.sum()
    with pytest.raises(ValueError):
        ds.learning_curves(cnn, sizes=[7])


def test_comparison_rows_are_exact_for_counts(cnn, rnn):
    from tt_workbook.report.summary import comparison
    rows = comparison(ss_report.table6_2_comparison_rows(ss_report.table6_2([cnn, rnn]))
                      + ds_report.table1_comparison_rows(cnn))
    counts = rows[rows["item"].str.endswith("(count)") & rows["workbook"].notna()]
    assert len(counts) > 0
    # every count row is exact (no tolerance): agrees iff equal
    assert all(bool(r["agrees"]) == (float(r["paper"]) == float(r["workbook"])) for _, r in counts.iterrows())
    assert not math.isnan(float(counts["workbook"].iloc[0]))


def test_cli_facing_results_are_json_friendly(cnn, rnn):
    json.dumps(feasibility(cnn))
    json.dumps(feasibility(rnn, variant="thesis"))
    json.dumps(ss.subsampling_gain(cnn))
    table = ss.subsampling_table([cnn, rnn])
    assert list(table["benchmark"]) == ["cnn", "rnn"]
    assert table["optimum"].str.endswith("images").all()
    assert table["feasible_full_size"].tolist() == [ss.subsampling_gain(b)["feasible_full_size"] for b in (cnn, rnn)]
