"""Notebook 01 paper-vs-workbook rows: the search space of a benchmark vs TrimTuner Table I.

The numbers of TrimTuner Table I and §IV come from :mod:`tt_workbook.paper_values` and only
fill the *paper* column; every *workbook* value is computed by :mod:`tt_workbook.studies.dataset.analysis`.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np

from tt_workbook.studies.dataset.analysis import qualitative_facts, search_space
from tt_workbook.studies.common import as_benchmark
from tt_core.data.benchmarks import Benchmark
from tt_workbook import paper_values as pv

if TYPE_CHECKING:  # annotations only: pandas is imported where it is used
    import pandas as pd

__all__ = ["table1_comparison_rows"]


def _fmt_levels(values) -> str:
    return ", ".join(f"{v:g}" if isinstance(v, (int, float, np.integer, np.floating)) else str(v) for v in values)


def levels_table(spaces: dict[str, dict]) -> "pd.DataFrame":
    """The levels of each configuration parameter per network (``search_space`` results by name), as
    text: ``1e-05, 0.0001, 0.001``, not a list of floats that a table rounds to ``[0.0, 0.0001, 0.001]``."""
    import pandas as pd

    return pd.DataFrame({n: {c: _fmt_levels(v) for c, v in s["levels"].items()} for n, s in spaces.items()})


def table1_comparison_rows(benchmark: Benchmark | str | os.PathLike) -> list[dict]:
    """Comparison rows (see :mod:`tt_workbook.report.summary`): the search space of the data vs TrimTuner Table I
    and §IV text (288 configurations, 5 sizes, 1440 points), plus the qualitative statements of
    :func:`tt_workbook.studies.dataset.analysis.qualitative_facts`. Counts are items ending in ``(count)``; level
    lists are compared as text; statements as booleans."""
    bench = as_benchmark(benchmark)
    space = search_space(bench)
    ref = pv.TABLE_I
    net = bench.name.upper()
    src = "TrimTuner Table I"
    rows = [
        {"source": "TrimTuner §IV text", "item": f"{net}: configurations per data-set size (count)",
         "paper": ref["n_configs"], "workbook": space["n_configs"]},
        {"source": src, "item": f"{net}: data-set sizes (count)", "paper": len(ref["size_pct"]),
         "workbook": space["n_sizes"]},
        {"source": "TrimTuner §IV text", "item": f"{net}: configurations x sizes (count)", "paper": ref["n_points"],
         "workbook": space["n_points"]},
        {"source": src, "item": f"{net}: data-set sizes [% of full] (levels)", "paper": _fmt_levels(ref["size_pct"]),
         "workbook": _fmt_levels(space["size_pct"])},
    ]
    levels = space["levels"]
    for col, key in (("learning_rate", "learning_rate"), ("batch_size", "batch_size"), ("sync", "sync")):
        if col in levels:
            rows.append({"source": src, "item": f"{net}: {col} values (levels)",
                         "paper": _fmt_levels(sorted(ref[key])), "workbook": _fmt_levels(levels[col])})
    for flavor, counts in space.get("vm_counts", {}).items():
        rows.append({"source": src, "item": f"{net}: numbers of {flavor} VMs (levels)",
                     "paper": _fmt_levels(ref["vm_counts"].get(flavor, ())), "workbook": _fmt_levels(counts)})
    facts = qualitative_facts(bench)
    for key, text in (("median_accuracy_increases_with_size", "median accuracy grows with the data-set size"),
                      ("median_cost_increases_with_size", "median cost grows with the data-set size")):
        rows.append({"source": "TrimTuner §III (kernel assumption)", "item": f"{net}: {text} (statement)",
                     "paper": True, "workbook": facts[key]})
    return [{**r, "check": "data"} for r in rows]
