"""Notebook 02 paper-vs-workbook tables: TrimTuner Table II and thesis Table 7.1.

The papers' numbers come from :mod:`tt_workbook.paper_values` and only fill the ``*_paper``
columns; every ``*_workbook`` value is computed by :func:`tt_workbook.studies.feasibility.analysis.feasibility`
from the measurements.
"""

from __future__ import annotations

import pandas as pd

from tt_workbook.studies.common import as_benchmark, nullable_ints
from tt_workbook.studies.feasibility.analysis import THESIS_HIGH_ACCURACY, feasibility
from tt_core.data.benchmarks import REGISTRY
from tt_workbook import paper_values as pv

__all__ = ["comparison_rows", "table2", "table7_1"]

_TABLE_II_FIELDS = ("feasible", "feasible_pct", "high_accuracy", "high_accuracy_pct")
_TABLE_7_1_FIELDS = ("feasible", "feasible_pct", "high_accuracy_unconstrained", "high_accuracy_unconstrained_pct",
                     "high_accuracy", "high_accuracy_pct")
_LABELS = {
    "feasible": "feasible configurations",
    "high_accuracy": "feasible configurations with high accuracy",
    "high_accuracy_unconstrained": "configurations with high accuracy (no cost constraint)",
}


def _unavailable(name: str) -> str | None:
    spec = REGISTRY.get(name)
    return "data not public" if spec is not None and not spec.public else None


def _paper_table(variant: str, benchmarks, min_accuracy: float = THESIS_HIGH_ACCURACY) -> pd.DataFrame:
    paper = pv.TABLE_II if variant == "trimtuner" else pv.TABLE_7_1
    fields = _TABLE_II_FIELDS if variant == "trimtuner" else _TABLE_7_1_FIELDS
    given = {}
    for b in benchmarks:
        bench = as_benchmark(b)
        given[bench.name] = bench
    rows = []
    for name in dict.fromkeys([*paper, *given]):
        ref = paper.get(name, {})
        result, note = None, ""
        if name in given:
            result = feasibility(given[name], ref.get("max_cost"), variant, min_accuracy=min_accuracy)
        elif _unavailable(name):
            note = _unavailable(name)
        else:
            note = "not computed"
        if not ref:
            note = "not in the paper"
        row = {"network": name.upper(),
               "max_cost": result["max_cost"] if result is not None else ref.get("max_cost")}
        for f in fields:
            row[f"{f}_paper"] = ref.get(f)
            row[f"{f}_workbook"] = result[f] if result is not None else None
        row["note"] = note
        rows.append(row)
    counts = [f"{f}_{side}" for f in fields if not f.endswith("_pct") for side in ("paper", "workbook")]
    return nullable_ints(pd.DataFrame(rows), counts)


def table2(benchmarks=("cnn", "rnn")) -> pd.DataFrame:
    """TrimTuner Table II with the paper's and the workbook's values side by side.

    Every network of the paper is listed (RNN, MLP, CNN); the MLP's workbook columns are empty
    ("data not public"). Each ``<field>_paper`` column is reference data from
    :data:`tt_workbook.paper_values.TABLE_II`; each ``<field>_workbook`` column is computed by
    :func:`tt_workbook.studies.feasibility.analysis.feasibility` with the paper's cost limit.
    """
    return _paper_table("trimtuner", benchmarks)


def table7_1(benchmarks=("cnn", "rnn"), min_accuracy: float = THESIS_HIGH_ACCURACY) -> pd.DataFrame:
    """Thesis Table 7.1 with the paper's and the workbook's values side by side (see :func:`table2`).

    ``min_accuracy`` is the "high accuracy" threshold (thesis: 0.85); the paper's columns always
    hold the thesis' numbers for 0.85.
    """
    return _paper_table("thesis", benchmarks, min_accuracy)


def comparison_rows(table: pd.DataFrame, source: str) -> list[dict]:
    """Rows for :func:`tt_workbook.report.summary.comparison` from :func:`table2` / :func:`table7_1` output.

    Counts must agree exactly; percentages agree when the workbook's value rounds to the paper's
    printed number (tolerance :func:`tt_workbook.paper_values.reported_tolerance`). Item names end in
    ``(count)`` or ``(%)``.
    """
    rows = []
    fields = [c[: -len("_paper")] for c in table.columns if c.endswith("_paper")]
    for _, r in table.iterrows():
        for f in fields:
            paper, wb = r[f"{f}_paper"], r[f"{f}_workbook"]
            if paper is None or pd.isna(paper):
                continue
            is_pct = f.endswith("_pct")
            base = f[: -len("_pct")] if is_pct else f
            item = f"{r['network']}: {_LABELS.get(base, base)} ({'%' if is_pct else 'count'})"
            wb = None if wb is None or pd.isna(wb) else wb
            row = {"source": source, "item": item, "paper": paper, "workbook": wb, "note": r["note"], "check": "data"}
            if is_pct:
                row["abs_tol"] = pv.reported_tolerance(paper)
                if wb is not None:
                    row["workbook"] = round(float(wb), 4)
            rows.append(row)
    return rows
