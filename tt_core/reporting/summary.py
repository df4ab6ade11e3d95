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

COLUMNS = ["source", "item", "paper", "workbook", "agrees", "status", "cause", "note", "tolerance"]

#: The statuses a row can have (``status`` column).
#: ``agrees``: within the row's tolerance; ``differs``: outside it, ``cause`` names the measured cause
#: (or says that none has been measured yet); ``not comparable``: the workbook's number comes from a
#: setting that differs from the paper's, named in ``cause``; ``paper only``: no workbook value.
#: Two kinds of row are no reproduction and are counted apart (:data:`CHECKS`): ``input check``: one of
#: the paper's inputs (e.g. an instance's price) beside an independent source of the same quantity
#: (``agrees`` says whether they match); ``consistency check``: the paper's own arithmetic recomputed
#: from its own numbers.
STATUSES = ("agrees", "differs", "not comparable", "paper only", "input check", "consistency check")
#: Row kind (``check`` key of :func:`comparison`) -> status.
CHECKS = {"input": "input check", "consistency": "consistency check"}
NO_CAUSE_YET = "cause not measured yet"


def _key_value(v) -> str:
    """A row value as a de-duplication key: numbers to 12 significant digits, anything else as text."""
    if v is None or isinstance(v, bool):
        return str(v)
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    if isinstance(v, str) and v.strip() in ("True", "False"):
        return v.strip()
    return "nan" if math.isnan(f) else f"{f:.12g}"


def deduplicate(df: pd.DataFrame) -> pd.DataFrame:
    """The rows with duplicates dropped: rows with the same source, item, paper and workbook value,
    written by several notebooks (the same item checked twice), are kept once, with every notebook
    that wrote it listed in ``notebook`` (comma-separated). ``tt summary`` and the report count these."""
    if df.empty:
        return df
    df = df.copy()
    if "notebook" not in df.columns:
        df["notebook"] = ""
    df["notebook"] = df["notebook"].fillna("").astype(str)
    df["_k"] = list(zip(df["source"].astype(str), df["item"].astype(str), df["paper"].map(_key_value),
                        df["workbook"].map(_key_value)))
    notebooks = df.groupby("_k", sort=False)["notebook"].agg(lambda s: ", ".join(dict.fromkeys(x for x in s if x)))
    df = df.drop_duplicates("_k").copy()
    df["notebook"] = df["_k"].map(notebooks)
    return df.drop(columns="_k").reset_index(drop=True)


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


def tolerance_text(rel_tol: float = 0.0, abs_tol: float = 0.0, factor: float | None = None) -> str:
    """The agreement rule of a row, in words (the report explains each rule once).

    Examples
    --------
    >>> tolerance_text(), tolerance_text(abs_tol=0.0005), tolerance_text(rel_tol=0.1), tolerance_text(factor=2)
    ('exact', 'within ±0.0005', 'within 10%', 'within a factor of 2')
    """
    if factor is not None:
        return f"within a factor of {factor:g}"
    parts = []
    if abs_tol:
        parts.append(f"±{abs_tol:g}")
    if rel_tol:
        parts.append(f"{100 * rel_tol:g}%")
    return "within " + " or ".join(parts) if parts else "exact"


def status_of(agrees, cause: str = "", not_comparable: str = "", check: str = "") -> tuple[str, str]:
    """``(status, cause)`` of a row from its computed agreement and what the notebook measured.

    ``check`` (a key of :data:`CHECKS`) makes the row an input or consistency check whatever its
    agreement. ``not_comparable`` (the setting that differs from the paper's) takes precedence over
    agreement: a number computed under another setting neither agrees nor differs. A disagreeing row
    without a ``cause`` says so (:data:`NO_CAUSE_YET`) instead of staying silent."""
    if check:
        if check not in CHECKS:
            raise ValueError(f"unknown row kind {check!r}; known: {list(CHECKS)}")
        return CHECKS[check], str(cause or "")
    if not_comparable:
        return "not comparable", str(not_comparable)
    if agrees is None or (isinstance(agrees, float) and math.isnan(agrees)):
        return "paper only", str(cause or "")
    if agrees in (True, "True"):
        return "agrees", str(cause or "")
    return "differs", str(cause or NO_CAUSE_YET)


def comparison(rows: list[dict]) -> pd.DataFrame:
    """Build a comparison table from dicts with keys ``source, item, paper, workbook`` and optional
    ``rel_tol``, ``abs_tol``, ``factor``, ``note``, ``cause`` (the measured cause of a difference,
    naming the figure/table that shows the evidence), ``not_comparable`` (the setting that differs
    from the paper's) and ``check`` (``"input"`` or ``"consistency"``: a row that is no reproduction,
    :data:`CHECKS`). ``agrees`` and ``status`` are computed, never given."""
    out = []
    for r in rows:
        agrees = agree(r.get("paper"), r.get("workbook"), r.get("rel_tol", 0.0), r.get("abs_tol", 0.0),
                       r.get("factor"))
        status, cause = status_of(agrees, r.get("cause", ""), r.get("not_comparable", ""), r.get("check", ""))
        out.append({
            "source": r["source"], "item": r["item"], "paper": r.get("paper"), "workbook": r.get("workbook"),
            "agrees": agrees, "status": status, "cause": cause, "note": r.get("note", ""),
            "tolerance": tolerance_text(r.get("rel_tol", 0.0), r.get("abs_tol", 0.0), r.get("factor")),
        })
    return pd.DataFrame(out, columns=COLUMNS)


def _complete(df: pd.DataFrame) -> pd.DataFrame:
    """Add ``status``/``cause`` to a table written before they existed (or built by hand)."""
    df = df.copy()
    if "cause" not in df.columns:
        df["cause"] = ""
    df["cause"] = df["cause"].astype(object).fillna("").astype(str)
    for col in ("note", "tolerance"):
        if col not in df.columns:
            df[col] = ""
    if "status" not in df.columns or df["status"].isna().any():
        given = df["status"] if "status" in df.columns else pd.Series([None] * len(df), index=df.index)
        computed = [status_of(a, c) for a, c in zip(df["agrees"], df["cause"])]
        df["status"] = [g if isinstance(g, str) and g else s for g, (s, _) in zip(given, computed)]
        df["cause"] = [c if c else cc for c, (_, cc) in zip(df["cause"], computed)]
    df["note"] = df["note"].astype(object).fillna("")
    df["tolerance"] = df["tolerance"].astype(object).fillna("")
    return df[COLUMNS + [c for c in df.columns if c not in COLUMNS]]


def save_comparison(df: pd.DataFrame, name: str, figures_dir: str | Path) -> Path:
    """Write ``figures_dir/summary_<name>.csv`` atomically."""
    df = _complete(df) if "agrees" in df.columns else df
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"comparison table lacks columns {missing}; build it with tt_core.reporting.summary.comparison")
    return write_csv(df[COLUMNS], Path(figures_dir) / f"summary_{name}.csv")


def collect(figures_dir: str | Path) -> pd.DataFrame:
    """All ``summary_*.csv`` under a folder, concatenated (empty table if none), with a ``notebook``
    column: the notebook that wrote each row (from the file name ``summary_<notebook>.csv``)."""
    files = sorted(Path(figures_dir).glob("summary_*.csv"))
    if not files:
        return pd.DataFrame(columns=COLUMNS + ["notebook"])
    frames = []
    for f in files:
        df = pd.read_csv(f, keep_default_na=False, na_values=[""])
        df["notebook"] = f.stem.removeprefix("summary_")
        frames.append(df)
    return _complete(pd.concat(frames, ignore_index=True))


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

    df = _complete(df)
    lines = ["| source | item | paper | this workbook | status | cause |", "| --- | --- | --- | --- | --- | --- |"]
    for _, r in df.iterrows():
        lines.append(f"| {r['source']} | {r['item']} | {fmt(r['paper'])} | {fmt(r['workbook'])} | {r['status']} "
                     f"| {r['cause']} |")
    return "\n".join(lines)
