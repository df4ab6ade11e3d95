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

COLUMNS = ["source", "item", "paper", "workbook", "authors", "agrees", "status", "cause", "side", "note", "tolerance"]
# ``authors``: the value of the authors' public code for a TrimTuner-DT row (tt_core.experiments.authors);
# ``side``: which side a difference from the paper is on (:func:`side_of`). A table written before these
# columns existed gets them empty (:func:`_complete`).

#: The statuses a row can have (``status`` column).
#: ``agrees``: within the row's tolerance; ``differs``: outside it, ``cause`` names the measured cause
#: (or says that none has been measured yet); ``not comparable``: the workbook's number comes from a
#: setting that differs from the paper's, named in ``cause``; ``paper only``: no workbook value.
#: Two kinds of row are no reproduction and are counted apart (:data:`CHECKS`): ``input check``: one of
#: the paper's inputs (e.g. an instance's price) beside an independent source of the same quantity
#: (``agrees`` says whether they match); ``consistency check``: the paper's own arithmetic recomputed
#: from its own numbers.
STATUSES = ("agrees", "differs", "not comparable", "paper only", "input check", "consistency check", "data check",
            "setup", "timing")
#: Row kind (``check`` key of :func:`comparison`) -> status.
CHECKS = {"input": "input check", "consistency": "consistency check", "data": "data check", "setup": "setup",
          "timing": "timing"}
NO_CAUSE_YET = "cause not measured yet"

#: The sides a TrimTuner-DT row's difference from the paper can be on (``side`` column, :func:`side_of`).
SIDE_WORKBOOK = "a deviation of the workbook from the authors' code"
SIDE_BOTH = "the authors' public code does not produce the paper's value either"
SIDE_UNDETERMINED = "undetermined"


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


def side_of(agrees, authors_agrees, workbook_matches_authors=None, deviation: str = "", outside: str = "",
            missing: str = "") -> str:
    """Which side the difference of a TrimTuner-DT row from the paper is on, from the numbers.

    ``agrees``: the workbook's value against the paper's (the row's rule); ``authors_agrees``: the value of the
    authors' public code against the paper's under the same rule (None: no value); ``workbook_matches_authors``:
    the workbook's value against the authors' code's, same rule. ``deviation`` names what the workbook does
    differently from the authors' code; ``outside`` names a part of the row the authors' repository does not
    hold (e.g. "EIc is not in the authors' repository"): the authors' value then mixes their code with the
    workbook's, and only its agreement with the paper can tell the side. ``missing``: why there is no value of
    the authors' code. ``""`` when the workbook's value does not differ from the paper's.

    * the authors' code gives the paper's value and the workbook does not: :data:`SIDE_WORKBOOK`, named;
    * neither gives it, and the row is entirely the authors' code: :data:`SIDE_BOTH`;
    * neither gives it but part of the row is outside their code, or there is no value: :data:`SIDE_UNDETERMINED`.
    """
    if agrees not in (False, "False"):
        return ""
    if authors_agrees is None:
        return f"{SIDE_UNDETERMINED}: " + (missing or outside or "no value of the authors' code")
    if authors_agrees in (True, "True"):
        return f"{SIDE_WORKBOOK}: {deviation or 'not named yet'}"
    if outside:
        return (f"{SIDE_UNDETERMINED}: {outside}, and with it the authors' code does not give the paper's value "
                f"either")
    if workbook_matches_authors in (True, "True"):
        return f"{SIDE_BOTH} (the workbook's value agrees with it)"
    return f"{SIDE_BOTH}; the workbook differs from it too" + (f" ({deviation})" if deviation else "")


def comparison(rows: list[dict]) -> pd.DataFrame:
    """Build a comparison table from dicts with keys ``source, item, paper, workbook`` and optional
    ``rel_tol``, ``abs_tol``, ``factor``, ``note``, ``cause`` (the measured cause of a difference,
    naming the figure/table that shows the evidence), ``not_comparable`` (the setting that differs
    from the paper's) and ``check`` (``"input"`` or ``"consistency"``: a row that is no reproduction,
    :data:`CHECKS`). ``agrees`` and ``status`` are computed, never given.

    A TrimTuner-DT row carries the key ``authors``: the same quantity from the authors' public code (None when
    there is none), with optional ``deviation``, ``outside`` and ``missing`` (:func:`side_of`); its ``side`` is
    computed from the three values under the row's rule. Rows without the key have an empty ``side``."""
    out = []
    for r in rows:
        tol = (r.get("rel_tol", 0.0), r.get("abs_tol", 0.0), r.get("factor"))
        agrees = agree(r.get("paper"), r.get("workbook"), *tol)
        status, cause = status_of(agrees, r.get("cause", ""), r.get("not_comparable", ""), r.get("check", ""))
        side = ""
        if "authors" in r and not r.get("check"):
            side = side_of(agrees, agree(r.get("paper"), r["authors"], *tol), agree(r["authors"], r.get("workbook"), *tol),
                           r.get("deviation", ""), r.get("outside", ""), r.get("missing", ""))
        out.append({
            "source": r["source"], "item": r["item"], "paper": r.get("paper"), "workbook": r.get("workbook"),
            "authors": r.get("authors"), "agrees": agrees, "status": status, "cause": cause, "side": side,
            "note": r.get("note", ""),
            "tolerance": tolerance_text(r.get("rel_tol", 0.0), r.get("abs_tol", 0.0), r.get("factor")),
        })
    return pd.DataFrame(out, columns=COLUMNS)


def _complete(df: pd.DataFrame) -> pd.DataFrame:
    """Add ``status``/``cause`` to a table written before they existed (or built by hand)."""
    df = df.copy()
    if "cause" not in df.columns:
        df["cause"] = ""
    df["cause"] = df["cause"].astype(object).fillna("").astype(str)
    if "authors" not in df.columns:
        df["authors"] = None
    for col in ("note", "tolerance", "side"):
        if col not in df.columns:
            df[col] = ""
    if "status" not in df.columns or df["status"].isna().any():
        given = df["status"] if "status" in df.columns else pd.Series([None] * len(df), index=df.index)
        computed = [status_of(a, c) for a, c in zip(df["agrees"], df["cause"])]
        df["status"] = [g if isinstance(g, str) and g else s for g, (s, _) in zip(given, computed)]
        df["cause"] = [c if c else cc for c, (_, cc) in zip(df["cause"], computed)]
    df["note"] = df["note"].astype(object).fillna("")
    df["tolerance"] = df["tolerance"].astype(object).fillna("")
    df["side"] = df["side"].astype(object).fillna("").astype(str)
    return df[COLUMNS + [c for c in df.columns if c not in COLUMNS]]


def save_comparison(df: pd.DataFrame, name: str, figures_dir: str | Path) -> Path:
    """Write ``figures_dir/summary_<name>.csv`` atomically."""
    df = _complete(df) if "agrees" in df.columns else df
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"comparison table lacks columns {missing}; build it with tt_core.reporting.summary.comparison")
    return write_csv(df[COLUMNS], Path(figures_dir) / f"summary_{name}.csv")


def summary_files(figures_dir: str | Path) -> dict[str, Path]:
    """``notebook -> summary_<notebook>.csv`` of every summary under a folder, sorted by notebook name."""
    return {f.stem.removeprefix("summary_"): f for f in sorted(Path(figures_dir).glob("summary_*.csv"))}


def collect(figures_dir: str | Path) -> pd.DataFrame:
    """All ``summary_*.csv`` under a folder, concatenated (empty table if none), with a ``notebook``
    column: the notebook that wrote each row (from the file name ``summary_<notebook>.csv``)."""
    files = summary_files(figures_dir)
    if not files:
        return pd.DataFrame(columns=COLUMNS + ["notebook"])
    frames = []
    for notebook, f in files.items():
        df = pd.read_csv(f, keep_default_na=False, na_values=[""])
        df["notebook"] = notebook
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
    if not has_authors(df):
        lines = ["| source | item | paper | this workbook | status | cause |", "| --- | --- | --- | --- | --- | --- |"]
        for _, r in df.iterrows():
            lines.append(f"| {r['source']} | {r['item']} | {fmt(r['paper'])} | {fmt(r['workbook'])} | {r['status']} "
                         f"| {r['cause']} |")
        return "\n".join(lines)
    lines = ["| source | item | paper | authors' code | this workbook | status | cause |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for _, r in df.iterrows():
        lines.append(f"| {r['source']} | {r['item']} | {fmt(r['paper'])} | {fmt(r['authors'])} | {fmt(r['workbook'])} "
                     f"| {r['status']} | {with_side(r['cause'], r['side'])} |")
    return "\n".join(lines)


def has_authors(df: pd.DataFrame) -> bool:
    """Whether any row carries a value of the authors' code or a side (then tables show that column)."""
    if df.empty:
        return False
    vals = df["authors"] if "authors" in df.columns else pd.Series(dtype=object)
    sides = df["side"] if "side" in df.columns else pd.Series(dtype=object)
    present = [v is not None and not (isinstance(v, float) and math.isnan(v)) and str(v) != "" for v in vals]
    return any(present) or bool(sides.fillna("").astype(str).ne("").any())


def with_side(cause, side) -> str:
    """A row's cause restated with the side its difference is on (``"side: <side>. <cause>"``)."""
    cause = "" if cause is None or (isinstance(cause, float) and math.isnan(cause)) else str(cause)
    side = "" if side is None or (isinstance(side, float) and math.isnan(side)) else str(side)
    if not side:
        return cause
    return f"side: {side}" + (f". {cause}" if cause else "")
