"""Atomic file writing: a result is either fully written or not there at all.

The rules (temporary file in the target's folder renamed onto it, permissions from the user's umask,
leftover temporary files) live in :mod:`tt_core.data.entries`; :func:`atomic_path`,
:func:`current_umask` and :func:`temporary_files` are re-exported here for the writers below.
"""

from __future__ import annotations

import os
import stat
import tempfile  # noqa: F401  (the module the atomic writer uses; a test reaches it as tt_core.data.io.tempfile)
from pathlib import Path

from tt_core.data.entries import atomic_path, current_umask, temporary_files

__all__ = ["atomic_path", "current_umask", "temporary_files", "write_text", "write_csv", "save_figure",
           "why_not_a_file", "shown", "NotAFileError", "check_regular", "open_regular"]


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


def _kind(mode: int) -> str:
    """What a file of this ``st_mode`` is, for a message (``"a FIFO"``, ``"a socket"``, ...)."""
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISDIR, "a folder"), (stat.S_ISREG, "a file")):
        if test(mode):
            return name
    return "a special file"


def why_not_a_file(path: str | os.PathLike) -> str:
    """Why ``path`` cannot be read as a data file: ``"is a folder, not a file"``, ``"is not a regular file (a
    FIFO)"`` (or socket, device) or ``"does not exist"`` (for a message; call it when ``is_file()`` is False).
    Never opens the path."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "does not exist"
    except OSError as exc:
        return f"cannot be read ({exc.strerror or type(exc).__name__})"
    if stat.S_ISDIR(mode):
        return "is a folder, not a file"
    return f"is not a regular file ({_kind(mode)})"


class NotAFileError(ValueError):
    """A path given for reading is not a regular file (a FIFO, socket, device, folder) or a folder where one is
    expected: the message names the path, what it is and what to give instead (``tt`` prints it as one line)."""


def check_regular(path: str | os.PathLike, what: str = "file", folder: bool = False, fix: str = "") -> Path:
    """``path`` as a :class:`~pathlib.Path` if it is a regular file (a folder with ``folder=True``), following
    symlinks; otherwise :class:`NotAFileError` saying so (``what`` names it in the message, ``fix`` is appended
    after a semicolon). Never opens the path, so a FIFO, socket or device cannot block the caller."""
    p = Path(path)
    try:
        mode = os.stat(p).st_mode
    except FileNotFoundError:
        why = "does not exist"
    except OSError as exc:
        why = f"cannot be read ({exc.strerror or type(exc).__name__})"
    else:
        if (stat.S_ISDIR if folder else stat.S_ISREG)(mode):
            return p
        want = "a folder" if folder else "a regular file"
        why = ("is a folder, not a file" if stat.S_ISDIR(mode) else f"is not {want} ({_kind(mode)})")
    raise NotAFileError(f"{what} {shown(str(path))} {why}" + (f"; {fix}" if fix else ""))


def open_regular(path: str | os.PathLike, what: str = "file", fix: str = ""):
    """``path`` opened for reading in binary if it is a regular file, else :class:`NotAFileError` (as
    :func:`check_regular`). The file is opened without blocking and then checked (``fstat``), so a FIFO put
    in its place after a check cannot block the caller either."""
    check_regular(path, what, fix=fix)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise NotAFileError(f"{what} {shown(str(path))} cannot be read ({exc.strerror or type(exc).__name__})"
                            + (f"; {fix}" if fix else "")) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotAFileError(f"{what} {shown(str(path))} is not a regular file ({_kind(mode)})"
                                + (f"; {fix}" if fix else ""))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


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
