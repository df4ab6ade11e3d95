"""Profile notebooks: CPU seconds of each and its top functions, with every run computed afresh.

``python -m tt_core.reporting.notebook_profile --out DIR [--code ROOT] [--only 09 16]`` executes the
notebooks of :data:`tt_core.reporting.reproduce.NOTEBOOKS` (those present in ``ROOT/notebooks``, default
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


def _is_own(filename: str) -> bool:
    return f"{os.sep}tt_core{os.sep}" in filename and "notebook_profile" not in filename


def _name(func: tuple) -> str:
    filename, line, name = func
    if filename == "~":  # a built-in
        return name
    parts = Path(filename).parts
    short = "/".join(parts[parts.index("tt_core"):]) if "tt_core" in parts else "/".join(parts[-2:])
    return f"{short}:{line}({name})"


def top_functions(rows: list, n: int = TOP) -> dict:
    """From profile rows ``[file, line, function, calls, own s, cumulative s]``: the ``n`` functions with the
    most cumulative CPU time among the workbook's own (``tt_core``) functions, and the ``n`` with the most
    own time (``tottime``) among all functions, each as ``{"function", "calls", "tottime_s", "cumtime_s"}``;
    and ``profiled_s``, the sum of the own times (the profile's total)."""
    out = [{"function": _name((f, line, name)), "calls": int(nc), "tottime_s": round(float(tt), 3),
            "cumtime_s": round(float(ct), 3)} for f, line, name, nc, tt, ct in rows]
    own = [r for r, row in zip(out, rows) if _is_own(row[0])]
    return {"profiled_s": round(sum(float(r[4]) for r in rows), 3),
            "top_cumulative": sorted(own, key=lambda r: -r["cumtime_s"])[:n],
            "top_tottime": sorted(out, key=lambda r: -r["tottime_s"])[:n]}


def _instrument(source: Path, target: Path, result: Path) -> None:
    import nbformat

    nb = nbformat.read(str(source), as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell(_START))
    nb.cells.append(nbformat.v4.new_code_cell(_STOP.format(path=str(result))))
    nbformat.write(nb, str(target))


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def profile_notebooks(out: Path, code: Path, only: list[str] | None = None, profile: str = "quick") -> list[dict]:
    """Profile the notebooks of ``code`` (a workbook checkout) into ``out``; return one record per notebook."""
    import papermill as pm

    from tt_core.reporting.reproduce import NOTEBOOKS

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
            _instrument(source, instrumented, result)
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
                record.update({k: round(raw[k], 1) for k in ("kernel_cpu_s", "children_cpu_s")},
                              **top_functions(raw["rows"]))
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
    from tt_core.reporting.reproduce import NOTEBOOKS

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


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tt_core.reporting.notebook_profile",
                                description="Profile the workbook's notebooks (CPU seconds, top functions).")
    p.add_argument("--out", required=True, help="folder for the throwaway runs, figures and the results")
    p.add_argument("--code", default=None, help="workbook checkout whose notebooks and tt_core run (default: this one)")
    p.add_argument("--only", nargs="*", default=None, help="notebook prefixes, e.g. 09 16")
    p.add_argument("--profile", default="quick", choices=["quick", "paper"])
    p.add_argument("--table", action="store_true",
                   help="only write DIR/profile.md from the notebooks' results already in DIR")
    args = p.parse_args(argv)
    if args.table:
        (Path(args.out) / "profile.md").write_text(markdown_table(read_results(Path(args.out))))
        return 0
    from tt_core.data.benchmarks import PROJECT_DIR

    code = Path(args.code) if args.code else PROJECT_DIR
    if not (code / "notebooks").is_dir():
        print(f"tt: error: {code} has no notebooks/ folder; give a workbook checkout with --code", file=sys.stderr)
        return 2
    records = profile_notebooks(Path(args.out), code, args.only, args.profile)
    (Path(args.out) / "profile.md").write_text(markdown_table(records))
    return 0


if __name__ == "__main__":
    sys.exit(main())
