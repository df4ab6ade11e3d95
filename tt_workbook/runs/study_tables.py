"""Study tables: a computed table (not a trajectory) kept under the same rules as a stored run.

A :class:`TableSpec` names one table of a study (e.g. one seed of SpotTune's Fig. 7 grid) by a hash of
its settings and of the identity of its input data, so tables made from other inputs under the same
names live side by side; :func:`ensure_table` returns the stored table or computes and stores it, with the run
store's lock, atomic write, metadata (settings, data identity, versions, code hash, a checksum of the
values) and reuse rules (:mod:`tt_workbook.runs.store`); the file mechanics are
:mod:`tt_core.data.entries`'.
"""

from __future__ import annotations

import json
import platform
import time
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from tt_core import RESULTS_VERSION
from tt_core.data import entries
from tt_workbook.runs.store import (DEFAULT_RUNS_DIR, StoreError, code_hash, content_sha256, results_version_status,
                                       set_aside, versions)

#: Sub-folder of a runs folder holding study tables (``<runs_dir>/tables/<study>/<key>.parquet``).
TABLES_SUBDIR = "tables"


@dataclass(frozen=True)
class TableSpec:
    """One computed table of a study (e.g. one seed of a SpotTune grid), stored like a run.

    ``settings``: everything the table is computed from besides data (JSON values). ``data``: the identity
    of the input data (e.g. sha256 of a price trace's values and of the job sets). A hash of both names the
    file, so another setting or other data is another file, kept beside the first; a file whose stored
    settings or data differ from those its name stands for is a mismatch (set aside and recomputed).
    The results version is not part of the name: a table of another version is ``outdated`` and replaced.
    """

    study: str
    settings: dict
    data: dict = field(default_factory=dict)

    @property
    def key(self) -> str:
        import hashlib

        text = json.dumps({"study": self.study, "settings": self.settings, "data": self.data}, sort_keys=True,
                          allow_nan=False)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def path(self, runs_dir: str | Path) -> Path:
        return Path(runs_dir) / TABLES_SUBDIR / self.study / f"table-{self.key}.parquet"


def _table_status(spec: TableSpec, runs_dir: str | Path) -> tuple[str, str]:
    """As :func:`tt_workbook.runs.store.stored_status` for a run: ``missing``, ``valid``, ``outdated`` (another results version), ``corrupt``
    or ``mismatch`` (the file holds another table than its name stands for: other settings or other data), and why."""
    import pyarrow.parquet as pq

    path = spec.path(runs_dir)
    if path.is_dir():
        raise StoreError(f"{path} is a folder where a {spec.study} table belongs; move or delete that folder")
    if not path.exists():
        return "missing", ""
    try:
        meta = entries.embedded_meta(path, b"tt_table")
    except Exception:  # pyarrow raises its own error types for a truncated or foreign file
        return "corrupt", "not a readable table file"
    if "table" not in meta or "content_sha256" not in meta:
        return "corrupt", "not a table file of tt_core"
    if not entries.json_equal(meta["table"], {"study": spec.study, "settings": spec.settings}):
        return "mismatch", "holds another table (its stored settings differ from its name)"
    if not entries.json_equal(meta.get("data"), spec.data):
        return "mismatch", "holds a table made from other data than its name stands for"
    try:
        table = pq.read_table(path)
    except Exception:
        return "corrupt", "not a readable table file"
    if meta["content_sha256"] != content_sha256(table):
        return "corrupt", "its values do not match its own checksum (edited or damaged)"
    return results_version_status(meta)


def table_status(spec: TableSpec, runs_dir: str | Path = DEFAULT_RUNS_DIR) -> str:
    """What is stored for ``spec`` (the statuses of :func:`tt_workbook.runs.store.stored_status`)."""
    return _table_status(spec, runs_dir)[0]


def write_table(spec: TableSpec, df: pd.DataFrame, path: Path, *, wall_s: float) -> Path:
    """Write a study table atomically with the metadata of a stored run (settings, data identity, versions,
    code hash, wall seconds, a checksum of the values)."""
    import pyarrow as pa

    table = pa.Table.from_pandas(df, preserve_index=False)
    meta = {"table": {"study": spec.study, "settings": spec.settings}, "data": spec.data, "versions": versions(),
            "code": code_hash(), "results_version": RESULTS_VERSION, "wall_s": float(wall_s), "machine": platform.machine(),
            "finished": time.strftime("%Y-%m-%dT%H:%M:%S")}
    entries.write_parquet(table, path, b"tt_table", meta)
    return path


def ensure_table(spec: TableSpec, compute, runs_dir: str | Path = DEFAULT_RUNS_DIR,
                 overwrite: bool = False) -> tuple[pd.DataFrame, str]:
    """The stored table of ``spec``, computed with ``compute()`` (a DataFrame) unless a usable one is stored.

    The rules of :func:`tt_workbook.runs.store.run_one`: a per-table lock (several processes compute it once), an atomic write,
    reuse only of a table whose metadata name these settings and data and whose values match their
    checksum; the file is named by both (:attr:`TableSpec.key`), so a table of other inputs is another
    file; a corrupt or mismatching file is set aside (renamed) and recomputed; one made by other
    tt_core code of another results version is set aside as ``.outdated`` and recomputed. The table is always returned as read back from the store, so
    a computed and a reused table are the same. Returns ``(table, "computed" | "reused")``.
    """

    import pyarrow.parquet as pq

    from tt_core.data.io import temporary_files

    path = spec.path(runs_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    with entries.lock(path):
        status, reason = _table_status(spec, runs_dir)
        what = "reused"
        if status != "valid" or overwrite:
            if status in ("corrupt", "mismatch", "outdated"):
                set_aside(path, status, reason)
            for leftover in temporary_files(path):
                leftover.unlink(missing_ok=True)  # we hold the table's lock: no writer is using them
            t0 = time.perf_counter()
            df = compute()
            write_table(spec, df, path, wall_s=time.perf_counter() - t0)
            what = "computed"
        return pq.read_table(path).to_pandas(), what
