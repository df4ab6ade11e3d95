"""Experiment runner: grids of benchmarks x optimisers x seeds, stored one file per run.

Each run is written atomically to ``<runs_dir>/<benchmark>/<optimizer>[-<filter>-b<beta>]/seed<k>.parquet``
with its metadata (package versions, parameters, seed, wall time) in the parquet schema, so an
interrupted grid resumes where it stopped: runs whose file exists are skipped.

Parallelism: ``backend="loky"`` (joblib processes on this machine, default), ``"sequential"``, or
``"dask"`` (joblib's Dask backend on a ``dask.distributed`` cluster: pass ``scheduler=<address>`` of a
running cluster, or nothing to start a local one).
"""

from __future__ import annotations

import functools
import json
import os
import platform
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import pandas as pd

from tt_core.data import entries
from tt_core.data.benchmarks import PROJECT_DIR
from tt_core.data.io import atomic_path
from tt_core.data.io import shown
from tt_core.data.paper_defaults import CEA_BETA, TESTS_PER_RUN
from tt_core.data.seeds import check_seed

DEFAULT_RUNS_DIR = PROJECT_DIR / "runs"


def _authors_code():
    from tt_workbook.authors import oracle

    return oracle


#: Optimisers that tt_core's registry does not build, run by other code: name -> a function giving the module
#: that runs them, which has ``default_beta(spec)``, ``check_spec(spec)`` and ``replay(spec)`` (a replay with
#: ``run(iterations)``). ``authors-dt``: the TrimTuner authors' public code (:mod:`tt_workbook.authors.oracle`).
EXTERNAL_RUNNERS = {"authors-dt": _authors_code}


def external_runner(optimizer: str):
    """The module that runs ``optimizer`` when tt_core's registry does not (:data:`EXTERNAL_RUNNERS`), else None."""
    find = EXTERNAL_RUNNERS.get(optimizer)
    return find() if find is not None else None


@dataclass(frozen=True)
class RunSpec:
    """One optimisation run of any registered optimiser (see :func:`tt_core.replay.driver.run_optimization`)."""

    benchmark: str
    optimizer: str
    seed: int
    iterations: int | None = TESTS_PER_RUN   # None: until the exploration budget is spent
    beta: float | None = None
    filter: str | None = None
    max_cost: float | None = None
    max_time: float | None = None
    min_accuracy: float | None = None
    budget: float | None = None
    objective: str | None = None   # random search only: "accuracy" (default) or "cost"
    options: tuple = field(default_factory=tuple)  # extra optimiser keyword arguments as (key, value) pairs

    def __post_init__(self):
        from tt_core.optimizers.registry import objective_of

        from tt_core.optimizers.registry import spec

        runner = external_runner(self.optimizer)
        if runner is not None:  # an optimiser run by other code: its module completes and checks the spec
            if self.beta is None:
                object.__setattr__(self, "beta", runner.default_beta(self))
            return runner.check_spec(self)
        objective_of(self.optimizer, self.objective)  # unknown optimiser or objective: a clear error now
        if self.beta is None and spec(self.optimizer).family == "model-based":
            object.__setattr__(self, "beta", CEA_BETA)  # the paper's filter fraction, stored explicitly
        object.__setattr__(self, "seed", check_seed(self.seed))

    @property
    def variant(self) -> str:
        """Folder name of the optimiser variant (settings only when they differ from the default)."""
        parts = [self.optimizer]
        if self.objective == "cost" and self.optimizer == "random":
            parts.append("mincost")
        if self.filter is not None:
            parts.append(self.filter)
        if self.beta is not None and self.beta != CEA_BETA:
            parts.append(f"b{self.beta:g}")
        parts += [f"{k}{v}" for k, v in self.options]
        if self.max_cost is not None:
            parts.append(f"c{self.max_cost:g}")
        if self.max_time is not None:
            parts.append(f"t{self.max_time:g}")
        if self.min_accuracy is not None:
            parts.append(f"a{self.min_accuracy:g}")
        if self.budget is not None:
            parts.append(f"B{self.budget:g}")
        if self.iterations is not None and self.iterations != TESTS_PER_RUN:
            parts.append(f"it{self.iterations}")
        return "-".join(parts)

    @property
    def label(self) -> str:
        """A readable name for progress bars: network, optimiser, a filter or beta that is not the
        default, seed (e.g. ``"rnn trimtuner-dt beta 0.01 seed 3"``); method options are left out."""
        parts = [self.benchmark_label, self.optimizer]
        if self.objective == "cost" and self.optimizer == "random":
            parts.append("(min cost)")
        if self.filter is not None:
            parts.append(f"filter {self.filter}")
        if self.beta is not None and self.beta != CEA_BETA:
            parts.append(f"beta {self.beta:g}")
        return " ".join(parts) + f" seed {self.seed}"

    @property
    def benchmark_label(self) -> str:
        """Folder name of the benchmark: a registered name, or a file path's stem (``<stem>-file`` when the
        stem is a registered name, so that ``./rnn`` never shares the registered RNN's folder)."""
        from tt_core.data.benchmarks import REGISTRY

        b = str(self.benchmark)
        if "/" in b or b.endswith(".csv"):
            stem = Path(b).stem
            return f"{stem}-file" if stem.lower() in REGISTRY else stem
        return b

    def path(self, runs_dir: str | Path) -> Path:
        return Path(runs_dir) / self.benchmark_label / self.variant / f"seed{self.seed}.parquet"

    def replay(self):
        """A fresh :class:`tt_core.replay.driver.Replay` of this run."""
        from tt_core.replay.driver import Replay

        runner = external_runner(self.optimizer)
        if runner is not None:
            return runner.replay(self)
        return Replay.from_benchmark(
            self.benchmark, self.optimizer, seed=self.seed, beta=self.beta, filter=self.filter,
            max_cost=self.max_cost, max_time=self.max_time, min_accuracy=self.min_accuracy, budget=self.budget,
            objective=self.objective, **dict(self.options))

    def run(self) -> pd.DataFrame:
        """Replay this run (nothing is stored)."""
        return self.replay().run(self.iterations)


def profile_specs(profile: str, smoke: bool = False, **overrides) -> list[RunSpec]:
    """The Fig. 1-2 runs of a profile (:mod:`tt_workbook.runs.profiles`); overrides apply to every run."""
    from tt_workbook.runs.profiles import settings

    p = settings(profile, "fig1", smoke)
    kw = {"iterations": p["iterations"], **overrides}
    return grid(p["benchmarks"], p["optimizers"], p["seeds"], **kw)


def fabulinus_specs(profile: str, smoke: bool = False, **overrides) -> list[RunSpec]:
    """The thesis ch. 7 runs of a profile (Figs 7.1-7.2): networks x optimisers x seeds.

    Every optimiser gets the profile's ``n_init`` initial configurations (the same ones for one seed)
    and the options of :data:`tt_workbook.runs.profiles.FABULINUS_OPTIONS`; Fabulinus' own settings
    are its registry defaults (its folder name says only what the profile changes).
    """
    from tt_workbook.runs.profiles import FABULINUS_N_INIT, FABULINUS_OPTIONS, settings

    p = settings(profile, "fabulinus", smoke)
    specs = []
    for o in p["optimizers"]:
        opts = dict(FABULINUS_OPTIONS[o])
        if p["n_init"] != FABULINUS_N_INIT:
            opts["n_init"] = p["n_init"]
        kw = {"iterations": p["iterations"], "options": tuple(sorted(opts.items())), **overrides}
        specs += [RunSpec(b, o, int(s), **kw) for b in p["benchmarks"] for s in p["seeds"]]
    return specs


def grid(benchmarks, optimizers, seeds, **kwargs) -> list[RunSpec]:
    """The full cross product of benchmarks x optimisers x seeds."""
    return [RunSpec(b, o, int(s), **kwargs) for b in benchmarks for o in optimizers for s in seeds]


def cost_grid(benchmarks, optimizers, seeds, horizons=(0,), budget=None, options=None, **kwargs) -> list[RunSpec]:
    """Runs of the thesis' cost-minimising study (Nephele and its baselines, until the budget is spent).

    Every benchmark x optimiser x seed, and x horizon for Nephele/Lynceus (the baselines have none);
    random search minimises the cost (all sizes, thesis §6.1). ``budget`` may be a number or a mapping
    benchmark -> USD; ``options`` (a dict) go to Nephele, Lynceus and CherryPick.
    """
    opts = tuple(sorted(dict(options or {}).items()))
    specs = []
    for b in benchmarks:
        B = budget.get(b) if isinstance(budget, dict) else budget
        for o in optimizers:
            hs = horizons if o in ("nephele", "lynceus") else (0,)
            for h in hs:
                extra = opts if o != "random" else ()
                if h:
                    extra = tuple(sorted({**dict(extra), "horizon": int(h)}.items()))
                for s in seeds:
                    specs.append(RunSpec(b, o, int(s), iterations=None, budget=B, options=extra,
                                         objective="cost" if o == "random" else None, **kwargs))
    return specs


def versions() -> dict:
    import numpy
    import scipy
    import sklearn

    from tt_core import __version__

    return {"tt_core": __version__, "numpy": numpy.__version__, "scipy": scipy.__version__,
            "sklearn": sklearn.__version__, "python": platform.python_version()}


@functools.lru_cache(maxsize=1)
def code_hash() -> str:
    """Short sha256 of the sources of tt_core, tt_spotsim and tt_workbook: stored runs made by other code can be
    recognised.

    Computed once per process (it is asked for every stored run a grid checks).
    """
    import hashlib

    h = hashlib.sha256()
    root = Path(__file__).resolve().parents[2]
    for f in sorted(f for pkg in ("tt_core", "tt_spotsim", "tt_workbook") for f in (root / pkg).rglob("*.py")):
        h.update(f.read_bytes())
    return h.hexdigest()[:12]


class StoreError(ValueError):
    """A results folder or file cannot be used as it is (the message says what to do)."""


#: Environment variable: when set, :func:`run_grid` computes no run in the store it names (a folder; any other
#: value: in every store) and raises a :class:`StoreError` naming the first missing run instead. ``tt reproduce``
#: sets it while the notebooks run, after computing the plan (:mod:`tt_workbook.plan`): a notebook then only
#: reads, and a run its study's plan function forgot is an error, not a silent computation.
PLAN_STRICT = "TT_PLAN_STRICT"


def _check_planned(todo: list, runs_dir: Path) -> None:
    """The :data:`PLAN_STRICT` refusal of a grid with runs to compute."""
    strict = os.environ.get(PLAN_STRICT, "")
    if not todo or not strict:
        return
    if Path(strict).is_dir() and Path(strict).resolve() != runs_dir.resolve():
        return
    s = todo[0]
    raise StoreError(f"{s.path(runs_dir)}: run {s.label} ({s.variant}) is not in the plan ({len(todo)} run(s) of this "
                     f"grid are not stored, and {PLAN_STRICT}={strict} lets a notebook only read); add it to its "
                     "notebook's plan function (tt_workbook/studies/<study>/plan.py), or unset " + PLAN_STRICT)


def _meta_of(path: Path) -> dict:
    return entries.embedded_meta(path, b"tt_run")


def _same_spec(stored: dict, spec: RunSpec) -> bool:
    return json.loads(json.dumps(stored, sort_keys=True)) == json.loads(json.dumps(asdict(spec), sort_keys=True))


def data_identity(benchmark) -> dict:
    """The data a run of ``benchmark`` is made from: ``{"path": resolved file, "sha256": of its bytes}``.

    Resolved as the run itself resolves it (:func:`tt_core.data.benchmarks.as_benchmark`); the hash is
    computed once per process per file version (path, size, modification time).
    """
    from tt_core.data.benchmarks import _sha256_cached

    src = Path(_source_of(str(benchmark), os.getcwd()))
    if not src.is_file():
        raise StoreError(f"the data of benchmark {shown(str(benchmark))} ({src}) is gone; restore it or run `tt data fetch`")
    return {"path": str(src.resolve()), "sha256": _sha256_cached(src)}


@functools.lru_cache(maxsize=64)
def _source_of(benchmark: str, cwd: str) -> str:
    from tt_core.data.benchmarks import as_benchmark

    return as_benchmark(benchmark).source


def content_sha256(table) -> str:
    """sha256 of a stored trajectory's content (column names, types and values; not its metadata)."""
    return entries.table_sha256(table)


def stored_status(spec: RunSpec, runs_dir: str | Path = DEFAULT_RUNS_DIR) -> str:
    """What is stored for ``spec``: ``missing``, ``valid``, ``outdated`` (made by another results version,
    :data:`tt_core.RESULTS_VERSION`: recomputed),
    ``corrupt`` (not a readable run file, or its content does not match its own checksum) or
    ``mismatch`` (a run file of another spec, or made from other data than the benchmark's now)."""
    return _stored_status(spec, runs_dir)[0]


def _stored_status(spec: RunSpec, runs_dir: str | Path = DEFAULT_RUNS_DIR) -> tuple[str, str]:
    """:func:`stored_status` and why (in words, for the set-aside warning)."""
    import pyarrow.parquet as pq

    path = spec.path(runs_dir)
    if path.is_dir():
        raise StoreError(f"{path} is a folder where the result file of {spec.variant} seed {spec.seed} belongs; "
                         "move or delete that folder")
    if not path.exists():
        return "missing", ""
    try:
        meta = _meta_of(path)
    except Exception:  # pyarrow raises its own error types for a truncated or foreign file
        return "corrupt", "not a readable run file"
    if "spec" not in meta or "wall_s" not in meta:
        return "corrupt", "not a run file of tt_core"
    if not _same_spec(meta["spec"], spec):
        return "mismatch", "holds another run (its stored spec differs from its path)"
    stored_data = meta.get("data") or {}
    if stored_data.get("sha256") != data_identity(spec.benchmark)["sha256"]:
        return "mismatch", ("made from other data than the benchmark's file now (sha256 "
                            f"{str(stored_data.get('sha256'))[:12] or 'not recorded'})")
    try:
        table = pq.read_table(path)
    except Exception:
        return "corrupt", "not a readable run file"
    if meta.get("content_sha256") != content_sha256(table):
        return "corrupt", "its values do not match its own checksum (edited or damaged)"
    return results_version_status(meta)


def results_version_status(meta: dict) -> tuple[str, str]:
    """``("valid", "")`` when a stored result's metadata carry this code's results version, else
    ``("outdated", why)``: numbers of other numerics are never reused (the code hash is only recorded)."""
    from tt_core import RESULTS_VERSION

    made = meta.get("results_version")
    if made == RESULTS_VERSION and not isinstance(made, bool):
        return "valid", ""
    return "outdated", (f"made by results version {made if made is not None else 'none (older code)'}, this code "
                        f"makes version {RESULTS_VERSION}")


def set_aside(path: Path, why: str, reason: str = "") -> Path:
    """Rename a result file that cannot be trusted to ``<name>.<why>`` (``.<why>.1``, ... if taken), so it
    is recomputed and kept; an earlier set-aside copy is never overwritten."""
    return entries.set_aside(path, why, reason, stacklevel=3)


def checkpoint_path(spec: RunSpec, runs_dir: str | Path = DEFAULT_RUNS_DIR) -> Path:
    """Where an unfinished run of ``spec`` keeps its state (at most every CHECKPOINT_INTERVAL_S seconds): a data-only ``.npz``
    (:mod:`tt_workbook.runs.checkpoint`; nothing in it can execute code)."""
    path = spec.path(runs_dir)
    return path.with_name(path.stem + ".checkpoint.npz")


def _checkpoint_header(spec: RunSpec) -> dict:
    from tt_core import RESULTS_VERSION

    return {"spec": asdict(spec), "code": code_hash(), "results_version": RESULTS_VERSION,
            "data": data_identity(spec.benchmark)}


def _load_checkpoint(spec: RunSpec, ckpt: Path):
    """The replay kept in ``ckpt`` and its wall seconds so far, or ``(None, 0.0)`` with a warning."""
    import warnings

    from tt_workbook.runs import checkpoint

    legacy = ckpt.with_suffix(".pkl")
    if legacy.exists():
        warnings.warn(f"{legacy}: a checkpoint in the old pickle format is never loaded (a pickle can run code); "
                      "delete it", stacklevel=3)
    if not (ckpt.exists() or ckpt.is_symlink()):  # a FIFO or device there is named by checkpoint.read below
        return None, 0.0
    try:
        header, text, arrays = checkpoint.read(ckpt)
        want = _checkpoint_header(spec)
        if (header.get("code") != want["code"] or header.get("results_version") != want["results_version"]
                or not _same_spec(header.get("spec", {}), spec)):
            raise checkpoint.CheckpointError("it was written by other tt_core code, another results version or for another run")
        if (header.get("data") or {}).get("sha256") != want["data"]["sha256"]:
            raise checkpoint.CheckpointError("it was made from other data than the benchmark's file now")
        replay = checkpoint.decode(text, arrays, spec.replay())
        wall_s = header.get("wall_s", 0.0)
        if isinstance(wall_s, bool) or not isinstance(wall_s, (int, float)) or not wall_s >= 0:
            raise checkpoint.CheckpointError("its wall time is not a number")
        return replay, float(wall_s)
    except checkpoint.CheckpointError as exc:
        why = str(exc)
    warnings.warn(f"{ckpt}: checkpoint not used because {why}; the run starts from the beginning", stacklevel=3)
    return None, 0.0


def _save_checkpoint(spec: RunSpec, ckpt: Path, replay, wall_s: float) -> None:
    from tt_workbook.runs import checkpoint

    with atomic_path(ckpt) as tmp:
        checkpoint.save(tmp, {**_checkpoint_header(spec), "wall_s": wall_s}, replay)


#: Seconds of computing between two checkpoints of a run (a kill loses at most about this much work).
#: Writing one costs 0.02-0.03 CPU s, ten times a cheap test (a Nephele step), so not after every test.
CHECKPOINT_INTERVAL_S = 1.0


#: A checkpoint waits at least this many times as long as the last one took to write, so checkpoints take
#: at most about 1/10 of a run (on a loaded machine one second of wall time is little work, and a run of
#: hundreds of short steps, e.g. the Nephele study's, spent a fifth of its time writing checkpoints).
CHECKPOINT_COST_RATIO = 10.0


def _throttled_saver(spec: RunSpec, ckpt: Path, wall_before: float, t0: float):
    """``after_step`` callback: checkpoint once at least :data:`CHECKPOINT_INTERVAL_S` passed since the last,
    and :data:`CHECKPOINT_COST_RATIO` times the last checkpoint's own time."""
    last = [t0, 0.0]  # when the last checkpoint was written, and how long writing it took

    def save(replay) -> None:
        now = time.perf_counter()
        if now - last[0] >= max(CHECKPOINT_INTERVAL_S, CHECKPOINT_COST_RATIO * last[1]):
            _save_checkpoint(spec, ckpt, replay, wall_before + now - t0)
            done = time.perf_counter()
            last[0], last[1] = done, done - now

    return save


def _parent_gone(parent: int | None):
    if parent is None:
        return None  # not a worker of a local grid (e.g. a Dask worker): no watch
    return lambda: os.getppid() != parent


def run_one(spec: RunSpec, runs_dir: str | Path = DEFAULT_RUNS_DIR, overwrite: bool = False, *,
            wait: bool = True, parent: int | None = None, checkpoint: bool = True) -> Path | None:
    """Run one optimisation unless a valid result is stored; store the trajectory atomically.

    Safe to call from several processes on the same folder: a per-run lock (``<result>.lock``,
    :mod:`filelock`) makes one of them compute the run while the others wait (``wait=True``) or
    return None at once (``wait=False``). A stored file is reused only if its metadata names this
    spec and the benchmark data now on disk (sha256) and its content matches its own checksum; a
    corrupt file, or one holding another run or made from other data, is set aside (renamed, never
    over an earlier copy) and recomputed, and so is a file of another results version (``.outdated``). The run checkpoints (at most once a second) and resumes
    from the checkpoint after a kill, with the identical trajectory. Leftover temporary files of a
    killed writer are removed.

    Parameters
    ----------
    spec : RunSpec
    runs_dir : path
    overwrite : bool
        Recompute even if a valid result is stored.
    wait : bool
        Wait for another process holding the run's lock (True) or return None.
    parent : int, optional
        PID of the grid process; a worker stops (keeping its checkpoint) when that process is gone.
    checkpoint : bool
        Save the run's state as it runs (at most once a second).
    """
    return _run_one(spec, runs_dir, overwrite, wait=wait, parent=parent, checkpoint=checkpoint)[0]


def _run_one(spec: RunSpec, runs_dir: str | Path = DEFAULT_RUNS_DIR, overwrite: bool = False, *,
             wait: bool = True, parent: int | None = None, checkpoint: bool = True) -> tuple[Path | None, str]:
    """The work of :func:`run_one`; also says what happened: ``computed``, ``reused`` or ``busy``."""

    from filelock import Timeout

    from tt_core.data.io import temporary_files

    path = spec.path(runs_dir)
    status = stored_status(spec, runs_dir)
    if status == "valid" and not overwrite:
        return path, "reused"
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = entries.lock(path)
    try:
        lock.acquire(timeout=-1 if wait else 0)
    except Timeout:
        return None, "busy"
    try:
        status, reason = _stored_status(spec, runs_dir)  # another process may have finished it meanwhile
        if status == "valid" and not overwrite:
            return path, "reused"
        if status in ("corrupt", "mismatch", "outdated"):
            set_aside(path, status, reason)
        ckpt = checkpoint_path(spec, runs_dir)
        for leftover in temporary_files(path) + temporary_files(ckpt):
            leftover.unlink(missing_ok=True)  # we hold the run's lock: no writer is using them
        replay, wall_before = _load_checkpoint(spec, ckpt) if checkpoint else (None, 0.0)
        if replay is None:
            replay = spec.replay()
        t0, c0 = time.perf_counter(), _cpu_seconds()
        save = _throttled_saver(spec, ckpt, wall_before, t0) if checkpoint else None
        traj = replay.run(spec.iterations, after_step=save, should_stop=_parent_gone(parent))
        # CPU seconds of this process and of the processes it waited for (the authors' code), recorded for
        # runs computed in one go: the estimates of later grids read them (tt_workbook.runs.estimate)
        cpu = {} if wall_before else {"cpu_s": round(_cpu_seconds() - c0, 3)}
        write_run(spec, traj, path, wall_s=wall_before + time.perf_counter() - t0, resumed=bool(wall_before), **cpu)
        ckpt.unlink(missing_ok=True)
        return path, "computed"
    finally:
        lock.release()


def _cpu_seconds() -> float:
    """User + system CPU seconds of this process and of its waited-for children."""
    import resource

    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def write_run(spec: RunSpec, traj: pd.DataFrame, path: Path, *, wall_s: float, resumed: bool = False,
              **extra_meta) -> Path:
    """Write a finished run's trajectory to ``path`` atomically, with the metadata every stored run has.

    The metadata name the spec, the package versions, the code's hash, the benchmark file the run was
    made from (:func:`data_identity`) and a checksum of the written values (:func:`content_sha256`);
    ``extra_meta`` adds keys (e.g. the authors' environment's versions). The spec's settings are added as
    columns where the trajectory has none of that name.
    """
    import pyarrow as pa

    from tt_core import RESULTS_VERSION

    meta = {"spec": asdict(spec), "versions": versions(), "code": code_hash(), "results_version": RESULTS_VERSION,
            "data": data_identity(spec.benchmark),
            "wall_s": float(wall_s), "resumed": bool(resumed), "machine": platform.machine(),
            "finished": time.strftime("%Y-%m-%dT%H:%M:%S"), **extra_meta}
    traj = traj.copy()
    for k, v in asdict(spec).items():
        if k != "options" and k not in traj:  # the trajectory's own columns (e.g. the effective budget) win
            traj[k] = v
    for k, v in spec.options:
        if k == "horizon":
            traj["horizon"] = int(v)
    if "horizon" not in traj and "cno" in traj:  # cost-minimising runs: the lookahead horizon (0: none)
        traj["horizon"] = 0
    traj["variant"] = spec.variant
    table = pa.Table.from_pandas(traj, preserve_index=False)
    entries.write_parquet(table, path, b"tt_run", meta)
    return path


def _lock_holder(lock: str) -> str:
    """Who holds a run's lock file: ``process PID (its command line)`` from ``/proc/locks`` where Linux has it."""
    try:
        inode = str(os.stat(lock).st_ino)
        with open("/proc/locks") as fh:
            for line in fh:
                parts = line.split()
                if len(parts) > 5 and parts[1] == "FLOCK" and parts[5].rsplit(":", 1)[-1] == inode:
                    pid = parts[4]
                    try:
                        with open(f"/proc/{pid}/cmdline", "rb") as cf:
                            cmd = cf.read().replace(b"\0", b" ").decode(errors="replace").strip()
                    except OSError:
                        cmd = ""
                    return f"process {pid}" + (f" ({cmd[:120]})" if cmd else "")
    except OSError:
        pass
    return "another process"


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity mask where the OS has one)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def usable_jobs(n_jobs: int) -> int:
    """``n_jobs`` as a number of workers between 1 and the usable CPUs; negative values as joblib
    defines them (-1: all CPUs, -2: all but one, ...; at least one). Zero or more workers than CPUs is a
    ValueError naming the bound (a grid must not exhaust the machine)."""
    cpus = usable_cpus()
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int):
        raise ValueError(f"--jobs must be a whole number, got {shown(n_jobs)}")
    if n_jobs == 0:
        raise ValueError(f"--jobs 0 means no worker; use 1 to {cpus} (or -1 for all {cpus} CPUs)")
    if n_jobs > cpus:
        raise ValueError(f"--jobs {n_jobs} > {cpus} CPUs; use <= {cpus}")
    return n_jobs if n_jobs > 0 else max(cpus + 1 + n_jobs, 1)


_WATCHDOG = None


def _watch_parent(parent: int | None) -> None:
    """In a worker process: exit as soon as the grid process (our parent) is gone, busy or idle.

    A killed ``tt runs`` must not leave workers computing and writing results for minutes; the
    run's checkpoint (written atomically as it runs) keeps its progress for the next run.
    """
    global _WATCHDOG
    import threading

    if _WATCHDOG is not None or parent is None:
        return
    if os.getpid() == parent:  # joblib ran the initializer in the grid process itself (one worker): no watch
        return
    if os.getppid() != parent:  # the grid died while this worker was starting
        os._exit(70)

    def loop():
        while True:
            if os.getppid() != parent:
                os._exit(70)
            time.sleep(0.2)

    _WATCHDOG = threading.Thread(target=loop, name="tt-parent-watchdog", daemon=True)
    _WATCHDOG.start()


def _run_one_quiet(spec: RunSpec, runs_dir: str, parent: int | None = None) -> str:
    from threadpoolctl import threadpool_limits

    _watch_parent(parent)
    with threadpool_limits(limits=1):  # tiny matrices: one BLAS thread per worker (2-core machine)
        return _run_one(spec, runs_dir, wait=False, parent=parent)[1]


def check_settings(specs: list[RunSpec]) -> None:
    """Build one replay per distinct setting of ``specs`` (seed 0): a bad benchmark or option raises now,
    naming the setting, not after hours of earlier runs. Each benchmark is loaded first."""
    from tt_core.data.benchmarks import load_benchmark

    for name in dict.fromkeys(s.benchmark for s in specs):
        load_benchmark(name)
    for spec in dict.fromkeys(replace(s, seed=0) for s in specs):
        try:
            spec.replay()
        except ValueError as exc:
            raise ValueError(f"{spec.benchmark}/{spec.variant}: {exc}") from None


def run_grid(
    specs: list[RunSpec],
    runs_dir: str | Path = DEFAULT_RUNS_DIR,
    n_jobs: int = 1,
    backend: str = "loky",
    scheduler: str | None = None,
    progress: bool = True,
    stats: dict | None = None,
    lock_timeout: float | None = None,
) -> list[Path]:
    """Run every spec without a valid stored result; return the paths of all results.

    Runs held by another process (a second ``tt runs`` on the same folder) are skipped first and
    waited for at the end, so no run is computed twice.

    Parameters
    ----------
    specs : list of RunSpec
    runs_dir : path
    n_jobs : int
        Parallel workers (``-1``: all CPUs, ``-2``: all but one; see :func:`usable_jobs`); more than the
        usable CPUs are bounded to them with a warning (``tt runs --jobs`` refuses them).
    backend : {"loky", "sequential", "dask"}
    scheduler : str, optional
        Dask only: address of a running ``dask.distributed`` scheduler; default starts a local cluster.
    progress : bool
        Show a progress bar with ETA.
    stats : dict, optional
        Filled with ``computed`` (runs computed by this call), ``reused`` (stored runs used as they are)
        and ``waited`` (runs another process held; computed by it, or by this call if it died).
    lock_timeout : float, optional
        Seconds to wait for a run another process holds before giving up with a :class:`StoreError`
        naming that process (default: as long as it runs; a warning names it when the wait starts).
    """
    import warnings

    from joblib import Parallel, delayed, parallel_config
    from tqdm.auto import tqdm

    backends = ("loky", "sequential", "dask")
    if backend not in backends:
        raise ValueError(f"unknown backend {shown(backend)}; known: {list(backends)}")
    if not (backend == "dask" and scheduler):  # a running Dask cluster has its own workers: n_jobs is unused
        cpus = usable_cpus()
        if isinstance(n_jobs, int) and n_jobs > cpus:  # a notebook's n_jobs=2 on a 1-CPU machine: bounded, and said
            warnings.warn(f"n_jobs={n_jobs} > {cpus} CPUs: using {cpus} workers", stacklevel=2)
            n_jobs = cpus
        n_jobs = usable_jobs(n_jobs)
    runs_dir = Path(runs_dir)
    if runs_dir.exists() and not runs_dir.is_dir():
        raise StoreError(f"--runs-dir {runs_dir} is a file, not a folder; give a folder for the results")
    status = {s: stored_status(s, runs_dir) for s in specs}
    todo = [s for s, st in status.items() if st != "valid"]
    _check_planned(todo, runs_dir)
    check_settings(todo)  # every setting to compute is valid before the first run starts
    if len(todo) > 1 and not (backend == "sequential" or (backend == "loky" and n_jobs == 1)):
        from tt_workbook.runs.schedule import longest_first

        todo = longest_first(todo, runs_dir)  # parallel workers stay busy to the end
    counts = {"computed": 0, "reused": len(specs) - len(todo), "waited": 0}
    bar = tqdm(total=len(specs), initial=len(specs) - len(todo), desc="runs", unit="run", disable=not progress)
    busy = []
    left = {}  # the runs still to compute -> their estimated CPU seconds (measured per-run times; None: unknown)
    workers = 1 if backend == "sequential" else max(1, min(n_jobs, len(todo)))
    paced = {"prior": None, "done": 0.0, "t0": time.monotonic()}  # the store's pace; expected CPU-s of the runs done
    if progress and todo:
        from tt_workbook.runs.estimate import cpu_text, describe, estimate, time_left, wall_text

        est = estimate(todo, runs_dir)
        left = dict(zip(todo, est.per_run))
        paced["prior"] = est.wall_s / est.cpu_s if est.wall_s is not None and est.cpu_s > 0 else None
        bar.write(f"tt: {describe(est, 1 if backend == 'sequential' else n_jobs)}")

    def remaining() -> str:
        """The estimate of what is left: the measured per-run times, scaled by this machine's pace so far (the
        runs done here, else the stored runs; :func:`tt_workbook.runs.estimate.time_left`), not the bar's
        runs-per-second rate."""
        known = [v for v in left.values() if v is not None]
        if not known:
            return ""
        unmeasured = f" + {len(left) - len(known)} unmeasured runs" if len(left) > len(known) else ""
        _, wall = time_left(sum(known), paced["done"], time.monotonic() - paced["t0"] if paced["done"] else 0.0,
                            workers, paced["prior"])
        if wall is None:
            return f"about {cpu_text(sum(known))} left{unmeasured}"
        return f"about {wall_text(wall)} left at this machine's pace ({cpu_text(sum(known))} by the per-run times){unmeasured}"

    def record(spec: RunSpec, what: str) -> None:
        if what == "busy":  # held by another process: waited for at the end
            busy.append(spec)
        else:
            counts[what] += 1
            expected = left.pop(spec, None)
            if what == "computed" and expected is not None:
                paced["done"] += expected
            bar.set_postfix_str(remaining())
            bar.update()

    try:
        if backend == "sequential" or (backend == "loky" and min(n_jobs, len(todo)) <= 1):
            for spec in todo:
                bar.set_postfix_str(", ".join(t for t in (spec.label, remaining()) if t))
                record(spec, _run_one(spec, runs_dir, wait=False)[1])
        else:
            client = None
            if backend == "dask":
                try:
                    from dask.distributed import Client, LocalCluster
                except ImportError:
                    raise ValueError(
                        "backend='dask' needs dask.distributed: pip install 'dask[distributed]'"
                    ) from None
                try:
                    client = Client(scheduler, timeout="5s") if scheduler else Client(
                        LocalCluster(n_workers=max(1, n_jobs), threads_per_worker=1, processes=True))
                except (OSError, TimeoutError) as exc:
                    raise StoreError(f"cannot reach the Dask scheduler {scheduler or '(local)'}: {exc}; start it "
                                     "(dask scheduler) or check the address") from None
            parent = os.getpid() if backend == "loky" else None
            # loky workers start their parent watchdog at once (an idle worker must not outlive the grid either)
            worker_init = {"initializer": _watch_parent, "initargs": (parent,)} if backend == "loky" else {}
            try:
                workers = min(n_jobs, len(todo)) if backend == "loky" else -1  # no idle workers to start
                with parallel_config(backend=backend, n_jobs=workers, **worker_init):
                    for spec, out in zip(todo, Parallel(return_as="generator")(
                            delayed(_run_one_quiet)(s, str(runs_dir), parent) for s in todo)):
                        record(spec, out)
            finally:
                if client is not None:
                    client.close()
        for spec in busy:  # computed by another process: wait for it (and take over if it died)
            bar.set_postfix_str(f"waiting for {spec.label}")
            counts["waited"] += 1
            lock = str(spec.path(runs_dir)) + ".lock"
            warnings.warn(f"{spec.path(runs_dir)} is being computed by {_lock_holder(lock)}: waiting for it"
                          + (f" (at most {lock_timeout:g} s)" if lock_timeout is not None else ""), stacklevel=2)
            t0 = time.monotonic()
            while (what := _run_one(spec, runs_dir, wait=False)[1]) == "busy":
                if lock_timeout is not None and time.monotonic() - t0 > lock_timeout:
                    raise StoreError(f"{lock}: still held by {_lock_holder(lock)} after {lock_timeout:g} s; let it "
                                     "finish, stop it, or run again later")
                time.sleep(0.5)
            if what == "computed":  # the other process died: we did it
                counts["computed"] += 1
            bar.update()
    finally:
        bar.close()
        if stats is not None:
            stats.update(counts)
    return [s.path(runs_dir) for s in specs]


def read_run(path: str | Path) -> tuple[pd.DataFrame, dict]:
    """A stored trajectory and its metadata."""
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    meta = json.loads((table.schema.metadata or {}).get(b"tt_run", b"{}"))
    if "content_sha256" in meta and meta["content_sha256"] != content_sha256(table):
        raise StoreError(f"{path}: its values do not match its own checksum (edited or damaged); delete it and run "
                         "the grid again (tt runs) to recompute it")
    return table.to_pandas(), meta


def list_runs(runs_dir: str | Path = DEFAULT_RUNS_DIR, benchmark: str | None = None,
              variant: str | None = None) -> list[Path]:
    """The stored run files under ``runs_dir`` (``<benchmark>/<variant>/seed<N>.parquet``), sorted by benchmark
    folder, variant folder and seed number; ``benchmark`` and ``variant`` (folder names, e.g.
    :attr:`RunSpec.benchmark_label` and :attr:`RunSpec.variant`) narrow the listing. Nothing is read: a
    listed file may still be damaged (:func:`read_run` says so)."""
    from glob import escape

    root = Path(runs_dir)
    pattern = f"{escape(benchmark) if benchmark else '*'}/{escape(variant) if variant else '*'}/seed*.parquet"
    found = [p for p in root.glob(pattern) if p.stem[4:].isdigit()] if root.is_dir() else []
    return sorted(found, key=lambda p: (p.parent.parent.name, p.parent.name, int(p.stem[4:])))


def load_runs(specs: list[RunSpec], runs_dir: str | Path = DEFAULT_RUNS_DIR) -> pd.DataFrame:
    """Concatenate the stored trajectories of ``specs`` (a missing or untrustworthy one raises with what to do)."""

    status = {s: stored_status(s, runs_dir) for s in specs}
    missing = [s for s, st in status.items() if st == "missing"]
    if missing:
        raise FileNotFoundError(
            f"{len(missing)} run(s) missing, e.g. {missing[0].path(runs_dir)}; run them with run_grid(specs)"
        )
    bad = [s for s, st in status.items() if st in ("corrupt", "mismatch", "outdated")]
    if bad:
        raise StoreError(f"{len(bad)} stored run(s) cannot be trusted or were made by another results version ({status[bad[0]]}: {bad[0].path(runs_dir)}); "
                         "run the grid again (run_grid / tt runs) to recompute them")
    return pd.concat([read_run(s.path(runs_dir))[0] for s in specs], ignore_index=True)


def wall_time_report(specs: list[RunSpec], runs_dir: str | Path = DEFAULT_RUNS_DIR) -> tuple[pd.DataFrame, dict]:
    """How the wall time of a grid's stored runs splits by optimiser (read from each run's metadata).

    Parameters
    ----------
    specs : list of RunSpec
        The grid, e.g. ``profile_specs("paper")``; runs not stored yet are counted as missing.
    runs_dir : path

    Returns
    -------
    table : DataFrame
        One row per optimiser variant: ``runs``, run seconds per benchmark (``<benchmark>_s``),
        ``total_s``, ``mean_run_s``, ``max_run_s``, ``share`` of all run seconds, and
        ``recommend_share``, the fraction of its run seconds spent recommending (the trajectory's
        ``overhead_s``; the rest is model fitting for the incumbent, replay and bookkeeping).
    totals : dict
        ``runs``, ``missing``, ``run_s`` (sum over runs: the sequential cost) and ``span_s``, from the
        earliest run start to the latest finish (the grid's elapsed time when it ran in one go;
        gaps count too when it was resumed later).
    """
    import pyarrow.parquet as pq

    rows, missing = [], 0
    for s in specs:
        path = s.path(runs_dir)
        state = stored_status(s, runs_dir)
        if state == "missing":
            missing += 1
            continue
        if state in ("corrupt", "mismatch"):
            raise StoreError(f"{path} cannot be trusted ({state}); run the grid again (tt runs) to recompute it")
        stored = pq.read_table(path, columns=["overhead_s"])
        meta = json.loads((stored.schema.metadata or {}).get(b"tt_run", b"{}"))
        if "wall_s" not in meta:
            raise ValueError(f"{path} has no wall time in its metadata (not written by tt_core's runner); "
                             f"delete it and run the grid again")
        finished = pd.Timestamp(meta["finished"]).timestamp()
        rows.append({"benchmark": path.parent.parent.name, "variant": s.variant,
                     "wall_s": float(meta["wall_s"]), "overhead_s": float(stored.column("overhead_s").to_numpy().sum()),
                     "start": finished - float(meta["wall_s"]), "finished": finished})
    totals = {"runs": len(rows), "missing": missing, "run_s": 0.0, "span_s": 0.0}
    if not rows:
        return pd.DataFrame(), totals
    df = pd.DataFrame(rows)
    order = list(dict.fromkeys(s.variant for s in specs))
    per_bench = df.pivot_table(index="variant", columns="benchmark", values="wall_s", aggfunc="sum").add_suffix("_s")
    g = df.groupby("variant")
    table = pd.concat([g.size().rename("runs"), per_bench, g["wall_s"].sum().rename("total_s"),
                       g["wall_s"].mean().rename("mean_run_s"), g["wall_s"].max().rename("max_run_s")], axis=1)
    table["share"] = table["total_s"] / df["wall_s"].sum()
    table["recommend_share"] = g["overhead_s"].sum() / table["total_s"]
    table = table.reindex([v for v in order if v in table.index])
    table.index.name = "optimizer"
    totals.update(run_s=float(df["wall_s"].sum()), span_s=float(df["finished"].max() - df["start"].min()))
    return table, totals


def format_wall_time_report(table: pd.DataFrame, totals: dict) -> str:
    """Human-readable form of :func:`wall_time_report`."""
    if table.empty:
        return f"no stored runs ({totals['missing']} missing)"

    def hms(sec: float) -> str:
        sec = int(round(sec))
        return f"{sec // 3600}h{sec % 3600 // 60:02d}m{sec % 60:02d}s"

    shown = table.copy()
    shown["share"] = (100 * shown["share"]).map("{:.1f}%".format)
    shown["recommend_share"] = (100 * shown["recommend_share"]).map("{:.0f}%".format)
    for c in shown.columns:
        if c.endswith("_s"):
            shown[c] = shown[c].map("{:.0f}".format)
    names = {"total_s": "all s", "mean_run_s": "s per run", "max_run_s": "longest run s", "share": "share of all",
             "recommend_share": "recommending"}
    shown = shown.rename(columns=lambda c: names.get(c, f"{c[:-2]} s" if c.endswith("_s") else c))
    lines = [shown.to_string(),
             "(seconds of wall time per optimiser: per network, in all, per run and the longest run; its share of "
             "all runs' seconds; the share of its seconds spent recommending the next test)",
             f"{totals['runs']} runs stored, {totals['missing']} missing; run seconds summed "
             f"{hms(totals['run_s'])} (one worker); first start to last finish {hms(totals['span_s'])}"]
    return "\n".join(lines)


def with_options(spec: RunSpec, **options) -> RunSpec:
    """A copy of ``spec`` with extra optimiser options."""
    return replace(spec, options=tuple(sorted({**dict(spec.options), **options}.items())))


def ensure_runs(specs: list[RunSpec], runs_dir: str | Path = DEFAULT_RUNS_DIR, n_jobs: int = 1,
                progress: bool = True) -> pd.DataFrame:
    """Run whatever of ``specs`` is missing (resuming), then return all their trajectories."""
    run_grid(specs, runs_dir, n_jobs=n_jobs, progress=progress)
    return load_runs(specs, runs_dir)
