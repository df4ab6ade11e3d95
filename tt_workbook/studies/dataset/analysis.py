"""What is in a benchmark: search space, metrics per size and per factor, learning curves, and how
well a sub-sampled training run ranks configurations the way the full run does.

The last point is the premise of sub-sampling (TrimTuner §III; thesis §6.3): if the ordering of
configurations by accuracy or cost at a small data-set size resembles the ordering at the full size,
cheap sub-sampled runs are informative about the full-size optimum. :func:`rank_agreement`
measures it with Spearman's rho and Kendall's tau-b between the values at size ``s`` and at s = 1
over the same configurations, and with the overlap of the top 10%.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
from scipy import stats

from tt_core.data.benchmarks import Benchmark
from tt_workbook.studies.common import as_benchmark, check_number
from tt_core.data.io import shown

METRICS = ("accuracy", "training_time", "cost")
#: Which direction is "better" for each metric (for the top-k overlap).
BETTER = {"accuracy": "high", "training_time": "low", "cost": "low"}
#: vCPUs of the AWS t2 VM flavours of the authors' clusters (TrimTuner Table I; AWS instance types).
T2_VCPUS = {"t2.small": 1, "t2.medium": 2, "t2.xlarge": 4, "t2.2xlarge": 8}


def with_cores(table: pd.DataFrame) -> pd.DataFrame:
    """Add ``n_cores`` = n_workers x vCPUs of the VM flavour (TrimTuner Table I; thesis Table 5.1
    lists cluster sizes as 8-80 cores). Unknown flavours get NaN."""
    out = table.copy()
    if {"vm_flavor", "n_workers"} <= set(out.columns):
        vcpus = out["vm_flavor"].map(T2_VCPUS).astype(float)
        out["n_cores"] = out["n_workers"] * vcpus
    return out


def search_space(benchmark: Benchmark | str | os.PathLike) -> dict:
    """Size of the search space and the levels of each factor (compare with TrimTuner Table I).

    Returns
    -------
    dict
        ``n_configs, n_sizes, n_points, sizes, size_pct`` (size as % of the full size, 2 decimals),
        and ``levels``: {column: sorted distinct values}; with VM flavours also ``vm_counts``
        ({flavour: sorted numbers of VMs}) and ``cores`` (sorted distinct n_workers x vCPUs).
    """
    bench = as_benchmark(benchmark)
    configs = bench.configs()
    out = {
        "n_configs": bench.n_configs,
        "n_sizes": len(bench.sizes),
        "n_points": len(bench.table),
        "sizes": list(bench.sizes),
        "size_pct": [round(100.0 * s / bench.max_size, 2) for s in bench.sizes],
        "levels": {c: sorted(configs[c].unique().tolist()) for c in bench.config_columns},
    }
    if {"vm_flavor", "n_workers"} <= set(configs.columns):
        out["vm_counts"] = {k: sorted(v.tolist()) for k, v in configs.groupby("vm_flavor")["n_workers"].unique().items()}
        cores = with_cores(configs)["n_cores"].dropna()
        out["cores"] = sorted(int(c) for c in cores.unique())
    return out


def summary_by_size(benchmark: Benchmark | str | os.PathLike) -> pd.DataFrame:
    """Min / median / max of accuracy, training time (s) and cost (USD) at each training-set size."""
    bench = as_benchmark(benchmark)
    g = bench.table.groupby("size")[list(METRICS)].agg(["min", "median", "max"])
    g.columns = [f"{m}_{f}" for m, f in g.columns]
    g.insert(0, "n_configs", bench.table.groupby("size").size())
    return g.reset_index()


def summary_by_factor(
    benchmark: Benchmark | str | os.PathLike,
    factor: str,
    size: int | None = None,
    statistic: str = "median",
) -> pd.DataFrame:
    """A statistic of accuracy, time and cost per level of one factor (at one size, or per size).

    Parameters
    ----------
    factor : str
        A configuration column (e.g. ``"vm_flavor"``, ``"learning_rate"``) or ``"n_cores"``.
    size : int, optional
        Restrict to one training-set size; default: one row per (size, level).
    statistic : {"median", "mean", "min", "max"}
    """
    bench = as_benchmark(benchmark)
    table = with_cores(bench.table)
    if factor not in table.columns or factor in (*METRICS, "curve", "config_id", "s"):
        raise ValueError(f"unknown factor {shown(factor)}; choose one of {[*bench.config_columns, 'n_cores']}")
    if statistic not in ("median", "mean", "min", "max"):
        raise ValueError(f"statistic must be median, mean, min or max, got {shown(statistic)}")
    keys = [factor] if size is not None else ["size", factor]
    if size is not None:
        if size not in bench.sizes:
            raise ValueError(f"benchmark {shown(bench.name)} has no size {shown(size)}; sizes: {list(bench.sizes)}")
        table = table[table["size"] == size]
    return table.groupby(keys)[list(METRICS)].agg(statistic).reset_index()


def _top(values: np.ndarray, k: int, better: str) -> set:
    order = np.argsort(-values if better == "high" else values, kind="mergesort")
    return set(order[:k].tolist())


def rank_agreement(
    benchmark: Benchmark | str | os.PathLike,
    metrics=METRICS,
    top_fraction: float = 0.10,
) -> pd.DataFrame:
    """How well each sub-sampled size ranks the configurations as the full size does.

    For every size ``s`` and metric, compares the 288 (configuration-wise) values at ``s`` with the
    values at the full size: Spearman's rho, Kendall's tau-b, and the share of the best
    ``top_fraction`` configurations at ``s`` that are also among the best at full size.

    Returns
    -------
    pandas.DataFrame
        ``size, s, metric, spearman, kendall, top_overlap`` (the full size itself gives 1, 1, 1).
    """
    bench = as_benchmark(benchmark)
    top_fraction = check_number("top_fraction", top_fraction, low=0.0, high=1.0, low_open=True)
    unknown = [m for m in metrics if m not in METRICS]
    if unknown:
        raise ValueError(f"unknown metric(s) {unknown}; choose from {METRICS}")
    full = bench.full_size().set_index("config_id")
    k = max(1, int(round(top_fraction * len(full))))
    rows = []
    for size in bench.sizes:
        sub = bench.at_size(size).set_index("config_id").reindex(full.index)
        for m in metrics:
            x, y = sub[m].to_numpy(float), full[m].to_numpy(float)
            ok = np.isfinite(x) & np.isfinite(y)
            rho = stats.spearmanr(x[ok], y[ok]).statistic if ok.sum() > 2 else np.nan
            tau = stats.kendalltau(x[ok], y[ok]).statistic if ok.sum() > 2 else np.nan
            overlap = len(_top(x, k, BETTER[m]) & _top(y, k, BETTER[m])) / k
            rows.append({"size": size, "s": size / bench.max_size, "metric": m,
                         "spearman": float(rho), "kendall": float(tau), "top_overlap": overlap})
    return pd.DataFrame(rows)


def learning_curves(
    benchmark: Benchmark | str | os.PathLike,
    config_ids=None,
    sizes=None,
) -> pd.DataFrame:
    """Learning curves in long format: ``config_id, size, step, accuracy`` (plus the configuration).

    ``step`` numbers the intermediate accuracy samples of a run. The thesis (§5) says the
    bookkeeper measured the accuracy every 5 s, but the number of samples per second of training
    differs a lot between runs and networks, and the sample times are not in the loaded table, so
    steps are not converted to seconds.

    Parameters
    ----------
    config_ids : iterable of int, optional
        Default: all configurations.
    sizes : iterable of int, optional
        Default: all sizes.
    """
    bench = as_benchmark(benchmark)
    if "curve" not in bench.table.columns:
        raise ValueError(f"benchmark {shown(bench.name)} has no learning curves (TrimTuner format only)")
    t = bench.table
    if config_ids is not None:
        t = t[t["config_id"].isin(list(config_ids))]
    if sizes is not None:
        bad = [s for s in sizes if s not in bench.sizes]
        if bad:
            raise ValueError(f"unknown size(s) {bad}; sizes: {list(bench.sizes)}")
        t = t[t["size"].isin(list(sizes))]
    parts = []
    for _, r in t.iterrows():
        curve = np.asarray(r["curve"], float)
        if curve.size == 0:
            continue
        part = pd.DataFrame({"config_id": r["config_id"], "size": r["size"], "step": np.arange(1, curve.size + 1),
                             "accuracy": curve})
        for c in bench.config_columns:
            part[c] = r[c]
        parts.append(part)
    if not parts:
        return pd.DataFrame(columns=["config_id", "size", "step", "accuracy", *bench.config_columns])
    return pd.concat(parts, ignore_index=True)


def representative_configs(benchmark: Benchmark | str | os.PathLike, n: int = 6) -> list[int]:
    """``n`` configuration ids spread over the full-size accuracy range (quantiles), for plotting."""
    bench = as_benchmark(benchmark)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive whole number, got {shown(n)}")
    full = bench.full_size().sort_values(["accuracy", "config_id"]).reset_index(drop=True)
    idx = np.unique(np.round(np.linspace(0, len(full) - 1, n)).astype(int))
    return [int(full.loc[i, "config_id"]) for i in idx]


def qualitative_facts(benchmark: Benchmark | str | os.PathLike) -> dict:
    """Statements the papers make about the data, evaluated on it (booleans / numbers).

    * ``median_accuracy_increases_with_size`` / ``median_cost_increases_with_size``: TrimTuner §III
      ("accuracy and cost of a ML model grow normally with larger data-set sizes");
    * ``max_training_time_s``, ``min_training_time_s``: thesis §6.2 ("the time taken to execute the
      job varies from a few seconds to more than 10 minutes").
    """
    bench = as_benchmark(benchmark)
    med = bench.table.groupby("size")[["accuracy", "cost"]].median()
    return {
        "median_accuracy_increases_with_size": bool((np.diff(med["accuracy"].to_numpy()) > 0).all()),
        "median_cost_increases_with_size": bool((np.diff(med["cost"].to_numpy()) > 0).all()),
        "min_training_time_s": float(bench.table["training_time"].min()),
        "max_training_time_s": float(bench.table["training_time"].max()),
    }

