"""Atomic file writing: a result is either fully written or not there at all.

The rules (temporary file in the target's folder renamed onto it, permissions from the user's umask,
leftover temporary files) live in :mod:`tt_core.data.entries`; :func:`atomic_path`,
:func:`current_umask` and :func:`temporary_files` are re-exported here for the writers below.
"""

from __future__ import annotations

import os
import tempfile  # noqa: F401  (the module the atomic writer uses; a test reaches it as tt_core.data.io.tempfile)
from pathlib import Path

from tt_core.data.entries import atomic_path, current_umask, temporary_files

__all__ = ["atomic_path", "current_umask", "temporary_files", "write_text", "write_csv", "save_figure",
           "why_not_a_file", "shown"]


def write_text(path: str | os.PathLike, text: str) -> Path:
    with atomic_path(path) as tmp:
        Path(tmp).write_text(text, encoding="utf-8")
    return Path(path)


def write_csv(df, path: str | os.PathLike, **kwargs) -> Path:
    kwargs.setdefault("index", False)
    with atomic_path(path) as tmp:
        df.to_csv(tmp, **kwargs)
    return Path(path)


def save_figure(fig, path: str | os.PathLike, dpi: int = 150) -> Path:
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=dpi, bbox_inches="tight", format=Path(path).suffix.lstrip(".") or "png")
    return Path(path)


def why_not_a_file(path: str | os.PathLike) -> str:
    """Why ``path`` cannot be read as a data file: ``"is a folder, not a file"``, ``"is not a regular file (a
    FIFO, socket or device)"`` or ``"does not exist"`` (for a message; call it when ``is_file()`` is False)."""
    p = Path(path)
    if p.is_dir():
        return "is a folder, not a file"
    if p.exists():
        return "is not a regular file (a FIFO, socket or device)"
    return "does not exist"


def shown(value) -> str:
    """``repr`` of a value for a message a person reads: numpy scalars and arrays as the plain Python
    values they hold (``-1.0``, not ``np.float64(-1.0)``), everything else as ``repr``.

    Examples
    --------
    >>> import numpy as np
    >>> shown(np.float64(-1.0)), shown(np.int64(3)), shown(np.array([1, 2])), shown("cnn"), shown(None)
    ('-1.0', '3', '[1, 2]', "'cnn'", 'None')
    """
    tolist = getattr(value, "tolist", None)
    if tolist is not None and type(value).__module__ == "numpy":
        try:
            return repr(tolist())
        except (TypeError, ValueError):
            pass
    return repr(value)
