"""Benchmarks: finding, downloading, validating and loading measured training-job data sets.

A benchmark is a table with one row per (configuration, training-set size): the configuration
columns, ``size`` (images), ``s`` (= size / largest size), ``accuracy``, ``training_time`` (s),
``cost`` (USD) and, for the TrimTuner format, the learning ``curve`` (intermediate accuracies).

Two input formats are understood (see ``data/README.md``):

* the **TrimTuner format**: the authors' CSVs (columns ``n_workers, learning_rate, batch_size,
  synchronism, training_time, acc, vm_flavor, training_set_size, n_ps, ...``); cost is computed by a
  :class:`~tt_core.data.cost_model.CostModel`;
* a **generic format** for a user's own job: configuration columns + ``size`` + ``accuracy`` + ``cost``
  and/or ``time`` (seconds).

Files are looked up in this order: an explicit path, ``$TT_DATA_DIR``, the git-ignored download
cache ``data/`` of the workbook, then ``../shared/data/trimtuner`` beside the workbook (left out when
``$TT_DATA_NO_SHARED`` is set to anything but ``0``: a bare machine, as the tests and CI make it).

A registered benchmark that is found nowhere is downloaded by :func:`fetch` (``tt data fetch``, and
automatically, once, by :func:`ensure` before ``tt reproduce`` starts its notebooks and before the
commands that load a registered benchmark): from :data:`TRIMTUNER_URL` (the authors' repository at a
pinned commit) or from the address template in ``$TT_DATA_URL`` (a mirror, e.g.
``file:///srv/mirror/{file}``), its sha256 checked against the pinned one before anything is written.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import urllib.error
import urllib.request
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from tt_core.data.cost_model import DEFAULT_COST_MODEL, CostModel
from tt_core.data.entries import atomic_path
from tt_core.data.io import csv_row_lines, shown

PACKAGE_DIR = Path(__file__).resolve().parents[1]
PROJECT_DIR = PACKAGE_DIR.parent

TRIMTUNER_COMMIT = "8dfbc972cf492ffe8f9ce35de6b69fa746f52cd7"
TRIMTUNER_URL = (
    "https://raw.githubusercontent.com/pedrogbmendes/TrimTuner/" + TRIMTUNER_COMMIT + "/dataset_NN_Tensorflow/{file}"
)
#: Environment variable naming a mirror: an address template with ``{file}`` (http, https or file).
DATA_URL_ENV = "TT_DATA_URL"
#: Environment variable that, set to anything but ``0``, leaves ``../shared`` out of the search (a bare machine).
NO_SHARED_ENV = "TT_DATA_NO_SHARED"
#: Largest download accepted (the two files are 2.2 and 2.0 MiB): a larger answer is not the data.
MAX_DOWNLOAD_BYTES = 64 * 2**20
#: Seconds a whole download may take (``timeout`` bounds each network wait; this bounds a trickle).
DOWNLOAD_DEADLINE = 600.0


class BenchmarkError(ValueError):
    """A benchmark file is missing, malformed or inconsistent (the message says where and how to fix)."""


@dataclass(frozen=True)
class BenchmarkSpec:
    """A registered benchmark: where its file comes from and its default constraints."""

    name: str
    description: str
    file: str | None
    sha256: str | None
    max_cost: float | None
    public: bool = True
    reason_unavailable: str = ""
    #: size in bytes of the published file (announced before a download)
    size: int | None = None

    @property
    def url(self) -> str | None:
        """The published address (the authors' repository at :data:`TRIMTUNER_COMMIT`)."""
        return TRIMTUNER_URL.format(file=self.file) if self.file and self.public else None


REGISTRY: dict[str, BenchmarkSpec] = {
    "cnn": BenchmarkSpec(
        "cnn", "CNN on MNIST, TensorFlow on AWS t2 (TrimTuner paper)", "cnn.csv",
        "07c8b6cd381c1c8d580f3dc8b3688e6c535e5e8b870b5ea685989d1cd948556f", max_cost=0.10, size=2302744,
    ),
    "rnn": BenchmarkSpec(
        "rnn", "RNN (LSTM) on MNIST, TensorFlow on AWS t2 (TrimTuner paper)", "rnn.csv",
        "1d6e806c77c252fc1d4ff71afa3f54b7afc0c996bcf690f4089f669e6ccee221", max_cost=0.02, size=2118230,
    ),
    "mlp": BenchmarkSpec(
        "mlp", "Multilayer perceptron on MNIST (TrimTuner paper)", "multilayer.csv", None, max_cost=0.06,
        public=False,
        reason_unavailable=(
            "data not public: multilayer.csv is listed in the authors' repository but its content is absent "
            "from the public snapshot; MLP rows of the papers are shown as reference only"
        ),
    ),
}

# ---------------------------------------------------------------------------------------------
# Finding and fetching files
# ---------------------------------------------------------------------------------------------


def cache_dir() -> Path:
    """The git-ignored download cache (``data/`` of the workbook checkout, else ~/.cache)."""
    if (PROJECT_DIR / "pyproject.toml").exists():
        return PROJECT_DIR / "data"
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "tt-workbook"


def data_dir_problem() -> str | None:
    """Why ``$TT_DATA_DIR`` cannot be searched (it is set but is not a folder), or None."""
    value = os.environ.get("TT_DATA_DIR")
    if value and not Path(value).expanduser().is_dir():
        what = "does not exist" if not Path(value).expanduser().exists() else "is not a folder"
        return f"TT_DATA_DIR={value} {what}; searching the other locations"
    return None


def shared_data_dir() -> Path | None:
    """``../shared/data`` beside the workbook checkout, or None when ``$TT_DATA_NO_SHARED`` hides it."""
    if os.environ.get(NO_SHARED_ENV, "").strip() not in ("", "0"):
        return None
    return PROJECT_DIR.parent / "shared" / "data"


def search_dirs() -> list[tuple[str, Path]]:
    """Directories searched for benchmark files, in order, with a label for each."""
    dirs: list[tuple[str, Path]] = []
    if os.environ.get("TT_DATA_DIR"):
        dirs.append(("TT_DATA_DIR", Path(os.environ["TT_DATA_DIR"]).expanduser()))
    dirs.append(("cache", cache_dir()))
    shared = shared_data_dir()
    if shared is not None:
        dirs.append(("shared", shared / "trimtuner"))
    return dirs


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


_SHA_CACHE: dict[tuple[str, int, int], str] = {}


def _sha256_cached(path: Path) -> str:
    """sha256 of a file, cached by (path, size, mtime) so that a benchmark is hashed once per process."""
    st = path.stat()
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    if key not in _SHA_CACHE:
        _SHA_CACHE[key] = sha256_of(path)
    return _SHA_CACHE[key]


def _spec(name: str) -> BenchmarkSpec:
    key = name.lower()
    if key not in REGISTRY:
        raise BenchmarkError(
            f"unknown benchmark {shown(name)}; registered benchmarks: {sorted(REGISTRY)} "
            "(or pass the path of a CSV file in the TrimTuner or generic format)"
        )
    return REGISTRY[key]


def _find(spec: BenchmarkSpec) -> tuple[Path, str] | None:
    """``(path, where)`` of the first file of ``spec`` in :func:`search_dirs`, or None (no warning, no hashing)."""
    for label, d in search_dirs():
        for candidate in (d / spec.file, d / "trimtuner" / spec.file):
            if candidate.is_file():
                return candidate, label
    return None


def locate(name: str) -> tuple[Path, str]:
    """Return ``(path, where)`` of a registered benchmark's file, or raise with how to get it."""
    spec = _spec(name)
    if not spec.public:
        raise BenchmarkError(f"benchmark {shown(spec.name)}: {spec.reason_unavailable}")
    import warnings

    problem = data_dir_problem()
    if problem:
        warnings.warn(problem, stacklevel=2)
    found = _find(spec)
    if found is not None:
        candidate, label = found
        if spec.sha256 and _sha256_cached(candidate) != spec.sha256:
            warnings.warn(f"{candidate} (found via {label}) differs from the published {spec.name} data "
                          f"(sha256 {_sha256_cached(candidate)[:12]}..., expected {spec.sha256[:12]}...); "
                          "results will not match the paper's data", stacklevel=2)
        return candidate, label
    where = "\n  ".join(str(d) for _, d in search_dirs())
    raise BenchmarkError(
        f"benchmark {shown(spec.name)}: file {spec.file} not found. Searched:\n  {where}\n"
        f"Run `tt data fetch {spec.name}` (needs internet), or download {spec.url} yourself and put it "
        f"in one of those folders (or point TT_DATA_DIR at its folder)."
    )


def _mb(n: int | None) -> str:
    return "size unknown" if n is None else f"{n / 1e6:.1f} MB"


def _short(text: str, most: int = 160) -> str:
    """``text`` cut to ``most`` characters for a message (an address may be padded to any length)."""
    return text if len(text) <= most else text[:most] + f"... ({len(text)} characters)"


def download_url(spec: BenchmarkSpec) -> str:
    """Where :func:`fetch` downloads ``spec`` from: ``$TT_DATA_URL`` (an address template with ``{file}``;
    http, https or file) when set, else the published address :data:`TRIMTUNER_URL`."""
    template = os.environ.get(DATA_URL_ENV, "").strip()
    if not template:
        return TRIMTUNER_URL.format(file=spec.file)
    import urllib.parse

    scheme = urllib.parse.urlsplit(template).scheme.lower()
    if "{file}" not in template or scheme not in ("http", "https", "file"):
        why = "has no {file} placeholder" if "{file}" not in template else f"has the scheme {shown(scheme)}"
        raise BenchmarkError(f"{DATA_URL_ENV}={shown(_short(template))} {why}; set it to an address template such as "
                             "https://mirror.example.org/trimtuner/{file} or file:///path/to/folder/{file}, or unset "
                             f"it to download from the authors' repository")
    return template.replace("{file}", spec.file)


def _manual_route(spec: BenchmarkSpec, dest_dir: Path, url: str) -> str:
    """The end of an offline message: how to get the file by hand."""
    where = "the address above" if url == spec.url else spec.url
    return (f"put {spec.file} ({_mb(spec.size)}, sha256 {spec.sha256[:16]}...) into {dest_dir} or into a folder "
            f"named by TT_DATA_DIR; or, online, run `tt data fetch` (tt_core/data/benchmarks.py fetch, from "
            f"TRIMTUNER_URL: {where}), or point {DATA_URL_ENV} at a mirror (e.g. file:///path/{{file}})")


def _download(url: str, spec: BenchmarkSpec, timeout: float, say, announce: str) -> bytes:
    """The bytes at ``url``, read in chunks (at most the published size, else :data:`MAX_DOWNLOAD_BYTES`, within
    :data:`DOWNLOAD_DEADLINE` seconds). ``announce`` is said once the address answers (offline, the error
    is the only line), then a progress line per quarter when the download is slow."""
    import time
    import urllib.parse

    parts = urllib.parse.urlsplit(url)
    if parts.scheme.lower() == "file":  # never opened unless a regular file: a FIFO or a device would block
        from tt_core.data.io import why_not_a_file

        local = Path(urllib.request.url2pathname(parts.path))
        if not local.is_file():
            raise OSError(f"{local} {why_not_a_file(local)}")
    start = time.monotonic()
    chunks, got = [], 0
    limit = spec.size or MAX_DOWNLOAD_BYTES  # more bytes than the published file cannot be it
    with urllib.request.urlopen(url, timeout=timeout) as resp:
        length = resp.headers.get("Content-Length") if getattr(resp, "headers", None) is not None else None
        total = int(length) if length and length.isdigit() else spec.size
        if total and total > limit:
            raise OSError(f"the answer is {total} bytes, more than the published {limit}: not the data")
        say(announce)
        next_report, last_said = 0.25, start
        while True:
            chunk = resp.read(min(2**18, limit + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
            now = time.monotonic()
            if got > limit:
                raise OSError(f"more than the published {limit} bytes received: not the data")
            if now - start > DOWNLOAD_DEADLINE:
                raise OSError(f"{_mb(got)} received in {DOWNLOAD_DEADLINE:.0f} s, too slow to finish")
            if total and got / total >= next_report:
                if now - last_said > 1.0:
                    say(f"  {spec.file}: {_mb(got)} of {_mb(total)} ({100 * got / total:.0f}%)")
                    last_said = now
                while got / total >= next_report:
                    next_report += 0.25
    return b"".join(chunks)


def fetch(name: str, dest: Path | None = None, force: bool = False, timeout: float = 30.0, say=None,
          why: str = "") -> Path:
    """Download a registered benchmark into the cache, verify its sha256, write it atomically.

    The address is :func:`download_url` (``$TT_DATA_URL`` or the published one); ``timeout`` bounds each
    network wait, :data:`DOWNLOAD_DEADLINE` the whole download. ``say`` (a function of one line) is told
    what is downloaded (and ``why``), its size and progress. Nothing is written unless the sha256 is the
    pinned one.
    """
    say = say or (lambda line: None)
    spec = _spec(name)
    if not spec.public:
        raise BenchmarkError(f"cannot fetch {shown(spec.name)}: {spec.reason_unavailable}")
    dest_dir = Path(dest) if dest is not None else cache_dir()
    target = dest_dir / spec.file
    if target.is_file() and not force and sha256_of(target) == spec.sha256:
        return target
    url = download_url(spec)
    announce = f"downloading {spec.file} ({_mb(spec.size)}) from {_short(url)} into {dest_dir}"
    import time

    start = time.monotonic()
    try:
        payload = _download(url, spec, timeout, say, announce + (f" ({why})" if why else ""))
    except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException) as exc:
        reason = exc if isinstance(exc, urllib.error.HTTPError) else (getattr(exc, "reason", None) or exc)
        raise BenchmarkError(
            f"could not download {_short(url)} ({_short(str(reason), 200)}). Offline? To get the data by hand, "
            f"{_manual_route(spec, dest_dir, url)}"
        ) from None
    digest = hashlib.sha256(payload).hexdigest()
    if digest != spec.sha256:
        raise BenchmarkError(
            f"the {spec.file} downloaded from {_short(url)} has sha256 {digest}, expected {spec.sha256}; the file was "
            "not saved (a wrong or altered copy: check TT_DATA_URL, or unset it to download from the authors' "
            "repository)"
        )
    dest_dir.mkdir(parents=True, exist_ok=True)
    with atomic_path(target) as tmp:  # tt_core.data.entries: atomic, and honouring the umask
        Path(tmp).write_bytes(payload)
    say(f"  {spec.file}: {_mb(len(payload))} in {time.monotonic() - start:.1f} s, sha256 verified -> {target}")
    return target


def ensure(names, say=None, timeout: float = 30.0) -> list[Path]:
    """Download, once and up front, the registered public benchmarks among ``names`` that are found nowhere.

    Other names (CSV paths, ``mlp``, unknown names) are left to the command that loads them. Returns the
    files downloaded. Offline, a :class:`BenchmarkError` in one line names what is missing, where it was
    searched and the manual route (``TT_DATA_DIR``, ``tt data fetch``, ``TRIMTUNER_URL``, ``TT_DATA_URL``).
    """
    say = say or (lambda line: None)
    got = []
    for name in dict.fromkeys(str(n).lower() for n in names):
        spec = REGISTRY.get(name)
        if spec is None or not spec.public or _find(spec) is not None:
            continue
        searched = ", ".join(str(d) for _, d in search_dirs())
        if not os.environ.get("TT_DATA_DIR"):
            searched = "TT_DATA_DIR (unset), " + searched
        try:
            got.append(fetch(spec.name, timeout=timeout, say=say, why=f"not found in {searched}"))
        except BenchmarkError as exc:
            raise BenchmarkError(f"{spec.file} is not on this machine (searched {searched}), and {exc}") from None
    return got


def list_benchmarks() -> pd.DataFrame:
    """One row per registered benchmark: where its file was found, checksum status, or why absent."""
    rows = []
    for spec in REGISTRY.values():
        row = {"benchmark": spec.name, "description": spec.description, "max_cost": spec.max_cost}
        if not spec.public:
            row.update(status="data not public", path="", note=spec.reason_unavailable)
        else:
            try:
                path, where = locate(spec.name)
                ok = sha256_of(path) == spec.sha256
                row.update(status=f"found ({where})", path=str(path),
                           note="sha256 ok" if ok else "sha256 MISMATCH: re-fetch with `tt data fetch --force`")
            except BenchmarkError:
                row.update(status="missing", path="", note=f"run `tt data fetch {spec.name}`")
        rows.append(row)
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------------
# Loading and validation
# ---------------------------------------------------------------------------------------------

TRIMTUNER_COLUMNS = [
    "_id/$oid", "n_workers", "timestamp", "learning_rate", "batch_size", "iterations_counted",
    "synchronism", "training_time", "standard deviation time", "intermediate_acc_values", "n_ps", "acc",
    "standard deviation accuarcy", "vm_flavor", "intermediate_test_durations", "training_set_size",
    "intermediate_no_interations", "total_iterations", "standard deviation iteration",
]
TRIMTUNER_REQUIRED = [
    "n_workers", "learning_rate", "batch_size", "synchronism", "training_time", "acc", "vm_flavor",
    "training_set_size",
]
TRIMTUNER_CONFIG = ("vm_flavor", "n_workers", "learning_rate", "batch_size", "sync")
GENERIC_RESERVED = ("size", "accuracy", "cost", "time", "training_time")
#: A CSV larger than this (MB) is announced before it is read (seconds to minutes, ~11x its size in memory).
LARGE_CSV_MB = 50.0
#: Columns the workbook adds to a loaded table: a file may not bring its own.
GENERIC_INTERNAL = ("config_id", "s", "curve")
#: The full training set of the TrimTuner format (MNIST, 60,000 images): its largest training_set_size.
TRIMTUNER_FULL_SIZE = 60000


@dataclass(frozen=True)
class Benchmark:
    """A measured benchmark: one row per (configuration, size).

    Attributes
    ----------
    name : str
    table : pandas.DataFrame
        Columns ``config_id``, the configuration columns, ``size``, ``s``, ``accuracy``,
        ``training_time``, ``cost`` (and ``curve`` for the TrimTuner format).
    config_columns : tuple of str
    sizes : tuple of int
        Sorted training-set sizes.
    max_cost, max_time : float or None
        Default constraints (paper: CNN $0.10, RNN $0.02).
    source : str
        Where the data came from (a path, or "in-memory").
    cost_from_time : float or None
        USD per hour when the file has no cost column and ``cost = training_time x this price``
        (:data:`TIME_PRICE_PER_HOUR` unless ``price_stated``); None when the costs were measured or priced
        by a cost model.
    price_stated : bool
        The caller stated ``cost_from_time`` (``load_benchmark(price_per_hour=...)``): a cost limit then has
        a meaning in USD.
    """

    name: str
    table: pd.DataFrame
    config_columns: tuple[str, ...]
    sizes: tuple[int, ...]
    max_cost: float | None = None
    max_time: float | None = None
    source: str = "in-memory"
    cost_model: CostModel | None = field(default=None, repr=False, compare=False)
    cost_from_time: float | None = None
    price_stated: bool = False

    @property
    def cost_note(self) -> str:
        """Where the costs come from, in words (empty when they were measured or priced by a cost model)."""
        if self.cost_from_time is None:
            return ""
        how = "stated" if self.price_stated else "the default TIME_PRICE_PER_HOUR; state yours with price_per_hour"
        return (f"{self.name}: no cost column; cost = training time x {self.cost_from_time:g} USD per hour ({how})")

    @property
    def max_size(self) -> int:
        return self.sizes[-1]

    @property
    def n_configs(self) -> int:
        return int(self.table["config_id"].nunique())

    def at_size(self, size: int) -> pd.DataFrame:
        """Rows at one training-set size, one per configuration, ordered by config_id."""
        if size not in self.sizes:
            raise BenchmarkError(f"benchmark {shown(self.name)} has no size {size}; sizes: {list(self.sizes)}")
        return self.table[self.table["size"] == size].sort_values("config_id").reset_index(drop=True)

    def full_size(self) -> pd.DataFrame:
        """Rows at the full training-set size (s = 1)."""
        return self.at_size(self.max_size)

    def configs(self) -> pd.DataFrame:
        """One row per configuration: ``config_id`` and the configuration columns."""
        return self.full_size()[["config_id", *self.config_columns]]

    def lookup(self, config_id: int, size: int) -> pd.Series:
        """The measured row of one (configuration, size)."""
        rows = self.table[(self.table["config_id"] == config_id) & (self.table["size"] == size)]
        if len(rows) != 1:
            raise BenchmarkError(f"benchmark {shown(self.name)} has no measurement for config {config_id} at size {size}")
        return rows.iloc[0]


_CWD_WARNED: set = set()  # bare names already warned about (a grid loads a benchmark many times)


def load_benchmark(
    name_or_path: str | os.PathLike,
    *,
    cost_model: CostModel | None = None,
    config_columns: list[str] | None = None,
    max_cost: float | None = None,
    max_time: float | None = None,
    extra_columns: str = "error",
    price_per_hour: float | None = None,
) -> Benchmark:
    """Load a registered benchmark (``"cnn"``, ``"rnn"``) or a CSV file in a supported format.

    Parameters
    ----------
    name_or_path : str or path
        A registered name (see :data:`REGISTRY`) or the path of a CSV file.
    cost_model : CostModel, optional
        Prices for the TrimTuner format (default: the authors' AWS prices).
    config_columns : list of str, optional
        Generic format only: the configuration columns (default: every column except
        ``size, accuracy, cost, time``).
    max_cost, max_time : float, optional
        Default constraints; registered benchmarks default to the paper's cost limits.
    extra_columns : {"error", "ignore"}
        TrimTuner format: what to do with columns the format does not know.
    price_per_hour : float, optional
        Generic format without a cost column: USD per hour of training, ``cost = time x price``
        (default :data:`TIME_PRICE_PER_HOUR`, recorded as ``Benchmark.cost_from_time``). A file with a cost
        column keeps its costs, and giving a price for it is an error.
    """
    key = str(name_or_path)
    spec = REGISTRY.get(key.lower()) if isinstance(name_or_path, str) else None
    if spec is not None:  # a bare registered name never means a file of the working directory (that is ./rnn)
        if Path(key).is_file() and key not in _CWD_WARNED:
            import warnings

            _CWD_WARNED.add(key)
            warnings.warn(f"{shown(key)} is the registered benchmark; the file {key} in the working directory is "
                          f"not used (give ./{key} to load it)", stacklevel=2)
        path, _ = locate(spec.name)
        name = spec.name
        if max_cost is None:
            max_cost = spec.max_cost
    else:
        if not key.strip():
            raise BenchmarkError(f"the benchmark name is empty; give a registered benchmark ({sorted(REGISTRY)}) or the "
                                 "path of a CSV file")
        path = Path(name_or_path).expanduser()
        if path.is_dir():
            raise BenchmarkError(f"{shown(key)} is a folder, not a CSV file; give the path of the file (registered "
                                 f"benchmarks: {sorted(REGISTRY)})")
        if path.exists() and not path.is_file():
            raise BenchmarkError(f"{shown(key)} is not a regular file (a FIFO, socket or device); copy the data to a "
                                 "CSV file and give its path")
        if not path.is_file():
            raise BenchmarkError(
                f"{shown(key)} is neither a registered benchmark ({sorted(REGISTRY)}) nor an existing file"
            )
        name = path.stem
    raw = _read_csv(path)
    header = list(raw.columns)
    if "training_set_size" in header or ("acc" in header and "size" not in header and "accuracy" not in header):
        return _load_trimtuner(raw, path, name, cost_model or DEFAULT_COST_MODEL, max_cost, max_time, extra_columns)
    if "size" in header or "accuracy" in header:
        return _load_generic(raw, path, name, config_columns, max_cost, max_time, price_per_hour)
    joined = ",".join(header)
    for sep, label in ((";", "semicolons"), ("\t", "tabs"), ("|", "vertical bars")):
        if sep in joined:
            raise BenchmarkError(f"{path}, line 1: the header is separated by {label}, not commas; save the file as "
                                 "comma-separated (the format is CSV)")
    raise BenchmarkError(
        f"{path}: header {header[:8]}... matches no known format. Expected either the TrimTuner format "
        f"(columns {TRIMTUNER_REQUIRED}) or the generic format (configuration columns + size + accuracy "
        "+ cost and/or time); see data/README.md"
    )


def benchmark_from_table(
    table: pd.DataFrame,
    config_columns: list[str],
    *,
    name: str = "custom",
    max_cost: float | None = None,
    max_time: float | None = None,
    price_per_hour: float | None = None,
) -> Benchmark:
    """Build a benchmark from an in-memory generic table (the same checks as a generic CSV, the same
    ``price_per_hour`` as :func:`load_benchmark`)."""
    raw = table.copy()
    raw.columns = [str(c) for c in raw.columns]
    raw = raw.astype(str).replace({"nan": "", "None": ""})
    raw.index = pd.RangeIndex(2, len(raw) + 2, name="line")  # as the rows of a CSV written with its header
    return _load_generic(raw, Path(f"<{name}>"), name, list(config_columns), max_cost, max_time, price_per_hour)


def _line_of_offset(path: Path, offset: int) -> tuple[int, int]:
    """(line, column) of a byte offset in a file, both 1-based."""
    with open(path, "rb") as fh:
        head = fh.read(offset)
    return head.count(b"\n") + 1, offset - (head.rfind(b"\n") + 1) + 1


def _read_csv(path: Path) -> pd.DataFrame:
    import re

    size_mb = path.stat().st_size / 1e6
    if size_mb > LARGE_CSV_MB:  # a long silent wait is indistinguishable from a hang: say what is happening
        import warnings

        warnings.warn(f"{path}: reading a {size_mb:.0f} MB CSV (the published benchmarks are about 2 MB); checking "
                      f"it may take roughly {size_mb * 0.3:.0f} s and up to {size_mb * 11 / 1000:.1f} GB of memory",
                      stacklevel=3)
    with open(path, "rb") as fh:
        if b"\x00" in fh.read(65536):
            raise BenchmarkError(f"{path}: not a text CSV file (it contains NUL bytes: a binary or compressed file?)")
    try:
        raw = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8-sig", skipinitialspace=True)
    except pd.errors.EmptyDataError:
        raise BenchmarkError(f"{path}: the file is empty (no header, no rows)") from None
    except UnicodeDecodeError as exc:
        line, col = _line_of_offset(path, exc.start)
        raise BenchmarkError(f"{path}, line {line}, column {col}: byte 0x{exc.object[exc.start]:02x} is not UTF-8 "
                             "(save the file as UTF-8, e.g. from Latin-1)") from None
    except pd.errors.ParserError as exc:
        m = re.search(r"EOF inside string starting at row (\d+)", str(exc))
        if m:  # the quote opens the last row the csv module reads (pandas' row counts a quoted field once)
            raise BenchmarkError(f"{path}, line {_unclosed_quote_line(path, int(m.group(1)) + 1)}: a quoted field "
                                 "is never closed (an unmatched \") and runs to the end of the file") from None
        m = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", str(exc))
        if m:  # pandas' line counts a quoted field over several lines once: the csv module names the editor's
            _check_field_counts(path, int(m.group(1)))
            raise BenchmarkError(f"{path}, line {m.group(2)}: {m.group(3)} fields where the header has {m.group(1)} "
                                 "(a stray comma or an unquoted comma inside a value?)") from None
        raise BenchmarkError(f"{path}: not a readable CSV file ({exc})") from None
    raw.columns = [c.strip() for c in raw.columns]
    if any("\ufeff" in c for c in raw.columns):
        raise BenchmarkError(f"{path}, line 1: a second byte-order mark (U+FEFF) in the header, which would become "
                             "part of a column's name; save the file as UTF-8 with at most one BOM")
    if raw.empty:
        raise BenchmarkError(f"{path}: the file has a header but no data rows")
    _check_field_counts(path, len(raw.columns))
    lines = csv_row_lines(path, skipinitialspace=True)
    if len(lines) != len(raw):  # the csv module and pandas split the rows otherwise: count rows after line 1
        lines = list(range(2, len(raw) + 2))
    raw.index = pd.Index(lines, name="line")  # each row labelled with the line it starts on
    return raw


def _unclosed_quote_line(path: Path, fallback: int) -> int:
    """The line on which the row holding an unclosed quote starts (the csv module reads it to the end of the
    file as the last row); ``fallback`` when the csv module refuses the file (a field past its length limit)."""
    import csv

    try:
        lines = csv_row_lines(path, skipinitialspace=True)
    except csv.Error:
        return fallback
    return lines[-1] if lines else fallback


def _check_field_counts(path: Path, n_header: int) -> None:
    """Every row has as many fields as the header (pandas would silently shift a row with one more); a row is
    named by the line it starts on, as an editor counts lines (blank lines counted, the header the first row that
    is not blank, a quoted field over several lines)."""
    import csv

    with open(path, newline="", encoding="utf-8-sig") as fh:
        reader = csv.reader(fh, skipinitialspace=True)
        header_seen, before = False, 0
        try:
            for row in reader:
                start, before = before + 1, reader.line_num
                if not row or (len(row) == 1 and not row[0].strip()):
                    continue  # blank (pandas skips it)
                if not header_seen:  # pandas renames a repeated name (vm, vm.1): a column would be lost
                    header_seen = True
                    names = [c.strip() for c in row]
                    twice = [c for c in dict.fromkeys(names) if names.count(c) > 1]
                    if twice:
                        cols = [i + 1 for i, c in enumerate(names) if c == twice[0]]
                        raise BenchmarkError(f"{path}, line {start}: column {shown(twice[0])} appears {len(cols)} "
                                             f"times in the header (columns {cols}); rename or drop the repeats")
                    continue
                if len(row) != n_header:
                    raise BenchmarkError(f"{path}, line {start}: {len(row)} fields where the header has "
                                         f"{n_header} (a stray comma, or an unquoted comma inside a value?)")
        except csv.Error as exc:  # e.g. a field longer than the csv module's limit (131,072 characters)
            raise BenchmarkError(f"{path}, line {reader.line_num}: {exc} (a field this long is no measurement: a "
                                 "stray quote joining lines?)") from None


def _line(raw: pd.DataFrame, i: int) -> int:
    """The line (as a text editor counts it) on which the ``i``-th data row of ``raw`` starts: its index label,
    set by :func:`_read_csv` (an in-memory table's rows count from line 2, as in a CSV written with its header)."""
    return int(raw.index[i])


#: Plausible ranges of measured and configuration values (inclusive): a value outside is a typo or a unit
#: error (e.g. milliseconds for seconds), reported with its file, line and column.
#: The floor of a training time, 1 µs, is the shortest a timed training call can take: reading
#: ``time.perf_counter`` twice costs 0.05 µs, and the fastest scikit-learn fit measured here (a
#: ``DummyClassifier`` on 16 rows) took 58 µs, a ``GaussianNB`` 0.4 ms (learning-curve tables such as LCDB's hold
#: fits under 1 ms, so the former floor of 1 ms refused real measurements). The cost floor, 1e-12 USD, is
#: 1 µs at 0.0042 USD per hour (the cheapest on-demand VM price of 2024, AWS t4g.nano).
PLAUSIBLE = {
    "n_workers": (1, 100_000), "n_ps": (0, 100_000), "batch_size": (1, 100_000_000),
    "size": (1, 1e12), "learning_rate": (1e-12, 100.0),
    "training_time": (1e-6, 1e8), "time": (1e-6, 1e8), "cost": (1e-12, 1e9),
}

#: USD per hour that turns the training time of a file without a cost column into its cost (``cost = time x
#: price``), unless the caller states another (``price_per_hour``). One dollar an hour makes the cost the
#: training time in hours; a price common to every configuration scales every cost alike, which the optimisers'
#: acquisitions (divided by the predicted cost, or its logarithm modelled) do not see: tests/test_time_only_inputs.py
#: finds the same tests and recommendations at 1 and 2 USD per hour. A cost limit on such a file needs a stated price.
TIME_PRICE_PER_HOUR = 1.0


def _numeric(raw: pd.DataFrame, col: str, path: Path, *, positive: bool = False, integer: bool = False,
             plausible: str | None = None) -> np.ndarray:
    text = raw[col].str.strip()
    empty = text == ""
    if empty.any():
        i = int(np.flatnonzero(empty.to_numpy())[0])
        raise BenchmarkError(f"{path}, line {_line(raw, i)}, column {shown(col)}: empty value (every row needs a number)")
    values = pd.to_numeric(text, errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(values)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise BenchmarkError(
            f"{path}, line {_line(raw, i)}, column {shown(col)}: {shown(raw[col].iloc[i])} is not a finite number"
        )
    if positive and (values <= 0).any():
        i = int(np.flatnonzero(values <= 0)[0])
        raise BenchmarkError(f"{path}, line {_line(raw, i)}, column {shown(col)}: {values[i]:g} must be > 0")
    if integer and (values != np.round(values)).any():
        i = int(np.flatnonzero(values != np.round(values))[0])
        raise BenchmarkError(f"{path}, line {_line(raw, i)}, column {shown(col)}: {values[i]:g} must be a whole number")
    if plausible is not None:
        lo, hi = PLAUSIBLE[plausible]
        out = (values < lo) | (values > hi)
        if out.any():
            i = int(np.flatnonzero(out)[0])
            raise BenchmarkError(
                f"{path}, line {_line(raw, i)}, column {shown(col)}: {raw[col].iloc[i].strip()} is outside the plausible range "
                f"[{lo:g}, {hi:g}] (a typo or another unit?)"
            )
    return values


def _parse_curve(text: str, path: Path, line: int) -> np.ndarray:
    if not text.strip():
        return np.empty(0)
    try:
        curve = np.array([float(v) for v in text.split()])
    except ValueError:
        raise BenchmarkError(
            f"{path}, line {line}, column 'intermediate_acc_values': {text[:40]!r} is not a "
            "space-separated list of numbers"
        ) from None
    if not np.isfinite(curve).all():
        raise BenchmarkError(f"{path}, line {line}, column 'intermediate_acc_values': contains NaN/inf")
    bad = (curve < 0) | (curve > 1)
    if bad.any():
        raise BenchmarkError(f"{path}, line {line}, column 'intermediate_acc_values': value {curve[bad][0]:g} "
                             "must lie in [0, 1] (an accuracy is a fraction, not %)")
    return curve


def _check_accuracy(acc: np.ndarray, raw: pd.DataFrame, path: Path, col: str) -> None:
    bad = (acc < 0) | (acc > 1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise BenchmarkError(
            f"{path}, line {_line(raw, i)}, column {shown(col)}: accuracy {acc[i]:g} must lie in [0, 1] (a fraction, not %)"
        )


def _load_trimtuner(raw, path, name, cost_model, max_cost, max_time, extra_columns) -> Benchmark:
    header = list(raw.columns)
    missing = [c for c in TRIMTUNER_REQUIRED if c not in header]
    if missing:
        raise BenchmarkError(
            f"{path}: missing column(s) {missing} of the TrimTuner format (line 1, the header); "
            f"required: {TRIMTUNER_REQUIRED}"
        )
    unknown = [c for c in header if c not in TRIMTUNER_COLUMNS]
    if unknown and extra_columns == "error":
        raise BenchmarkError(
            f"{path}: unknown column(s) {unknown} in the header (line 1); the TrimTuner format has "
            f"{TRIMTUNER_COLUMNS}. Rename or drop them, or load with extra_columns='ignore'"
        )
    if extra_columns not in ("error", "ignore"):
        raise ValueError(f"extra_columns must be 'error' or 'ignore', got {shown(extra_columns)}")

    n_workers = _numeric(raw, "n_workers", path, positive=True, integer=True, plausible="n_workers")
    lr = _numeric(raw, "learning_rate", path, positive=True, plausible="learning_rate")
    batch = _numeric(raw, "batch_size", path, positive=True, integer=True, plausible="batch_size")
    time = _numeric(raw, "training_time", path, positive=True, plausible="training_time")
    acc = _numeric(raw, "acc", path)
    size = _numeric(raw, "training_set_size", path, positive=True, integer=True, plausible="size")
    n_ps = (_numeric(raw, "n_ps", path, integer=True, plausible="n_ps") if "n_ps" in header
            else np.ones(len(raw)))
    _check_accuracy(acc, raw, path, "acc")

    sync = raw["synchronism"].str.strip().str.lower()
    bad_sync = ~sync.isin(["sync", "async"])
    if bad_sync.any():
        i = int(np.flatnonzero(bad_sync.to_numpy())[0])
        raise BenchmarkError(
            f"{path}, line {_line(raw, i)}, column 'synchronism': {shown(raw['synchronism'].iloc[i])} must be 'sync' or 'async'"
        )
    vm = raw["vm_flavor"].str.strip()
    bad_vm = ~vm.isin(list(cost_model.prices))
    if bad_vm.any():
        i = int(np.flatnonzero(bad_vm.to_numpy())[0])
        raise BenchmarkError(
            f"{path}, line {_line(raw, i)}, column 'vm_flavor': unknown VM flavour {shown(vm.iloc[i])}; the cost model "
            f"has prices for {cost_model.flavors} (pass a CostModel with its price to load this file)"
        )
    if "intermediate_acc_values" in header:
        curves = [_parse_curve(t, path, _line(raw, i)) for i, t in enumerate(raw["intermediate_acc_values"])]
    else:
        curves = [np.empty(0)] * len(raw)

    table = pd.DataFrame({
        "vm_flavor": vm.to_numpy(dtype=object),
        "n_workers": n_workers.astype(int),
        "learning_rate": lr,
        "batch_size": batch.astype(int),
        "sync": sync.to_numpy(dtype=object),
        "n_ps": n_ps.astype(int),
        "size": size.astype(int),
        "accuracy": acc,
        "training_time": time,
        "cost": cost_model.cost(vm.to_numpy(dtype=object), n_workers, time, n_ps),
    })
    table["curve"] = curves
    if table["size"].max() != TRIMTUNER_FULL_SIZE:
        raise BenchmarkError(
            f"{path}, column 'training_set_size': the largest size is {int(table['size'].max())}, not the full "
            f"training set of the TrimTuner format ({TRIMTUNER_FULL_SIZE}); s = size / {int(table['size'].max())} "
            f"would call it the full size. Add the {TRIMTUNER_FULL_SIZE} rows, or convert the file to the generic "
            "format (whose largest size is the full one)")
    return _finish(table, list(TRIMTUNER_CONFIG), path, name, max_cost, max_time, cost_model, raw.index)


def _load_generic(raw, path, name, config_columns, max_cost, max_time, price_per_hour=None) -> Benchmark:
    header = list(raw.columns)
    missing = [c for c in ("size", "accuracy") if c not in header]
    time_col = "time" if "time" in header else ("training_time" if "training_time" in header else None)
    if missing:
        renamed = " (rename 'acc' to 'accuracy': 'acc' is the TrimTuner format's name)" if (
            "accuracy" in missing and "acc" in header) else ""
        raise BenchmarkError(
            f"{path}: missing column(s) {missing} (line 1, the header); the generic format needs configuration "
            f"columns + size + accuracy + cost and/or time{renamed}"
        )
    if "time" in header and "training_time" in header:
        raise BenchmarkError(f"{path}, line 1: both 'time' and 'training_time' columns; the generic format has one "
                             "time column: drop or rename the other")
    internal = [c for c in header if c in GENERIC_INTERNAL]
    if internal:
        raise BenchmarkError(f"{path}, line 1: column name(s) {internal} are reserved (the workbook computes "
                             "config_id, s = size / largest size, and curve); rename the column(s)")
    if "cost" not in header and time_col is None:
        raise BenchmarkError(f"{path}: the generic format needs a 'cost' and/or a 'time' column; found {header}")
    if config_columns is None:
        config_columns = [c for c in header if c not in GENERIC_RESERVED]
    unknown = [c for c in config_columns if c not in header]
    if unknown:
        raise BenchmarkError(f"{path}: configuration column(s) {unknown} not in the header {header}")
    extra = [c for c in header if c not in GENERIC_RESERVED and c not in config_columns]
    if extra:
        raise BenchmarkError(
            f"{path}: unknown column(s) {extra}; list them in config_columns or drop them from the file"
        )
    if not config_columns:
        raise BenchmarkError(f"{path}: no configuration columns besides size/accuracy/cost/time")

    table = pd.DataFrame(index=pd.RangeIndex(len(raw)))
    for col in config_columns:
        text = raw[col].str.strip()
        empty = text == ""
        if empty.any():
            i = int(np.flatnonzero(empty.to_numpy())[0])
            raise BenchmarkError(f"{path}, line {_line(raw, i)}, column {shown(col)}: empty value")
        as_num = pd.to_numeric(text, errors="coerce")
        table[col] = as_num.to_numpy(float) if as_num.notna().all() else text.to_numpy(dtype=object)
    table["size"] = _numeric(raw, "size", path, positive=True, integer=True, plausible="size").astype(int)
    table["accuracy"] = _numeric(raw, "accuracy", path)
    _check_accuracy(table["accuracy"].to_numpy(), raw, path, "accuracy")
    table["training_time"] = (_numeric(raw, time_col, path, positive=True, plausible="time") if time_col
                              else np.nan)
    price = _price_per_hour(price_per_hour, path, has_cost="cost" in header)
    if "cost" in header:
        table["cost"] = _numeric(raw, "cost", path, positive=True, plausible="cost")
    else:  # time only: cost = time x a stated price (TIME_PRICE_PER_HOUR unless the caller gave one)
        table["cost"] = table["training_time"] * (price / 3600.0)
    bench = _finish(table, list(config_columns), path, name, max_cost, max_time, None, raw.index)
    if "cost" in header:
        return bench
    return replace(bench, cost_from_time=price, price_stated=price_per_hour is not None)


def _price_per_hour(value, path: Path, *, has_cost: bool) -> float:
    """The USD-per-hour price that turns a time-only file's times into costs (checked once, here)."""
    if value is None:
        return TIME_PRICE_PER_HOUR
    if has_cost:
        raise BenchmarkError(f"{path}: price_per_hour {shown(value)} given for a file with a cost column; its costs "
                             "are used as measured: drop price_per_hour (or the cost column)")
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not np.isfinite(value) or not 1e-6 <= value <= 1e6:
        raise BenchmarkError(f"{path}: price_per_hour must be a number of USD per hour in [1e-06, 1e+06], "
                             f"got {shown(value)}")
    return float(value)


def _plain(row) -> dict:
    """A row as a dict of plain Python values (no ``np.int64(8)`` in messages)."""
    return {k: (v.item() if hasattr(v, "item") else v) for k, v in dict(row).items()}


def _finish(table, config_columns, path, name, max_cost, max_time, cost_model, lines) -> Benchmark:
    """The benchmark of a checked table (rows in file order; ``lines[i]`` the editor's line of row ``i``)."""
    keys = [*config_columns, "size"]
    dup = table.duplicated(keys, keep=False)
    if dup.any():
        idx = np.flatnonzero(dup.to_numpy())
        first = table.loc[idx[0], keys]
        same = [i for i in idx if (table.loc[i, keys] == first).all()]
        raise BenchmarkError(
            f"{path}: duplicate (configuration, size) rows at lines {[int(lines[i]) for i in same]}: "
            f"{_plain(first)}; keep one measurement per configuration and size (average repeats first)"
        )
    sizes = tuple(sorted(int(s) for s in table["size"].unique()))
    config_id = table.groupby(config_columns, sort=True).ngroup()
    table.insert(0, "config_id", config_id.astype(int))
    per_config = table.groupby("config_id")["size"].apply(set)
    incomplete = per_config[per_config.apply(len) < len(sizes)]
    if len(incomplete):
        cid = incomplete.index[0]
        row = table.loc[table["config_id"] == cid, config_columns].iloc[0]
        missing = sorted(set(sizes) - incomplete.iloc[0])
        raise BenchmarkError(
            f"{path}: configuration {_plain(row)} lacks size(s) {missing} ({len(incomplete)} configuration(s) "
            f"are incomplete); every configuration needs a row at each size {list(sizes)}"
        )
    table.insert(table.columns.get_loc("size") + 1, "s", table["size"] / sizes[-1])
    table = table.sort_values(["config_id", "size"]).reset_index(drop=True)
    return Benchmark(
        name=name, table=table, config_columns=tuple(config_columns), sizes=sizes,
        max_cost=max_cost, max_time=max_time, source=str(path), cost_model=cost_model,
    )


def price_per_second(benchmark: Benchmark) -> np.ndarray:
    """USD per second of each configuration's cluster, in ``config_id`` order.

    From the benchmark's cost model (``hourly_rate / 3600``) when it has one, else the median of the
    measured ``cost / training_time`` over the configuration's sizes.
    """
    configs = benchmark.configs().sort_values("config_id")
    if benchmark.cost_model is not None and "vm_flavor" in configs:
        n_ps = benchmark.full_size().sort_values("config_id")["n_ps"].to_numpy() if "n_ps" in benchmark.table else 1
        rate = benchmark.cost_model.hourly_rate(configs["vm_flavor"].to_numpy(dtype=object),
                                                configs["n_workers"].to_numpy(), n_ps)
        return np.asarray(rate, dtype=float) / 3600.0
    t = benchmark.table
    ok = (t["training_time"] > 0) & (t["cost"] > 0)
    ratio = (t.loc[ok, "cost"] / t.loc[ok, "training_time"]).groupby(t.loc[ok, "config_id"]).median()
    missing = sorted(set(configs["config_id"]) - set(ratio.index))
    if missing:
        raise ValueError(
            f"benchmark {shown(benchmark.name)}: cannot derive a price per second for config(s) {missing[:5]} "
            "(they need rows with cost > 0 and training_time > 0, or a cost model)"
        )
    return ratio.reindex(configs["config_id"]).to_numpy(dtype=float)


def as_benchmark(benchmark: Benchmark | str | os.PathLike) -> Benchmark:
    """Return ``benchmark`` itself, or load it by registered name or path.

    Raises
    ------
    ValueError
        (a :class:`~tt_core.data.benchmarks.BenchmarkError`) for an unknown name, an unavailable data set
        (e.g. ``"mlp"``, whose data are not public) or an unreadable file.
    """
    if isinstance(benchmark, Benchmark):
        return benchmark
    if isinstance(benchmark, (str, os.PathLike)):
        return load_benchmark(benchmark)
    raise ValueError(
        f"expected a Benchmark, a registered benchmark name or a CSV path, got {type(benchmark).__name__}"
    )
