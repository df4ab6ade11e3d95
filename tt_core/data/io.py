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
           "why_not_a_file", "shown", "NotAFileError", "check_regular", "open_regular", "csv_row_lines"]


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


def csv_row_lines(path: str | os.PathLike, **csv_options) -> list[int]:
    r"""The line (as a text editor counts it, from 1) on which each data row of a CSV file with a header starts,
    in the order ``pandas.read_csv`` gives the rows: blank and whitespace-only lines are counted and skipped
    (before the header too: the header is the first row that is not blank), and a quoted field may run over
    several lines. ``csv_options`` go to :func:`csv.reader`.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = p.write_bytes(b'\r\na,b\r\n\r\n1,2\r\n"x\r\ny",3\r\n4,5\r\n')
    >>> csv_row_lines(p)
    [4, 5, 7]
    """
    import csv

    lines, before, header_seen = [], 0, False
    with open(path, newline="", encoding="utf-8-sig") as fh:
        reader = csv.reader(fh, **csv_options)
        for row in reader:
            start, before = before + 1, reader.line_num
            if not row or (len(row) == 1 and not row[0].strip()):
                continue
            if header_seen:
                lines.append(start)
            header_seen = True
    return lines


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


def _writable_ancestor(path, option: str, given: str):
    """The nearest existing folder above ``path`` (the folders below it are created when the output is
    written); a ValueError when it is a file or not writable."""
    import os
    from pathlib import Path

    parent = Path(path).absolute().parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise ValueError(f"{option} {given}: {parent} is a file, not a folder; choose another path")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(f"{option} {given}: the folder {parent} is not writable; choose another (e.g. under your "
                         "home folder)")
    return parent


def check_out_file(text, option: str = "--out", suffix: str | None = None, example: str = "results.csv"):
    """``text`` (an output file named by ``option``) as a Path, checked before any work starts and creating
    nothing: not empty, not a folder, not a FIFO or device (the atomic writer would replace it), ending in
    ``suffix`` when given, under a folder that exists (or can be created) and is writable. Otherwise a
    ValueError of one line naming the option, the path and the fix."""
    import os
    import stat
    from pathlib import Path

    if text is None:
        return None
    if not str(text).strip():
        raise ValueError(f"{option} is empty; give a file, e.g. {option} {example}")
    p = Path(text)
    try:
        mode = os.stat(p).st_mode
    except OSError:
        mode = None
    if mode is not None and stat.S_ISDIR(mode):
        raise ValueError(f"{option} {text} is a folder: give the path of a file, e.g. {p / Path(example).name}")
    if mode is not None and not stat.S_ISREG(mode):
        raise ValueError(f"{option} {text} is not a regular file (a FIFO, socket or device), which writing would "
                         "replace; give the path of a file")
    if suffix and p.suffix.lower() != suffix:
        raise ValueError(f"{option} {text}: the output is a {suffix[1:].upper()} file; give a name ending in {suffix}")
    _writable_ancestor(p, option, str(text))
    return p


def check_out_folder(text, option: str = "--out", example: str = "reports/mine"):
    """``text`` (an output folder named by ``option``) as a Path, checked before any work starts and creating
    nothing: not empty, not a file, under a writable folder. Otherwise a ValueError of one line."""
    from pathlib import Path

    if text is None:
        return None
    if not str(text).strip():
        raise ValueError(f"{option} is empty (it would mean the working directory); give a folder, e.g. {option} "
                         f"{example}")
    p = Path(text)
    if p.exists() and not p.is_dir():
        raise ValueError(f"{option} {text} is a file, not a folder; give a folder, e.g. {option} {example}")
    if not p.exists():
        _writable_ancestor(p, option, str(text))
    else:
        import os

        if not os.access(p, os.W_OK | os.X_OK):
            raise ValueError(f"{option} {text}: the folder is not writable; choose another")
    return p


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo``), else what ``platform`` knows: recorded beside measurements."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform

    return platform.processor() or platform.machine() or "unknown"
