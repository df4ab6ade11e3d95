"""Notebook 08 paper-vs-workbook tables: thesis §6.3 (Table 6.2, Eq. 6.2 in the text, Tables 6.3-6.4).

The thesis' numbers come from :mod:`tt_workbook.paper_values` and only fill the *paper*
columns; every *workbook* value is computed by :mod:`tt_workbook.studies.nephele.subsampling` from the
measurements.
"""

from __future__ import annotations

import os

import pandas as pd

from tt_workbook.studies.common import as_benchmark, nullable_ints, pct
from tt_workbook.studies.nephele.subsampling import (
    STATUS_LABELS,
    THESIS_MAX_TIME,
    THESIS_MIN_ACCURACY,
    constraint_crosstab,
    prepared_benchmark,
    size_facts,
    subsampling_gain,
)
from tt_core.data.benchmarks import REGISTRY, Benchmark
from tt_workbook import paper_values as pv

__all__ = ["crosstab_comparison", "crosstab_comparison_rows", "size_facts_comparison_rows", "table6_2",
           "table6_2_comparison_rows"]


def _unavailable(name: str) -> bool:
    spec = REGISTRY.get(name)
    return spec is not None and not spec.public


def table6_2(benchmarks=("cnn", "rnn"), min_accuracy: float = THESIS_MIN_ACCURACY, max_time: float = THESIS_MAX_TIME) -> pd.DataFrame:
    """Thesis Table 6.2 with the paper's (reference) and the workbook's values side by side.

    Also carries the §6.3 text values: the size of the optimum and the cost reduction (Eq. 6.2).
    Networks whose data are not public (MLP) have empty workbook columns.
    """
    given = {}
    for b in benchmarks:
        bench = as_benchmark(b)
        given[bench.name] = bench
    fields = ("feasible_all_sizes", "feasible_full_size", "feasible_all_sizes_pct", "feasible_full_size_pct")
    rows = []
    for name in dict.fromkeys([*pv.TABLE_6_2, *given]):
        ref = {**pv.TABLE_6_2.get(name, {}), **pv.SECTION_6_3.get(name, {})}
        res = subsampling_gain(given[name], min_accuracy, max_time) if name in given else None
        row = {"network": name.upper()}
        for f in fields:
            row[f"{f}_paper"] = ref.get(f)
            row[f"{f}_workbook"] = res[f] if res else None
        row["optimum_size_paper"] = ref.get("optimum_size")
        row["optimum_size_workbook"] = res["optimum_size"] if res else None
        row["cost_reduction_pct_paper"] = ref.get("cost_reduction_pct")
        red = res["cost_reduction"] if res else None
        row["cost_reduction_pct_workbook"] = None if red is None else 100.0 * red
        row["cost_ratio_paper"] = ref.get("cost_ratio")
        row["cost_ratio_workbook"] = res["cost_ratio"] if res else None
        row["note"] = ("data not public" if _unavailable(name) else "not computed") if res is None else ""
        rows.append(row)
    counts = [f"{f}_{side}" for f in ("feasible_all_sizes", "feasible_full_size", "optimum_size")
              for side in ("paper", "workbook")]
    return nullable_ints(pd.DataFrame(rows), counts)


def table6_2_comparison_rows(table: pd.DataFrame) -> list[dict]:
    """Comparison rows (see :mod:`tt_workbook.report.summary`) from :func:`table6_2`; items end in (count)/(%)/(images)/(x)."""
    labels = {
        "feasible_all_sizes": ("Table 6.2", "feasible points, all sizes", "count"),
        "feasible_full_size": ("Table 6.2", "feasible configurations, s = 1", "count"),
        "feasible_all_sizes_pct": ("Table 6.2", "feasible points, all sizes", "%"),
        "feasible_full_size_pct": ("Table 6.2", "feasible configurations, s = 1", "%"),
        "optimum_size": ("§6.3 text", "size of the cost-optimal feasible point", "images"),
        "cost_reduction_pct": ("§6.3 text", "cost reduction by sub-sampling, Eq. 6.2", "%"),
        "cost_ratio": ("§6.3 text", "cost without / with sub-sampling", "x"),
    }
    rows = []
    for _, r in table.iterrows():
        for f, (where, label, unit) in labels.items():
            paper, wb = r[f"{f}_paper"], r[f"{f}_workbook"]
            if paper is None or pd.isna(paper):
                continue
            wb = None if wb is None or pd.isna(wb) else wb
            row = {"source": f"thesis {where}", "item": f"{r['network']}: {label} ({unit})",
                   "paper": paper, "workbook": wb, "note": r["note"], "check": "data"}
            if unit in ("%", "x"):
                row["abs_tol"] = pv.reported_tolerance(paper)
                if wb is not None:
                    row["workbook"] = round(float(wb), 4)
            rows.append(row)
    return rows


def crosstab_comparison(
    benchmark: Benchmark | str | os.PathLike,
    min_accuracy: float = THESIS_MIN_ACCURACY,
    max_time: float = THESIS_MAX_TIME,
) -> pd.DataFrame:
    """Every cell of the thesis' crosstab table of a network (6.3 CNN, 6.4 RNN) vs the workbook.

    Returns
    -------
    pandas.DataFrame
        Long format, one row per (sub-sampled size, full-size status, sub-sampled status):
        ``size, full_size_status, subsampled_status, paper, workbook, workbook_pct, agrees``.
        ``paper`` is reference data from :mod:`tt_workbook.paper_values`; sizes the paper does not
        tabulate have an empty ``paper`` column.
    """
    bench = prepared_benchmark(benchmark)
    ref = pv.CROSSTABS.get(bench.name, {})
    rows = []
    for size in bench.sizes[:-1]:
        ct = constraint_crosstab(bench, size, min_accuracy, max_time)
        total = int(ct.to_numpy().sum())
        paper = ref.get(size)
        for i, rlab in enumerate(STATUS_LABELS):
            for j, clab in enumerate(STATUS_LABELS):
                wb = int(ct.loc[rlab, clab])
                p = None if paper is None else int(paper[i][j])
                rows.append({"size": size, "full_size_status": rlab, "subsampled_status": clab, "paper": p,
                             "workbook": wb, "workbook_pct": round(pct(wb, total), 2),
                             "agrees": None if p is None else p == wb})
    return pd.DataFrame(rows)


def crosstab_comparison_rows(comp: pd.DataFrame, network: str) -> list[dict]:
    """Comparison rows (see :mod:`tt_workbook.report.summary`) from :func:`crosstab_comparison`: one per cell."""
    table = pv.CROSSTAB_TABLE_NAMES.get(network.lower(), "crosstab")
    rows = []
    for _, r in comp.iterrows():
        if r["paper"] is None or pd.isna(r["paper"]):
            continue
        rows.append({
            "source": f"thesis {table}",
            "item": f"{network.upper()} {r['size']} vs full: {r['full_size_status']} at full, "
                    f"{r['subsampled_status']} at {r['size']} (count)",
            "paper": int(r["paper"]), "workbook": int(r["workbook"]), "check": "data",
        })
    return rows


def size_facts_comparison_rows(benchmark: Benchmark | str | os.PathLike) -> list[dict]:
    """Comparison rows for the §6.3 text facts the thesis states for this network (if any)."""
    bench = prepared_benchmark(benchmark)
    ref = pv.SECTION_6_3.get(bench.name, {})
    facts = size_facts(bench)
    items = {
        "dataset_size_reduction_pct": ("data-set size reduction that still allows both constraints", "dataset_size_reduction_pct"),
        "accuracy_violated_at_1000_pct": (f"configurations violating A_min at {bench.sizes[0]} images",
                                          "accuracy_violated_at_smallest_pct"),
    }
    rows = []
    for key, (label, fact) in items.items():
        if key not in ref:
            continue
        wb = facts[fact]
        rows.append({"source": "thesis §6.3 text", "item": f"{bench.name.upper()}: {label} (%)", "paper": ref[key],
                     "workbook": None if wb is None else round(wb, 4), "abs_tol": pv.reported_tolerance(ref[key]),
                     "check": "data"})
    return rows


def statement_rows(time_ranges: dict, loaded: dict, grid_accuracy_min: float) -> list[dict]:
    """Comparison rows for the thesis' statements of §6.2-6.3 (Fig. 6.7, Fig. 6.8a).

    Parameters
    ----------
    time_ranges : dict
        Network -> (fastest, slowest) training time of the points meeting A_min
        (:func:`tt_workbook.studies.nephele.subsampling.accurate_time_range`), or None.
    loaded : dict
        Network -> Benchmark; the CNN row needs ``"cnn"``.
    grid_accuracy_min : float
        The lowest A_min of the Fig. 6.8 grid.
    """
    from tt_workbook.studies.nephele.subsampling import time_limit_floor

    ranges = [r for r in time_ranges.values() if r is not None]
    rows: list[dict] = []
    if ranges:
        rows += [
            {"source": "thesis §6.2 (Fig. 6.7)", "paper": True, "workbook": bool(min(r[0] for r in ranges) < 60),
             "item": "all networks: some point meeting A_min trains in under a minute (statement)"},
            {"source": "thesis §6.2 (Fig. 6.7)", "paper": True, "workbook": bool(max(r[1] for r in ranges) > 600),
             "item": "all networks: some point meeting A_min trains for more than 10 minutes (statement)"},
        ]
    if "cnn" in loaded:
        rows.append({"source": "thesis §6.3 text (Fig. 6.8a)",
                     "item": "CNN: time limit below which the full-size problem is infeasible (s)", "paper": 60,
                     "workbook": round(time_limit_floor(loaded["cnn"], grid_accuracy_min), 1), "rel_tol": 0.1,
                     "note": "thesis: 'approximately 60 seconds'; workbook at the lowest A_min of the grid"})
    return [{**r, "check": "data"} for r in rows]
