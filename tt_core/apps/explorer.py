"""Interactive explorer of one constrained BO run, step by step (notebook ``10_explorer``).

:class:`ExplorerController` holds the whole state of the explorer in plain Python, so that tests and
scripts drive it exactly as the widget does:

* settings: benchmark (``"cnn"``, ``"rnn"`` or a loaded :class:`~tt_core.data.benchmarks.Benchmark`),
  optimiser, constraints (max cost per training run, optional max training time), filter, ``beta``,
  seed, and the budget of tests (``iterations``, paper: 44);
* :meth:`~ExplorerController.step` runs one iteration of the ask/tell loop (paper Alg. 1) on the replayed
  measurements, :meth:`~ExplorerController.run` runs the rest of the budget;
* :meth:`~ExplorerController.set_constraint`, :meth:`~ExplorerController.configure` and
  :meth:`~ExplorerController.reset` start a new run (constraints are part of the optimiser), optionally
  replaying the observations made so far into the new optimiser;
* :meth:`~ExplorerController.state`, :attr:`~ExplorerController.trajectory`,
  :meth:`~ExplorerController.top_candidates` (CEA, Eq. 6, and acquisition values of the best
  untested candidates) and :meth:`~ExplorerController.figure` (four live panels) show the run.

:func:`build_widget` wraps a controller in an ipywidgets UI (imported lazily); it holds no logic of its
own beyond translating widget events into controller calls.

The controller charges costs as :func:`tt_core.experiments.replay.run_optimization` does (the sub-sampled initial
design is one training run snapshotted at each size) and scores the incumbent with its true full-size
measurement and Accuracy_C (TrimTuner Eq. 7). Inspecting the run (:meth:`top_candidates`,
:meth:`figure`) never changes it: the optimiser's random state is restored afterwards, so a run with
the same settings and seed makes the same choices whether or not it was inspected.
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
import pandas as pd

from tt_core.data.benchmarks import Benchmark, load_benchmark
from tt_core.bo.constraints import LOSS, predict_log, probability_of_constraints
from tt_core.experiments.metrics import accuracy_c
from tt_core.data.objectives import ReplayObjective

__all__ = ["ExplorerController", "ExplorerUI", "build_widget", "has_frontend", "stored_curves"]

_UNSET = object()
_OWN = "(own)"  # the filter dropdown's value for "the optimiser's own filter"

#: Columns of :attr:`ExplorerController.trajectory` (one row per test).
TRAJECTORY_COLUMNS = [
    "iteration", "phase", "config_id", "size", "s", "accuracy", "cost", "time", "charged_cost",
    "cumulative_cost", "cumulative_time", "overhead_s", "n_untested", "incumbent", "incumbent_accuracy",
    "incumbent_cost", "incumbent_time", "predicted_accuracy", "predicted_cost", "predicted_time",
    "accuracy_c",
]


def _check_positive(name: str, value, unit: str, hint: str = "") -> float:
    """A finite positive float, or a ValueError naming the setting, its unit and the allowed range."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not math.isfinite(float(value)) or float(value) <= 0:
        raise ValueError(f"{name} must be a positive number ({unit}){hint}, got {value!r}")
    return float(value)


def _check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer (same seed, same run), got {seed!r}")
    return int(seed)


def _log_ticks(ax, which: str = "x", money: bool = False) -> None:
    """Readable log-axis labels as plain numbers, no minor labels (call after plotting: majors at 1, 2, 5
    x 10^k over at most 2 decades, else at powers of 10)."""
    import matplotlib.ticker as mt

    axis = ax.xaxis if which == "x" else ax.yaxis
    lo, hi = ax.get_xlim() if which == "x" else ax.get_ylim()
    dense = lo > 0 and hi > lo and np.log10(hi / lo) <= 2.0
    axis.set_major_locator(mt.LogLocator(base=10, subs=(1.0, 2.0, 5.0) if dense else (1.0,)))
    axis.set_major_formatter(mt.FuncFormatter((lambda v, _: f"${v:g}") if money else (lambda v, _: f"{v:g}")))
    axis.set_minor_formatter(mt.NullFormatter())


def _constrained_accuracy(acc, cost, t, max_cost: float | None, max_time: float | None):
    """Accuracy_C of TrimTuner Eq. 7 (on cost; on time when only a time bound is set, as in the loop)."""
    acc = np.asarray(acc, float)
    if max_cost is not None:
        return accuracy_c(acc, cost, max_cost)
    t = np.asarray(t, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(t <= max_time, acc, acc * max_time / t)
    return out if out.ndim else float(out)


def stored_curves(benchmark: str, *, max_cost: float | None, max_time: float | None, default_max_cost: float | None,
                  runs_dir: str | Path | None = None, optimizers=None, beta: float = 0.1,
                  iterations: int = 44) -> pd.DataFrame:
    """Mean Accuracy_C vs cumulative cost of the stored runs (``runs/<bench>/<variant>/seed*.parquet``).

    Parameters
    ----------
    benchmark : str
        Benchmark name as used by the experiment runner (``"cnn"``, ``"rnn"``).
    max_cost, max_time : float or None
        The constraints of the runs to overlay; a ``max_cost`` equal to ``default_max_cost`` maps to the
        runner's default variant folder (no ``-c`` suffix).
    runs_dir : path, optional
        Default :data:`tt_core.experiments.store.DEFAULT_RUNS_DIR`.
    optimizers : iterable of str, optional
        Default: every registered optimiser.

    Returns
    -------
    pandas.DataFrame
        Columns ``optimizer, cumulative_cost, mean, lo, hi, n`` (empty when nothing is stored), plus
        ``n_runs`` (runs per optimiser).
    """
    from tt_core.analysis.trajectories import curves_on_grid
    from tt_core.experiments.store import DEFAULT_RUNS_DIR, RunSpec, read_run
    from tt_core.optimizers import available

    runs_dir = Path(runs_dir) if runs_dir is not None else DEFAULT_RUNS_DIR
    cost_key = None if (max_cost is not None and default_max_cost is not None
                        and math.isclose(max_cost, default_max_cost)) else max_cost
    frames = []
    for name in optimizers or available():
        spec = RunSpec(benchmark, name, 1, iterations=iterations, beta=beta, max_cost=cost_key, max_time=max_time)
        folder = spec.path(runs_dir).parent
        for i, f in enumerate(sorted(folder.glob("seed*.parquet"))):
            try:
                run, _ = read_run(f)
            except Exception:  # a half-written or foreign file must not break the explorer
                continue
            if not {"cumulative_cost", "accuracy_c"} <= set(run.columns):
                continue
            run = run[["cumulative_cost", "accuracy_c"]].copy()
            run["benchmark"], run["variant"], run["seed"] = benchmark, name, i
            frames.append(run)
    cols = ["optimizer", "cumulative_cost", "mean", "lo", "hi", "n", "n_runs"]
    if not frames:
        return pd.DataFrame(columns=cols)
    runs = pd.concat(frames, ignore_index=True)
    n_runs = runs.groupby("variant")["seed"].nunique()
    curves = curves_on_grid(runs, by=["variant"]).rename(columns={"variant": "optimizer"})
    curves["n_runs"] = curves["optimizer"].map(n_runs).astype(int)
    return curves[cols]


class ExplorerController:
    """State and actions of the explorer: one constrained BO run on a replayed benchmark.

    Parameters
    ----------
    benchmark : str or Benchmark
        ``"cnn"``, ``"rnn"`` (or any registered name / CSV path), or a loaded benchmark.
    optimizer : str
        A registered optimiser (:func:`tt_core.optimizers.model_based.available`).
    seed : int
        Seed of the run (same settings and seed, same sequence of tests).
    max_cost : float, optional
        Cost limit per full-size training run (USD); default the benchmark's (CNN $0.10, RNN $0.02).
    max_time : float, optional
        Optional limit on the training time (s) of the recommended configuration.
    beta : float
        Filter fraction in (0, 1] (paper: 0.1).
    filter : str, optional
        Override the optimiser's filter (``"cea"``, ``"random"``, ``"none"``, ``"direct"``, ``"cmaes"``).
    iterations : int
        Budget of tests of a run, initial design included (paper: 44).
    runs_dir : path, optional
        Where stored trajectories are looked up for the comparison panel.
    compute_baseline : bool
        When no stored runs exist for the current constraint, compute one random-search run (fast) to
        compare against.

    Examples
    --------
    >>> ctl = ExplorerController("rnn", "trimtuner-dt", seed=1)      # doctest: +SKIP
    >>> ctl.step(); ctl.state()["incumbent"]                         # doctest: +SKIP
    >>> ctl.set_constraint(max_cost=0.01)                            # doctest: +SKIP
    >>> ctl.run(5); fig = ctl.figure()                               # doctest: +SKIP
    """

    def __init__(self, benchmark: str | Benchmark = "cnn", optimizer: str = "trimtuner-dt", *, seed: int = 1,
                 max_cost: float | None = None, max_time: float | None = None, beta: float = 0.1,
                 filter: str | None = None, iterations: int = 44, runs_dir: str | Path | None = None,
                 compute_baseline: bool = True):
        self._benchmarks: dict[str, Benchmark] = {}
        self.runs_dir = runs_dir
        self.compute_baseline = compute_baseline
        self._baseline_cache: dict[tuple, tuple[pd.DataFrame, str]] = {}
        self.settings: dict = {}
        self.configure(benchmark=benchmark, optimizer=optimizer, seed=seed, max_cost=max_cost, max_time=max_time,
                       beta=beta, filter=filter, iterations=iterations)

    # ------------------------------------------------------------------------------------ settings
    def _load(self, benchmark) -> Benchmark:
        if isinstance(benchmark, Benchmark):
            self._benchmarks.setdefault(benchmark.name, benchmark)
            return benchmark
        if not isinstance(benchmark, str):
            raise ValueError(f"benchmark must be a name (e.g. 'cnn', 'rnn'), a CSV path or a Benchmark, "
                             f"got {type(benchmark).__name__}")
        key = benchmark.lower()
        if key not in self._benchmarks:
            self._benchmarks[key] = load_benchmark(benchmark)
        return self._benchmarks[key]

    def configure(self, **settings) -> "ExplorerController":
        """Change settings and start a new run.

        Keyword arguments: ``benchmark, optimizer, seed, max_cost, max_time, beta, filter, iterations``
        (see the class). ``max_cost=None`` means the benchmark's default; ``max_time=None`` removes the
        time bound. Changing the benchmark resets ``max_cost`` to the new benchmark's default unless one is
        given. Every value is checked before anything changes.

        Raises
        ------
        ValueError
            Unknown setting, unknown benchmark/optimiser/filter (the message lists the known ones), or a
            value out of range.
        """
        from tt_core.bo.filters import FILTERS
        from tt_core.optimizers import available

        known = ("benchmark", "optimizer", "seed", "max_cost", "max_time", "beta", "filter", "iterations")
        unknown = sorted(set(settings) - set(known))
        if unknown:
            raise ValueError(f"unknown setting(s) {unknown}; known settings: {list(known)}")
        new = {**self.settings, **settings}
        bench = self._load(new["benchmark"])
        if "benchmark" in settings and "max_cost" not in settings:
            new["max_cost"] = None
        new["benchmark"] = bench.name
        if new["optimizer"] not in available():
            raise ValueError(f"unknown optimizer {new['optimizer']!r}; known optimizers: {available()}")
        new["seed"] = _check_seed(new["seed"])
        lo, hi = self.cost_range(bench)
        hint = f" per training run; the data's full-size costs span ${lo:.4g}..${hi:.4g}"
        if new["max_cost"] is None:
            new["max_cost"] = bench.max_cost
        if new["max_cost"] is not None:
            new["max_cost"] = _check_positive("max_cost", new["max_cost"], "USD", hint)
        if new["max_time"] is not None:
            tlo, thi = self.time_range(bench)
            new["max_time"] = _check_positive(
                "max_time", new["max_time"], "seconds",
                f" of training; the data's full-size times span {tlo:.4g}..{thi:.4g} s; None removes the bound")
        if new["max_cost"] is None and new["max_time"] is None:
            raise ValueError(f"benchmark {bench.name!r} has no default cost limit; set max_cost and/or max_time")
        b = new["beta"]
        if isinstance(b, bool) or not isinstance(b, (int, float, np.integer, np.floating)) \
                or not math.isfinite(float(b)) or not 0.0 < float(b) <= 1.0:
            raise ValueError(f"beta must be a fraction in (0, 1] of the untested candidates (paper: 0.1), got {b!r}")
        new["beta"] = float(b)
        if new["filter"] is not None and new["filter"] not in FILTERS:
            raise ValueError(f"unknown filter {new['filter']!r}; known filters: {sorted(FILTERS)} "
                             "(or None for the optimiser's own)")
        it = new["iterations"]
        if isinstance(it, bool) or not isinstance(it, (int, np.integer)) or it < 1:
            raise ValueError(f"iterations must be a positive integer (tests per run; paper: 44), got {it!r}")
        new["iterations"] = int(it)
        self._start(bench, new)
        return self

    def set_constraint(self, max_cost=_UNSET, max_time=_UNSET, *, keep_history: bool = False) -> "ExplorerController":
        """Change the constraints (the cost slider and the time bound) and start a new run.

        Parameters
        ----------
        max_cost : float, optional
            New cost limit (USD per full-size training run); ``None`` restores the benchmark's default.
            Omitted: unchanged.
        max_time : float or None, optional
            New time limit (s); ``None`` removes it. Omitted: unchanged.
        keep_history : bool
            Replay the tests made so far into the new optimiser (same tests, new constraints: the next
            choices and the incumbent follow the new limits). Default: start from scratch.
        """
        changes = {}
        if max_cost is not _UNSET:
            changes["max_cost"] = max_cost
        if max_time is not _UNSET:
            changes["max_time"] = max_time
        if not changes:
            raise ValueError("set_constraint needs max_cost and/or max_time")
        old = self._tests() if keep_history else []
        self.configure(**changes)
        for config_id, size in old:
            if self.done:
                break
            self._do_step(config_id, size)
        return self

    def reset(self, seed: int | None = None) -> "ExplorerController":
        """Start the run again with the same settings (or a new ``seed``)."""
        return self.configure(**({} if seed is None else {"seed": seed}))

    def _start(self, bench: Benchmark, settings: dict) -> None:
        from tt_core.optimizers import make_optimizer

        opt = make_optimizer(settings["optimizer"], bench, seed=settings["seed"], beta=settings["beta"],
                             filter=settings["filter"], max_cost=settings["max_cost"], max_time=settings["max_time"])
        if settings["iterations"] < opt.n_init:
            raise ValueError(f"iterations={settings['iterations']} is smaller than the initial design of "
                             f"{settings['optimizer']!r} ({opt.n_init} tests); use iterations >= {opt.n_init}")
        self.benchmark = bench
        self.settings = settings
        self.optimizer = opt
        self.objective = ReplayObjective(bench)
        self._rows: list[dict] = []
        self._cum_cost = self._cum_time = 0.0
        self._init_max_cost = self._init_max_time = 0.0
        self._top_cache: dict = {}

    # ------------------------------------------------------------------------------------ ranges
    @staticmethod
    def cost_range(benchmark: Benchmark) -> tuple[float, float]:
        """Smallest and largest full-size training cost of the data (the cost slider's range)."""
        c = benchmark.full_size()["cost"].to_numpy(float)
        c = c[np.isfinite(c) & (c > 0)]
        return (float(c.min()), float(c.max())) if c.size else (1e-6, 1.0)

    @staticmethod
    def time_range(benchmark: Benchmark) -> tuple[float, float]:
        """Smallest and largest full-size training time (s) of the data (the time slider's range)."""
        t = benchmark.full_size()["training_time"].to_numpy(float)
        t = t[np.isfinite(t) & (t > 0)]
        return (float(t.min()), float(t.max())) if t.size else (1.0, 1e4)

    # ------------------------------------------------------------------------------------ actions
    @property
    def done(self) -> bool:
        """Whether the budget of tests is used up (or every candidate has been tested)."""
        return len(self._rows) >= self.settings["iterations"] or self.optimizer.pool.n_untested == 0

    def step(self) -> dict | None:
        """Run one BO iteration: suggest, measure (replay), observe, update the incumbent.

        Returns
        -------
        dict or None
            The new trajectory row, or None when the run is finished (see :attr:`done`).
        """
        if self.done:
            return None
        t0 = time.perf_counter()
        config_id, size = self.optimizer.suggest()
        return self._do_step(config_id, size, time.perf_counter() - t0)

    def run(self, n: int | None = None, callback=None) -> pd.DataFrame:
        """Run ``n`` more iterations (default: until the budget is used up).

        Parameters
        ----------
        n : int, optional
            Number of steps; stops early when the run is finished.
        callback : callable, optional
            Called with each new row (the widget uses it to redraw live).

        Returns
        -------
        pandas.DataFrame
            The whole trajectory so far.
        """
        if n is not None and (isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0):
            raise ValueError(f"n must be a non-negative integer number of steps (or None: until done), got {n!r}")
        count = 0
        while not self.done and (n is None or count < n):
            row = self.step()
            count += 1
            if callback is not None:
                callback(row)
        return self.trajectory

    def _tests(self) -> list[tuple[int, int]]:
        return [(int(r["config_id"]), int(r["size"])) for r in self._rows]

    def _do_step(self, config_id: int, size: int, overhead: float = 0.0) -> dict:
        opt = self.optimizer
        m = self.objective(config_id, size)
        phase = "init" if len(self._rows) < opt.n_init else "bo"
        charged_cost, charged_time = m.cost, m.time
        if phase == "init" and opt.init_is_snapshot:  # one training run snapshotted at each size
            charged_cost = max(0.0, m.cost - self._init_max_cost)
            charged_time = max(0.0, m.time - self._init_max_time)
            self._init_max_cost = max(self._init_max_cost, m.cost)
            self._init_max_time = max(self._init_max_time, m.time)
        t1 = time.perf_counter()
        opt.observe(config_id, size, m.accuracy, m.cost, m.time)
        inc = opt.incumbent()
        overhead += time.perf_counter() - t1
        self._cum_cost += charged_cost
        self._cum_time += charged_time
        s = self.settings
        row = {
            "iteration": len(self._rows) + 1, "phase": phase, "config_id": int(config_id), "size": int(size),
            "s": size / self.benchmark.max_size, "accuracy": m.accuracy, "cost": m.cost, "time": m.time,
            "charged_cost": charged_cost, "cumulative_cost": self._cum_cost, "cumulative_time": self._cum_time,
            "overhead_s": overhead, "n_untested": opt.pool.n_untested, "incumbent": -1 if inc is None else int(inc),
        }
        if inc is None:
            row.update(incumbent_accuracy=np.nan, incumbent_cost=np.nan, incumbent_time=np.nan, accuracy_c=np.nan)
        else:
            true = self.objective.full_size(inc)
            row.update(incumbent_accuracy=true.accuracy, incumbent_cost=true.cost, incumbent_time=true.time,
                       accuracy_c=float(_constrained_accuracy(true.accuracy, true.cost, true.time,
                                                              s["max_cost"], s["max_time"])))
        row.update(self._predicted(inc))
        self._rows.append(row)
        self._top_cache = {}
        return dict(row)

    def _predicted(self, config_id) -> dict:
        """The models' full-size prediction of a configuration (median of the log-normal)."""
        out = {"predicted_accuracy": np.nan, "predicted_cost": np.nan, "predicted_time": np.nan}
        models = getattr(self.optimizer, "models", None) or {}
        if config_id is None or LOSS not in models:
            return out
        space = self.optimizer.space
        X = space.full_size_X()[space.rows_of([config_id])]
        out["predicted_accuracy"] = float(-np.expm1(models[LOSS].predict(X)[0]))
        for kind in ("cost", "time"):
            if kind in models:
                out[f"predicted_{kind}"] = float(np.exp(models[kind].predict(X)[0]))
        return out

    # ------------------------------------------------------------------------------------ views
    @property
    def trajectory(self) -> pd.DataFrame:
        """One row per test so far (columns :data:`TRAJECTORY_COLUMNS`)."""
        return pd.DataFrame(self._rows, columns=TRAJECTORY_COLUMNS)

    @property
    def history(self) -> pd.DataFrame:
        """The optimiser's own observations (config_id, size, accuracy, cost, time, phase)."""
        return self.optimizer.history

    def state(self) -> dict:
        """A snapshot of the settings and of the run (plain Python values).

        Returns
        -------
        dict
            Settings (``benchmark, optimizer, seed, max_cost, max_time, beta, filter, iterations``), the
            optimiser's effective ``filter_used``, ``iteration`` (tests so far), ``done``, ``n_untested``,
            ``n_candidates`` (size of the pool at the start), ``incumbent`` (config id or None) with its true
            full-size ``incumbent_accuracy`` / ``incumbent_cost`` / ``incumbent_time`` and the models'
            ``predicted_accuracy`` / ``predicted_cost``, ``accuracy_c``, ``cumulative_cost``,
            ``cumulative_time``, ``incumbent_config`` (its configuration values) and ``last`` (last row).
        """
        opt = self.optimizer
        last = self._rows[-1] if self._rows else None
        pool = opt.pool
        out = dict(self.settings)
        out.update(
            filter_used=getattr(opt, "filter", None), iteration=len(self._rows), done=self.done,
            n_untested=pool.n_untested, n_candidates=pool.n_untested + pool.n_tested, n_init=opt.n_init,
            cumulative_cost=self._cum_cost, cumulative_time=self._cum_time, last=None if last is None else dict(last),
        )
        keys = ("incumbent_accuracy", "incumbent_cost", "incumbent_time", "predicted_accuracy", "predicted_cost",
                "predicted_time", "accuracy_c")
        if last is None or last["incumbent"] < 0:
            out.update(incumbent=None, incumbent_config=None, **dict.fromkeys(keys, np.nan))
        else:
            out.update(incumbent=int(last["incumbent"]), **{k: last[k] for k in keys})
            cfg = self.benchmark.configs().set_index("config_id").loc[int(last["incumbent"])]
            out["incumbent_config"] = {k: (v.item() if hasattr(v, "item") else v) for k, v in cfg.items()}
        return out

    def top_candidates(self, k: int = 5) -> pd.DataFrame:
        """The untested candidates with the highest CEA (Eq. 6) and their acquisition values.

        Parameters
        ----------
        k : int
            Number of candidates.

        Returns
        -------
        pandas.DataFrame
            One row per candidate, best CEA first: ``config_id, size, s``, the configuration columns,
            ``predicted_accuracy`` (``1 - exp(mu_loss)``), ``predicted_cost`` (median), ``p_feasible``
            (probability that the constraints hold), ``cea``, ``cea_rank`` (1 = best of all untested),
            ``in_filter`` (whether CEA with this ``beta`` keeps it; only for the ``"cea"`` filter) and
            ``acquisition`` (the optimiser's acquisition at this iteration). Empty (with a ``note`` in
            ``.attrs``) before the models exist or for random search.
        """
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"k must be a positive integer, got {k!r}")
        key = int(k)
        if key in self._top_cache:
            return self._top_cache[key].copy()
        opt = self.optimizer
        cols = ["config_id", "size", "s", *self.benchmark.config_columns, "predicted_accuracy", "predicted_cost",
                "p_feasible", "cea", "cea_rank", "in_filter", "acquisition"]
        models = getattr(opt, "models", None) or {}
        if LOSS not in models or opt.pool.n_untested == 0:
            df = pd.DataFrame(columns=cols)
            df.attrs["note"] = ("random search has no models: no CEA, no acquisition" if not hasattr(opt, "models")
                                else "no models yet (they are fitted from the second observation on)"
                                if opt.pool.n_untested else "every candidate has been tested")
            self._top_cache[key] = df
            return df.copy()
        from tt_core.bo.filters import cea_scores, n_keep

        ids, sizes = opt.pool.untested()
        X = opt.space.encode(ids, sizes)
        cea = cea_scores(models, opt.constraints, X)
        order = np.argsort(-cea, kind="stable")
        top = order[:key]
        names = dict.fromkeys([LOSS] + [c.model for c in opt.constraints] + (["cost"] if "cost" in models else []))
        preds = predict_log(models, X[top], names)
        p = probability_of_constraints(preds, opt.constraints)
        configs = self.benchmark.configs().set_index("config_id")
        df = configs.loc[ids[top]].reset_index()
        df.insert(1, "size", sizes[top])
        df.insert(2, "s", sizes[top] / self.benchmark.max_size)
        df["predicted_accuracy"] = -np.expm1(preds[LOSS][0])
        df["predicted_cost"] = np.exp(preds["cost"][0]) if "cost" in preds else np.nan
        df["p_feasible"] = p
        df["cea"] = cea[top]
        df["cea_rank"] = np.arange(1, len(top) + 1)
        used = getattr(opt, "filter", None)
        df["in_filter"] = (df["cea_rank"] <= n_keep(opt.beta, len(ids))) if used == "cea" else np.nan
        df["acquisition"] = self._acquisition(X[top])
        df = df[cols]
        self._top_cache[key] = df
        return df.copy()

    def _acquisition(self, X) -> np.ndarray:
        """The optimiser's acquisition at ``X``, leaving its random state untouched."""
        opt = self.optimizer
        if not hasattr(opt, "_build_acquisition"):
            return np.full(len(X), np.nan)
        saved = opt.rng.bit_generator.state
        try:
            values = np.asarray(opt._build_acquisition()(X), dtype=float).ravel()
        except (ValueError, KeyError, np.linalg.LinAlgError):  # e.g. EIc before a feasible observation
            values = np.full(len(X), np.nan)
        finally:
            opt.rng.bit_generator.state = saved
        return values

    # ------------------------------------------------------------------------------------ comparison
    def baseline_curves(self) -> tuple[pd.DataFrame, str]:
        """Curves of the other optimisers to compare with, and a note saying where they come from.

        Stored runs (``runs/<benchmark>/<variant>/seed*.parquet``, same constraints) are used when they
        exist; otherwise, with ``compute_baseline``, one random-search run with this seed is computed now.
        """
        s = self.settings
        key = (s["benchmark"], s["max_cost"], s["max_time"], s["seed"], s["iterations"])
        if key in self._baseline_cache:
            return self._baseline_cache[key]
        curves = stored_curves(s["benchmark"], max_cost=s["max_cost"], max_time=s["max_time"],
                               default_max_cost=self.benchmark.max_cost, runs_dir=self.runs_dir,
                               iterations=s["iterations"])
        if len(curves):
            n = curves.groupby("optimizer")["n_runs"].first()
            note = "stored runs (mean over seeds): " + ", ".join(f"{o} x{int(v)}" for o, v in n.items())
            curves["source"] = "stored"
        elif self.compute_baseline:
            from tt_core.experiments.replay import run_optimization

            traj = run_optimization(self.benchmark, "random", seed=s["seed"], iterations=s["iterations"],
                                    max_cost=s["max_cost"], max_time=s["max_time"])
            curves = pd.DataFrame({"optimizer": "random", "cumulative_cost": traj["cumulative_cost"],
                                   "mean": traj["accuracy_c"], "lo": traj["accuracy_c"], "hi": traj["accuracy_c"],
                                   "n": 1, "n_runs": 1, "source": "computed now"})
            note = (f"no stored runs for {s['benchmark']} with these constraints; showing one random-search "
                    f"run computed now (seed {s['seed']}). Store runs with `tt runs` to compare all optimisers.")
        else:
            note = f"no stored runs for {s['benchmark']} with these constraints"
        self._baseline_cache[key] = (curves, note)
        return curves, note

    # ------------------------------------------------------------------------------------ figure
    def figure(self, k: int = 8):
        """The four live panels as a matplotlib Figure.

        1. tested (configuration, size) points, cost vs accuracy, coloured by size, over all full-size
           configurations (grey) with the cost limit and the incumbent's true full-size point;
        2. the incumbent per iteration: true vs predicted accuracy and cost;
        3. Accuracy_C vs cumulative optimisation cost, against the other optimisers' curves;
        4. the ``k`` best untested candidates by CEA, with their acquisition values.
        """
        import matplotlib.pyplot as plt

        fig = plt.figure(figsize=(14, 10), layout="constrained")
        top, bottom = fig.subfigures(2, 1)  # rows laid out independently (long candidate labels below)
        ax_points, ax_inc = top.subplots(1, 2)
        ax_progress, ax_cand = bottom.subplots(1, 2)
        self._panel_points(ax_points)
        self._panel_incumbent(ax_inc)
        self._panel_progress(ax_progress)
        self._panel_candidates(ax_cand, k)
        st = self.state()
        s = self.settings
        limits = f"cost <= ${s['max_cost']:g}" if s["max_cost"] is not None else ""
        if s["max_time"] is not None:
            limits += (", " if limits else "") + f"time <= {s['max_time']:g} s"
        inc = ("no incumbent yet" if st["incumbent"] is None else
               f"incumbent #{st['incumbent']}: accuracy {st['incumbent_accuracy']:.3f}, cost "
               f"${st['incumbent_cost']:.4f}, Accuracy_C {st['accuracy_c']:.3f}")
        fig.suptitle(f"{self.benchmark.name.upper()} | {s['optimizer']} (filter {st['filter_used']}, beta {s['beta']:g}) | "
                     f"{limits} | seed {s['seed']} | test {st['iteration']}/{s['iterations']}\n{inc}")
        return fig

    def _size_colors(self) -> dict[int, tuple]:
        import matplotlib.pyplot as plt

        cmap = plt.get_cmap("viridis")
        sizes = self.benchmark.sizes
        return {sz: cmap(i / max(1, len(sizes) - 1)) for i, sz in enumerate(sizes)}

    def _size_label(self, size: int) -> str:
        from fractions import Fraction

        frac = Fraction(int(size), int(self.benchmark.max_size)).limit_denominator(100)
        return f"s = {frac}" if frac != 1 else "s = 1 (full)"

    def _panel_points(self, ax) -> None:
        full = self.benchmark.full_size()
        s = self.settings
        ax.scatter(full["cost"], full["accuracy"], s=10, color="0.82", label="all configurations (s = 1)", zorder=1)
        traj = self.trajectory
        colors = self._size_colors()
        for size in self.benchmark.sizes:
            rows = traj[traj["size"] == size]
            if len(rows):
                ax.scatter(rows["cost"], rows["accuracy"], s=42, color=colors[size], edgecolor="k", linewidth=0.4,
                           label=f"tested at {self._size_label(size)}", zorder=3)
        if len(traj):
            last = traj.iloc[-1]
            ax.scatter([last["cost"]], [last["accuracy"]], s=160, facecolor="none", edgecolor="#d62728",
                       linewidth=1.8, label="latest test", zorder=4)
            if last["incumbent"] >= 0:
                ax.scatter([last["incumbent_cost"]], [last["incumbent_accuracy"]], marker="*", s=300,
                           color="#ffbf00", edgecolor="k", linewidth=0.8, label="incumbent (true, s = 1)", zorder=5)
        if s["max_cost"] is not None:
            ax.axvline(s["max_cost"], color="#d62728", linestyle="--", linewidth=1.2, label=f"max cost ${s['max_cost']:g}")
        ax.set_xscale("log")
        _log_ticks(ax, "x", money=True)
        ax.set_xlabel("Cost of the training run [USD]")
        ax.set_ylabel("Accuracy")
        ax.set_title("Tested points, coloured by training-set size")
        ax.legend(fontsize=7.5, loc="best", framealpha=0.85)

    def _panel_incumbent(self, ax) -> None:
        traj = self.trajectory
        s = self.settings
        acc_c, cost_c = "#1f77b4", "#ff7f0e"
        ax.set_title("Incumbent: true (solid) vs predicted (dashed)")
        ax.set_xlabel("Iteration")
        ax.set_ylabel("Accuracy of the incumbent (s = 1)", color=acc_c)
        ax2 = ax.twinx()
        ax2.set_ylabel("Cost of the incumbent [USD]", color=cost_c)
        ax2.grid(False)
        if len(traj):
            it = traj["iteration"]
            ax.step(it, traj["incumbent_accuracy"], where="post", color=acc_c, label="accuracy (true)")
            ax.plot(it, traj["predicted_accuracy"], "--o", ms=3, color=acc_c, alpha=0.8, label="accuracy (predicted)")
            ax2.step(it, traj["incumbent_cost"], where="post", color=cost_c, label="cost (true)")
            ax2.plot(it, traj["predicted_cost"], "--o", ms=3, color=cost_c, alpha=0.8, label="cost (predicted)")
            n_init = self.optimizer.n_init
            ax.axvspan(0.5, min(n_init, len(traj)) + 0.5, color="0.93", zorder=0)
            ax.text(0.6, 0.02, "initial design", transform=ax.get_xaxis_transform(), fontsize=8, color="0.4")
        if s["max_cost"] is not None:
            ax2.axhline(s["max_cost"], color=cost_c, linestyle=":", linewidth=1.2, label="max cost")
        ax2.set_yscale("log")
        _log_ticks(ax2, "y", money=True)
        ax.set_xlim(0.5, max(s["iterations"], len(traj)) + 0.5)
        h1, l1 = ax.get_legend_handles_labels()
        h2, l2 = ax2.get_legend_handles_labels()
        if h1 or h2:
            ax.legend(h1 + h2, l1 + l2, fontsize=8, loc="lower right")

    def _panel_progress(self, ax) -> None:
        from tt_core.plotting.figures import METHOD_STYLES

        curves, note = self.baseline_curves()
        for name, c in curves.groupby("optimizer", sort=True):
            style = METHOD_STYLES.get(name, {"color": "0.5", "linestyle": "-", "label": name})
            label = f"{style['label']} ({c['source'].iloc[0]}, n={int(c['n_runs'].iloc[0])})"
            ax.step(c["cumulative_cost"], c["mean"], where="post", color=style["color"],
                    linestyle=style["linestyle"], linewidth=1.4, alpha=0.85, label=label)
            if (c["hi"] > c["lo"]).any():  # 95% CI of the mean, clipped to the metric's range [0, 1]
                ax.fill_between(c["cumulative_cost"], c["lo"].clip(0, 1), c["hi"].clip(0, 1), step="post",
                                color=style["color"], alpha=0.07)
        traj = self.trajectory.dropna(subset=["accuracy_c"])
        traj = traj[traj["cumulative_cost"] > 0]
        if len(traj):
            style = METHOD_STYLES.get(self.settings["optimizer"], {"label": self.settings["optimizer"]})
            ax.step(traj["cumulative_cost"], traj["accuracy_c"], where="post", color="k", linewidth=2.4,
                    label=f"this run: {style['label']}")
            ax.plot(traj["cumulative_cost"].iloc[-1], traj["accuracy_c"].iloc[-1], "o", color="k")
        ax.set_xscale("log")
        _log_ticks(ax, "x", money=True)
        ax.set_ylim(0, 1.02)
        ax.set_xlabel("Cumulative optimisation cost [USD]")
        ax.set_ylabel("Accuracy_C of the incumbent (Eq. 7)")
        ax.set_title("Accuracy_C vs optimisation cost")
        import textwrap

        ax.text(0.99, 0.02, textwrap.fill(note, 60), transform=ax.transAxes, fontsize=7, color="0.3", ha="right",
                va="bottom", bbox={"facecolor": "white", "alpha": 0.8, "edgecolor": "none"})
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8, loc="upper left")

    def _panel_candidates(self, ax, k: int) -> None:
        top = self.top_candidates(k)
        ax.set_title(f"Top {k} untested candidates by CEA (Eq. 6)")
        if top.empty:
            ax.text(0.5, 0.5, top.attrs.get("note", "no candidates"), ha="center", va="center", transform=ax.transAxes)
            ax.set_axis_off()
            return
        colors = self._size_colors()
        y = np.arange(len(top))[::-1]
        ax.barh(y, top["cea"], color=[colors[int(sz)] for sz in top["size"]], edgecolor="k", linewidth=0.4)
        labels = [f"#{int(r.config_id)} at {self._size_label(int(r.size))}" for r in top.itertuples()]
        ax.set_yticks(y, labels, fontsize=8)
        xmax = float(top["cea"].max()) if np.isfinite(top["cea"].max()) and top["cea"].max() > 0 else 1.0
        ax.set_xlim(0, xmax * 1.55)
        best_acq = np.nanargmax(top["acquisition"].to_numpy()) if top["acquisition"].notna().any() else None
        for i, r in enumerate(top.itertuples()):
            txt = f"acq {r.acquisition:.3g}" if np.isfinite(r.acquisition) else "acq n/a"
            txt += f" | P(feasible) {r.p_feasible:.2f}"
            ax.text(r.cea + xmax * 0.02, y[i], txt, va="center", fontsize=7.5,
                    fontweight="bold" if best_acq == i else "normal")
        ax.set_xlabel("CEA = predicted accuracy x P(constraints hold)")
        st = self.state()
        if st["filter_used"] == "cea":
            kept = int(top["in_filter"].sum())
            ax.set_xlabel(f"CEA = predicted accuracy x P(constraints hold)\nCEA keeps the best {self.settings['beta']:.0%} "
                          f"of {st['n_untested']} untested ({kept} of these {len(top)}); bold: highest acquisition")


# ------------------------------------------------------------------------------------------------
# Widget
# ------------------------------------------------------------------------------------------------
class ExplorerUI:
    """The ipywidgets front of a controller: ``.box`` (the widget), ``.controls`` (by name), ``.refresh()``.

    Displaying an ``ExplorerUI`` in a notebook displays ``.box``.
    """

    def __init__(self, controller: ExplorerController, k: int = 6, redraw_every: int = 5):
        import ipywidgets as W

        from tt_core.bo.filters import FILTERS
        from tt_core.optimizers import available

        self.controller = controller
        self.k = k
        self.redraw_every = max(1, int(redraw_every))
        self._quiet = False
        s = controller.settings
        lo, hi = controller.cost_range(controller.benchmark)
        tlo, thi = controller.time_range(controller.benchmark)
        style = {"description_width": "90px"}
        c = {
            "benchmark": W.Dropdown(options=["cnn", "rnn"] if s["benchmark"] in ("cnn", "rnn") else [s["benchmark"]],
                                    value=s["benchmark"], description="network", style=style),
            "optimizer": W.Dropdown(options=available(), value=s["optimizer"], description="optimiser", style=style),
            "filter": W.Dropdown(options=[("optimiser's own", _OWN)] + [(f, f) for f in sorted(FILTERS)],
                                 value=s["filter"] or _OWN, description="filter", style=style),
            "beta": W.FloatSlider(value=s["beta"], min=0.01, max=1.0, step=0.01, description="beta", style=style),
            "seed": W.BoundedIntText(value=s["seed"], min=0, max=10**6, description="seed", style=style),
            "max_cost": W.FloatLogSlider(value=s["max_cost"], base=10, min=np.log10(lo), max=np.log10(hi), step=0.01,
                                         readout_format=".4f", description="max cost $", style=style),
            "use_time": W.Checkbox(value=s["max_time"] is not None, description="time bound", indent=False),
            "keep_tests": W.Checkbox(value=False, description="keep tests when limits change", indent=False),
            "max_time": W.FloatLogSlider(value=s["max_time"] or float(np.sqrt(tlo * thi)), base=10,
                                         min=np.log10(tlo), max=np.log10(thi), step=0.01, readout_format=".0f",
                                         description="max time s", style=style, disabled=s["max_time"] is None),
            "step": W.Button(description="Step", button_style="primary", icon="step-forward"),
            "run": W.Button(description="Run", button_style="success", icon="play"),
            "reset": W.Button(description="Reset", button_style="warning", icon="undo"),
        }
        self.controls = c
        self.status = W.HTML()
        self.plot = W.Output()
        self.table = W.Output()
        for name in ("benchmark", "optimizer", "filter", "beta", "seed"):
            c[name].observe(self._on_setting, names="value")
        for name in ("max_cost", "use_time", "max_time"):
            c[name].observe(self._on_constraint, names="value")
        c["step"].on_click(lambda _: self._act(self.controller.step))
        c["run"].on_click(lambda _: self._act(lambda: self.controller.run(callback=self._on_run_step)))
        c["reset"].on_click(lambda _: self._act(self.controller.reset))
        settings = W.VBox([c["benchmark"], c["optimizer"], c["filter"], c["beta"], c["seed"]])
        limits = W.VBox([c["max_cost"], W.HBox([c["use_time"], c["keep_tests"]]), c["max_time"],
                         W.HBox([c["step"], c["run"], c["reset"]])])
        self.box = W.VBox([W.HBox([settings, limits]), self.status, self.plot, self.table])
        self.refresh()

    def _repr_mimebundle_(self, **kwargs):
        return self.box._repr_mimebundle_(**kwargs)

    def _show_status(self, error: str = "") -> None:
        st = self.controller.state()
        inc = ("no incumbent yet" if st["incumbent"] is None else
               f"incumbent #{st['incumbent']}: accuracy {st['incumbent_accuracy']:.3f} (predicted "
               f"{st['predicted_accuracy']:.3f}), cost ${st['incumbent_cost']:.4f}, Accuracy_C {st['accuracy_c']:.3f}")
        msg = (f"<b>test {st['iteration']}/{st['iterations']}</b> | optimisation cost ${st['cumulative_cost']:.3f} | "
               f"{st['n_untested']} untested candidates | {inc}" + (" | <b>done</b>" if st["done"] else ""))
        if error:
            msg += f"<br><span style='color:#c00'>{error}</span>"
        self.status.value = msg
        self.controls["step"].disabled = self.controls["run"].disabled = st["done"]

    def refresh(self, error: str = "") -> None:
        """Bring the controls in line with the controller's settings, then redraw the status line, the
        four panels and the candidates table (call it after driving the controller from code)."""
        import matplotlib.pyplot as plt
        from IPython.display import display

        self._sync_controls()
        self._show_status(error)
        self.plot.clear_output(wait=True)
        with self.plot:
            fig = self.controller.figure(k=self.k)
            display(fig)
            plt.close(fig)
        self.table.clear_output(wait=True)
        with self.table:
            top = self.controller.top_candidates(self.k)
            display(top if not top.empty else top.attrs.get("note", ""))

    def _on_run_step(self, row) -> None:
        """During Run: update the status line every step and the panels every ``redraw_every`` steps."""
        if row is not None and row["iteration"] % self.redraw_every == 0:
            self.refresh()
        else:
            self._show_status()

    def _act(self, fn) -> None:
        try:
            fn()
        except ValueError as exc:
            self.refresh(str(exc))
            return
        self.refresh()

    def _on_setting(self, change) -> None:
        if self._quiet:
            return
        c = self.controls
        name = next(n for n, w in c.items() if w is change["owner"])
        value = None if name == "filter" and change["new"] == _OWN else change["new"]
        try:
            self.controller.configure(**{name: value})
        except ValueError as exc:
            self._show_status(str(exc))
            return
        self.refresh()

    def _sync_controls(self) -> None:
        """Set every control from the controller's settings without triggering their handlers."""
        ctl = self.controller
        s = ctl.settings
        c = self.controls
        lo, hi = ctl.cost_range(ctl.benchmark)
        tlo, thi = ctl.time_range(ctl.benchmark)
        self._quiet = True
        try:
            if s["benchmark"] not in c["benchmark"].options:
                c["benchmark"].options = [*c["benchmark"].options, s["benchmark"]]
            for name in ("benchmark", "optimizer", "filter", "beta", "seed"):
                value = s[name] if not (name == "filter" and s[name] is None) else _OWN
                if c[name].value != value:
                    c[name].value = value
            for name, (a, b), value in (("max_cost", (lo, hi), s["max_cost"]),
                                        ("max_time", (tlo, thi), s["max_time"] or float(np.sqrt(tlo * thi)))):
                w = c[name]
                a, b = min(a, value), max(b, value)  # a limit set from code may lie outside the data's range
                w.min, w.max = -20, 20  # widen first so that min <= max holds at every assignment
                w.min, w.max = np.log10(a), np.log10(b)
                w.value = value
            c["use_time"].value = s["max_time"] is not None
            c["max_time"].disabled = s["max_time"] is None
        finally:
            self._quiet = False

    def _on_constraint(self, change) -> None:
        if self._quiet:
            return
        c = self.controls
        c["max_time"].disabled = not c["use_time"].value
        try:
            self.controller.set_constraint(max_cost=float(c["max_cost"].value),
                                           max_time=float(c["max_time"].value) if c["use_time"].value else None,
                                           keep_history=bool(c["keep_tests"].value))
        except ValueError as exc:
            self._show_status(str(exc))
            return
        self.refresh()


def has_frontend() -> bool:
    """Whether this kernel was started by a Jupyter server for a notebook (JupyterLab, Notebook 7).

    Jupyter's session manager sets ``JPY_SESSION_NAME`` for the kernels it starts; papermill, nbclient
    and plain Python do not. Headless runs must not display widgets (nbclient can wait forever for a
    widget front end), so the explorer notebook builds its widget only when this is True (or when told
    to). Other front ends (e.g. VS Code) may not set the variable: pass ``interactive=True`` there.
    """
    import os

    return bool(os.environ.get("JPY_SESSION_NAME"))


def build_widget(controller: ExplorerController, k: int = 6, redraw_every: int = 5) -> ExplorerUI:
    """The ipywidgets UI of a controller (settings, constraint sliders, Step / Run / Reset, live panels).

    Parameters
    ----------
    controller : ExplorerController
    k : int
        Number of top candidates shown.
    redraw_every : int
        While "Run" is running, redraw the panels every this many steps (the status line every step).

    Returns
    -------
    ExplorerUI
        Display it in a notebook; ``.controls`` gives the widgets by name (tests click them).
    """
    if not isinstance(controller, ExplorerController):
        raise ValueError(f"build_widget needs an ExplorerController, got {type(controller).__name__}")
    try:
        import ipywidgets  # noqa: F401
    except ImportError:
        raise ValueError("the explorer widget needs ipywidgets: pip install ipywidgets") from None
    return ExplorerUI(controller, k=k, redraw_every=redraw_every)
