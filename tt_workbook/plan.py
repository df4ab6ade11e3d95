"""One plan: every optimiser run the notebooks of a profile read, declared by the studies and computed first.

Each notebook that reads stored runs calls a function of its study that returns exactly the runs it asks
for (``notebook_NN_runs(profile, smoke)`` in ``tt_workbook/studies/<study>/plan.py``, the tour's in
:mod:`tt_workbook.apps.tour`); :data:`NOTEBOOK_RUNS` lists them. :func:`notebook_runs` gathers them per
notebook, :func:`unique_runs` merges them (a run two notebooks read is computed once), :func:`compute`
computes them into the run store with one pool (longest first, :func:`tt_workbook.runs.store.run_grid`) and
:func:`summary` estimates them (``tt plan``; :mod:`tt_workbook.runs.estimate`). ``tt reproduce`` computes
the plan, then runs the notebooks with :data:`~tt_workbook.runs.store.PLAN_STRICT` set, so that a notebook
asking for a run outside the plan fails instead of computing it.

What the notebooks compute without the run store is not in the plan: the alpha_T and EIc/USD traces of
notebook 03, the timing tables of notebooks 06 and 09, SpotTune's study tables (notebooks 12-15).
"""

from __future__ import annotations

import heapq
import sys

from tt_workbook.apps.tour import notebook_00_runs
from tt_workbook.runs.profiles import check_profile
from tt_workbook.studies.fabulinus.plan import notebook_16_runs
from tt_workbook.studies.fig1_fig2.plan import notebook_03_runs, notebook_04_runs
from tt_workbook.studies.filters_beta.plan import notebook_05_runs, notebook_07_runs
from tt_workbook.studies.nephele.plan import notebook_09_runs
from tt_workbook.studies.outside_data.plan import notebook_17_runs

__all__ = ["NOTEBOOK_RUNS", "notebook_runs", "unique_runs", "compute", "summary", "format_summary",
           "list_scheduled_wall"]

#: Notebook prefix -> the function giving the runs it reads, ``f(profile, smoke)``.
NOTEBOOK_RUNS = {"00": notebook_00_runs, "03": notebook_03_runs, "04": notebook_04_runs, "05": notebook_05_runs,
                 "07": notebook_07_runs, "09": notebook_09_runs, "16": notebook_16_runs, "17": notebook_17_runs}


def _selected(prefix: str, only) -> bool:
    return not only or any(prefix.startswith(o) or o.startswith(prefix) for o in only)


def notebook_runs(profile: str, smoke: bool = False, only=None, convert: bool = True) -> dict[str, list]:
    """``{notebook prefix: runs}`` of the notebooks selected by ``only`` (stem prefixes, as ``tt reproduce --only``;
    None: all). ``convert=False``: notebook 17's LCDB files are named, not written."""
    check_profile(profile)
    out = {}
    for prefix, runs_of in NOTEBOOK_RUNS.items():
        if _selected(prefix, only):
            out[prefix] = notebook_17_runs(profile, smoke, convert=convert) if prefix == "17" else runs_of(profile, smoke)
    return out


def unique_runs(plan: dict[str, list]) -> list:
    """Every run of ``plan`` once, in the order the notebooks first ask for it."""
    return list(dict.fromkeys(s for specs in plan.values() for s in specs))


def _without_unavailable_authors_code(specs: list, say) -> list:
    """``specs`` without the runs of the authors' code when the code is not on this machine or its environment
    cannot be made (the notebooks then skip them too, saying why)."""
    if not any(s.optimizer == "authors-dt" for s in specs):
        return specs
    from tt_workbook.authors import oracle

    try:
        oracle.ensure_available()
    except oracle.AuthorsError as exc:
        left = [s for s in specs if s.optimizer != "authors-dt"]
        say(f"tt: plan: the {len(specs) - len(left)} runs of the authors' code are left out: {exc}")
        return left
    return specs


def compute(plan: dict[str, list], runs_dir, n_jobs: int = 1, backend: str = "loky", scheduler: str | None = None,
            progress: bool = True, say=None) -> dict:
    """Compute every run of ``plan`` missing from the store ``runs_dir`` in one pool (longest first, ETA on the
    bar: :func:`tt_workbook.runs.store.run_grid`); return run_grid's counts (``computed``, ``reused``, ``waited``)."""
    from tt_workbook.runs.store import run_grid

    say = say or (lambda line: print(line, file=sys.stderr, flush=True))
    specs = _without_unavailable_authors_code(unique_runs(plan), say)
    stats: dict = {"computed": 0, "reused": 0, "waited": 0}
    if specs:
        run_grid(specs, runs_dir, n_jobs=n_jobs, backend=backend, scheduler=scheduler, progress=progress, stats=stats)
    return stats


def list_scheduled_wall(seconds, workers: int) -> float:
    """Wall seconds of runs taking ``seconds`` each on ``workers`` workers, each run started, longest first, on
    the first worker free (the order :func:`tt_workbook.runs.schedule.longest_first` gives a grid).

    Examples
    --------
    >>> list_scheduled_wall([5, 4, 3, 3, 3], 2)   # 5+3 on one worker, 4+3+3 on the other
    10.0
    >>> list_scheduled_wall([10, 1, 1], 4)        # the longest run bounds any number of workers
    10.0
    """
    free = [0.0] * max(1, int(workers))
    for s in sorted((float(x) for x in seconds), reverse=True):
        heapq.heapreplace(free, free[0] + s)
    return max(free)


def _status(spec, runs_dir) -> str:
    from tt_workbook.runs.store import StoreError, stored_status

    try:
        return stored_status(spec, runs_dir)
    except (StoreError, OSError):  # e.g. notebook 17's data file not converted yet: nothing stored to read
        return "missing"


def summary(plan: dict[str, list], runs_dir, workers: int = 2) -> tuple[list[dict], dict]:
    """Per notebook and in all, what the plan holds and what computing it would take; nothing is computed.

    Returns
    -------
    rows : list of dict
        One per notebook: ``notebook``, ``runs``, ``optimizers`` and ``benchmarks`` (distinct, in order),
        ``stored`` (valid in ``runs_dir``), ``to_compute``, ``shared`` (runs an earlier notebook of the plan asks
        for too), ``cpu_s`` (estimated CPU seconds of its runs to compute) and ``unestimated`` (runs to
        compute without a measured time).
    totals : dict
        The same over the plan's distinct runs, with ``longest_s`` (the longest run to compute: no number of
        workers finishes sooner), ``workers`` and ``wall_s`` (list-scheduled, longest first, on ``workers``;
        by the measured per-run CPU times, so on an idle machine like the one that measured them), and
        ``pace_wall_s`` (the same at this machine's pace measured on its stored runs; None without one).
    """
    from tt_workbook.runs.estimate import estimate

    specs = unique_runs(plan)
    status = {s: _status(s, runs_dir) for s in specs}
    todo = [s for s in specs if status[s] != "valid"]
    est = estimate(todo, runs_dir)
    seconds = dict(zip(todo, est.per_run))
    rows, seen = [], set()
    for nb, nb_specs in plan.items():
        mine = list(dict.fromkeys(nb_specs))
        nb_todo = [s for s in mine if status[s] != "valid"]
        rows.append({"notebook": nb, "runs": len(mine),
                     "optimizers": list(dict.fromkeys(s.optimizer for s in mine)),
                     "benchmarks": list(dict.fromkeys(s.benchmark_label for s in mine)),
                     "stored": len(mine) - len(nb_todo), "to_compute": len(nb_todo),
                     "shared": sum(s in seen for s in mine),
                     "cpu_s": round(sum(seconds[s] or 0.0 for s in nb_todo), 1),
                     "unestimated": sum(seconds[s] is None for s in nb_todo)})
        seen.update(mine)
    known = [v for v in est.per_run if v is not None]
    wall = list_scheduled_wall(known, workers) if known else 0.0
    pace = est.wall_s / est.cpu_s if est.wall_s is not None and est.cpu_s > 0 else None
    totals = {"runs": len(specs), "stored": len(specs) - len(todo), "to_compute": len(todo),
              "cpu_s": round(est.cpu_s, 1), "unestimated": est.unknown, "longest_s": round(max(known, default=0.0), 1),
              "workers": int(workers), "wall_s": round(wall, 1),
              "pace_wall_s": round(wall * pace, 1) if pace is not None else None}
    return rows, totals


def format_summary(rows: list[dict], totals: dict, profile: str, runs_dir) -> str:
    """:func:`summary` as a table and two lines."""
    from tt_workbook.runs.estimate import cpu_text, wall_text

    head = f"{'notebook':<9}{'runs':>6}{'stored':>8}{'to do':>7}{'shared':>8}{'CPU':>14}  optimizers on benchmarks"
    lines = [f"plan of the {profile} profile (runs store {runs_dir}):", head]
    for r in rows:
        cpu = cpu_text(r["cpu_s"]) + ("+" if r["unestimated"] else "")
        on = ", ".join(r["benchmarks"]) if len(r["benchmarks"]) <= 3 else f"{len(r['benchmarks'])} data sets"
        lines.append(f"{r['notebook']:<9}{r['runs']:>6}{r['stored']:>8}{r['to_compute']:>7}{r['shared']:>8}{cpu:>14}  "
                     f"{len(r['optimizers'])} ({', '.join(r['optimizers'])}) on {on}")
    t = totals
    unest = f"; {t['unestimated']} runs without a measured time, not counted" if t["unestimated"] else ""
    lines.append("(runs: what the notebook reads; shared: read by an earlier notebook too; CPU: of its runs to compute, "
                 "+: some without a measured time)")
    lines.append(f"all: {t['runs']} distinct runs, {t['stored']} stored, {t['to_compute']} to compute: about "
                 f"{cpu_text(t['cpu_s'])} by measured per-run times{unest}")
    if t["to_compute"]:
        here = f"; at this machine's pace so far, {wall_text(t['pace_wall_s'])}" if t["pace_wall_s"] is not None else ""
        lines.append(f"wall on {t['workers']} workers, longest first: about {wall_text(t['wall_s'])}{here} "
                     f"(the longest run, {wall_text(t['longest_s'])}, bounds any cluster)")
    return "\n".join(lines)

