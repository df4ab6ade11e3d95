"""'Paper vs. this workbook' comparison records.

Every notebook that reproduces a number of a paper builds a small table with one row per item:
the paper's value (reference only, typed from the paper) next to the value the code computed, and
saves it with :func:`save_comparison`. ``tt reproduce`` collects these files into the report's
summary table.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from tt_core.data.io import write_csv

COLUMNS = ["source", "item", "paper", "workbook", "agrees", "note"]


def agree(paper, workbook, rel_tol: float = 0.0, abs_tol: float = 0.0, factor: float | None = None) -> bool | None:
    """Whether a computed value matches the paper's (None when either side is missing).

    ``factor``: agree when both are positive and within that multiplicative factor of each other
    (e.g. 2: between half and double), for quantities whose magnitude depends on the machine or seeds."""
    if paper is None or workbook is None:
        return None
    try:
        p, w = float(paper), float(workbook)
    except (TypeError, ValueError):
        return str(paper) == str(workbook)
    if math.isnan(p) or math.isnan(w):
        return None
    if factor is not None:
        if factor < 1:
            raise ValueError(f"factor must be >= 1, got {factor}")
        return p > 0 and w > 0 and max(p / w, w / p) <= factor
    return math.isclose(p, w, rel_tol=rel_tol, abs_tol=abs_tol)


def comparison(rows: list[dict]) -> pd.DataFrame:
    """Build a comparison table from dicts with keys ``source, item, paper, workbook`` and optional
    ``rel_tol``, ``abs_tol``, ``factor``, ``note``. ``agrees`` is computed, never given."""
    out = []
    for r in rows:
        out.append({
            "source": r["source"], "item": r["item"], "paper": r.get("paper"), "workbook": r.get("workbook"),
            "agrees": agree(r.get("paper"), r.get("workbook"), r.get("rel_tol", 0.0), r.get("abs_tol", 0.0),
                            r.get("factor")),
            "note": r.get("note", ""),
        })
    return pd.DataFrame(out, columns=COLUMNS)


def save_comparison(df: pd.DataFrame, name: str, figures_dir: str | Path) -> Path:
    """Write ``figures_dir/summary_<name>.csv`` atomically."""
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"comparison table lacks columns {missing}; build it with tt_core.reporting.summary.comparison")
    return write_csv(df[COLUMNS], Path(figures_dir) / f"summary_{name}.csv")


def collect(figures_dir: str | Path) -> pd.DataFrame:
    """All ``summary_*.csv`` under a folder, concatenated (empty table if none)."""
    files = sorted(Path(figures_dir).glob("summary_*.csv"))
    if not files:
        return pd.DataFrame(columns=COLUMNS)
    return pd.concat([pd.read_csv(f) for f in files], ignore_index=True)


def to_markdown(df: pd.DataFrame, digits: int = 4) -> str:
    """A comparison table as GitHub markdown (for the README)."""
    def fmt(v):
        if v is None or (isinstance(v, float) and math.isnan(v)):
            return ""
        if isinstance(v, str) and v not in ("True", "False"):
            try:
                v = float(v)
            except ValueError:
                return v
        if isinstance(v, float):
            return f"{v:.{digits}g}"
        return str(v)

    lines = ["| source | item | paper | this workbook | agrees |", "| --- | --- | --- | --- | --- |"]
    for _, r in df.iterrows():
        a = {True: "yes", False: "no", "True": "yes", "False": "no"}.get(r["agrees"], "")
        lines.append(f"| {r['source']} | {r['item']} | {fmt(r['paper'])} | {fmt(r['workbook'])} | {a} |")
    return "\n".join(lines)
