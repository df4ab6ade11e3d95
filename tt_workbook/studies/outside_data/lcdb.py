"""LCDB learning curves as workbook benchmarks: one OpenML data set -> one generic-format CSV.

LCDB (the ``lcdb`` package, 0.1.0, MIT; Mohr et al., "LCDB 1.0", 2022) ships the learning curves of 20
scikit-learn learners (each at its default settings) on 248 OpenML data sets: for every learner and
training-set size ("anchor", 16, 23, 32, ... 2**(k/2), up to the data set's largest) and for every
(outer, inner) split of its protocol (25, or 125 on ten data sets), the measured train time and the
accuracy on the training, validation and test parts (``database-accuracy.csv`` in the installed package).
The file is read where pip put it; the package itself is never imported (its module imports ``openml``,
which it does not declare).

One (learner, size) of a converted benchmark is one *test* of the LCDB protocol at that size:

* ``accuracy``: the mean validation accuracy over the protocol's splits (what a tuner sees);
* ``time``: the protocol's train time, ``R x`` the mean train time of the fits present, where ``R`` is
  the data set's number of splits per cell (the sum of the fit times when every split is present;
  LCDB rounds a fit's time to 0.1 ms, and one fit of a fast learner takes 0.3 ms);
* ``cost``: ``time x`` :data:`PRICE_PER_HOUR` / 3600 (USD).

Sizes: the TrimTuner paper's five fractions of the full training set (1,000 ... 60,000 of MNIST's 60,000:
:data:`FRACTIONS`), each mapped to the LCDB anchor nearest on a log scale to that fraction of the data
set's largest anchor. A learner lacking one of those sizes (fewer than :data:`MIN_FITS` fits: LCDB
stopped it, e.g. a timeout) is left out, and named in the provenance.

The CSV goes to ``data/lcdb/`` (git-ignored; :func:`tt_core.data.benchmarks.cache_dir`) beside a JSON
provenance file: the lcdb version, the source file's and the produced file's sha256, the price, sizes and
learners left out.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
from pathlib import Path

import numpy as np
import pandas as pd

from tt_core.data.benchmarks import BenchmarkError, cache_dir, sha256_of
from tt_core.data.cost_model import AWS_T2_PRICES
from tt_core.data.entries import atomic_path
from tt_core.data.io import check_regular, shown

__all__ = ["LCDB_VERSION", "PRICE_PER_HOUR", "FRACTIONS", "MIN_FITS", "LcdbError", "installed_version",
           "source_csv", "read_source", "sizes_for", "curve_table", "convert", "output_path"]

#: The lcdb release this converter was written and tested against (its table layout).
LCDB_VERSION = "0.1.0"
#: USD per hour of one fit: AWS t2.medium on demand, the TrimTuner authors' price list (one scikit-learn fit
#: uses one core; a stated constant, so only ratios of costs carry meaning).
PRICE_PER_HOUR = AWS_T2_PRICES["t2.medium"]
#: TrimTuner's sizes as fractions of the full training set (1,000, 6,000, 15,000, 30,000, 60,000 of 60,000).
FRACTIONS = (1 / 60, 0.1, 0.25, 0.5, 1.0)
#: A (learner, size) cell with fewer fits than this counts as missing.
MIN_FITS = 5
#: Largest source file read (the 0.1.0 accuracy table is 151 MB).
MAX_SOURCE_BYTES = 1 << 30
#: The columns read from the source table.
SOURCE_COLUMNS = ("openmlid", "learner", "size_train", "outer_seed", "inner_seed", "traintime", "score_valid")
INSTALL_HINT = "install it with `pip install -e '.[lcdb]'` (68 MB download, 459 MB installed) or `make setup`"


class LcdbError(BenchmarkError):
    """LCDB is not installed, or a data set cannot be converted (the message says why and how to fix)."""


def installed_version() -> str | None:
    """The installed lcdb's version (read from its metadata, nothing imported), or None."""
    try:
        return importlib.metadata.version("lcdb")
    except importlib.metadata.PackageNotFoundError:
        return None


def source_csv(metric: str = "accuracy") -> Path:
    """The installed lcdb's table of ``metric`` (located without importing the package)."""
    spec = importlib.util.find_spec("lcdb")
    if spec is None or not spec.submodule_search_locations:
        raise LcdbError(f"the lcdb package is not installed; {INSTALL_HINT}")
    path = Path(list(spec.submodule_search_locations)[0]) / f"database-{metric}.csv"
    if not path.is_file():
        raise LcdbError(f"{path} is missing from the installed lcdb {installed_version()}; reinstall it "
                        f"(`pip install --force-reinstall lcdb=={LCDB_VERSION}`)")
    return path


def read_source(path: str | Path | None = None) -> pd.DataFrame:
    """The source table's :data:`SOURCE_COLUMNS` (``path``: the installed accuracy table by default)."""
    path = Path(path) if path is not None else source_csv()
    check_regular(path, "LCDB table")
    if path.stat().st_size > MAX_SOURCE_BYTES:
        raise LcdbError(f"{path}: {path.stat().st_size / 1e6:.0f} MB, more than an LCDB table "
                        f"({MAX_SOURCE_BYTES / 1e6:.0f} MB at most); give the database-accuracy.csv of lcdb")
    with open(path, encoding="utf-8") as fh:
        header = fh.readline().strip().split(",")
    missing = [c for c in SOURCE_COLUMNS if c not in header]
    if missing:
        raise LcdbError(f"{path}, line 1: missing column(s) {missing} of the LCDB table (lcdb {LCDB_VERSION}'s "
                        f"database-accuracy.csv has {list(SOURCE_COLUMNS)})")
    dtypes = {"openmlid": "int64", "learner": "string", "size_train": "int64", "outer_seed": "int64",
              "inner_seed": "int64", "traintime": "float64", "score_valid": "float64"}
    try:
        return pd.read_csv(path, usecols=list(SOURCE_COLUMNS), dtype=dtypes)
    except (ValueError, pd.errors.ParserError) as exc:
        raise LcdbError(f"{path}: not an LCDB table ({str(exc).splitlines()[0][:160]})") from None


def sizes_for(anchors) -> list[int]:
    """The LCDB anchors nearest (log scale) to each of :data:`FRACTIONS` of the largest anchor, ascending
    and distinct (two fractions may meet on a small data set)."""
    anchors = np.array(sorted(set(int(a) for a in anchors)), dtype=float)
    if anchors.size == 0:
        return []
    logs = np.log(anchors)
    return sorted({int(anchors[np.argmin(np.abs(logs - np.log(f * anchors[-1])))]) for f in FRACTIONS})


def curve_table(rows: pd.DataFrame, openml_id: int) -> tuple[pd.DataFrame, dict]:
    """One data set's rows of the LCDB table as a generic benchmark table, and what was left out.

    Returns
    -------
    table : DataFrame with ``learner, size, accuracy, time, cost``, sorted by learner and size
    info : dict with ``splits`` (R), ``sizes``, ``learners`` kept and ``dropped`` ({learner: why})
    """
    d = rows[rows["openmlid"] == int(openml_id)]
    if d.empty:
        raise LcdbError(f"OpenML data set {shown(openml_id)} has no learning curves in LCDB {LCDB_VERSION} "
                        "(its 248 data sets are the openmlid column of lcdb's datasets.csv)")
    cells = d.groupby(["learner", "size_train"]).agg(
        fits=("traintime", "size"), traintime=("traintime", "mean"), accuracy=("score_valid", "mean")).reset_index()
    splits = int(cells["fits"].max())
    sizes = sizes_for(d["size_train"].unique())
    cells = cells[cells["size_train"].isin(sizes)]
    present = cells[cells["fits"] >= MIN_FITS]
    dropped = {}
    for learner in sorted(d["learner"].unique()):
        have = set(present.loc[present["learner"] == learner, "size_train"])
        lacking = [s for s in sizes if s not in have]
        if lacking:
            dropped[str(learner)] = f"fewer than {MIN_FITS} fits at size(s) {lacking}"
    kept = present[~present["learner"].isin(list(dropped))]
    time = splits * kept["traintime"].to_numpy(float)
    table = pd.DataFrame({"learner": kept["learner"].astype(str).to_numpy(), "size": kept["size_train"].to_numpy(int),
                          "accuracy": kept["accuracy"].to_numpy(float), "time": time,
                          "cost": time * PRICE_PER_HOUR / 3600.0})
    table = table.sort_values(["learner", "size"]).reset_index(drop=True)
    info = {"splits": splits, "sizes": sizes, "learners": sorted(table["learner"].unique()), "dropped": dropped}
    return table, info


def output_path(openml_id: int, out_dir: str | Path | None = None) -> Path:
    """Where :func:`convert` writes a data set (``data/lcdb/lcdb-<version>-openml<id>.csv`` by default)."""
    folder = Path(out_dir) if out_dir is not None else cache_dir() / "lcdb"
    return folder / f"lcdb-{LCDB_VERSION}-openml{int(openml_id)}.csv"


def _provenance_path(csv: Path) -> Path:
    return csv.with_suffix(".json")


def convert(openml_id: int, out_dir: str | Path | None = None, *, rows: pd.DataFrame | None = None,
            source: str | Path | None = None, source_sha256: str | None = None) -> Path:
    """Write one data set as a generic-format CSV with its provenance JSON; return the CSV's path.

    Nothing is rewritten when the file exists with the provenance of the same source (its sha256) and its
    own recorded sha256. ``rows`` (the source table, already read) and ``source_sha256`` spare re-reading
    and re-hashing the 151 MB source when converting several data sets.
    """
    version = installed_version()
    if source is None and version != LCDB_VERSION:
        raise LcdbError(f"lcdb {version} is installed; this converter reads lcdb {LCDB_VERSION}'s table: "
                        f"`pip install lcdb=={LCDB_VERSION}`" if version else f"lcdb is not installed; {INSTALL_HINT}")
    src = Path(source) if source is not None else source_csv()
    src_sha = source_sha256 or sha256_of(src)
    out = output_path(openml_id, out_dir)
    prov = _provenance_path(out)
    if out.is_file() and prov.is_file():
        try:
            old = json.loads(prov.read_text(encoding="utf-8"))
        except (ValueError, OSError):
            old = {}
        if old.get("source_sha256") == src_sha and old.get("sha256") == sha256_of(out):
            return out
    table, info = curve_table(read_source(src) if rows is None else rows, openml_id)
    if len(info["learners"]) < 2:
        raise LcdbError(f"OpenML data set {openml_id}: {len(info['learners'])} learner(s) with a curve at every "
                        f"size {info['sizes']}; nothing to tune")
    out.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(out) as tmp:
        table.to_csv(tmp, index=False, float_format="%.10g")
    meta = {"openml_id": int(openml_id), "lcdb_version": version or "", "source": str(src), "source_sha256": src_sha,
            "file": out.name, "sha256": sha256_of(out), "price_per_hour_usd": PRICE_PER_HOUR,
            "accuracy": "mean validation accuracy (score_valid) over the splits present",
            "time": f"{info['splits']} splits x the mean train time (s) of the fits present",
            "fractions": list(FRACTIONS), **info}
    with atomic_path(prov) as tmp:
        Path(tmp).write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return out


def provenance(csv: str | Path) -> dict:
    """The provenance JSON written beside a converted CSV."""
    return json.loads(_provenance_path(Path(csv)).read_text(encoding="utf-8"))
