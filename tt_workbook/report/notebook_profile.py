"""Profile notebooks: CPU seconds of each and its top functions, with every run computed afresh.

``python -m tt_workbook.report.notebook_profile --out DIR [--code ROOT] [--only 09 16]`` executes the
notebooks of :data:`tt_workbook.report.reproduce.NOTEBOOKS` (those present in ``ROOT/notebooks``, default
this checkout) with papermill, in a throwaway run folder (``DIR/runs``, empty at the start, so every
optimiser run is computed) and a throwaway copy of ``ROOT/figures`` (as a fresh clone has it), with
``n_jobs = 1`` where a notebook declares it so that its runs are computed inside the profiled kernel.
``ROOT`` may be another checkout of the workbook (e.g. an earlier commit unpacked elsewhere): its
kernel then imports that checkout's ``tt_core`` (``PYTHONPATH``).

Two cells are added to each notebook: the first starts :class:`cProfile.Profile` with
:func:`time.process_time` as its clock (CPU seconds of the kernel), the last stops it and writes, as JSON
(nothing is read back that could execute code), the kernel's CPU seconds (``getrusage``, its own and
that of the processes it waited for, e.g. the authors' code) and the top functions by cumulative time
(the workbook's own functions) and by own time (any function). cProfile adds its own cost to every
Python-level call, so profiled CPU seconds are higher than unprofiled ones; the shares are what to read.

With ``--sampler py-spy`` the first cell instead starts `py-spy <https://github.com/benfred/py-spy>`_
(``pip install py-spy``, a 3 MB wheel; not a dependency of the workbook) on the kernel and every process
it starts (``--subprocesses``: the authors' code, run workers), sampling each busy thread 100 times a
second without stopping it (``--nonblocking``); the last cell stops it. A sampler adds almost nothing to
the notebook's own time (no per-call cost), sees compiled code as the Python function that called it,
and counts time in the processes a notebook starts; seconds are busy samples / rate.

Output: ``DIR/<notebook>.json`` per notebook and ``DIR/profile.md`` (:func:`markdown_table`).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sys
import time
from pathlib import Path

__all__ = ["profile_notebooks", "markdown_table", "read_results", "top_functions", "main"]

#: How many functions each table lists.
TOP = 5

_START = """\
import cProfile as _tt_cprofile, resource as _tt_resource, time as _tt_time
_tt_profile = _tt_cprofile.Profile(_tt_time.process_time)
_tt_profile.enable()
"""

#: The last cell: stops the profiler and writes its rows (file, line, function, calls, own and cumulative CPU s)
#: as JSON; it imports nothing of tt_core, so it runs in the kernel of any checkout.
_STOP = """\
_tt_profile.disable()
import json as _tt_json, pstats as _tt_pstats
_tt_stats = _tt_pstats.Stats(_tt_profile)
_tt_self = _tt_resource.getrusage(_tt_resource.RUSAGE_SELF)
_tt_kids = _tt_resource.getrusage(_tt_resource.RUSAGE_CHILDREN)
with open({path!r}, "w") as _tt_f:
    _tt_json.dump({{"kernel_cpu_s": _tt_self.ru_utime + _tt_self.ru_stime,
                   "children_cpu_s": _tt_kids.ru_utime + _tt_kids.ru_stime,
                   "rows": [[f[0], f[1], f[2], v[1], v[2], v[3]] for f, v in _tt_stats.stats.items()
                            if v[3] >= 0.01 or v[2] >= 0.01]}}, _tt_f)
"""


#: Samples per second of py-spy (``--sampler py-spy``).
PYSPY_RATE = 100

_START_PYSPY = """\
import os as _tt_os, resource as _tt_resource, subprocess as _tt_subprocess, time as _tt_time
_tt_pyspy = _tt_subprocess.Popen([{exe!r}, "record", "--pid", str(_tt_os.getpid()), "--subprocesses", "--function",
                                  "--full-filenames", "--nonblocking", "--rate", "{rate}", "--format", "raw",
                                  "--output", {raw!r}], stdout=_tt_subprocess.DEVNULL, stderr=_tt_subprocess.PIPE)
_tt_time.sleep(1.0)
"""

#: The last cell in py-spy mode: the kernel's CPU seconds as JSON, then py-spy stopped (it writes its samples).
_STOP_PYSPY = """\
import json as _tt_json, signal as _tt_signal
_tt_self = _tt_resource.getrusage(_tt_resource.RUSAGE_SELF)
_tt_kids = _tt_resource.getrusage(_tt_resource.RUSAGE_CHILDREN)
_tt_pyspy.send_signal(_tt_signal.SIGINT)
_tt_pyspy.communicate(timeout=120)
with open({path!r}, "w") as _tt_f:
    _tt_json.dump({{"kernel_cpu_s": _tt_self.ru_utime + _tt_self.ru_stime,
                   "children_cpu_s": _tt_kids.ru_utime + _tt_kids.ru_stime, "sampler": "py-spy"}}, _tt_f)
"""


def collapsed_rows(lines, rate: int = PYSPY_RATE) -> list:
    """Profile rows ``[file, line, function, samples, own s, cumulative s]`` from py-spy's raw (collapsed)
    output: one line per distinct stack, ``frame;frame;... count``, each frame ``function (file:line)`` or
    ``process PID:"command"``. A function's own seconds are the samples where it is the innermost frame,
    its cumulative seconds the samples where it is anywhere in the stack (once per stack: recursion is
    not counted twice), both divided by ``rate``."""
    own, cum = {}, {}
    for line in lines:
        stack, _, count = line.rstrip("\n").rpartition(" ")
        if not stack or not count.isdigit():
            continue
        n = int(count)
        frames = []
        for frame in stack.split(";"):
            if frame.startswith("process "):
                continue
            name, _, where = frame.rpartition(" (")
            path, _, lineno = where.rstrip(")").rpartition(":")
            if not lineno.isdigit():
                path, lineno = where.rstrip(")"), "0"
            frames.append((path, int(lineno), name or frame))
        if not frames:
            continue
        own[frames[-1]] = own.get(frames[-1], 0) + n
        for f in set(frames):
            cum[f] = cum.get(f, 0) + n
    return [[f[0], f[1], f[2], cum[f], own.get(f, 0) / rate, cum[f] / rate] for f in cum]


def _pyspy_executable() -> str | None:
    found = shutil.which("py-spy")
    if found:
        return found
    local = Path(sys.executable).with_name("py-spy")
    return str(local) if local.is_file() else None


#: The workbook's own packages: the library, SpotTune's simulator and the harness.
OWN_PACKAGES = ("tt_core", "tt_spotsim", "tt_workbook")


def _is_own(filename: str) -> bool:
    return any(f"{os.sep}{p}{os.sep}" in filename for p in OWN_PACKAGES) and "notebook_profile" not in filename


def _name(func: tuple) -> str:
    filename, line, name = func
    if filename == "~":  # a built-in
        return name
    parts = Path(filename).parts
    own = [i for i, p in enumerate(parts) if p in OWN_PACKAGES]
    short = "/".join(parts[own[-1]:]) if own else "/".join(parts[-2:])
    return f"{short}:{line}({name})"


def top_functions(rows: list, n: int = TOP) -> dict:
    """From profile rows ``[file, line, function, calls, own s, cumulative s]``: the ``n`` functions with the
    most cumulative CPU time among the workbook's own (:data:`OWN_PACKAGES`) functions, and the ``n`` with the most
    own time (``tottime``) among all functions, each as ``{"function", "calls", "tottime_s", "cumtime_s"}``;
    and ``profiled_s``, the sum of the own times (the profile's total)."""
    out = [{"function": _name((f, line, name)), "calls": int(nc), "tottime_s": round(float(tt), 3),
            "cumtime_s": round(float(ct), 3)} for f, line, name, nc, tt, ct in rows]
    own = [r for r, row in zip(out, rows) if _is_own(row[0])]
    work = [r for r, row in zip(out, rows) if _is_own(row[0]) and not _is_driver(row[0], row[2])]
    return {"profiled_s": round(sum(float(r[4]) for r in rows), 3),
            "top_cumulative": sorted(own, key=lambda r: -r["cumtime_s"])[:n],
            "top_work": sorted(work, key=lambda r: -r["cumtime_s"])[:n],
            "top_tottime": sorted(out, key=lambda r: -r["tottime_s"])[:n]}


#: The workbook's loop and store: every run passes through them, so they head any cumulative list.
_DRIVERS = ("tt_workbook/runs/store.py", "tt_core/replay/driver.py", "tt_workbook/runs/study_tables.py",
            "tt_core/optimizers/base.py", "tt_core/optimizers/model_based.py", "tt_core/optimizers/budgeted.py",
            "tt_workbook/apps/notebook.py")


def _is_driver(filename: str, function: str) -> bool:
    """A function of the loop or the run store (:data:`_DRIVERS`), or a module's body (imports)."""
    path = filename.replace(os.sep, "/")
    return function == "<module>" or any(path.endswith("/" + d) for d in _DRIVERS)


def with_raw_samples(records: list[dict], out: Path, n: int = TOP) -> list[dict]:
    """``records`` with their top functions recomputed from the py-spy samples kept beside them in ``out``
    (``<notebook>.pyspy.txt``), where there are any (e.g. to add :func:`top_functions`' newer lists)."""
    done = []
    for r in records:
        raw = Path(out) / f"{r['notebook']}.pyspy.txt"
        if r.get("sampler") == "py-spy" and raw.is_file():
            with open(raw, encoding="utf-8", errors="replace") as fh:
                r = {**r, **top_functions(collapsed_rows(fh), n)}
        done.append(r)
    return done


def _instrument(source: Path, target: Path, result: Path, pyspy: str | None = None) -> None:
    import nbformat

    nb = nbformat.read(str(source), as_version=4)
    if pyspy:
        raw = result.with_suffix(".pyspy.txt")
        nb.cells.insert(0, nbformat.v4.new_code_cell(_START_PYSPY.format(exe=pyspy, rate=PYSPY_RATE, raw=str(raw))))
        nb.cells.append(nbformat.v4.new_code_cell(_STOP_PYSPY.format(path=str(result))))
    else:
        nb.cells.insert(0, nbformat.v4.new_code_cell(_START))
        nb.cells.append(nbformat.v4.new_code_cell(_STOP.format(path=str(result))))
    nbformat.write(nb, str(target))


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def profile_notebooks(out: Path, code: Path, only: list[str] | None = None, profile: str = "quick",
                      pyspy: str | None = None) -> list[dict]:
    """Profile the notebooks of ``code`` (a workbook checkout) into ``out``; return one record per notebook.
    ``pyspy``: the py-spy executable to sample with (default: cProfile in the kernel)."""
    import papermill as pm

    from tt_workbook.report.reproduce import NOTEBOOKS

    out, code = Path(out).resolve(), Path(code).resolve()
    runs, figs, work = out / "runs", out / "figures", out / "executed"
    for d in (runs, work):
        d.mkdir(parents=True, exist_ok=True)
    if not figs.exists():
        shutil.copytree(code / "figures", figs)
    env = {"PYTHONPATH": str(code), "PYTHONDONTWRITEBYTECODE": "1", "MPLBACKEND": "Agg"}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    records = []
    try:
        for entry in NOTEBOOKS:
            source = code / "notebooks" / f"{entry.stem}.ipynb"
            if not source.is_file() or (only and not any(entry.stem.startswith(o) for o in only)):
                continue
            result = out / f"{entry.stem}.json"
            instrumented = work / f"{entry.stem}.in.ipynb"
            _instrument(source, instrumented, result, pyspy)
            declared = pm.inspect_notebook(str(source))
            offered = {"profile": profile, "figures_dir": str(figs), "runs_dir": str(runs), "n_jobs": 1}
            t0, c0 = time.perf_counter(), _children_cpu()
            error = ""
            try:
                pm.execute_notebook(str(instrumented), str(work / f"{entry.stem}.ipynb"),
                                    parameters={k: v for k, v in offered.items() if k in declared},
                                    cwd=str(code / "notebooks"), progress_bar=False)
            except Exception as exc:  # one failing notebook must not stop the others
                error = str(exc).strip().splitlines()[-1][:300] if str(exc).strip() else type(exc).__name__
            record = {"notebook": entry.stem, "ok": not error, "error": error,
                      "wall_s": round(time.perf_counter() - t0, 1), "cpu_s": round(_children_cpu() - c0, 1),
                      "load_1min": round(os.getloadavg()[0], 2)}
            if result.is_file():
                raw = json.loads(result.read_text())
                samples = result.with_suffix(".pyspy.txt")
                if pyspy and samples.is_file():
                    with open(samples, encoding="utf-8", errors="replace") as fh:
                        raw["rows"] = collapsed_rows(fh)
                    record["sampler"] = "py-spy"
                record.update({k: round(raw[k], 1) for k in ("kernel_cpu_s", "children_cpu_s")},
                              **top_functions(raw.get("rows", [])))
            result.write_text(json.dumps(record, indent=1))
            records.append(record)
            print(f"{entry.stem}: {record['cpu_s']:.1f} CPU s, {record['wall_s']:.0f} s wall, load "
                  f"{record['load_1min']}{' FAILED ' + error if error else ''}", flush=True)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return records


def _functions(rows: list[dict], key: str) -> str:
    return "<br>".join(f"{r['function']} {r[key]:.1f}" for r in rows)


def read_results(out: Path) -> list[dict]:
    """The per-notebook results stored in ``out``, in the notebooks' running order."""
    from tt_workbook.report.reproduce import NOTEBOOKS

    order = {e.stem: i for i, e in enumerate(NOTEBOOKS)}
    records = [json.loads(p.read_text()) for p in Path(out).glob("*.json")]
    return sorted((r for r in records if "notebook" in r), key=lambda r: order.get(r["notebook"], len(order)))


def markdown_table(records: list[dict]) -> str:
    """One row per notebook: CPU seconds (kernel and the processes it waited for, under the profiler), wall
    seconds, the load, and the top functions by cumulative and by own CPU seconds."""
    lines = ["| notebook | CPU s | wall s | load | top cumulative (tt_core), CPU s | top own time, CPU s |",
             "| --- | --- | --- | --- | --- | --- |"]
    for r in records:
        status = "" if r.get("ok", True) else " (failed)"
        lines.append(f"| `{r['notebook']}`{status} | {r['cpu_s']:.0f} | {r['wall_s']:.0f} | {r['load_1min']:.1f} | "
                     f"{_functions(r.get('top_cumulative', []), 'cumtime_s')} | "
                     f"{_functions(r.get('top_tottime', []), 'tottime_s')} |")
    total = sum(r["cpu_s"] for r in records)
    lines.append(f"| total | {total:.0f} | {sum(r['wall_s'] for r in records):.0f} | | | |")
    return "\n".join(lines) + "\n"


def _shares(record: dict, key: str, value: str, n: int) -> str:
    total = record.get("profiled_s") or 0.0
    rows = record.get(key, [])[:n]
    if not total:
        return "<br>".join(r["function"] for r in rows)
    return "<br>".join(f"{r['function']} {100 * r[value] / total:.0f}%" for r in rows)


def comparison_table(before: list[dict], after: list[dict], n: int = 3) -> str:
    """One row per notebook of either list: CPU seconds before and after (measured, ``getrusage`` of the
    kernel and what it waited for) and each side's top ``n`` functions as shares of the profile's samples
    (cumulative for the workbook's own functions, own time for any function). Shares, not seconds: a
    sampler on a shared machine counts a thread that waits for a core as busy, so its seconds are not
    CPU seconds, while its shares are comparable between notebooks."""
    from tt_workbook.report.reproduce import NOTEBOOKS

    b, a = {r["notebook"]: r for r in before}, {r["notebook"]: r for r in after}
    lines = ["| notebook | CPU s before | CPU s after | before: top cumulative (tt_core, below the loop) "
             "| after: top cumulative (tt_core, below the loop) "
             "| after: top own time |", "| --- | --- | --- | --- | --- | --- |"]
    tb = ta = 0.0
    for e in NOTEBOOKS:
        rb, ra = b.get(e.stem), a.get(e.stem)
        if rb is None and ra is None:
            continue
        cb = f"{rb['cpu_s']:.0f}" + ("" if rb.get("ok", True) else " (failed)") if rb else "-"
        ca = f"{ra['cpu_s']:.0f}" + ("" if ra.get("ok", True) else " (failed)") if ra else "-"
        tb += rb["cpu_s"] if rb else 0.0
        ta += ra["cpu_s"] if ra else 0.0
        kb = "top_work" if rb and "top_work" in rb else "top_cumulative"
        ka = "top_work" if ra and "top_work" in ra else "top_cumulative"
        lines.append(f"| `{e.stem}` | {cb} | {ca} | {_shares(rb, kb, 'cumtime_s', n) if rb else '-'} | "
                     f"{_shares(ra, ka, 'cumtime_s', n) if ra else '-'} | "
                     f"{_shares(ra, 'top_tottime', 'tottime_s', n) if ra else '-'} |")
    lines.append(f"| total | {tb:.0f} | {ta:.0f} | | | |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tt_workbook.report.notebook_profile",
                                description="Profile the workbook's notebooks (CPU seconds, top functions).")
    p.add_argument("--out", required=True, help="folder for the throwaway runs, figures and the results")
    p.add_argument("--code", default=None, help="workbook checkout whose notebooks and tt_core run (default: this one)")
    p.add_argument("--only", nargs="*", default=None, help="notebook prefixes, e.g. 09 16")
    p.add_argument("--profile", default="quick", choices=["quick", "paper"])
    p.add_argument("--sampler", default="cprofile", choices=["cprofile", "py-spy"],
                   help="cProfile in the kernel (default), or py-spy sampling the kernel and its subprocesses")
    p.add_argument("--compare", default=None, metavar="BEFORE_DIR",
                   help="with --table: DIR/compare.md, the notebooks of BEFORE_DIR (another profile) beside DIR's")
    p.add_argument("--table", action="store_true",
                   help="only write DIR/profile.md from the notebooks' results already in DIR")
    args = p.parse_args(argv)
    if args.table:
        (Path(args.out) / "profile.md").write_text(markdown_table(read_results(Path(args.out))))
        if args.compare:
            (Path(args.out) / "compare.md").write_text(
                comparison_table(with_raw_samples(read_results(Path(args.compare)), Path(args.compare)),
                                 with_raw_samples(read_results(Path(args.out)), Path(args.out))))
        return 0
    from tt_core.data.benchmarks import PROJECT_DIR

    code = Path(args.code) if args.code else PROJECT_DIR
    if not (code / "notebooks").is_dir():
        print(f"tt: error: {code} has no notebooks/ folder; give a workbook checkout with --code", file=sys.stderr)
        return 2
    pyspy = None
    if args.sampler == "py-spy":
        pyspy = _pyspy_executable()
        if pyspy is None:
            print("tt: error: py-spy not found; install it (pip install py-spy) or use --sampler cprofile",
                  file=sys.stderr)
            return 2
    records = profile_notebooks(Path(args.out), code, args.only, args.profile, pyspy)
    (Path(args.out) / "profile.md").write_text(markdown_table(records))
    return 0


if __name__ == "__main__":
    sys.exit(main())
