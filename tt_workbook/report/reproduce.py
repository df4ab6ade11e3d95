"""Run every notebook headlessly with papermill and build an HTML report.

``tt reproduce --profile quick`` executes the notebooks listed in :data:`NOTEBOOKS` (those present)
into a run folder, converts each executed notebook to HTML, and writes ``index.html`` with the status
of each notebook and the "paper vs. this workbook" table collected from ``figures/summary_*.csv``.
A failing notebook is reported by name with its error; the others still run.

Each notebook's kernel is a subprocess that writes its log to the stderr it inherits. At start-up
ipykernel logs "Kernel is running over TCP without encryption" (papermill connects to it over
localhost TCP); :func:`run` routes the kernel's stderr through a filter that drops exactly that line
and passes every other line through unchanged.
"""

from __future__ import annotations

from tt_workbook.runs.profiles import check_profile

import json
import os
import re
import sys
import threading
import time
import traceback
from dataclasses import dataclass
from pathlib import Path


from tt_core.data.benchmarks import PROJECT_DIR
from tt_core.data.io import write_text
from tt_workbook.report import notebook_times
from tt_workbook.report.summary import collect

NOTEBOOK_DIR = PROJECT_DIR / "notebooks"

#: The start-up warning of ipykernel (``IPKernelApp``) for a kernel on TCP without CurveZMQ keys. It is
#: logged by the kernel *subprocess* on its inherited stderr, so neither :mod:`warnings` nor a logger
#: of this process can silence it; :func:`_forward_kernel_stderr` drops the lines it matches.
KERNEL_TCP_WARNING = re.compile(r"Kernel is running over TCP without encryption")


@dataclass(frozen=True)
class NotebookEntry:
    stem: str
    title: str
    reproduces: str
    #: the figure files (under figures/) the report shows as this notebook's thumbnail, first found wins
    figures: tuple[str, ...] = ()


#: Notebooks in running order. Later issues append theirs.
NOTEBOOKS: list[NotebookEntry] = [
    NotebookEntry("00_tour", "A guided tour (teaching)", "the ideas of cost-aware constrained BO, in pictures",
                  ("tour_cea.png", "tour_space.png")),
    NotebookEntry("01_dataset_analysis", "What is in the data", "TrimTuner Table I; why sub-sampling works",
                  ("fig_data_overview.png",)),
    NotebookEntry("02_table2_feasibility", "Feasible configurations", "TrimTuner Table II; thesis Table 7.1",
                  ("fig_table2_cost_accuracy.png",)),
    NotebookEntry("03_fig1_accuracy_vs_cost", "Accuracy_C vs optimisation cost", "TrimTuner Fig. 1",
                  ("fig1_accuracy_vs_cost.png",)),
    NotebookEntry("04_fig2_savings", "Time and cost savings", "TrimTuner Fig. 2",
                  ("fig2b_cost_savings.png", "fig2a_time_savings.png")),
    NotebookEntry("05_fig3_filters", "Filtering heuristics", "TrimTuner Fig. 3", ("fig3_filters.png",)),
    NotebookEntry("06_tables3_4_recommendation_time", "Recommendation time", "TrimTuner Tables III-IV",
                  ("table34_recommendation_time.png",)),
    NotebookEntry("07_fig4_beta", "Sensitivity to beta", "TrimTuner Fig. 4", ("fig4_beta.png",)),
    NotebookEntry("08_nephele_subsampling", "Sub-sampling and deployment cost", "Thesis Tables 6.2-6.4, Figs 6.8-6.9",
                  ("fig6_8_cost_reduction.png", "fig6_9_feasible_per_size.png")),
    NotebookEntry("09_nephele_optimizer", "Nephele vs Lynceus and CherryPick", "Thesis Figs 6.10-6.12",
                  ("fig6_11_rnn.png", "fig6_10_cnn.png")),
    NotebookEntry("10_explorer", "Interactive explorer", "step through one optimisation (scripted when headless)",
                  ("explorer.png",)),
    NotebookEntry("11_your_own_job", "Bring your own job", "the optimisers on a real scikit-learn training job",
                  ("own_job_runs.png", "own_job_grid.png")),
    NotebookEntry("12_spottune_market", "SpotTune's spot market", "SpotTune Table III, Fig. 1; revocation statistics",
                  ("spottune_fig1.png",)),
    NotebookEntry("13_spottune_simulation", "SpotTune vs Single-Spot Tune (simulated)", "SpotTune Figs 7, 8, 9",
                  ("spottune_fig7.png", "spottune_fig8.png")),
    NotebookEntry("14_spottune_earlycurve", "EarlyCurve vs a single-stage fit", "SpotTune Fig. 11; the top-3 claim",
                  ("spottune_fig11.png",)),
    NotebookEntry("15_spottune_revpred", "RevPred vs Tributary's predictor (LSTMs)",
                  "SpotTune Fig. 10: revocation prediction, and SpotTune with each predictor", ("spottune_fig10.png",)),
    NotebookEntry("16_fabulinus_evaluation", "Fabulinus vs FABOLAS, EIc and EI", "Thesis ch. 7, Figs 7.1-7.2",
                  ("thesis_fig7_2_rnn.png", "thesis_fig7_1_cnn.png")),
    NotebookEntry("17_lcdb_outside_data", "TrimTuner's claims on outside data (LCDB)",
                  "TrimTuner Figs 1-4's claims on LCDB learning curves (needs the lcdb extra)", ("lcdb_claims.png",)),
    NotebookEntry("98_discrepancies", "Every difference and its cause",
                  "all paper-vs-workbook rows that do not agree, with their measured causes (run last)"),
]


def available_notebooks(only: list[str] | None = None) -> list[NotebookEntry]:
    """The registered notebooks that exist on disk, optionally filtered by stem prefix (e.g. "02")."""
    entries = [e for e in NOTEBOOKS if (NOTEBOOK_DIR / f"{e.stem}.ipynb").is_file()]
    if only:
        unknown = [o for o in only if not any(e.stem.startswith(o) for e in entries)]
        if unknown:
            raise ValueError(
                f"no notebook matches {unknown}; available: {[e.stem for e in entries]}"
            )
        entries = [e for e in entries if any(e.stem.startswith(o) for o in only)]
    return entries


@dataclass
class NotebookResult:
    entry: NotebookEntry
    ok: bool
    seconds: float
    error: str = ""
    #: CPU seconds of the notebook's kernel and the processes it waited for (getrusage of children)
    cpu_seconds: float = float("nan")


def _children_cpu() -> float:
    import resource

    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def default_timeout(profile: str) -> int | None:
    """Seconds one cell may run: an hour in the quick and smoke settings (a hung kernel fails there), none
    in the paper profile, where one cell computes a whole grid (thesis ch. 7: 80 runs of 100 tests)."""
    return None if check_profile(profile) == "paper" else 3600


def run(
    profile: str = "quick",
    out_dir: str | Path | None = None,
    figures_dir: str | Path | None = None,
    only: list[str] | None = None,
    smoke: bool = False,
    progress: bool = True,
    timeout: int | None = 3600,
    runs_dir: str | Path | None = None,
    plan_time: tuple[float, float] | None = None,
) -> tuple[Path, list[NotebookResult]]:
    """Execute the notebooks with papermill and write the HTML report.

    Parameters
    ----------
    profile : {"quick", "paper"}
        Passed to every notebook as the ``profile`` parameter.
    out_dir : path, optional
        Run folder (default ``reports/<profile>``); executed notebooks and HTML go there.
    figures_dir : path, optional
        Where notebooks save figures and tables (default: the workbook's ``figures/``).
    only : list of str, optional
        Notebook stem prefixes to run (e.g. ``["02", "08"]``).
    smoke : bool
        Passed to the notebooks: tiny settings for CI.
    progress : bool
        Print one line with the expected time and show a progress bar (stderr) that counts each notebook's
        expected seconds (:mod:`tt_workbook.report.notebook_times`: this folder's earlier ``status.json``,
        else the shipped table of measured times, else the median of the others; none for ``smoke``
        runs but the earlier ones) and an ETA scaled by the pace of the notebooks done so far. A notebook
        whose optimiser runs are already stored finishes far faster than its measured time; the pace
        absorbs part of that. ``False``: nothing is printed.
    timeout : int or None
        Seconds one cell may run (papermill's per-cell limit); None: no limit. ``tt reproduce`` passes
        :func:`default_timeout` of the profile.
    runs_dir : path, optional
        The run store, passed to the notebooks that declare a ``runs_dir`` parameter (default: theirs, ``runs/``).
    plan_time : (wall, cpu) seconds, optional
        How long computing the plan's runs took before the notebooks (``tt reproduce``); kept in ``report.json``.

    Returns
    -------
    (index_html_path, results)
    """
    import papermill as pm
    from tqdm.auto import tqdm

    check_profile(profile)
    out = Path(out_dir) if out_dir else PROJECT_DIR / "reports" / profile
    figs = Path(figures_dir) if figures_dir else PROJECT_DIR / "figures"
    entries = available_notebooks(only)  # an unknown --only is refused before any folder is created
    if not entries:
        raise ValueError(f"no notebooks found in {NOTEBOOK_DIR}")
    out.mkdir(parents=True, exist_ok=True)
    figs.mkdir(parents=True, exist_ok=True)

    expected = notebook_times.expected_seconds(
        [e.stem for e in entries], notebook_times.table_times(notebook_times.read_table(), "smoke" if smoke else profile),
        notebook_times.earlier_times(out, profile))
    seconds = [e.seconds for e in expected]
    results: list[NotebookResult] = []
    if progress:
        tqdm.write(notebook_times.start_line(expected))
    bar = tqdm(total=sum(seconds) or 1.0, desc=f"reproduce ({profile})", disable=not progress,
               bar_format="{desc}: {percentage:3.0f}%|{bar}| [{elapsed}{postfix}]")
    ticker = _EtaTicker(bar, entries, seconds) if progress else None
    try:
        for i, entry in enumerate(entries):
            if ticker:
                ticker.start_notebook(i)
            executed = out / f"{entry.stem}.ipynb"
            t0, c0 = time.perf_counter(), _children_cpu()
            try:
                source = NOTEBOOK_DIR / f"{entry.stem}.ipynb"
                # relative to the notebooks' folder (papermill's cwd): the executed notebook and its page then show
                # no absolute path of the machine that ran it
                offered = {"profile": profile, "smoke": smoke, "figures_dir": _relative_to_notebooks(figs),
                           **({"runs_dir": _relative_to_notebooks(Path(runs_dir))} if runs_dir is not None else {})}
                declared = pm.inspect_notebook(str(source))  # pass only what the notebook's parameters cell declares
                pm.execute_notebook(
                    str(source), str(executed),
                    parameters={k: v for k, v in offered.items() if k in declared},
                    cwd=str(NOTEBOOK_DIR), progress_bar=False, execution_timeout=timeout,
                    kernel_manager_class=_filtered_kernel_manager_class(),
                )
                results.append(NotebookResult(entry, True, time.perf_counter() - t0, cpu_seconds=_children_cpu() - c0))
            except Exception as exc:  # a failing notebook must not stop the others
                msg = _short_error(exc)
                results.append(NotebookResult(entry, False, time.perf_counter() - t0, msg, _children_cpu() - c0))
                bar.write(f"FAILED {entry.stem}: {msg.splitlines()[0] if msg else type(exc).__name__}")
            if executed.is_file():
                _relative_papermill_paths(executed)
                _to_html(executed, f"{entry.stem[:2]} {entry.title}" if entry.stem[:2].isdigit() else entry.title)
            # after every notebook, so a run killed half-way keeps the record of what it finished
            write_status(out, merge_earlier(out, results))
            if ticker:
                ticker.finish_notebook(results[-1].seconds)
    finally:  # also when a notebook is interrupted (Ctrl-C): no refresher left behind
        if ticker:
            ticker.stop()
        bar.close()
    index = write_report(out, figs, merge_earlier(out, results), profile, plan_time)
    return index, results


class _EtaTicker:
    """The bar's postfix: notebooks done, the running notebook and the ETA of
    :func:`tt_workbook.report.notebook_times.eta`, refreshed every few seconds by a daemon thread while a
    notebook runs (the bar itself advances by each notebook's expected seconds when it finishes)."""

    def __init__(self, bar, entries: list[NotebookEntry], expected: list[float], every: float = 5.0):
        self.bar, self.entries, self.expected, self.every = bar, entries, expected, every
        self.actual: list[float] = []
        self.index, self.t0 = 0, time.perf_counter()
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True, name="reproduce-eta")
        self.thread.start()

    def start_notebook(self, i: int) -> None:
        with self.lock:
            self.index, self.t0 = i, time.perf_counter()
        self.refresh()

    def finish_notebook(self, seconds: float) -> None:
        with self.lock:
            self.actual.append(seconds)
            self.t0 = time.perf_counter()
            self._postfix(refresh=False)
            self.bar.update(self.expected[len(self.actual) - 1])

    def refresh(self) -> None:
        with self.lock:
            self._postfix(refresh=True)

    def _postfix(self, refresh: bool) -> None:
        k = len(self.actual)
        pace, left = notebook_times.eta(self.expected, self.actual, time.perf_counter() - self.t0)
        stem = self.entries[k].stem if k < len(self.entries) else "done"
        self.bar.set_postfix_str(f"{k}/{len(self.entries)} notebooks, {stem}, {notebook_times.eta_text(pace, left, k, len(self.entries))}",
                                 refresh=refresh)

    def _loop(self) -> None:
        while not self.done.wait(self.every):
            self.refresh()

    def stop(self) -> None:
        self.done.set()
        self.thread.join(timeout=self.every + 1)


def write_status(out: Path, results: list[NotebookResult]) -> None:
    """``status.json``: each notebook's outcome, wall and CPU seconds and error (written atomically)."""
    write_text(out / "status.json", json.dumps(
        [{"notebook": r.entry.stem, "ok": r.ok, "seconds": round(r.seconds, 2), "cpu_seconds": round(r.cpu_seconds, 2),
          "error": r.error} for r in results],
        indent=2))


def merge_earlier(out: Path, results: list[NotebookResult]) -> list[NotebookResult]:
    """``results`` plus the notebooks an earlier ``tt reproduce`` into the same folder ran and this one did
    not (read from its ``status.json``, kept only where the executed notebook is still there), in running
    order. A notebook run again replaces its earlier entry (never counted twice), so a long profile can be
    run in parts (``--only``) and the report lists every part. An earlier entry that is malformed (``ok`` not
    true or false, ``seconds`` not a number >= 0, ...) is left out with a warning naming it: the new results
    are never lost to it."""
    import math
    import warnings

    earlier = notebook_times.read_status(out / "status.json")
    now = {r.entry.stem for r in results}
    by_stem = {e.stem: e for e in NOTEBOOKS}
    kept, bad = [], []
    for d in earlier:
        stem = d.get("notebook")
        if stem not in by_stem or stem in now or not (out / f"{stem}.ipynb").is_file():
            continue
        seconds, cpu, error = d.get("seconds"), d.get("cpu_seconds", float("nan")), d.get("error") or ""
        numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (seconds, cpu))
        if not (isinstance(d.get("ok"), bool) and numbers and math.isfinite(seconds) and seconds >= 0
                and isinstance(error, str)):
            bad.append(d)
            continue
        kept.append(NotebookResult(by_stem[stem], d["ok"], float(seconds), error, float(cpu)))
    if bad:  # kept aside, so that the status.json written next (without them) loses nothing unseen
        aside = out / "status.json.malformed"
        write_text(aside, json.dumps(bad, indent=2, default=str))
        warnings.warn(f"{out / 'status.json'}: the earlier entries of {', '.join(d['notebook'] for d in bad)} are "
                      "malformed (ok must be true or false, seconds a number >= 0, cpu_seconds a number, error text); "
                      f"left out and kept aside in {aside}; run those notebooks again (tt reproduce --only ...) to "
                      "record them", stacklevel=2)
    order = {e.stem: i for i, e in enumerate(NOTEBOOKS)}
    return sorted(results + kept, key=lambda r: order[r.entry.stem])


def _forward_kernel_stderr(read_fd: int, drop: re.Pattern = KERNEL_TCP_WARNING) -> None:
    """Copy a kernel's stderr (read end of a pipe) to ``sys.stderr`` line by line, except the lines
    matching ``drop``; returns at end of file (when the kernel has exited)."""
    with open(read_fd, "rb", closefd=True) as pipe:
        for raw in pipe:
            line = raw.decode("utf-8", errors="replace")
            if drop.search(line):
                continue
            sys.stderr.write(line)
            sys.stderr.flush()


def _filtered_kernel_manager_class():
    """An ``AsyncKernelManager`` (the nbclient default) whose kernel's stderr goes through
    :func:`_forward_kernel_stderr`; passed to papermill as ``kernel_manager_class``."""
    from jupyter_client import AsyncKernelManager

    class FilteredStderrKernelManager(AsyncKernelManager):
        async def start_kernel(self, **kw):
            read_fd, write_fd = os.pipe()
            kw["stderr"] = write_fd          # Popen keyword of the kernel subprocess
            try:
                await super().start_kernel(**kw)
            except BaseException:
                os.close(read_fd)
                raise
            finally:
                os.close(write_fd)           # the kernel holds its own copy
                if isinstance(self._launch_args, dict):
                    # a restart re-launches with these arguments: let it inherit stderr, not a closed fd
                    self._launch_args.pop("stderr", None)
            threading.Thread(target=_forward_kernel_stderr, args=(read_fd,), daemon=True,
                             name="kernel-stderr").start()

    return FilteredStderrKernelManager


def _short_error(exc: Exception) -> str:
    ename = getattr(exc, "ename", None)
    evalue = getattr(exc, "evalue", None)
    if ename:
        return f"{ename}: {evalue}"
    return "".join(traceback.format_exception_only(type(exc), exc)).strip()


def _relative_to_notebooks(folder: Path) -> str:
    """``folder`` as the notebooks see it from their own folder (a relative path when one exists)."""
    try:
        return os.path.relpath(Path(folder).resolve(), NOTEBOOK_DIR.resolve())
    except ValueError:  # another drive (Windows): no relative path exists
        return str(Path(folder).resolve())


def _relative_papermill_paths(executed: Path) -> None:
    """papermill records the input and output paths it was given in the notebook's metadata: keep them
    relative to the project (or the bare file name), not the machine's absolute folders."""
    import nbformat

    try:
        nb = nbformat.read(executed, as_version=4)
    except (OSError, ValueError):
        return
    meta = nb.metadata.get("papermill", {})
    changed = False
    for key in ("input_path", "output_path"):
        value = meta.get(key)
        if isinstance(value, str) and os.path.isabs(value):
            path = Path(value)
            try:
                meta[key] = str(path.resolve().relative_to(PROJECT_DIR.resolve()))
            except ValueError:
                meta[key] = path.name
            changed = True
    if changed:
        write_text(executed, nbformat.writes(nb))


def _to_html(executed: Path, title: str | None = None) -> Path | None:
    """The executed notebook as an offline HTML page (see :mod:`tt_workbook.report.notebook_html`) titled
    ``title``, with a link back to the report, and the project's folder left out of its outputs."""
    from tt_workbook.report.notebook_html import notebook_to_html

    try:
        return notebook_to_html(executed, title=title, back_link="index.html", hide_prefix=str(PROJECT_DIR))
    except Exception as exc:  # the report still links the .ipynb
        print(f"warning: {executed.name} could not be converted to HTML ({type(exc).__name__}: {exc}); "
              "the report links the .ipynb", file=sys.stderr)
        return None


def provenance(plan_time: tuple[float, float] | None = None) -> dict:
    """What made a report: the UTC time it was written, the code (the git commit when the workbook is a git
    checkout, whether tracked files differ from it, and the sha256 of the three packages' sources that stored runs
    carry, :func:`tt_workbook.runs.store.code_hash`), the results version of the numerics and, when given, the
    plan's wall and CPU seconds."""
    import datetime
    import subprocess

    from tt_core import RESULTS_VERSION
    from tt_workbook.runs.store import code_hash

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(["git", "-C", str(PROJECT_DIR), *args], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    changed = git("status", "--porcelain", "--untracked-files=no") if commit else None
    out = {"written": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "commit": commit, "commit_modified": bool(changed) if changed is not None else None,
           "sources": code_hash(), "results_version": RESULTS_VERSION}
    if plan_time is not None:
        out["plan_seconds"], out["plan_cpu_seconds"] = round(plan_time[0], 1), round(plan_time[1], 1)
    return out


def write_report(out: Path, figs: Path, results: list[NotebookResult], profile: str,
                 plan_time: tuple[float, float] | None = None) -> Path:
    """Write ``index.html`` (see :mod:`tt_workbook.report.report`), ``summary.csv``, ``status.json`` and
    ``report.json`` (the profile, the notebooks run and not run, and :func:`provenance`)."""
    from tt_core.data.io import write_csv
    from tt_workbook.runs.profiles import settings
    from tt_workbook.report.report import ReportNotebook, write_index

    summary = collect(figs, skip_bad=True)  # a stray malformed summary_*.csv costs its rows, not the report
    ran = {r.entry.stem for r in results}
    if "notebook" in summary.columns:  # rows of notebooks this report ran (figures/ may hold others')
        summary = summary[summary["notebook"].isin(ran)].reset_index(drop=True)
    not_run = [(e.stem, e.title) for e in available_notebooks() if e.stem not in ran]
    write_csv(summary, out / "summary.csv")
    write_status(out, results)
    write_text(out / "report.json", json.dumps({"profile": profile, "notebooks_run": sorted(ran),
                                                "notebooks_not_run": [s for s, _ in not_run],
                                                **provenance(plan_time)}, indent=2))
    notebooks = [ReportNotebook(r.entry.stem, r.entry.title, r.entry.reproduces, r.ok, r.seconds, r.error,
                                r.entry.figures, r.cpu_seconds) for r in results]
    seeds = len(settings(profile, "fig1")["seeds"])
    note = ("" if profile == "paper" else
            f"The {profile} profile cuts seeds and iterations ({seeds} seeds per method in Figs 1-2, where the paper "
            "used 10): each notebook prints its settings beside the paper's.")
    return write_index(out, figs, notebooks, summary, profile, settings_note=note, not_run=not_run)
