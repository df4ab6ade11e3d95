"""Every paper-vs-workbook row that does not agree, with its cause, in one table (notebook 98).

Reads the ``summary_*.csv`` files the notebooks wrote through :func:`tt_core.reporting.summary.collect`.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from tt_core.reporting.summary import NO_CAUSE_YET, STATUSES, collect, summary_files

#: Statuses listed as discrepancies.
LISTED = ("differs", "not comparable")


def discrepancies(figures_dir: str | Path) -> pd.DataFrame:
    """Rows whose status is *differs* or *not comparable*, with the notebook they come from.

    Columns: ``notebook, source, item, paper, workbook, status, cause, note``; ``cause`` of a differing
    row without a measured cause reads :data:`tt_core.reporting.summary.NO_CAUSE_YET`.
    """
    df = collect(figures_dir)
    cols = ["notebook", "source", "item", "paper", "workbook", "status", "cause", "note"]
    return df[df["status"].isin(LISTED)][cols].reset_index(drop=True)


def status_counts(figures_dir: str | Path) -> pd.DataFrame:
    """Rows per notebook and status (every status of :data:`~tt_core.reporting.summary.STATUSES`, the input and
    consistency checks apart), and how many differing rows have no measured cause yet."""
    rows = []
    every = collect(figures_dir)
    for notebook in summary_files(figures_dir):  # a notebook whose summary is empty too
        df = every[every["notebook"] == notebook]
        counts = df["status"].value_counts()
        rows.append({"notebook": notebook, "rows": len(df), **{s: int(counts.get(s, 0)) for s in STATUSES},
                     "differs without a cause": int(((df["status"] == "differs") & (df["cause"] == NO_CAUSE_YET)).sum())})
    return pd.DataFrame(rows)
