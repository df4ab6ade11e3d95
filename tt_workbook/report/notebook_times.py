"""Measured per-notebook times, and the expected seconds and ETA of ``tt reproduce``'s progress bar.

The shipped table :data:`NOTEBOOK_TIMES` (``notebook_times.csv`` beside this module) holds one row per
notebook and profile: ``notebook, profile, wall_s, cpu_s, measured_on, note``; the note names the
measurement the row comes from. A row may lack ``wall_s`` (the quick profile's per-notebook times were
recorded as CPU seconds only); its ``cpu_s`` then stands in for the wall time (that profile's whole run
took 23.3 CPU-min in 23.5 min of wall time).

``python -m tt_workbook.report.notebook_times --from reports/quick --profile quick`` replaces the rows of
the notebooks a run folder's ``status.json`` records as finished (``ok``) with that run's wall and CPU
seconds; the other rows stay.

How :func:`tt_workbook.report.reproduce.run` uses it:

* :func:`expected_seconds`, before the run: each notebook's expected wall seconds from (a) the run
  folder's earlier ``status.json`` (this machine, the newest run of that notebook), else (b) the table,
  else (c) the median of the notebooks that have one of the two.
* :func:`eta`, during the run: the remaining expected seconds scaled by the pace so far (actual over
  expected seconds of the notebooks done), clipped to ``[PACE_MIN, PACE_MAX]``.

A notebook whose optimiser runs are already in the run store finishes much faster than its table time
(which counts the runs computed); the pace factor absorbs part of that, not all (a notebook's share of
reused runs is not known before it runs).

Everything read from disk here is CSV or JSON; an unreadable or malformed file counts as absent.
"""

from __future__ import annotations

import csv
import io
import json
import math
import statistics
import sys
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from tt_core.data.entries import atomic_path
from tt_workbook.runs.estimate import PACE_MAX, PACE_MIN, pace as _pace

__all__ = ["NOTEBOOK_TIMES", "COLUMNS", "PACE_MIN", "PACE_MAX", "Expected", "read_table", "read_status",
           "table_times", "earlier_times", "expected_seconds", "eta", "eta_text", "clock", "start_line", "table_from_status",
           "write_table", "main"]

#: The shipped table of measured per-notebook times.
NOTEBOOK_TIMES = Path(__file__).with_name("notebook_times.csv")
COLUMNS = ["notebook", "profile", "wall_s", "cpu_s", "measured_on", "note"]
#: The pace (actual / expected seconds of the notebooks done) is clipped to [PACE_MIN, PACE_MAX]
#: (:data:`tt_workbook.runs.estimate.PACE_MIN`, the one pace rule of ``tt runs`` and ``tt reproduce``).
#: Expected seconds of a notebook when no notebook of the run has a measured time (then every notebook
#: counts the same, as a bar counted in notebooks would).
UNKNOWN_SECONDS = 60.0


@dataclass(frozen=True)
class Expected:
    notebook: str
    seconds: float
    #: "this machine" (the run folder's earlier status.json), "table" (the shipped table), "median" (of
    #: the others) or "none" (no notebook has a time: :data:`UNKNOWN_SECONDS`)
    source: str


def _seconds(value) -> float | None:
    """A non-negative finite number of seconds, or None."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) and x >= 0 else None


def read_table(path: str | Path | None = None) -> list[dict]:
    """The rows of the table at ``path`` (default :data:`NOTEBOOK_TIMES`; ``wall_s`` and ``cpu_s`` as
    floats or None); a missing or
    unreadable file, or one without the ``notebook, profile`` columns, gives no rows. Rows without a
    notebook or a profile are skipped."""
    try:
        text = Path(NOTEBOOK_TIMES if path is None else path).read_text(encoding="utf-8")
        reader = csv.DictReader(io.StringIO(text))
        if not reader.fieldnames or not {"notebook", "profile"} <= set(reader.fieldnames):
            return []
        rows = []
        for r in reader:
            if not r.get("notebook") or not r.get("profile"):
                continue
            rows.append({"notebook": r["notebook"], "profile": r["profile"], "wall_s": _seconds(r.get("wall_s")),
                         "cpu_s": _seconds(r.get("cpu_s")), "measured_on": r.get("measured_on") or "",
                         "note": r.get("note") or ""})
        return rows
    except (OSError, UnicodeDecodeError, csv.Error):
        return []


def table_times(rows: list[dict], profile: str) -> dict[str, float]:
    """``{notebook: expected wall seconds}`` of ``profile`` from the table's rows: ``wall_s``, else ``cpu_s``."""
    out = {}
    for r in rows:
        if r["profile"] != profile:
            continue
        s = r["wall_s"] if r["wall_s"] is not None else r["cpu_s"]
        if s is not None:
            out[r["notebook"]] = s
    return out


#: A status.json or report.json larger than this is none ``tt reproduce`` writes: read as absent.
MAX_JSON_BYTES = 4 * 2**20


def _read_json(path: str | Path):
    """The JSON value of a run folder's file, or None when it is missing, not a regular file (a FIFO is never
    opened for a blocking read), larger than :data:`MAX_JSON_BYTES`, not UTF-8 JSON or nested too deep."""
    from tt_core.data.io import open_regular

    try:
        with open_regular(path, Path(path).name) as f:
            data = f.read(MAX_JSON_BYTES + 1)
        if len(data) > MAX_JSON_BYTES:
            return None
        return json.loads(data.decode("utf-8"))
    except (OSError, ValueError, RecursionError):  # NotAFileError and UnicodeDecodeError are ValueErrors
        return None


def read_status(path: str | Path) -> list[dict]:
    """The entries of a ``status.json`` (a list of ``{"notebook", "ok", "seconds", "cpu_seconds", ...}``);
    a missing, unreadable or malformed file (:func:`_read_json`) gives none, and malformed entries are skipped."""
    data = _read_json(path)
    if not isinstance(data, list):
        return []
    return [d for d in data if isinstance(d, dict) and isinstance(d.get("notebook"), str)]


def earlier_times(out: str | Path, profile: str) -> dict[str, float]:
    """``{notebook: wall seconds}`` of the notebooks an earlier run into the folder ``out`` finished
    (``ok``), from its ``status.json``. Not used when the folder's ``report.json`` names another profile."""
    out = Path(out)
    report = _read_json(out / "report.json")
    if isinstance(report, dict) and report.get("profile") not in (None, profile):
        return {}
    times = {}
    for d in read_status(out / "status.json"):
        s = _seconds(d.get("seconds"))
        if d.get("ok") is True and s is not None:
            times[d["notebook"]] = s
    return times


def expected_seconds(notebooks: list[str], table: dict[str, float], earlier: dict[str, float]) -> list[Expected]:
    """Each notebook's expected wall seconds and where it comes from: ``earlier`` (this machine), else
    ``table`` (:func:`table_times`), else the median of the notebooks that have one of the two."""
    known = {}
    for nb in notebooks:
        if nb in earlier:
            known[nb] = Expected(nb, float(earlier[nb]), "this machine")
        elif nb in table:
            known[nb] = Expected(nb, float(table[nb]), "table")
    if known:
        median = statistics.median(e.seconds for e in known.values())
        fallback = Expected("", median, "median")
    else:
        fallback = Expected("", UNKNOWN_SECONDS, "none")
    return [known.get(nb) or Expected(nb, fallback.seconds, fallback.source) for nb in notebooks]


def eta(expected: list[float], actual: list[float], running: float = 0.0,
        lo: float = PACE_MIN, hi: float = PACE_MAX) -> tuple[float, float]:
    """``(pace, seconds left)`` after the first ``len(actual)`` notebooks took ``actual`` seconds and the
    next one has been running for ``running`` seconds.

    The pace is ``sum(actual) / sum(expected[:k])`` clipped to ``[lo, hi]`` (1 before any notebook is
    done, or when the ones done were expected to take no time). The seconds left are the pace times the
    expected seconds of the notebooks not started, plus what is left of the running one
    (``pace * expected[k] - running``, at least 0).
    """
    k = len(actual)
    pace = _pace(expected[:k], actual, lo, hi) if k else None
    pace = 1.0 if pace is None else pace
    if k >= len(expected):
        return pace, 0.0
    return pace, max(pace * expected[k] - running, 0.0) + pace * sum(expected[k + 1:])


def start_line(expected: list[Expected]) -> str:
    """The line ``tt reproduce`` prints before the first notebook."""
    n = len(expected)
    if all(e.source == "none" for e in expected):
        return f"{n} notebooks, no measured times (the bar counts notebooks)"
    total = sum(e.seconds for e in expected)
    here = sum(e.source == "this machine" for e in expected)
    line = f"{n} notebooks, about {_minutes(total)} by measured times ({here} of them measured on this machine; the ETA " \
           "then follows this machine's pace)"
    guessed = sum(e.source == "median" for e in expected)
    if guessed:
        line += f"; {guessed} without a measured time, counted at the median of the others"
    return line


def eta_text(pace: float, left: float, done: int, total: int | None = None) -> str:
    """The ETA of the bar: ``"about 4:10 left at this machine's pace so far (2.5 x the measured times)"`` once
    ``done`` notebooks finished, ``"about 1:40 left by the measured times"`` before. When nothing is left by
    the estimate but a notebook of ``total`` still runs (the last one runs past its expected time), it says
    so instead of a zero."""
    if total is not None and done < total and left < 0.5:
        return "the last notebook runs past its expected time: no estimate of what is left"
    if not done:
        return f"about {clock(left)} left by the measured times"
    return f"about {clock(left)} left at this machine's pace so far ({pace:.2g} x the measured times)"


def clock(seconds: float) -> str:
    """``seconds`` as ``m:ss`` or ``h:mm:ss``."""
    s = int(round(seconds))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


def _minutes(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"


def table_from_status(rows: list[dict], status: list[dict], profile: str, measured_on: str, note: str) -> list[dict]:
    """The table's ``rows`` with the rows of ``profile`` replaced by the finished (``ok``) notebooks of
    ``status`` (in place; new notebooks at the end); other notebooks' and other profiles' rows stay."""
    new = {}
    for d in status:
        wall = _seconds(d.get("seconds"))
        if d.get("ok") is True and wall is not None:
            new[d["notebook"]] = {"notebook": d["notebook"], "profile": profile, "wall_s": wall,
                                  "cpu_s": _seconds(d.get("cpu_seconds")), "measured_on": measured_on, "note": note}
    out, placed = [], set()
    for r in rows:
        if r["profile"] == profile and r["notebook"] in new:
            if r["notebook"] not in placed:   # a duplicate row of that notebook goes
                out.append(new[r["notebook"]])
                placed.add(r["notebook"])
        else:
            out.append(r)
    return out + [row for nb, row in new.items() if nb not in placed]


def write_table(rows: list[dict], path: str | Path) -> Path:
    """Write the table atomically (:func:`tt_core.data.entries.atomic_path`)."""
    def cell(v):   # 8.0 -> 8: rows read back unchanged
        return "" if v is None else int(v) if isinstance(v, float) and v.is_integer() else v

    with atomic_path(path) as tmp:
        with open(tmp, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(COLUMNS)
            w.writerows([[cell(r.get(c)) for c in COLUMNS] for r in rows])
    return Path(path)


def main(argv: list[str] | None = None) -> int:
    import argparse

    from tt_workbook.runs.profiles import NAMES

    p = argparse.ArgumentParser(prog="python -m tt_workbook.report.notebook_times",
                                description="Fill the table of per-notebook times from a run folder's status.json.")
    p.add_argument("--from", dest="run_folder", required=True, help="run folder of `tt reproduce` (holds status.json)")
    p.add_argument("--profile", required=True, help=f"profile the run used: {' or '.join(NAMES)}")
    p.add_argument("--table", default=str(NOTEBOOK_TIMES), help="table to update (default: the shipped one)")
    p.add_argument("--measured-on", default=None, help="date of the run (default: status.json's modification date, UTC)")
    p.add_argument("--note", default=None, help="what the run was (default: 'status.json of <folder>')")
    args = p.parse_args(argv)
    if args.profile not in NAMES:
        print(f"tt: error: unknown profile {args.profile!r}; give --profile {' or '.join(NAMES)}", file=sys.stderr)
        return 2
    folder = Path(args.run_folder)
    status_path = folder / "status.json"
    status = read_status(status_path)
    finished = [d for d in status if d.get("ok") is True and _seconds(d.get("seconds")) is not None]
    if not finished:
        why = "no status.json" if not status_path.is_file() else "no finished notebook in status.json"
        print(f"tt: error: {why} in {folder}; give --from the run folder of a `tt reproduce` (default reports/<profile>)",
              file=sys.stderr)
        return 2
    measured_on = args.measured_on or datetime.fromtimestamp(status_path.stat().st_mtime, timezone.utc).strftime("%Y-%m-%d")
    note = args.note or f"status.json of {folder.name}"
    rows = table_from_status(read_table(args.table), finished, args.profile, measured_on, note)
    write_table(rows, args.table)
    print(f"{args.table}: {len(finished)} {args.profile} rows from {status_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
