"""Files measured or trained once and shipped with the package (SpotTune's step times, curve losses and
LSTM weights), so that a simulation reads the same inputs on any machine: one rule for finding the file in
use, the shipped one or the one an environment variable names (written by the command that re-makes it)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from tt_spotsim.catalogue import SpotError

__all__ = ["file_in_use", "read_table", "settings_by_steps"]


def file_in_use(env: str, shipped: Path, written_by: str) -> Path:
    """``$env`` if set (it must be a regular file), else ``shipped``.

    ``written_by`` names what writes such a file (e.g. "a table written by `tt spot train-losses --out
    FILE`"), for the one-line error."""
    value = os.environ.get(env)
    if not value:
        return shipped
    path = Path(value).expanduser()
    if not path.is_file():
        from tt_core.data.io import why_not_a_file

        raise SpotError(f"{env}={value} {why_not_a_file(path)}: give {written_by}, or unset it to use the shipped one")
    return path


def settings_by_steps(rows, column: str, settings: int, steps: int) -> tuple[np.ndarray, str]:
    """``rows`` of a shipped table (columns ``setting``, ``step`` from 1, ``column``) as an array of shape
    ``(settings, steps)``, and ``""`` when every cell is there, else what the rows hold (for the error)."""
    out = np.full((settings, steps), np.nan)
    s, k = rows["setting"].to_numpy(int), rows["step"].to_numpy(int)
    keep = (s >= 0) & (s < settings) & (k >= 1) & (k <= steps)
    out[s[keep], k[keep] - 1] = rows[column].to_numpy(float)[keep]
    if not np.isnan(out).any():
        return out, ""
    return out, f"{rows['setting'].nunique()} settings x {int(rows['step'].max()) if len(rows) else 0} steps"


_READ: dict = {}


def read_table(path: Path, columns, what: str, command: str, value: str, positive: bool):
    """A shipped CSV table with exactly ``columns``, read once per file version (path, size, modification time);
    ``value`` must be a finite number, > 0 (``positive``) or >= 0. Errors name ``what`` the table is and the
    ``command`` that writes one."""
    import pandas as pd

    st = path.stat()
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    if key not in _READ:
        try:
            df = pd.read_csv(path, comment="#", dtype={"workload": str, "profile": str})
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError) as exc:
            raise SpotError(f"{path}: not a {what} ({str(exc).splitlines()[0]}); write one with "
                            f"`{command} --out FILE`") from None
        if list(df.columns) != list(columns):
            raise SpotError(f"{path}: a {what} has the columns {list(columns)}, got {list(df.columns)}")
        v = pd.to_numeric(df[value], errors="coerce")
        if not (np.isfinite(v) & ((v > 0) if positive else (v >= 0))).all():
            raise SpotError(f"{path}: every '{value}' value must be "
                            + ("a positive number" if positive else "a number >= 0"))
        _READ[key] = df
    return _READ[key]
