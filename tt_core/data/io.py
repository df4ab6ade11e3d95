"""Atomic file writing: a result is either fully written or not there at all.

Files are written to a temporary file in the target's folder and renamed onto the target; the final
file gets the permissions the user's umask gives a new file (``0o666 & ~umask``), as ``open()`` would,
so that colleagues can read a shared results folder. Temporary files are named ``.<stem>.<random><suffix>``
(:func:`temporary_files` finds leftovers of a killed writer).
"""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def atomic_path(path: str | os.PathLike):
    """Yield a temporary path in the target's folder; rename it onto ``path`` only on success.

    Examples
    --------
    >>> with atomic_path("figures/table2.csv") as tmp:   # doctest: +SKIP
    ...     df.to_csv(tmp)
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=path.suffix)
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, 0o666 & ~current_umask())  # mkstemp makes 0600; a result honours the umask
        os.replace(tmp, path)
    except OSError as exc:  # name the file the user asked for, never our temporary file (nor no file at all)
        if exc.filename in (None, tmp) and exc.errno is not None:
            raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from None  # (the errno picks the subclass)
        raise
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def current_umask() -> int:
    """The process' umask (read by setting it and restoring it at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def temporary_files(path: str | os.PathLike) -> list[Path]:
    """Leftover temporary files of :func:`atomic_path` for ``path`` (e.g. after a kill)."""
    path = Path(path)
    if not path.parent.is_dir():
        return []
    return sorted(p for p in path.parent.glob(f".{path.stem}.*{path.suffix}") if p.is_file())


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
