"""Spot price traces: the :class:`PriceTrace` type, the user's file of the public 2017 market, and resampling.

A :class:`PriceTrace` holds one price (USD per hour) per instance type per minute, from a start time.
Prices are piecewise constant within a minute; all times of the simulation are seconds since the
trace's start.

The 2017 trace
--------------
:func:`load_trace` reads the public "AWS Spot Pricing Market" data set (B. Visser, Kaggle; the paper's
ref. [25]), region file ``us-east-1.csv``: headerless CSV ``Timestamp, InstanceType,
OperatingSystem, AvailabilityZone, SpotPrice``, 2017-04-26 to 2017-05-08. Its license is not stated,
so the workbook neither ships nor downloads it: the user supplies it (an explicit path, or the file
``us-east-1.csv`` in ``$TT_DATA_DIR``, the ``data/`` cache or ``../shared/data``, searched as for the
benchmarks by :func:`tt_core.data.benchmarks.search_dirs`). Its size is checked against the published
one (a warning, since a user may pass a filtered copy). Its records are checked as read (:func:`check_prices`,
:class:`SpanCheck`), as are a post-2017 history's (:mod:`tt_spotsim.history`), which reads its own format
with the same checks.

Resampling (:func:`resample`)
-----------------------------
The raw records are sparse and irregular (a record when the price changes). The paper "interpolates
values between records" to a 1-minute grid. Two methods are offered:

* ``"ffill"`` (**default**): the price of a minute is the last record at or before the minute's start.
  This is the market's own semantics: a spot price holds until the next price is published.
* ``"interpolate"``: linear in time between records (the paper's wording). It invents intermediate
  prices, smooths spikes and moves bid crossings earlier than they happened; offered to reproduce the
  paper's preprocessing and measure what it changes.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from tt_core.data.io import shown
from tt_spotsim.catalogue import CATALOGUE, SpotError, check_types

#: The public file of the paper's trace (not shipped, not downloaded: its license is not stated).
TRACE_FILE = "us-east-1.csv"
TRACE_COLUMNS = ["timestamp", "instance_type", "os", "zone", "price"]
#: Size of the published file in bytes; its sha256 is known only from one third-party copy.
TRACE_SIZE = 242_883_743
TRACE_SHA256_PREFIX, TRACE_SHA256_SUFFIX = "6c2b86e6", "af95"
#: Start of the paper's trace period (the Kaggle data set, us-east-1).
TRACE_START = pd.Timestamp("2017-04-26 00:00:00", tz="UTC")
TRACE_DAYS = 13
RESAMPLING = ("ffill", "interpolate")
DEFAULT_RESAMPLING = "ffill"
#: The plausible range of a spot price, USD per hour: above 0, at most ``MAX_PRICE``. Bids (and so 2017's
#: prices) were limited by default to four times the on-demand price from December 2013 (AWS EC2 User Guide,
#: "Spot Instance Limits"; raised on request), and the dearest on-demand price of the 2017 snapshot
#: (ec2instances.info 0.0.2) is 47.258 USD/h (x1.32xlarge, SQL Server, sa-east-1); since 2017 a spot price
#: stays below the on-demand one. 1000 USD/h lies five times above four times that price (189 USD/h) and far
#: below what overflows a cost: a record above it is a typo or another unit (e.g. cents).
MAX_PRICE = 1000.0
#: Amazon EC2's spot instances were launched on 14 December 2009: no spot price is older.
SPOT_SINCE = pd.Timestamp("2009-12-14", tz="UTC")
#: The longest time span (days) of a price file. The simulation builds a 1-minute grid from the first record
#: to the last (16 bytes per minute and type: a year of six types is 51 MB); it needs the predictor's
#: training days, a submission offset and the jobs' hours, and the published formats hold 13 days (the
#: 2017 trace) or one month per file. A file spanning more is refused (cut it to the months you simulate).
MAX_TRACE_DAYS = 366


@dataclass(frozen=True)
class PriceTrace:
    """Minute-by-minute spot prices of several instance types.

    Attributes
    ----------
    start : pandas.Timestamp
        Time (UTC) of minute 0.
    prices : dict of str to numpy.ndarray
        USD per hour, one value per minute, every array the same length.
    source : str
        ``"synthetic (seed 1)"`` or the file it was read from.
    synthetic : bool
    resampling : str
        How the raw records were put on the grid (``"ffill"``, ``"interpolate"``, or ``"generated"``).
    """

    start: pd.Timestamp
    prices: dict
    source: str = "in-memory"
    synthetic: bool = False
    resampling: str = "generated"
    _cum: dict = field(default_factory=dict, repr=False, compare=False)
    _n: int = field(default=0, repr=False, compare=False)

    def __post_init__(self):
        lengths = {len(v) for v in self.prices.values()}
        if len(lengths) != 1:
            raise SpotError(f"price trace: every type needs the same number of minutes, got {sorted(lengths)}")
        for name, p in self.prices.items():
            p = np.asarray(p, dtype=float)
            if not np.isfinite(p).all() or (p <= 0).any():
                raise SpotError(f"price trace: type {shown(name)} has a missing, infinite or non-positive price")
            if (p > MAX_PRICE).any():
                raise SpotError(f"price trace: type {shown(name)} has a price of {float(p.max()):g} USD per hour, "
                                f"outside the plausible range (0, {MAX_PRICE:g}] (MAX_PRICE)")
            self.prices[name] = p
            self._cum[name] = np.concatenate([[0.0], np.cumsum(p) / 60.0])  # USD from minute 0 to minute m
        object.__setattr__(self, "_n", len(next(iter(self.prices.values()))))

    # -- size and labels ---------------------------------------------------------------------------
    @property
    def types(self) -> list[str]:
        return list(self.prices)

    @property
    def n_minutes(self) -> int:
        return self._n

    @property
    def duration_s(self) -> float:
        return 60.0 * self.n_minutes

    @property
    def label(self) -> str:
        if not self.synthetic:
            return f"AWS spot trace ({self.source})"
        src = str(self.source)                       # "synthetic <style>-style (seed n)"
        style = src.split(" ")[1] if src.startswith("synthetic ") and src.split(" ")[1].endswith("-style") else "2017-style"
        return f"synthetic {style} market"

    def times(self) -> pd.DatetimeIndex:
        return pd.date_range(self.start, periods=self.n_minutes, freq="min")

    def frame(self) -> pd.DataFrame:
        """The prices as a table (one column per type, a UTC minute index)."""
        return pd.DataFrame(self.prices, index=self.times())

    def series(self, name: str) -> np.ndarray:
        if name not in self.prices:
            raise SpotError(f"the price trace has no type {shown(name)}; it has {self.types}")
        return self.prices[name]

    def subset(self, names) -> "PriceTrace":
        names = check_types(names)
        return PriceTrace(self.start, {n: self.series(n).copy() for n in names}, self.source, self.synthetic,
                          self.resampling)

    # -- queries -----------------------------------------------------------------------------------
    def _minute(self, t: float) -> int:
        m = int(np.floor(t / 60.0 + 1e-9))
        if m < 0 or m >= self.n_minutes:
            raise SpotError(f"time {t / 3600:.2f} h lies outside the price trace (0 to {self.duration_s / 3600:.1f} h, "
                            f"{self.source}); use a longer trace, start earlier or shorten the jobs")
        return m

    def price_at(self, name: str, t: float) -> float:
        """USD per hour in effect at second ``t``."""
        return float(self.series(name)[self._minute(t)])

    def cost(self, name: str, t0: float, t1: float) -> float:
        """USD of running one instance from second ``t0`` to ``t1``, charged per second at the market price."""
        if t1 < t0:
            raise SpotError(f"cost over a negative interval ({t0} s to {t1} s)")
        return self._cum_at(name, t1) - self._cum_at(name, t0)

    def _cum_at(self, name: str, t: float) -> float:
        p, cum = self.series(name), self._cum[name]
        if t >= self.duration_s - 1e-9:
            if t > self.duration_s + 1e-6:
                self._minute(t)  # raises with the trace's extent
            return float(cum[-1])
        m = self._minute(t)
        return float(cum[m] + p[m] * (t - 60.0 * m) / 3600.0)

    def mean_price(self, name: str, t0: float, t1: float) -> float:
        """Time-average price (USD per hour) over ``[t0, t1)``."""
        if t1 <= t0:
            return self.price_at(name, t0)
        return self.cost(name, t0, t1) * 3600.0 / (t1 - t0)

    def first_above(self, name: str, bid: float, t0: float, t1: float | None = None) -> float | None:
        """The first time in ``[t0, t1)`` at which the price exceeds ``bid`` (the start of that minute,
        or ``t0`` itself when the price at ``t0`` already does); None if it never does."""
        p = self.series(name)
        m0 = self._minute(t0)
        m1 = self.n_minutes if t1 is None else min(self.n_minutes, int(np.ceil(t1 / 60.0 - 1e-9)))
        above = np.flatnonzero(p[m0:m1] > bid)
        if not len(above):
            return None
        return max(t0, 60.0 * (m0 + int(above[0])))


# ------------------------------------------------------------------------------------------------
# The user's trace file
# ------------------------------------------------------------------------------------------------
def locate_trace(path: str | os.PathLike | None = None) -> Path:
    """The path of the 2017 trace: ``path`` itself, else ``us-east-1.csv`` in the benchmark search folders
    (``$TT_DATA_DIR``, the ``data/`` cache, ``../shared/data``), each also under ``spot/``. A SpotError
    says where it looked and how to get the file."""
    from tt_core.data.benchmarks import search_dirs

    if path is not None:
        p = Path(path).expanduser()
        if not p.is_file():
            from tt_core.data.io import why_not_a_file

            raise SpotError(f"price trace {shown(str(path))} {why_not_a_file(p)} (give the path of the AWS Spot Pricing "
                            f"Market file {TRACE_FILE}, or 'synthetic')")
        return p
    tried = []
    for label, d in search_dirs():
        base = d.parent if label == "shared" else d
        for c in (base / TRACE_FILE, base / "spot" / TRACE_FILE):
            tried.append(str(c))
            if c.is_file():
                return c
    raise SpotError(
        f"the 2017 spot price trace ({TRACE_FILE}) was not found in {', '.join(tried)}; it is the Kaggle data set "
        "'AWS Spot Pricing Market' (noqcks), whose license is unstated, so the workbook does not download it: "
        "put it in one of those folders (or point TT_DATA_DIR at it), or use the synthetic market")


def trace_available() -> Path | None:
    """The trace's path if the user has supplied it, else None."""
    try:
        return locate_trace()
    except SpotError:
        return None


def _check_file(path: Path) -> None:
    """Size against the published file; if the size matches, the sha256 against the one third-party checksum
    known (its first and last hex digits only): a warning either way, never an error."""
    size = path.stat().st_size
    if size != TRACE_SIZE:
        warnings.warn(f"{path} has {size} bytes, the published {TRACE_FILE} has {TRACE_SIZE}: a filtered or different "
                      "copy (results will not be the paper's trace)", stacklevel=3)
        return
    from tt_core.data.benchmarks import sha256_of

    digest = sha256_of(path)
    if not (digest.startswith(TRACE_SHA256_PREFIX) and digest.endswith(TRACE_SHA256_SUFFIX)):
        warnings.warn(f"{path}: sha256 {digest[:8]}...{digest[-4:]} differs from the one known copy's "
                      f"({TRACE_SHA256_PREFIX}...{TRACE_SHA256_SUFFIX}, unconfirmed)", stacklevel=3)


def read_records(path: str | os.PathLike, types=None, os_name: str = "Linux/UNIX", zone: str | None = None,
                 chunksize: int = 500_000) -> pd.DataFrame:
    """The raw records of ``types`` (default: Table III's) for one operating system and one zone.

    ``zone=None`` keeps, per type, the availability zone with the most records (reported in the
    ``zone`` column). Malformed rows raise a SpotError naming the line (as a text editor counts it, blank
    lines included); prices outside (0, :data:`MAX_PRICE`], times before :data:`SPOT_SINCE` and files
    spanning more than :data:`MAX_TRACE_DAYS` are refused.
    """
    path = Path(path)
    types = check_types(types or list(CATALOGUE))
    with open(path, "rb") as fh:
        head = fh.read(65536)
    if b"\x00" in head:
        raise SpotError(f"{path}: not a text CSV file (it contains NUL bytes: a compressed file? unpack it first)")
    first = head.split(b"\n", 1)[0].decode("utf-8", "replace")
    if "price" in first.lower() or "timestamp" in first.lower():
        raise SpotError(f"{path}, line 1: a header row ({first[:60]!r}); the AWS Spot Pricing Market files are "
                        "headerless: Timestamp, InstanceType, OperatingSystem, AvailabilityZone, SpotPrice")
    _check_file(path)
    keep = []
    span = SpanCheck(path)
    layout = "a record has 5 (Timestamp, InstanceType, OperatingSystem, AvailabilityZone, SpotPrice)"
    for chunk in price_chunks(path, TRACE_COLUMNS, ",", chunksize, layout):
        ts = _validate_chunk(chunk, path)
        span.check(ts, chunk["line"].to_numpy(), "column 1 (Timestamp)")
        keep.append(select_records(chunk, ts, types, os_name, zone))
    df = joined_records(keep, TRACE_COLUMNS, path, types, os_name, zone, "records")
    return df.sort_values(["instance_type", "timestamp"]).reset_index(drop=True)


def joined_records(keep: list, columns, path: Path, types, os_name: str, zone: str | None, unit: str,
                   hint: str = "") -> pd.DataFrame:
    """The selected records of a price file's chunks (:func:`select_records`) as one table, in either format:
    times as UTC timestamps, prices as floats, the busiest zone per type when no ``zone`` is given. A file
    with none of the wanted records, or none of one wanted type, is refused in one line naming the file
    (``unit``: what the format calls a record; ``hint``: the fix, after the first message)."""
    df = pd.concat(keep, ignore_index=True) if keep else pd.DataFrame(columns=columns)
    if df.empty:
        raise SpotError(f"{path}: no {unit} of {types} for {shown(os_name)}" + (f" in zone {shown(zone)}" if zone else "")
                        + hint)
    df["timestamp"] = pd.to_datetime(df["timestamp"], utc=True)
    df["price"] = df["price"].astype(float)
    if zone is None:
        df = busiest_zones(df)
    missing = [t for t in types if t not in set(df["instance_type"])]
    if missing:
        raise SpotError(f"{path}: no {unit} for type(s) {missing} ({os_name})" + ("; choose the types your file has" if hint else ""))
    return df


def select_records(chunk: pd.DataFrame, times, types, os_name: str, zone: str | None) -> pd.DataFrame:
    """The rows of a chunk of price records (:func:`price_chunks`) of the wanted ``types``, operating
    system and (when given) ``zone``, their timestamps replaced by the parsed ``times`` (an array aligned
    with the chunk), without the ``line`` column."""
    sel = (chunk["instance_type"].isin(types) & (chunk["os"] == os_name)).to_numpy()
    if zone is not None:
        sel &= (chunk["zone"] == zone).to_numpy()
    return chunk[sel].drop(columns="line").assign(timestamp=np.asarray(times)[sel])


def busiest_zones(df: pd.DataFrame) -> pd.DataFrame:
    """The records of each type's zone with the most records (ties: the first zone by name)."""
    best = df.groupby(["instance_type", "zone"]).size().reset_index(name="n")
    best = best.sort_values(["instance_type", "n", "zone"], ascending=[True, False, True])
    return df.merge(best.drop_duplicates("instance_type")[["instance_type", "zone"]], on=["instance_type", "zone"])


def price_chunks(path: Path, columns: list[str], sep: str, chunksize: int, layout: str):
    """The lines of a headerless price file (the 2017 CSV, or a post-2017 history with ``sep="\\t"``) as text
    in chunks, each row with its ``line`` as a text editor counts it: blank lines are counted (and skipped)
    and quotes are plain characters (neither format quotes a field; a quote is refused with its line instead
    of joining lines). ``layout`` ends a message about the number of fields (``"a record has 5 (...)"``)."""
    import csv
    import re

    line0 = 1
    try:
        reader = pd.read_csv(path, sep=sep, header=None, names=columns, dtype=str, chunksize=chunksize,
                             keep_default_na=False, skipinitialspace=sep == ",", skip_blank_lines=False,
                             quoting=csv.QUOTE_NONE, engine="c")
        for chunk in reader:
            lines = np.arange(line0, line0 + len(chunk))
            line0 += len(chunk)
            text = chunk.apply(lambda c: c.str.strip())
            blank = (text == "").all(axis=1).to_numpy()
            chunk = chunk[~blank].assign(line=lines[~blank])
            quoted = chunk[columns].apply(lambda c: c.str.contains('"', regex=False)).to_numpy()
            if quoted.any():
                i, j = np.argwhere(quoted)[0]
                raise SpotError(f"{path}, line {chunk['line'].iloc[i]}, field {j + 1}: a quote character in "
                                f"{shown(chunk[columns[j]].iloc[i])}; the format has no quoted fields (remove the quotes)")
            if len(chunk):
                yield chunk
    except pd.errors.ParserError as exc:
        m = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", str(exc))
        if m:
            raise SpotError(f"{path}, line {m.group(2)}: {m.group(3)} fields where {layout}") from None
        raise SpotError(f"{path}: not a readable {'CSV' if sep == ',' else 'tab-separated'} file "
                        f"({str(exc).splitlines()[0]})") from None
    except UnicodeDecodeError as exc:
        raise SpotError(f"{path}: not UTF-8 text ({exc.reason} near line {line0}); save it as UTF-8") from None


def check_prices(price: pd.Series, lines: np.ndarray, path: Path, where: str) -> np.ndarray:
    """The prices of a chunk as floats, each a number in (0, :data:`MAX_PRICE`] USD per hour, else a SpotError
    naming the file, the line, ``where`` (``"column 5 (SpotPrice)"``), the value and the range."""
    values = pd.to_numeric(price, errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(values) | (values <= 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise SpotError(f"{path}, line {lines[i]}, {where}: {shown(price.iloc[i])} is not a positive number of USD "
                        "per hour")
    high = values > MAX_PRICE
    if high.any():
        i = int(np.flatnonzero(high)[0])
        raise SpotError(f"{path}, line {lines[i]}, {where}: {price.iloc[i].strip()} USD per hour is outside the "
                        f"plausible range of a spot price (0, {MAX_PRICE:g}] (MAX_PRICE; a typo or another unit?)")
    return values


class SpanCheck:
    """The times of a price file, chunk by chunk: none before :data:`SPOT_SINCE`, and the file's span (earliest
    to latest, in any order) at most :data:`MAX_TRACE_DAYS`, else a SpotError naming the line that breaks the
    bound. Checked while reading, so no grid is ever built over an implausible span."""

    def __init__(self, path: Path):
        self.path, self.lo, self.hi = path, None, None

    def check(self, ts: np.ndarray, lines: np.ndarray, where: str) -> None:
        ns = np.asarray(ts, dtype="datetime64[ns]").astype(np.int64)
        early = np.flatnonzero(ns < SPOT_SINCE.value)
        if len(early):
            i = int(early[0])
            raise SpotError(f"{self.path}, line {lines[i]}, {where}: {pd.Timestamp(ns[i], tz='UTC'):%Y-%m-%d %H:%M:%S} "
                            f"is before EC2 spot instances existed ({SPOT_SINCE:%Y-%m-%d}, SPOT_SINCE): a typo in "
                            "the date?")
        lo = np.minimum.accumulate(ns if self.lo is None else np.r_[self.lo, ns])[-len(ns):]
        hi = np.maximum.accumulate(ns if self.hi is None else np.r_[self.hi, ns])[-len(ns):]
        bound = MAX_TRACE_DAYS * 86_400 * 10**9
        over = np.flatnonzero(hi - lo > bound)
        if len(over):
            i = int(over[0])
            raise SpotError(f"{self.path}, line {lines[i]}, {where}: {pd.Timestamp(ns[i], tz='UTC'):%Y-%m-%d %H:%M:%S} "
                            f"makes the file span {(hi[i] - lo[i]) / 86_400e9:.0f} days, more than the "
                            f"{MAX_TRACE_DAYS} days a price file may span (MAX_TRACE_DAYS); give the months you "
                            "simulate (or fix the date)")
        self.lo, self.hi = lo[-1], hi[-1]


def _validate_chunk(chunk: pd.DataFrame, path: Path) -> np.ndarray:
    """Every row has a timestamp, a type and a plausible price (SpotError with the file line); returns the
    times (UTC, ``datetime64[ns]``)."""
    lines = chunk["line"].to_numpy()
    for col in TRACE_COLUMNS:
        empty = chunk[col].str.strip() == ""
        if empty.any():
            i = int(np.flatnonzero(empty.to_numpy())[0])
            raise SpotError(f"{path}, line {lines[i]}: empty {col} (a record is Timestamp, InstanceType, "
                            "OperatingSystem, AvailabilityZone, SpotPrice)")
    check_prices(chunk["price"], lines, path, "column 5 (SpotPrice)")
    ts = pd.to_datetime(chunk["timestamp"], utc=True, errors="coerce", format="ISO8601")
    if ts.isna().any():
        i = int(np.flatnonzero(ts.isna().to_numpy())[0])
        raise SpotError(f"{path}, line {lines[i]}, column 1 (Timestamp): {shown(chunk['timestamp'].iloc[i])} is not an "
                        "ISO date and time like the rest of the format (e.g. 2017-04-26 00:00:00+00:00)")
    return ts.dt.tz_convert(None).to_numpy()


def resample(records: pd.DataFrame, method: str = DEFAULT_RESAMPLING, start: pd.Timestamp | None = None,
             end: pd.Timestamp | None = None) -> dict[str, np.ndarray]:
    """Put sparse records (columns ``timestamp, instance_type, price``) on a 1-minute grid.

    ``"ffill"``: a minute's price is the last record at or before its start; ``"interpolate"``: linear in
    time between records. Before a type's first record its first price is used (backfill). The grid runs
    from ``start`` (default: the earliest record, floored to the minute) to ``end`` (exclusive; default:
    the latest record, floored, plus one minute).
    """
    if method not in RESAMPLING:
        raise SpotError(f"unknown resampling {shown(method)}; known: {list(RESAMPLING)} (default {shown(DEFAULT_RESAMPLING)})")
    ts = pd.to_datetime(records["timestamp"], utc=True)
    start = (ts.min().floor("min") if start is None else pd.Timestamp(start))
    end = (ts.max().floor("min") + pd.Timedelta(minutes=1) if end is None else pd.Timestamp(end))
    grid = (pd.date_range(start, end, freq="min", inclusive="left") - start).total_seconds().to_numpy()
    out = {}
    for name, g in records.assign(_t=(ts - start).dt.total_seconds()).groupby("instance_type", sort=False):
        t = g["_t"].to_numpy(float)
        p = g["price"].to_numpy(float)
        order = np.argsort(t, kind="stable")
        t, p = t[order], p[order]
        if method == "ffill":
            idx = np.searchsorted(t, grid, side="right") - 1
            out[name] = p[np.maximum(idx, 0)]
        else:
            # several records at one instant: keep the last, as ffill does
            last = np.r_[t[1:] != t[:-1], True]
            out[name] = np.interp(grid, t[last], p[last])
    return out


def load_trace(path: str | os.PathLike | None = None, types=None, resampling: str = DEFAULT_RESAMPLING,
               zone: str | None = None, os_name: str = "Linux/UNIX") -> PriceTrace:
    """Read the user's 2017 trace (see :func:`locate_trace`) and resample it to a 1-minute grid."""
    p = locate_trace(path)
    types = check_types(types or list(CATALOGUE))
    records = read_records(p, types, os_name=os_name, zone=zone)
    prices = resample(records, resampling)
    start = pd.to_datetime(records["timestamp"], utc=True).min().floor("min")
    zones = records.groupby("instance_type")["zone"].first().to_dict()
    where = ", ".join(f"{t} {zones[t]}" for t in types)
    return PriceTrace(start, {t: prices[t] for t in types}, f"{p} ({where}; {resampling})", False, resampling)
