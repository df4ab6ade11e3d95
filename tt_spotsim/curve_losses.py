"""Losses per training step of the workloads trained here: one table, trained once and shipped.

The learning curves of :mod:`tt_spotsim.curves` (scikit-learn's LoR, SVM, GBTR, LiR, MLP) and of the
staged workload (:mod:`tt_spotsim.staged`) are the losses of real training, but training them again
on another CPU does not give the same numbers: BLAS picks other kernels (OpenBLAS' Prescott instead of
Haswell, say), which round differently, and the diverging settings amplify it. Measured with
``OPENBLAS_CORETYPE=Prescott`` against the default Haswell kernels: LoR's final losses moved by up to 0.16
(its ``eta0 = 1`` settings), GBTR's by up to 0.01, and ``tt spot simulate --seed 1 --theta 0.7`` on LoR
cost 2.4685 instead of 2.4405. So the simulations read the losses of the seeds they use from
``curve_losses.csv`` beside this module, trained once (as the step times of :mod:`tt_spotsim.step_times`
are measured once), not from a training at run time.

The table holds seed 1 (every study and ``tt spot simulate`` use the curves of seed 1) for both curve
profiles (``quick``, ``full``) and the staged workload: 8160 rows. Values are written in Python's shortest
round-trip form, so the table is bit for bit the float64 losses of the training that made it. Its ``#``
header records that training's conditions (CPU, BLAS kernels, library versions, date, seed);
:func:`tt_spotsim.step_times.conditions` reads them. A seed the table does not hold is trained at run
time, as before (its losses then depend on the CPU's BLAS kernels; the cache settings say
``"trained here"``).

Re-training is an explicit command, never a side effect: ``tt spot train-losses --out FILE`` writes a new
table; to use it, set ``TT_SPOT_CURVE_LOSSES=FILE`` (or, in a checkout, write it over the shipped file and
commit it). The table's sha256 is one of the settings of every cached curve file (:func:`identity`), so
curves cached with other losses are recomputed.

Columns: ``workload`` (``sklearn/<algorithm>`` or ``staged/staged-digits``), ``profile`` (``quick`` or
``full``; ``default`` for the staged workload), ``seed``, ``setting`` (index in the workload's grid),
``step`` (1, 2, ...) and ``metric`` (the workload's metric after the step, capped as
:func:`tt_spotsim.curves.train_curve` caps it).
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
TABLE = Path(__file__).with_name("curve_losses.csv")
#: Environment variable naming a re-trained table to use instead of the shipped one.
ENV = "TT_SPOT_CURVE_LOSSES"
#: Version of the table's layout and of the rule "losses of the seeds in the table come from it".
VERSION = 1
COLUMNS = ("workload", "profile", "seed", "setting", "step", "metric")
#: Seeds the shipped table holds (what the studies and ``tt spot simulate`` use).
SEEDS = (1,)



def table_path() -> Path:
    """The table in use: ``$TT_SPOT_CURVE_LOSSES`` if set, else the shipped ``curve_losses.csv``."""
    return file_in_use(ENV, TABLE, "a table written by `tt spot train-losses --out FILE`")


def read(path: str | os.PathLike | None = None) -> pd.DataFrame:
    """The table (rows of :data:`COLUMNS`; pandas parses the shortest round-trip text exactly); read once per file version."""
    return read_table(Path(path) if path is not None else table_path(), COLUMNS, "curve-loss table", "tt spot train-losses", "metric",
                      False)


def identity(workload: str, profile: str, seed: int) -> dict:
    """Where the losses of a cached curve file come from (part of its settings): the table (its rule version
    and sha256) if it holds this workload, profile and seed, else this machine's training."""
    if has(workload, profile, seed):
        return {"source": "trained once, table", "v": VERSION, "sha256": entries.file_sha256(table_path())}
    return {"source": "trained here"}


def has(workload: str, profile: str, seed: int) -> bool:
    """Whether the table in use holds the losses of ``workload`` at ``profile`` and ``seed``."""
    df = read()
    return bool(((df["workload"] == workload) & (df["profile"] == profile) & (df["seed"] == int(seed))).any())


def losses(workload: str, profile: str, seed: int, settings: int, steps: int) -> np.ndarray:
    """Losses per step of a workload's settings, shape ``(settings, steps)``, from the table."""
    path = table_path()
    df = read(path)
    rows = df[(df["workload"] == workload) & (df["profile"] == profile) & (df["seed"] == int(seed))]
    out, have = settings_by_steps(rows, "metric", settings, steps)
    if have:
        raise SpotError(f"{path}: no losses for {shown(workload)} ({profile}, seed {seed}) at {settings} settings x "
                        f"{steps} steps (it has {have}); train them with `tt spot train-losses --out FILE` and set "
                        f"{ENV}=FILE")
    return out


def write(df: pd.DataFrame, cond: dict, path: str | os.PathLike) -> Path:
    """Write a table with its conditions as ``# key: value`` lines (atomic); every loss in Python's
    shortest round-trip form (``repr``), so reading it back gives the same float64."""
    path = Path(path)
    out = df.copy()
    out["metric"] = [repr(float(v)) for v in out["metric"]]
    with entries.atomic_path(path) as tmp:
        with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
            for k, v in cond.items():
                fh.write(f"# {k}: {v}\n")
            out.to_csv(fh, index=False, lineterminator="\n")
    return path
