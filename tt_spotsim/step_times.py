"""Seconds per training step of the workloads trained here: one table, measured once and shipped.

The scikit-learn curves (:mod:`tt_spotsim.curves`) and the staged workload (:mod:`tt_spotsim.staged`)
train real models, but their step times are **not** taken from that training: CPU time on a shared
machine moves with its load and its CPU (the same seed gave SpotTune costs 2.510 and 2.441 after the
curves were trained again), so the step times would make the simulation's results a side effect of where
and when the curves were generated. They come from ``step_times.csv`` beside this module instead: CPU
seconds of every step (``time.process_time`` around the step's ``partial_fit``; gradient boosting's
whole fit divided by its trees), the median over repeats, measured once by
``tt spot measure-step-times`` with BLAS on one thread. The file's ``#`` header records the conditions
(CPU, load, library versions, date, repeats); :func:`conditions` reads them.

Only ratios between the settings of one workload matter to the simulation (each job set is scaled so
that its median job takes ``reference_hours``; :func:`tt_spotsim.workloads.scaled_job_set`), and the
per-step variation is what §IV-A5's check (:func:`tt_workbook.studies.spottune.overhead.step_time_cov`) reads.

Re-measuring is an explicit command, never a side effect: ``tt spot measure-step-times --out FILE``
writes a new table; to use it, set ``TT_SPOT_STEP_TIMES=FILE`` (or, in a checkout, write it over the
shipped file and commit it). The table's sha256 is one of the settings of every cached curve file
(:func:`identity`), so curves cached with other step times are recomputed.

Columns: ``workload`` (``sklearn/<algorithm>`` or ``staged/staged-digits``), ``profile`` (the curve
profile, ``quick`` or ``full``; ``default`` for the staged workload), ``setting`` (index in the
workload's grid), ``step`` (1, 2, ...) and ``seconds``.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from tt_core.data import entries
from tt_core.data.io import shown
from tt_spotsim.catalogue import SpotError
from tt_spotsim.shipped import file_in_use, read_table, settings_by_steps

#: The shipped table.
TABLE = Path(__file__).with_name("step_times.csv")
#: Environment variable naming a re-measured table to use instead of the shipped one.
ENV = "TT_SPOT_STEP_TIMES"
#: Version of the table's layout and of the rule "step times come from the table" (in cache settings).
VERSION = 1
COLUMNS = ("workload", "profile", "setting", "step", "seconds")
#: The profile name of the staged workload (it has one size).
STAGED_PROFILE = "default"



def table_path() -> Path:
    """The table in use: ``$TT_SPOT_STEP_TIMES`` if set, else the shipped ``step_times.csv``."""
    return file_in_use(ENV, TABLE, "a table written by `tt spot measure-step-times --out FILE`")


def identity() -> dict:
    """What the step times of a cached curve file come from (part of its settings): the rule's version
    and the table's sha256."""
    path = table_path()
    return {"source": "measured table", "v": VERSION, "sha256": entries.file_sha256(path)}


def read(path: str | os.PathLike | None = None) -> pd.DataFrame:
    """The table (rows of :data:`COLUMNS`); read once per file version."""
    return read_table(Path(path) if path is not None else table_path(), COLUMNS, "step-time table", "tt spot measure-step-times", "seconds",
                      True)


def conditions(path: str | os.PathLike | None = None) -> dict:
    """The conditions recorded in the table's ``# key: value`` header lines."""
    out = {}
    with open(path if path is not None else table_path(), encoding="utf-8") as fh:
        for line in fh:
            if not line.startswith("#"):
                break
            key, sep, value = line[1:].partition(":")
            if sep:
                out[key.strip()] = value.strip()
    return out


def seconds(workload: str, profile: str, settings: int, steps: int) -> np.ndarray:
    """Seconds per step of a workload's settings, shape ``(settings, steps)``, from the table."""
    path = table_path()
    df = read(path)
    rows = df[(df["workload"] == workload) & (df["profile"] == profile)]
    out, have = settings_by_steps(rows, "seconds", settings, steps)
    if have:
        raise SpotError(f"{path}: no step times for {shown(workload)} ({profile}) at {settings} settings x {steps} "
                        f"steps (it has {have}); measure them with `tt spot measure-step-times --out FILE` and "
                        f"set {ENV}=FILE")
    return out


def write(df: pd.DataFrame, cond: dict, path: str | os.PathLike) -> Path:
    """Write a table with its conditions as ``# key: value`` lines (atomic)."""
    path = Path(path)
    with entries.atomic_path(path) as tmp:
        with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
            for k, v in cond.items():
                fh.write(f"# {k}: {v}\n")
            df.to_csv(fh, index=False, float_format="%.4g", lineterminator="\n")
    return path
