"""Files measured or trained once and shipped with the package (SpotTune's step times, curve losses and
LSTM weights), so that a simulation reads the same inputs on any machine: one rule for finding the file in
use, the shipped one or the one an environment variable names (written by the command that re-makes it)."""

from __future__ import annotations

import os
from pathlib import Path

from tt_core.spot.catalogue import SpotError

__all__ = ["file_in_use"]


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
