"""Replaying Nephele and its baselines on a benchmark, and grids of runs stored one file per run.

:func:`run_nephele` drives one optimiser on the measurements until its budget is spent and returns
the trajectory (one row per exploration). :func:`run_nephele_grid` runs many, writing each to
``<runs_dir>/nephele/<benchmark>/<optimizer>-h<h>[-<options>]/seed<k>.parquet`` atomically and skipping
files that exist (an interrupted grid resumes).
"""

from __future__ import annotations

import json
import platform
import time as _time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from ..benchmarks import PROJECT_DIR, Benchmark, load_benchmark
from ..io import atomic_path
from ..metrics import cno
from ..space import ConfigSpace
from .optimizer import BudgetedOptimizer, CherryPick, Lynceus, Nephele, RandomSearch

__all__ = [
    "NEPHELE_OPTIMIZERS", "INITIAL_BUDGETS", "EXPLORATION_BUDGETS", "DEFAULT_MIN_ACCURACY", "DEFAULT_MAX_TIME",
    "price_per_second", "optimum", "make_nephele_optimizer", "run_nephele", "NepheleRun", "nephele_grid",
    "run_nephele_grid", "load_nephele_runs", "read_nephele_run", "DEFAULT_RUNS_DIR", "time_recommendations",
    "run_nephele_one", "with_options",
]

DEFAULT_RUNS_DIR = PROJECT_DIR / "runs"
#: Thesis §6.2: A_min = 85 %, T_max = 300 s.
DEFAULT_MIN_ACCURACY = 0.85
DEFAULT_MAX_TIME = 300.0
#: Thesis Table 6.1: initial-sampling budget B_init per network (USD).
INITIAL_BUDGETS = {"cnn": 5.0, "rnn": 1.0, "mlp": 2.0}
#: Exploration budget B (USD). The thesis gives no number, only "a value that could allow the optimizers
#: to find the optimum" (§6.2); these were chosen so that, on these measurements, the 90th percentile of
#: the Nephele *and* baseline runs reaches the optimum of its own search space (see notebook 09).
EXPLORATION_BUDGETS = {"cnn": 20.0, "rnn": 2.5}


def _factory(cls, **fixed) -> Callable[..., BudgetedOptimizer]:
    def build(benchmark, *, seed: int, **options) -> BudgetedOptimizer:
        return make_nephele_optimizer(cls, benchmark, seed=seed, **{**fixed, **options})
    build.__doc__ = f"Build :class:`{cls.__name__}` on a benchmark (see :func:`make_nephele_optimizer`)."
    build.optimizer_class = cls
    return build


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
            f"benchmark {benchmark.name!r}: cannot derive a price per second for config(s) {missing[:5]} "
            "(they need rows with cost > 0 and training_time > 0, or a cost model)"
        )
    return ratio.reindex(configs["config_id"]).to_numpy(dtype=float)


def optimum(benchmark: Benchmark, min_accuracy: float = DEFAULT_MIN_ACCURACY, max_time: float = DEFAULT_MAX_TIME,
            full_size_only: bool = False) -> pd.Series:
    """The cheapest measured point meeting ``A >= A_min`` and ``T <= T_max`` (thesis Eq. 3.1).

    Parameters
    ----------
    full_size_only : bool
        Search only the full training-set size (the optimum of Lynceus' and CherryPick's space).

    Returns
    -------
    pandas.Series
        The benchmark row (config_id, size, accuracy, training_time, cost, ...).
    """
    t = benchmark.table
    if full_size_only:
        t = t[t["size"] == benchmark.max_size]
    feas = t[(t["accuracy"] >= min_accuracy) & (t["training_time"] <= max_time)]
    if feas.empty:
        where = "at the full size" if full_size_only else "at any size"
        raise ValueError(
            f"benchmark {benchmark.name!r}: no point meets A >= {min_accuracy} and T <= {max_time} s {where}; "
            "the CNO (thesis Eq. 6.1) is undefined - relax the constraints"
        )
    return feas.loc[feas["cost"].idxmin()]


def _as_benchmark(benchmark) -> Benchmark:
    return benchmark if isinstance(benchmark, Benchmark) else load_benchmark(benchmark)


def _default_budgets(bench: Benchmark, budget, initial_budget) -> tuple[float, float]:
    key = bench.name.lower()
    if budget is None:
        if key not in EXPLORATION_BUDGETS:
            raise ValueError(
                f"benchmark {bench.name!r} has no default exploration budget; pass budget=<USD> "
                f"(defaults exist for {sorted(EXPLORATION_BUDGETS)})"
            )
        budget = EXPLORATION_BUDGETS[key]
    if initial_budget is None:
        if key not in INITIAL_BUDGETS:
            raise ValueError(
                f"benchmark {bench.name!r} has no default initial budget; pass initial_budget=<USD> "
                f"(thesis Table 6.1 has {INITIAL_BUDGETS})"
            )
        initial_budget = INITIAL_BUDGETS[key]
    return budget, initial_budget


def make_nephele_optimizer(optimizer, benchmark, *, seed: int, budget: float | None = None,
                           initial_budget: float | None = None, min_accuracy: float = DEFAULT_MIN_ACCURACY,
                           max_time: float = DEFAULT_MAX_TIME, **options) -> BudgetedOptimizer:
    """Build a Nephele-family optimiser on a benchmark.

    Parameters
    ----------
    optimizer : str or class
        A name of :data:`NEPHELE_OPTIMIZERS` or a :class:`BudgetedOptimizer` subclass.
    benchmark : str or Benchmark
    seed : int
    budget, initial_budget : float, optional
        ``B`` and ``B_init`` (USD); default :data:`EXPLORATION_BUDGETS` and :data:`INITIAL_BUDGETS`.
    min_accuracy, max_time : float
        ``A_min`` and ``T_max`` (thesis: 0.85, 300 s).
    **options
        Optimiser options (e.g. ``horizon``, ``max_paths``, ``n_trees``, ``finish_last_run``).
    """
    if isinstance(optimizer, str):
        if optimizer not in NEPHELE_OPTIMIZERS:
            raise ValueError(f"unknown optimizer {optimizer!r}; known optimizers: {sorted(NEPHELE_OPTIMIZERS)}")
        return NEPHELE_OPTIMIZERS[optimizer](benchmark, seed=seed, budget=budget, initial_budget=initial_budget,
                                             min_accuracy=min_accuracy, max_time=max_time, **options)
    bench = _as_benchmark(benchmark)
    budget, initial_budget = _default_budgets(bench, budget, initial_budget)
    space = ConfigSpace.from_benchmark(bench)
    return optimizer(space, price_per_second(bench), budget=budget, initial_budget=initial_budget, seed=seed,
                     min_accuracy=min_accuracy, max_time=max_time, **options)


#: name -> factory ``factory(benchmark, *, seed, **options) -> optimiser`` (thesis §6.1 line-up).
NEPHELE_OPTIMIZERS: dict[str, Callable[..., BudgetedOptimizer]] = {
    "nephele": _factory(Nephele),
    "lynceus": _factory(Lynceus),
    "cherrypick": _factory(CherryPick),
    "random": _factory(RandomSearch),
}


def run_nephele(benchmark, optimizer: str, seed: int, horizon: int = 0, *, budget: float | None = None,
                initial_budget: float | None = None, min_accuracy: float = DEFAULT_MIN_ACCURACY,
                max_time: float = DEFAULT_MAX_TIME, progress: bool = False, **options) -> pd.DataFrame:
    """Replay one optimiser on a benchmark until its budget is spent (thesis Alg. 2).

    Parameters
    ----------
    benchmark : str or Benchmark
    optimizer : str
        ``"nephele"``, ``"lynceus"``, ``"cherrypick"`` or ``"random"``.
    seed : int
    horizon : int
        Lookahead horizon of Nephele/Lynceus (must be 0 for the others).
    budget, initial_budget, min_accuracy, max_time :
        See :func:`make_nephele_optimizer`.
    progress : bool
        Show a tqdm bar over the budget.
    **options
        Further optimiser options.

    Returns
    -------
    pandas.DataFrame
        One row per exploration: ``iteration, phase, config_id, size, accuracy, cost, time, feasible,
        charged_cost, cum_cost, cum_time, overhead_s, cum_overhead_s, total_time`` (exploration time plus
        overhead), ``budget_left, gamma_size`` (size of Gamma, NaN outside Nephele/Lynceus' BO phase), the
        incumbent after the exploration (``incumbent_config_id, incumbent_size, incumbent_cost,
        incumbent_accuracy, incumbent_time, incumbent_full_cost`` = its configuration's measured cost at
        the full size), ``cno`` (thesis Eq. 6.1: incumbent cost over the cost of the optimum at any size;
        NaN before the first feasible observation) and ``cno_space`` (over the optimum of the optimiser's
        own search space), plus the run's constants.
    """
    from tqdm.auto import tqdm

    bench = _as_benchmark(benchmark)
    budget, initial_budget = _default_budgets(bench, budget, initial_budget)
    if optimizer in ("nephele", "lynceus"):
        options["horizon"] = horizon
    elif horizon != 0:
        raise ValueError(f"horizon={horizon} is only for 'nephele' and 'lynceus'; {optimizer!r} has no lookahead")
    opt = make_nephele_optimizer(optimizer, bench, seed=seed, budget=budget, initial_budget=initial_budget,
                                 min_accuracy=min_accuracy, max_time=max_time, **options)
    best_all = float(optimum(bench, min_accuracy, max_time)["cost"])
    best_space = float(optimum(bench, min_accuracy, max_time, full_size_only=opt.full_size_only)["cost"])
    t = bench.table
    lookup = {(int(c), int(s)): (float(a), float(co), float(ti))
              for c, s, a, co, ti in zip(t["config_id"], t["size"], t["accuracy"], t["cost"], t["training_time"])}
    full_cost = dict(zip(bench.full_size()["config_id"].astype(int), bench.full_size()["cost"].astype(float)))

    rows = []
    cum_time = cum_overhead = 0.0
    bar = tqdm(total=round(budget, 6), desc=f"{bench.name}/{optimizer}-h{horizon}/seed{seed}", unit="$",
               disable=not progress)
    try:
        while not opt.done:
            t0 = _time.perf_counter()
            cid, size = opt.suggest()
            overhead = _time.perf_counter() - t0
            gamma_size = opt.last_gamma_size
            acc, cost, ttime = lookup[(cid, size)]
            spent_before = opt.spent
            t1 = _time.perf_counter()
            opt.observe(cid, size, acc, cost, ttime)
            inc = opt.incumbent()
            overhead += _time.perf_counter() - t1
            charged = opt.spent - spent_before
            obs = opt._obs[-1]
            cum_time += ttime if obs["used"] else ttime * (charged / cost if cost > 0 else 0.0)
            cum_overhead += overhead
            bar.update(round(min(charged, max(budget - spent_before, 0.0)), 6))
            row = {
                "iteration": len(rows) + 1, "phase": obs["phase"], "config_id": cid, "size": size,
                "accuracy": acc, "cost": cost, "time": ttime, "feasible": bool(obs["feasible"]),
                "used": bool(obs["used"]), "charged_cost": charged, "cum_cost": opt.spent, "cum_time": cum_time,
                "overhead_s": overhead, "cum_overhead_s": cum_overhead, "total_time": cum_time + cum_overhead,
                "budget_left": opt.remaining, "gamma_size": np.nan if gamma_size is None else float(gamma_size),
            }
            if inc is None:
                row.update(incumbent_config_id=-1, incumbent_size=-1, incumbent_cost=np.nan,
                           incumbent_accuracy=np.nan, incumbent_time=np.nan, incumbent_full_cost=np.nan)
            else:
                row.update(incumbent_config_id=inc["config_id"], incumbent_size=inc["size"],
                           incumbent_cost=inc["cost"], incumbent_accuracy=inc["accuracy"],
                           incumbent_time=inc["time"], incumbent_full_cost=full_cost[inc["config_id"]])
            rows.append(row)
    finally:
        bar.close()
    traj = pd.DataFrame(rows)
    traj["cno"] = cno(traj["incumbent_cost"], best_all)
    traj["cno_space"] = cno(traj["incumbent_cost"], best_space)
    traj["benchmark"] = bench.name
    traj["optimizer"] = optimizer
    traj["horizon"] = int(horizon)
    traj["seed"] = int(seed)
    traj["budget"] = float(budget)
    traj["initial_budget"] = float(initial_budget)
    traj["optimum_cost"] = best_all
    traj["optimum_cost_space"] = best_space
    return traj


# ---------------------------------------------------------------------------------------------
# Grids of runs, stored one file per run
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NepheleRun:
    """One replayed run (a benchmark name, an optimiser, a seed, a horizon and its settings)."""

    benchmark: str
    optimizer: str
    seed: int
    horizon: int = 0
    budget: float | None = None
    initial_budget: float | None = None
    min_accuracy: float = DEFAULT_MIN_ACCURACY
    max_time: float = DEFAULT_MAX_TIME
    options: tuple = field(default_factory=tuple)  # extra optimiser options as sorted (key, value) pairs

    def __post_init__(self):
        if self.optimizer not in NEPHELE_OPTIMIZERS:
            raise ValueError(f"unknown optimizer {self.optimizer!r}; known optimizers: {sorted(NEPHELE_OPTIMIZERS)}")
        if self.horizon and self.optimizer not in ("nephele", "lynceus"):
            raise ValueError(f"horizon={self.horizon} is only for 'nephele' and 'lynceus', not {self.optimizer!r}")
        for name in ("budget", "initial_budget"):
            v = getattr(self, name)
            if v is not None and not (np.isfinite(v) and v >= 0):
                raise ValueError(f"{name} must be None (the default) or a finite number >= 0, got {v!r}")

    @property
    def variant(self) -> str:
        """Folder name: ``<optimizer>-h<h>`` plus any non-default setting."""
        parts = [f"{self.optimizer}-h{self.horizon}"]
        if self.budget is not None:
            parts.append(f"B{self.budget:g}")
        if self.initial_budget is not None:
            parts.append(f"Bi{self.initial_budget:g}")
        if self.min_accuracy != DEFAULT_MIN_ACCURACY:
            parts.append(f"a{self.min_accuracy:g}")
        if self.max_time != DEFAULT_MAX_TIME:
            parts.append(f"t{self.max_time:g}")
        parts += [f"{k}{v}" for k, v in self.options]
        return "-".join(parts)

    @property
    def benchmark_label(self) -> str:
        """Folder name of the benchmark (a CSV path's stem)."""
        b = str(self.benchmark)
        return Path(b).stem if ("/" in b or b.endswith(".csv")) else b

    def path(self, runs_dir) -> Path:
        return Path(runs_dir) / "nephele" / self.benchmark_label / self.variant / f"seed{self.seed}.parquet"

    def run(self) -> pd.DataFrame:
        return run_nephele(self.benchmark, self.optimizer, self.seed, self.horizon, budget=self.budget,
                           initial_budget=self.initial_budget, min_accuracy=self.min_accuracy,
                           max_time=self.max_time, **dict(self.options))


def nephele_grid(benchmarks, optimizers, seeds, horizons=(0,), **kwargs) -> list[NepheleRun]:
    """Runs for every benchmark x optimiser x seed (x horizon for Nephele/Lynceus; baselines get h = 0).

    ``kwargs`` go to every :class:`NepheleRun`; ``options`` may be a dict.
    """
    opts = kwargs.pop("options", ())
    opts = tuple(sorted(dict(opts).items()))
    specs = []
    for b in benchmarks:
        for o in optimizers:
            hs = horizons if o in ("nephele", "lynceus") else (0,)
            for h in hs:
                for s in seeds:
                    specs.append(NepheleRun(b, o, int(s), int(h), options=opts if o != "random" else (), **kwargs))
    return specs


def _versions() -> dict:
    import numpy
    import scipy
    import sklearn

    from .. import __version__

    return {"tt_core": __version__, "numpy": numpy.__version__, "scipy": scipy.__version__,
            "sklearn": sklearn.__version__, "python": platform.python_version()}


def run_nephele_one(spec: NepheleRun, runs_dir=DEFAULT_RUNS_DIR, overwrite: bool = False) -> Path:
    """Run one spec unless its file exists; write the trajectory atomically (parquet + metadata)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = spec.path(runs_dir)
    if path.is_file() and not overwrite:
        return path
    t0 = _time.perf_counter()
    traj = spec.run()
    meta = {"spec": asdict(spec), "versions": _versions(), "wall_s": _time.perf_counter() - t0,
            "machine": platform.machine(), "finished": _time.strftime("%Y-%m-%dT%H:%M:%S")}
    traj["variant"] = spec.variant
    table = pa.Table.from_pandas(traj, preserve_index=False)
    table = table.replace_schema_metadata({**(table.schema.metadata or {}),
                                           b"tt_nephele_run": json.dumps(meta).encode()})
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp)
    return path


def _run_quiet(spec: NepheleRun, runs_dir: str) -> str:
    return str(run_nephele_one(spec, runs_dir))


def run_nephele_grid(specs: list[NepheleRun], runs_dir=DEFAULT_RUNS_DIR, n_jobs: int = 1,
                     progress: bool = True) -> list[Path]:
    """Run every spec whose file is missing (resume), with a progress bar; return all paths.

    Parameters
    ----------
    specs : list of NepheleRun
    runs_dir : path
        Results go to ``<runs_dir>/nephele/<benchmark>/<variant>/seed<k>.parquet``.
    n_jobs : int
        joblib (loky) worker processes; 1 runs in this process.
    progress : bool
    """
    from tqdm.auto import tqdm

    runs_dir = Path(runs_dir)
    todo = [s for s in specs if not s.path(runs_dir).is_file()]
    bar = tqdm(total=len(specs), initial=len(specs) - len(todo), desc="nephele runs", unit="run",
               disable=not progress)
    try:
        if n_jobs == 1 or len(todo) <= 1:
            for spec in todo:
                bar.set_postfix_str(f"{spec.benchmark}/{spec.variant}/seed{spec.seed}")
                run_nephele_one(spec, runs_dir)
                bar.update()
        else:
            from joblib import Parallel, delayed

            for _ in Parallel(n_jobs=n_jobs, return_as="generator_unordered")(
                    delayed(_run_quiet)(s, str(runs_dir)) for s in todo):
                bar.update()
    finally:
        bar.close()
    return [s.path(runs_dir) for s in specs]


def read_nephele_run(path) -> tuple[pd.DataFrame, dict]:
    """A stored trajectory and its metadata."""
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    meta = json.loads((table.schema.metadata or {}).get(b"tt_nephele_run", b"{}"))
    return table.to_pandas(), meta


def load_nephele_runs(specs: list[NepheleRun], runs_dir=DEFAULT_RUNS_DIR) -> pd.DataFrame:
    """Concatenate stored trajectories (missing ones raise with how to produce them)."""
    missing = [s for s in specs if not s.path(runs_dir).is_file()]
    if missing:
        raise FileNotFoundError(
            f"{len(missing)} run(s) missing, e.g. {missing[0].path(runs_dir)}; run run_nephele_grid(specs) first"
        )
    return pd.concat([read_nephele_run(s.path(runs_dir))[0] for s in specs], ignore_index=True)


def with_options(spec: NepheleRun, **options) -> NepheleRun:
    """A copy of ``spec`` with extra optimiser options."""
    return replace(spec, options=tuple(sorted({**dict(spec.options), **options}.items())))


def time_recommendations(benchmark, *, horizons=(0, 1, 2), max_paths=(None,), seed: int = 1, n_states: int = 3,
                         steps_between: int = 5, budget: float | None = None, initial_budget: float | None = None,
                         min_accuracy: float = DEFAULT_MIN_ACCURACY, max_time: float = DEFAULT_MAX_TIME,
                         skip=None) -> pd.DataFrame:
    """Wall time of one Nephele recommendation per lookahead horizon, at identical optimiser states.

    A Nephele run (``h = 0``) is replayed through its initial sampling and then ``steps_between`` BO steps
    between snapshots; at each of ``n_states`` snapshots a copy of the optimiser is asked for one
    recommendation with every ``(horizon, max_paths)`` combination and timed.

    Parameters
    ----------
    horizons : iterable of int
    max_paths : iterable of (int or None)
        None = lookahead from every pair of Gamma (the thesis).
    skip : callable, optional
        ``skip(horizon, max_paths) -> bool`` to leave out slow combinations.

    Returns
    -------
    pandas.DataFrame
        ``benchmark, state, observations, gamma_size, horizon, max_paths, wall_s`` (``max_paths`` is
        ``"all"`` for None).
    """
    import copy

    bench = _as_benchmark(benchmark)
    opt = make_nephele_optimizer("nephele", bench, seed=seed, budget=budget, initial_budget=initial_budget,
                                 min_accuracy=min_accuracy, max_time=max_time, horizon=0)
    t = bench.table
    lookup = {(int(c), int(s)): (float(a), float(co), float(ti))
              for c, s, a, co, ti in zip(t["config_id"], t["size"], t["accuracy"], t["cost"], t["training_time"])}

    def step():
        cid, size = opt.suggest()
        opt.observe(cid, size, *lookup[(cid, size)])

    while not opt.done and opt.phase == "init":
        step()
    rows = []
    for state in range(n_states):
        if opt.done:
            break
        for h in horizons:
            for mp in max_paths:
                if skip is not None and skip(h, mp):
                    continue
                o = copy.deepcopy(opt)
                o.horizon, o.max_paths = int(h), mp
                t0 = _time.perf_counter()
                o.suggest()
                rows.append({"benchmark": bench.name, "state": state, "observations": len(opt._obs),
                             "gamma_size": o.last_gamma_size, "horizon": int(h),
                             "max_paths": "all" if mp is None else int(mp), "wall_s": _time.perf_counter() - t0})
        for _ in range(steps_between):
            if opt.done:
                break
            step()
    return pd.DataFrame(rows)
