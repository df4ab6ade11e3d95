"""Every paper-vs-workbook row that does not agree, with its cause, in one table (notebook 98).

Reads the ``summary_*.csv`` files the notebooks wrote (:func:`tt_core.reporting.summary.collect`).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from tt_core.reporting.summary import NO_CAUSE_YET, STATUSES

#: Statuses listed as discrepancies.
LISTED = ("differs", "not comparable")


def discrepancies(figures_dir: str | Path) -> pd.DataFrame:
    """Rows whose status is *differs* or *not comparable*, with the notebook they come from.

    Columns: ``notebook, source, item, paper, workbook, status, cause, note``; ``cause`` of a differing
    row without a measured cause reads :data:`tt_core.reporting.summary.NO_CAUSE_YET`.
    """
    files = sorted(Path(figures_dir).glob("summary_*.csv"))
    frames = []
    for f in files:
        df = _read(f)
        df.insert(0, "notebook", f.stem.removeprefix("summary_"))
        frames.append(df)
    cols = ["notebook", "source", "item", "paper", "workbook", "status", "cause", "note"]
    if not frames:
        return pd.DataFrame(columns=cols)
    df = pd.concat(frames, ignore_index=True)
    return df[df["status"].isin(LISTED)][cols].reset_index(drop=True)


def _read(path: Path) -> pd.DataFrame:
    from tt_core.reporting.summary import _complete

    return _complete(pd.read_csv(path, keep_default_na=False, na_values=[""]))


def status_counts(figures_dir: str | Path) -> pd.DataFrame:
    """Rows per notebook and status (every status of :data:`~tt_core.reporting.summary.STATUSES`, the input and
    consistency checks apart), and how many differing rows have no measured cause yet."""
    rows = []
    for f in sorted(Path(figures_dir).glob("summary_*.csv")):
        df = _read(f)
        counts = df["status"].value_counts()
        rows.append({"notebook": f.stem.removeprefix("summary_"), "rows": len(df),
                     **{s: int(counts.get(s, 0)) for s in STATUSES},
                     "differs without a cause": int(((df["status"] == "differs") & (df["cause"] == NO_CAUSE_YET)).sum())})
    return pd.DataFrame(rows)
