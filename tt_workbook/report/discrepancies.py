"""Every paper-vs-workbook row that does not agree, with its cause, in one table (notebook 98).

Reads the ``summary_*.csv`` files the notebooks wrote through :func:`tt_workbook.report.summary.collect`.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from tt_workbook.report.summary import CHECKS, STATUSES, collect, names_mechanism, summary_files

#: Statuses listed as discrepancies (and every check row that does not match).
LISTED = ("differs", "not comparable", "too few runs")


def discrepancies(figures_dir: str | Path) -> pd.DataFrame:
    """Rows whose status is *differs*, *not comparable* or *too few runs*, and check rows that do not match
    (``agrees`` False), with the notebook they come from.

    Columns: ``notebook, source, item, paper, workbook, status, cause, mechanism, note``; ``cause`` of a
    differing row without a measured cause reads :data:`tt_workbook.report.summary.NO_CAUSE_YET`;
    ``mechanism`` is "" when a differing row's cause names a measured mechanism and its evidence, otherwise
    what it lacks (:func:`tt_workbook.report.summary.names_mechanism`; "" for other rows).
    """
    df = collect(figures_dir)
    cols = ["notebook", "source", "item", "paper", "workbook", "status", "cause", "mechanism", "note"]
    check = df["status"].isin(list(CHECKS.values())) & df["agrees"].astype(str).eq("False")
    out = df[df["status"].isin(LISTED) | check].copy()
    out["mechanism"] = [names_mechanism(c)[1] if s == "differs" else "" for s, c in zip(out["status"], out["cause"])]
    return out[cols].reset_index(drop=True)


def status_counts(figures_dir: str | Path) -> pd.DataFrame:
    """Rows per notebook and status (every status of :data:`~tt_workbook.report.summary.STATUSES`, each kind of
    check apart), and how many differing rows name no measured mechanism yet (``differs without a cause``:
    :func:`tt_workbook.report.summary.names_mechanism`)."""
    rows = []
    every = collect(figures_dir)
    for notebook in summary_files(figures_dir):  # a notebook whose summary is empty too
        df = every[every["notebook"] == notebook]
        counts = df["status"].value_counts()
        rows.append({"notebook": notebook, "rows": len(df), **{s: int(counts.get(s, 0)) for s in STATUSES},
                     "differs without a cause": int(sum(s == "differs" and not names_mechanism(c)[0]
                                                         for s, c in zip(df["status"], df["cause"])))})
    return pd.DataFrame(rows)
