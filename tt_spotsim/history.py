"""Post-2017 spot price histories as user files (the ``ericpauley/aws-spot-price-history`` format).

Since November 2017 AWS has no bidding: prices move slowly and interruptions follow capacity, which is
what the ``aws-today`` rules simulate (:mod:`tt_spotsim.rules`: per-second billing, capacity-driven
interruptions). A public monthly archive of prices since then is the GitHub repository
``ericpauley/aws-spot-price-history``; its licence is not stated, so the workbook **never downloads it**:
the user passes a file (``tt spot simulate --prices FILE --billing aws-today``).

The format (from that repository's README and its collector): one month per file, ZStandard-compressed
(``prices/YYYY/MM.tsv.zst``); unpacked (``zstd -d``), a headerless tab-separated file with five fields
per line, as AWS' ``describe-spot-price-history`` returns them, except that availability zones are
global zone IDs:

==========  ==========================================================  =====================
field       meaning                                                     example
==========  ==========================================================  =====================
1           availability zone ID (global, not the account's zone name)  ``use1-az4``
2           instance type                                               ``r4.large``
3           product description (operating system)                      ``Linux/UNIX``
4           price, USD per hour                                         ``0.026800``
5           time of the price change, ISO 8601 with offset              ``2023-02-28T23:59:57+00:00``
==========  ==========================================================  =====================

A line is written only when a (zone, type, system) price changes, lines are in time order, and every
month starts with each price re-stated at exactly 00:00 UTC on the 1st. Several monthly files unpacked
and concatenated in month order are one history.

Checks (each a :class:`~tt_spotsim.catalogue.SpotError` naming the line, as a text editor counts it, and
the fix): a compressed file, a header row or a line without exactly five fields (unknown columns), a quote
(the format quotes nothing), an empty field, a price that is not a number in the plausible range (0,
:data:`~tt_spotsim.traces.MAX_PRICE`] USD per hour, a time that is not an ISO date or is older than spot
instances (:data:`~tt_spotsim.traces.SPOT_SINCE`), times out of order, a history spanning more than
:data:`~tt_spotsim.traces.MAX_TRACE_DAYS`, and gaps: a month inside the history without its re-statement
at 00:00 UTC on the 1st (a monthly file missing from the concatenation). Per type the zone with the most
records is kept, as for the 2017 trace.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from tt_core.data.io import shown
from tt_spotsim.catalogue import CATALOGUE, SpotError, check_types
from tt_spotsim.traces import SpanCheck, check_prices, joined_records, price_chunks, select_records

#: The five fields of a line.
HISTORY_COLUMNS = ["zone", "instance_type", "os", "price", "timestamp"]
FIELDS = "zone ID, instance type, product description, price, time"
#: Where the format comes from (the repository is named, never fetched).
HISTORY_SOURCE = "ericpauley/aws-spot-price-history format (post-2017, user-supplied)"
#: The end of bidding: a history that starts before it is not this format's market.
TODAY_SINCE = pd.Timestamp("2017-11-01", tz="UTC")


def is_history_file(path) -> bool:
    """Whether ``path`` names a post-2017 history (``.tsv``/``.tsv.zst``, or a first line of five
    tab-separated fields) rather than the 2017 Kaggle CSV."""
    p = Path(str(path)).expanduser()
    name = p.name.lower()
    if name.endswith((".tsv", ".tsv.zst", ".zst")):
        return True
    if not p.is_file():
        return False
    with open(p, "rb") as fh:
        first = fh.readline(4096)
    return first.count(b"\t") >= 1 and b"," not in first


def _first_line_check(path: Path) -> None:
    with open(path, "rb") as fh:
        head = fh.read(65536)
    if path.name.lower().endswith(".zst") or head[:4] == b"\x28\xb5\x2f\xfd":
        raise SpotError(f"{path}: a ZStandard-compressed file; unpack it first (zstd -d {path.name}) and pass the "
                        ".tsv")
    if b"\x00" in head:
        raise SpotError(f"{path}: not a text file (it contains NUL bytes: a compressed file? unpack it first)")
    if not head.strip():
        raise SpotError(f"{path}: empty file (a price history has one line per price change: {FIELDS})")
    first = head.split(b"\n", 1)[0].decode("utf-8", "replace").rstrip("\r")
    fields = first.split("\t")
    if len(fields) != 5:
        raise SpotError(f"{path}, line 1: {len(fields)} tab-separated field(s) where a line has 5 ({FIELDS}); "
                        "unknown columns: give the unpacked monthly .tsv files of the aws-spot-price-history format")
    if pd.to_numeric(pd.Series([fields[3]]), errors="coerce").isna().iloc[0]:
        raise SpotError(f"{path}, line 1: a header row or unknown columns ({first[:60]!r}); the format is headerless: "
                        f"{FIELDS}")


def _validate(chunk: pd.DataFrame, path: Path, last: pd.Timestamp | None) -> pd.Series:
    """Empty fields, prices (in the plausible range), times and their order in one chunk; returns the parsed
    times. Lines are those of ``chunk["line"]`` (as a text editor counts them)."""
    lines = chunk["line"].to_numpy()
    for j, col in enumerate(HISTORY_COLUMNS):
        empty = chunk[col].str.strip() == ""
        if empty.any():
            i = int(np.flatnonzero(empty.to_numpy())[0])
            raise SpotError(f"{path}, line {lines[i]}: empty field {j + 1} ({col}); a line has {FIELDS}")
    check_prices(chunk["price"], lines, path, "field 4 (price)")
    ts = pd.to_datetime(chunk["timestamp"], utc=True, errors="coerce", format="ISO8601")
    if ts.isna().any():
        i = int(np.flatnonzero(ts.isna().to_numpy())[0])
        raise SpotError(f"{path}, line {lines[i]}, field 5 (time): {shown(chunk['timestamp'].iloc[i])} is not an ISO "
                        "date and time (e.g. 2023-02-28T23:59:57+00:00)")
    ns = pd.DatetimeIndex(ts).asi8
    prev = np.r_[np.iinfo(np.int64).min if last is None else last.value, ns[:-1]]
    back = np.flatnonzero(ns < prev)
    if len(back):
        i = int(back[0])
        raise SpotError(f"{path}, line {lines[i]}: time {ts.iloc[i].isoformat()} is earlier than the line before "
                        f"({pd.Timestamp(prev[i], tz='UTC').isoformat()}); the lines must be in time order (the "
                        "published files are; concatenate the monthly files in month order, or sort by field 5)")
    return ts


def read_history(path: str | os.PathLike, types=None, os_name: str = "Linux/UNIX", zone: str | None = None,
                 chunksize: int = 500_000) -> pd.DataFrame:
    """The records of ``types`` (default: Table III's) for one system, in the 2017 reader's columns
    (``timestamp, instance_type, os, zone, price``), checked as the module docstring says."""
    path = Path(path).expanduser()
    if not path.is_file():
        from tt_core.data.io import why_not_a_file

        raise SpotError(f"price history {shown(str(path))} {why_not_a_file(path)} (give an unpacked monthly .tsv of "
                        "the aws-spot-price-history format)")
    types = check_types(types or list(CATALOGUE))
    _first_line_check(path)
    keep, last = [], None
    span = SpanCheck(path)
    layout = f"a line has 5 ({FIELDS}): unknown columns"
    for chunk in price_chunks(path, HISTORY_COLUMNS, "\t", chunksize, layout):
        ts = _validate(chunk, path, last)
        last = ts.iloc[-1]
        naive = ts.dt.tz_convert(None).to_numpy()
        span.check(naive, chunk["line"].to_numpy(), "field 5 (time)")
        keep.append(select_records(chunk, naive, types, os_name, zone))
    df = joined_records(keep, HISTORY_COLUMNS, path, types, os_name, zone, "lines", " (choose the types your file has)")
    df = df[["timestamp", "instance_type", "os", "zone", "price"]]
    _check_gaps(df, path)
    return df.sort_values(["instance_type", "timestamp"], kind="stable").reset_index(drop=True)


def _check_gaps(df: pd.DataFrame, path: Path) -> None:
    """Every month start inside the history has each kept price re-stated at 00:00 UTC (the format's rule)."""
    for (name, z), g in df.groupby(["instance_type", "zone"], sort=True):
        t = g["timestamp"]
        first, last = t.min(), t.max()
        month = (first.tz_convert(None).to_period("M") + 1).to_timestamp().tz_localize("UTC")
        have = set(t)
        while month <= last:
            if month not in have:
                before = t[t < month].max()
                after = t[t > month].min()
                raise SpotError(f"{path}: a gap: no re-stated price of {name} ({z}) at {month:%Y-%m-%d %H:%M} UTC (the "
                                f"format re-states every price at the start of each month); nothing between "
                                f"{before.isoformat()} and {after.isoformat()}: a monthly file is missing, give "
                                "consecutive months")
            month = (month.tz_convert(None).to_period("M") + 1).to_timestamp().tz_localize("UTC")


def load_history(path: str | os.PathLike, types=None, resampling: str = "ffill", zone: str | None = None,
                 os_name: str = "Linux/UNIX"):
    """A post-2017 history as a :class:`tt_spotsim.traces.PriceTrace` on a 1-minute grid (from its first
    line, floored to the minute, to its last). Use it with the ``aws-today`` rules."""
    from tt_spotsim.traces import PriceTrace, resample

    types = check_types(types or list(CATALOGUE))
    records = read_history(path, types, os_name=os_name, zone=zone)
    prices = resample(records, resampling)
    start = records["timestamp"].min().floor("min")
    zones = records.groupby("instance_type")["zone"].first().to_dict()
    where = ", ".join(f"{t} {zones[t]}" for t in types)
    return PriceTrace(start, {t: prices[t] for t in types}, f"{Path(path)} ({HISTORY_SOURCE}; {where}; {resampling})",
                      False, resampling)


def check_rules(trace, rules_name: str) -> None:
    """A post-2017 history is simulated under the ``aws-today`` rules only (no bidding after 2017: the
    2017 rules' price-driven revocations do not apply to its prices)."""
    if HISTORY_SOURCE in str(trace.source) and str(rules_name) != "aws-today":
        raise SpotError(f"a post-2017 price history is simulated with --billing aws-today (no bidding since "
                        f"November 2017), not {shown(str(rules_name))}")
