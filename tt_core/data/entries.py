"""Stored entries: the one set of rules by which the workbook writes a file and later trusts it.

* **Atomic write** (:func:`atomic_path`): a file is written to a temporary file in its folder and renamed
  onto its name, so it is either complete or not there; it gets the permissions the user's umask gives a
  new file (``0o666 & ~umask``), as ``open()`` would. Temporary files are named
  ``.<stem>.<random><suffix>`` (:func:`temporary_files` finds the leftovers of a killed writer).
* **Metadata**: what a stored result was computed from — its *settings* (JSON values) and the identity of
  the *data* it read (e.g. a sha256 of an input file) — plus a sha256 of its content. A parquet file
  carries them in its schema (:func:`write_parquet`, :func:`embedded_meta`; the content hash is
  :func:`table_sha256` of the values); any other file (CSV, torch weights) in a JSON sidecar
  ``<name>.entry.json`` holding the sha256 of the file's bytes (:class:`Entry`).
* **Status** (:meth:`Entry.status`): ``missing``, ``fresh``, ``mismatch`` (computed from other settings or
  other data) or ``corrupt`` (unreadable, or its content does not match its own checksum), with a reason.
* **Set-aside** (:func:`set_aside`): a file that cannot be trusted is renamed ``<name>.mismatch`` or
  ``<name>.corrupt`` (``.1``, ``.2``, ... when taken, never overwriting an earlier copy) and recomputed.
* **Lock** (:func:`lock`): ``<name>.lock`` (:mod:`filelock`), so that several processes compute one entry once.

Nothing here executes code read from disk: metadata are JSON, contents are checked by hash only.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

#: Suffix of the JSON sidecar of a non-parquet entry.
SIDECAR_SUFFIX = ".entry.json"
#: Version of the sidecar layout.
SIDECAR_FORMAT = 1


# ------------------------------------------------------------------------------------------------
# Atomic write
# ------------------------------------------------------------------------------------------------
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


# ------------------------------------------------------------------------------------------------
# Hashes, comparison, set-aside, lock
# ------------------------------------------------------------------------------------------------
def file_sha256(path: str | os.PathLike) -> str:
    """sha256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def table_sha256(table) -> str:
    """sha256 of an Arrow table's content (column names, types and values; not its metadata)."""
    import numpy as np
    import pyarrow as pa

    h = hashlib.sha256()
    for name, col in zip(table.column_names, table.columns):
        h.update(json.dumps([name, str(col.type), len(col)]).encode())
        arr = col.combine_chunks() if hasattr(col, "combine_chunks") else col
        t = arr.type
        if (pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t)) and arr.null_count == 0:
            h.update(np.ascontiguousarray(arr.to_numpy(zero_copy_only=False)).tobytes())
        else:
            h.update(json.dumps(arr.to_pylist(), default=str, allow_nan=True).encode())
    return h.hexdigest()


def json_equal(a, b) -> bool:
    """Equal as JSON values (tuples and lists alike, key order ignored)."""
    return json.loads(json.dumps(a, sort_keys=True)) == json.loads(json.dumps(b, sort_keys=True))


def set_aside(path: str | os.PathLike, why: str, reason: str = "", companions=(), stacklevel: int = 2) -> Path:
    """Rename a file that cannot be trusted to ``<name>.<why>`` (``.<why>.1``, ... if taken), so it is
    recomputed and kept; an earlier set-aside copy is never overwritten. ``companions``: files that belong
    to it (a sidecar), renamed with the same ending where they exist. Warns once; returns the new path."""
    path = Path(path)
    group = [path] + [Path(c) for c in companions]

    def taken(end: str) -> bool:
        return any(p.with_name(p.name + end).exists() or p.with_name(p.name + end).is_symlink() for p in group)

    end, k = f".{why}", 0
    while taken(end):
        k += 1
        end = f".{why}.{k}"
    for p in group:
        if p.exists() or p.is_symlink():
            os.replace(p, p.with_name(p.name + end))
    aside = path.with_name(path.name + end)
    warnings.warn(f"{path}: {reason or why}; moved to {aside.name} and recomputed", stacklevel=stacklevel + 1)
    return aside


def lock(path: str | os.PathLike):
    """The lock of an entry (``<name>.lock``; a :class:`filelock.FileLock`, used as a context manager)."""
    from filelock import FileLock

    return FileLock(str(path) + ".lock")


# ------------------------------------------------------------------------------------------------
# Parquet entries: metadata embedded in the schema
# ------------------------------------------------------------------------------------------------
def embedded_meta(path: str | os.PathLike, key: bytes) -> dict:
    """The JSON metadata stored under ``key`` in a parquet file's schema (``{}`` if none)."""
    import pyarrow.parquet as pq

    return json.loads((pq.read_schema(path).metadata or {}).get(key, b"{}"))


def write_parquet(table, path: str | os.PathLike, key: bytes, meta: dict) -> Path:
    """Write an Arrow table atomically with ``meta`` plus ``content_sha256`` (:func:`table_sha256`) as JSON
    under ``key`` in its schema."""
    import pyarrow.parquet as pq

    meta = {**meta, "content_sha256": table_sha256(table)}
    table = table.replace_schema_metadata({**(table.schema.metadata or {}), key: json.dumps(meta).encode()})
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp)
    return Path(path)


# ------------------------------------------------------------------------------------------------
# Any other file: metadata in a JSON sidecar
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Entry:
    """A stored file computed from ``settings`` (JSON values) and the ``data`` it read (their identity),
    with a JSON sidecar ``<name>.entry.json`` recording both and the sha256 of the file's bytes.

    The file is written first and the sidecar second (each atomically), so a writer killed in between
    leaves a file without a matching sidecar: never trusted."""

    path: Path
    settings: dict
    data: dict = field(default_factory=dict)

    def __post_init__(self):
        object.__setattr__(self, "path", Path(self.path))

    @property
    def sidecar(self) -> Path:
        return self.path.with_name(self.path.name + SIDECAR_SUFFIX)

    def status(self) -> tuple[str, str]:
        """``("missing" | "fresh" | "mismatch" | "corrupt", reason)``."""
        if self.path.is_dir():
            raise IsADirectoryError(f"{self.path} is a folder where a stored file belongs; move or delete that folder")
        if not self.path.exists():
            return "missing", ""
        if not self.sidecar.is_file():
            return "mismatch", f"no metadata ({self.sidecar.name}): made by an older workbook or by a killed writer"
        try:
            meta = json.loads(self.sidecar.read_text(encoding="utf-8"))
            stored_sha = meta["content_sha256"]
        except (OSError, ValueError, KeyError, TypeError):
            return "corrupt", f"its metadata ({self.sidecar.name}) are not readable"
        if not json_equal(meta.get("settings"), self.settings):
            diff = _differing(meta.get("settings"), self.settings)
            return "mismatch", f"computed with other settings ({', '.join(diff) or 'their layout'})"
        if not json_equal(meta.get("data"), self.data):
            return "mismatch", "computed from other data than the inputs now"
        try:
            actual = file_sha256(self.path)
        except OSError:
            return "corrupt", "not a readable file"
        if actual != stored_sha:
            return "corrupt", "its bytes do not match its own checksum (edited or damaged)"
        return "fresh", ""

    def write(self, writer) -> Path:
        """Write the file with ``writer(tmp_path)`` atomically, then its sidecar."""
        with atomic_path(self.path) as tmp:
            writer(tmp)
            sha = file_sha256(tmp)
        meta = {"format": SIDECAR_FORMAT, "settings": self.settings, "data": self.data, "content_sha256": sha,
                "written": time.strftime("%Y-%m-%dT%H:%M:%S")}
        with atomic_path(self.sidecar) as tmp:
            Path(tmp).write_text(json.dumps(meta, sort_keys=True, allow_nan=False), encoding="utf-8")
        return self.path

    def set_aside(self, why: str, reason: str = "", stacklevel: int = 2) -> Path:
        return set_aside(self.path, why, reason, companions=[self.sidecar], stacklevel=stacklevel + 1)

    def ensure(self, compute, write, read, force: bool = False, stacklevel: int = 2):
        """The stored value, or ``compute()`` written with ``write(value, tmp_path)``: under the entry's lock;
        a mismatching or corrupt file is set aside first. ``read(path)`` reads a fresh one (it may raise
        ``ValueError`` or ``OSError`` for a file it cannot use: then it is set aside as corrupt).
        Returns ``(value, "reused" | "computed")``; a computed value is returned as computed."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with lock(self.path):
            status, reason = self.status()
            if status == "fresh" and not force:
                try:
                    return read(self.path), "reused"
                except (OSError, ValueError) as exc:
                    status, reason = "corrupt", f"not readable: {exc or type(exc).__name__}"
            if status in ("mismatch", "corrupt"):
                self.set_aside(status, reason, stacklevel=stacklevel + 1)
            for leftover in temporary_files(self.path) + temporary_files(self.sidecar):
                leftover.unlink(missing_ok=True)  # we hold the entry's lock: no writer is using them
            value = compute()
            self.write(lambda tmp: write(value, tmp))
            return value, "computed"


def _differing(stored, wanted) -> list[str]:
    if not (isinstance(stored, dict) and isinstance(wanted, dict)):
        return []
    return sorted(k for k in set(stored) | set(wanted) if not json_equal(stored.get(k), wanted.get(k)))
