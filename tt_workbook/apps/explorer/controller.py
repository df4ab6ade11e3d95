"""State and actions of the explorer (notebook ``10_explorer``), in plain Python: no widgets.

:class:`ExplorerController` holds the whole state of the explorer, so that tests and scripts drive it
exactly as the widget (:mod:`.widget`) does:

* settings: benchmark (``"cnn"``, ``"rnn"`` or a loaded :class:`~tt_core.data.benchmarks.Benchmark`),
  any registered optimiser (:func:`tt_core.optimizers.available`), its limits, the model-based
  optimisers' filter and ``beta``, the seed and the number of tests (``iterations``, paper: 44);
* :meth:`~ExplorerController.step` runs one test through the replay driver
  (:class:`tt_core.replay.driver.Replay`: suggest, measure, observe, score the incumbent), so
  charging, phases and scoring are those of ``tt optimize``; :meth:`~ExplorerController.run` runs the
  rest;
* :meth:`~ExplorerController.set_constraint`, :meth:`~ExplorerController.configure` and
  :meth:`~ExplorerController.reset` start a new run (limits are part of the optimiser's problem),
  optionally replaying the tests made so far into the new optimiser;
* :meth:`~ExplorerController.state`, :meth:`~ExplorerController.status`,
  :attr:`~ExplorerController.trajectory`, :meth:`~ExplorerController.top_candidates` (CEA, Eq. 6, and
  acquisition values of the best untested candidates) and :meth:`~ExplorerController.figure` (four
  live panels, :mod:`.panels`) show the run.

Two kinds of problem (:func:`tt_core.optimizers.registry.spec`):

* **accuracy** (TrimTuner paper; ``trimtuner-dt``, ``trimtuner-gp``, ``fabolas``, ``eic``, ``eic-usd``,
  ``random``): maximise the accuracy under ``max_cost`` (USD per full-size run; default the
  benchmark's) and an optional ``max_time``; the run makes ``iterations`` tests; the incumbent is scored
  by Accuracy_C (Eq. 7);
* **cost** (thesis; ``nephele``, ``lynceus``, ``cherrypick``): minimise the cost under ``min_accuracy``
  and ``max_time`` (defaults 0.85 and 300 s, thesis §6.2) until the exploration ``budget`` is spent
  (default :data:`tt_workbook.runs.profiles.EXPLORATION_BUDGETS`); ``iterations`` does not apply;
  the incumbent is scored by its CNO (thesis Eq. 6.1).

``beta`` and ``filter`` only apply to the model-based optimisers, ``max_cost`` only to accuracy
problems: switching to an optimiser they do not apply to drops them, and setting them explicitly for
one is a ``ValueError`` (from :func:`tt_core.optimizers.make_optimizer`).

Inspecting the run (:meth:`top_candidates`, :meth:`figure`) never changes it: the optimiser's random
state is restored afterwards, so a run with the same settings and seed makes the same choices whether
or not it was inspected.
"""

from __future__ import annotations

from tt_workbook.plotting.style import share_label

import math
from pathlib import Path

import numpy as np
import pandas as pd

from tt_core.bo.constraints import LOSS, predict_log, probability_of_constraints
from tt_core.data.benchmarks import Benchmark, load_benchmark
from tt_core.replay.driver import THESIS_MAX_TIME, THESIS_MIN_ACCURACY, Replay
from tt_core.optimizers import available
from tt_core.optimizers.registry import objective_of
from tt_core.optimizers.registry import spec as optimizer_spec
from tt_core.data.io import shown
from tt_core.data.seeds import check_seed
from tt_core.data.validation import check_fraction, check_positive

__all__ = ["COST_TRAJECTORY_COLUMNS", "ExplorerController", "SETTINGS", "TRAJECTORY_COLUMNS", "stored_curves"]

_UNSET = object()

#: What this process has done once: ``models_fitted`` once a step has fitted an optimiser's models (numba
#: compiled the kernels then, or loaded them from its disk cache).
_PROCESS = {"models_fitted": False}
#: Seconds the first step with models takes in a fresh process when numba compiles its kernels: about 18 s
#: for TrimTuner-GP's and 8 s for TrimTuner-DT's (step and redraw, measured on a 2-core machine without
#: numba's cache; the issue measured 21.7 s under load). Later steps take about 1 s (DT) to 15 s (GP).
FIRST_STEP_SECONDS = 20

#: The settings of :meth:`ExplorerController.configure`.
SETTINGS = ("benchmark", "optimizer", "seed", "max_cost", "max_time", "min_accuracy", "budget", "beta", "filter",
            "iterations")

_COMMON_COLUMNS = [
    "iteration", "phase", "config_id", "size", "s", "accuracy", "cost", "time", "charged_cost", "charged_time",
    "cumulative_cost", "cumulative_time", "overhead_s", "n_untested", "incumbent", "incumbent_size",
    "incumbent_accuracy", "incumbent_cost", "incumbent_time", "predicted_accuracy", "predicted_cost",
    "predicted_time",
]
#: Columns of :attr:`ExplorerController.trajectory` for an accuracy-maximising optimiser (one row per test).
TRAJECTORY_COLUMNS = [*_COMMON_COLUMNS, "accuracy_c"]
#: Columns of :attr:`ExplorerController.trajectory` for a cost-minimising optimiser (nephele, lynceus,
#: cherrypick): the CNO (thesis Eq. 6.1) instead of Accuracy_C, and the budget left.
COST_TRAJECTORY_COLUMNS = [*_COMMON_COLUMNS, "feasible", "used", "budget_left", "gamma_size", "cno", "cno_space"]


def _plain(value):
    """A numpy scalar as a plain Python value (NaN stays a float)."""
    return value.item() if hasattr(value, "item") else value


size_label = share_label  # "s = 1/10", "s = 1 (full)"


def _default_key(value, default):
    """The run store's key of a limit: None when it is the runner's default (the variant folder omits it)."""
    if value is None or (default is not None and math.isclose(value, default)):
        return None
    return value


def stored_curves(benchmark: str, *, max_cost: float | None = None, max_time: float | None = None,
                  default_max_cost: float | None = None, runs_dir: str | Path | None = None, optimizers=None,
                  beta: float = 0.1, iterations: int = 44, objective: str = "accuracy",
                  min_accuracy: float | None = None, budget: float | None = None,
                  default_budget: float | None = None) -> pd.DataFrame:
    """Mean metric vs cumulative cost of the stored runs (``runs/<bench>/<variant>/seed*.parquet``).

    Parameters
    ----------
    benchmark : str
        Benchmark name as used by the experiment runner (``"cnn"``, ``"rnn"``).
    max_cost, max_time : float or None
        The limits of the runs to overlay; a ``max_cost`` equal to ``default_max_cost`` maps to the
        runner's default variant folder (no ``-c`` suffix).
    runs_dir : path, optional
        Default :data:`tt_workbook.runs.store.DEFAULT_RUNS_DIR`.
    optimizers : iterable of str, optional
        Default: every registered optimiser of the ``objective``.
    objective : {"accuracy", "cost"}
        ``"accuracy"``: Accuracy_C of the ``iterations``-test runs of the TrimTuner paper's optimisers.
        ``"cost"``: CNO of the budgeted runs (``tt_workbook.runs.store.cost_grid``) of Nephele,
        Lynceus, CherryPick and cost-minimising random search; ``min_accuracy``, ``max_time`` and
        ``budget`` equal to the thesis' defaults (0.85, 300 s, ``default_budget``) map to the default
        variant folder.

    Returns
    -------
    pandas.DataFrame
        Columns ``optimizer, cumulative_cost, mean, lo, hi, n`` (empty when nothing is stored), plus
        ``n_runs`` (runs per optimiser); ``mean``/``lo``/``hi`` are of Accuracy_C or of the CNO.
    """
    from tt_workbook.studies.fig1_fig2.trajectories import curves_on_grid
    from tt_workbook.runs.store import DEFAULT_RUNS_DIR, RunSpec, list_runs, read_run

    if objective not in ("accuracy", "cost"):
        raise ValueError(f"objective must be 'accuracy' or 'cost', got {shown(objective)}")
    runs_dir = Path(runs_dir) if runs_dir is not None else DEFAULT_RUNS_DIR
    metric = "accuracy_c" if objective == "accuracy" else "cno"
    if optimizers is None:
        optimizers = [n for n in available() if optimizer_spec(n).objective in (objective, None)]
    frames = []
    for name in optimizers:
        if objective == "accuracy":
            spec = RunSpec(benchmark, name, 1, iterations=iterations, beta=beta,
                           max_cost=_default_key(max_cost, default_max_cost), max_time=max_time)
        else:
            spec = RunSpec(benchmark, name, 1, iterations=None, max_time=_default_key(max_time, THESIS_MAX_TIME),
                           min_accuracy=_default_key(min_accuracy, THESIS_MIN_ACCURACY),
                           budget=_default_key(budget, default_budget),
                           objective="cost" if name == "random" else None)
        for i, f in enumerate(list_runs(runs_dir, spec.benchmark_label, spec.variant)):
            try:
                run, _ = read_run(f)
            except Exception:  # a half-written or foreign file must not break the explorer
                continue
            if not {"cumulative_cost", metric} <= set(run.columns):
                continue
            run = run[["cumulative_cost", metric]].copy()
            run["benchmark"], run["variant"], run["seed"] = benchmark, name, i
            frames.append(run)
    cols = ["optimizer", "cumulative_cost", "mean", "lo", "hi", "n", "n_runs"]
    if not frames:
        return pd.DataFrame(columns=cols)
    runs = pd.concat(frames, ignore_index=True)
    n_runs = runs.groupby("variant")["seed"].nunique()
    curves = curves_on_grid(runs, y=metric, by=["variant"]).rename(columns={"variant": "optimizer"})
    curves["n_runs"] = curves["optimizer"].map(n_runs).astype(int)
    return curves[cols]


def tie_ranks(values, among) -> tuple[np.ndarray, np.ndarray]:
    """Competition ranks of ``values`` within ``among`` (higher is better) and whether each is tied.

    A value's rank is 1 + the number of ``among`` values strictly greater (equal within 1e-12 relative
    counts as equal); ``tied`` says whether another value of ``among`` equals it.

    Examples
    --------
    >>> tie_ranks([0.9, 0.5, 0.5], [0.9, 0.5, 0.5, 0.1])
    (array([1, 2, 2]), array([False,  True,  True]))
    """
    values = np.asarray(values, dtype=float)
    among = np.asarray(among, dtype=float)
    tol = 1e-12 * np.maximum(1.0, np.abs(values))
    greater = (among[None, :] > values[:, None] + tol[:, None]).sum(axis=1)
    equal = (np.abs(among[None, :] - values[:, None]) <= tol[:, None]).sum(axis=1)
    return (1 + greater).astype(int), equal > 1


class ExplorerController:
    """State and actions of the explorer: one optimisation run on a replayed benchmark, step by step.

    Parameters
    ----------
    benchmark : str or Benchmark
        ``"cnn"``, ``"rnn"`` (or any registered name / CSV path), or a loaded benchmark.
    optimizer : str
        A registered optimiser (:func:`tt_core.optimizers.available`).
    seed : int
        Seed of the run (same settings and seed, same sequence of tests).
    max_cost : float, optional
        Accuracy problems: cost limit per full-size training run (USD); default the benchmark's (CNN
        $0.10, RNN $0.02). Not for the cost-minimising optimisers.
    max_time : float, optional
        Limit on the training time (s) of the recommended configuration. Accuracy problems: none by
        default; cost problems: the thesis' 300 s by default.
    min_accuracy : float, optional
        Lower bound on the accuracy; cost problems: the thesis' 0.85 by default.
    budget : float, optional
        Exploration budget (USD): the run stops once it has charged this much. Cost problems: the
        workbook's default per benchmark (:data:`tt_workbook.runs.profiles.EXPLORATION_BUDGETS`).
    beta : float, optional
        Model-based optimisers: filter fraction in (0, 1] (default the paper's 0.1).
    filter : str, optional
        Model-based optimisers: override the optimiser's filter (``"cea"``, ``"random"``, ``"none"``,
        ``"direct"``, ``"cmaes"``).
    iterations : int
        Tests of a run, initial design included (paper: 44); not for the budgeted optimisers, which
        stop when their budget is spent.
    runs_dir : path, optional
        Where stored trajectories are looked up for the comparison panel.
    compute_baseline : bool
        When no stored runs exist for the current limits, compute one random-search run (fast) to
        compare against.

    Examples
    --------
    >>> ctl = ExplorerController("rnn", "trimtuner-dt", seed=1)      # doctest: +SKIP
    >>> ctl.step(); ctl.state()["incumbent"]                         # doctest: +SKIP
    >>> ctl.set_constraint(max_cost=0.01)                            # doctest: +SKIP
    >>> ctl.configure(optimizer="nephele"); ctl.run(5)               # doctest: +SKIP
    >>> fig = ctl.figure()                                           # doctest: +SKIP
    """

    def __init__(self, benchmark: str | Benchmark = "cnn", optimizer: str = "trimtuner-dt", *, seed: int = 1,
                 max_cost: float | None = None, max_time: float | None = None, min_accuracy: float | None = None,
                 budget: float | None = None, beta: float | None = None, filter: str | None = None,
                 iterations: int = 44, runs_dir: str | Path | None = None, compute_baseline: bool = True):
        self._benchmarks: dict[str, Benchmark] = {}
        self.runs_dir = runs_dir
        self.compute_baseline = compute_baseline
        self._baseline_cache: dict[tuple, tuple[pd.DataFrame, str]] = {}
        self.settings: dict = {}
        self.configure(benchmark=benchmark, optimizer=optimizer, seed=seed, max_cost=max_cost, max_time=max_time,
                       min_accuracy=min_accuracy, budget=budget, beta=beta, filter=filter, iterations=iterations)

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

        Keyword arguments: :data:`SETTINGS` (see the class). ``max_cost=None`` means the benchmark's
        default (accuracy problems); ``max_time=None`` removes the time bound (accuracy problems) or
        restores the thesis' 300 s (cost problems). Changing the benchmark resets ``max_cost`` and
        ``budget`` to the new benchmark's defaults unless given; switching between an accuracy- and a
        cost-minimising optimiser resets ``max_cost``, ``min_accuracy`` and ``budget``, and switching to
        an optimiser that is not model-based drops ``beta`` and ``filter``, unless given in the same
        call. Every value is checked, and the new optimiser built, before anything changes.

        Raises
        ------
        ValueError
            Unknown setting, unknown benchmark/optimiser/filter (the message lists the known ones), a
            value out of range, or a setting the optimiser cannot honour (e.g. ``beta`` for Nephele).
        """
        from tt_core.bo.filters import FILTERS

        unknown = sorted(set(settings) - set(SETTINGS))
        if unknown:
            raise ValueError(f"unknown setting(s) {unknown}; known settings: {list(SETTINGS)}")
        new = {**self.settings, **settings}
        bench = self._load(new["benchmark"])
        if new["optimizer"] not in available():
            raise ValueError(f"unknown optimizer {shown(new['optimizer'])}; known optimizers: {available()}")
        family = optimizer_spec(new["optimizer"]).family
        objective = objective_of(new["optimizer"])
        keep = lambda names: [n for n in names if n not in settings]  # noqa: E731 - stale values to drop
        if "benchmark" in settings:
            for name in keep(("max_cost", "budget")):
                new[name] = None
        if self.settings and objective != objective_of(self.settings["optimizer"]):
            for name in keep(("max_cost", "min_accuracy", "budget")):
                new[name] = None
        if family != "model-based":
            for name in keep(("beta", "filter")):
                new[name] = None
        new["benchmark"] = bench.name
        new["seed"] = check_seed(new["seed"])
        if objective == "accuracy" and new["max_cost"] is None:
            new["max_cost"] = bench.max_cost
        if new["max_cost"] is not None:
            lo, hi = self.cost_range(bench)
            hint = f" per training run; the data's full-size costs span ${lo:.4g}..${hi:.4g}"
            new["max_cost"] = check_positive("max_cost", new["max_cost"], "USD", hint)
        if new["max_time"] is not None:
            tlo, thi = self.time_range(bench)
            new["max_time"] = check_positive(
                "max_time", new["max_time"], "seconds",
                f" of training; the data's full-size times span {tlo:.4g}..{thi:.4g} s; None removes the bound")
        if new["min_accuracy"] is not None:
            new["min_accuracy"] = check_fraction("min_accuracy", new["min_accuracy"],
                                                  "(lowest acceptable accuracy; thesis: 0.85)")
        if new["budget"] is not None:
            new["budget"] = check_positive("budget", new["budget"], "USD", " of exploration")
        if objective == "accuracy" and new["max_cost"] is None and new["max_time"] is None \
                and new["min_accuracy"] is None:
            raise ValueError(f"benchmark {shown(bench.name)} has no default cost limit; set max_cost and/or max_time")
        if new["beta"] is not None:
            new["beta"] = check_fraction("beta", new["beta"], "of the untested candidates (paper: 0.1)")
        if new["filter"] is not None and new["filter"] not in FILTERS:
            raise ValueError(f"unknown filter {shown(new['filter'])}; known filters: {sorted(FILTERS)} "
                             "(or None for the optimiser's own)")
        it = new["iterations"]
        if isinstance(it, bool) or not isinstance(it, (int, np.integer)) or it < 1:
            raise ValueError(f"iterations must be a positive integer (tests per run; paper: 44), got {shown(it)}")
        new["iterations"] = int(it)
        replay = Replay.from_benchmark(bench, new["optimizer"], seed=new["seed"], beta=new["beta"],
                                       filter=new["filter"], max_cost=new["max_cost"], max_time=new["max_time"],
                                       min_accuracy=new["min_accuracy"], budget=new["budget"])
        if family != "budgeted":
            replay.check_iterations(new["iterations"])
        self.benchmark = bench
        self.settings = new
        self.replay = replay
        self._extra: list[dict] = []
        self._traj = None
        self._top_cache: dict = {}
        return self

    def set_constraint(self, max_cost=_UNSET, max_time=_UNSET, min_accuracy=_UNSET, *,
                       keep_history: bool = False) -> "ExplorerController":
        """Change the limits (the widget's sliders) and start a new run.

        Parameters
        ----------
        max_cost : float, optional
            New cost limit (USD per full-size training run; accuracy problems); ``None`` restores the
            benchmark's default. Omitted: unchanged.
        max_time : float or None, optional
            New time limit (s); ``None`` removes it (cost problems: the thesis' 300 s). Omitted: unchanged.
        min_accuracy : float or None, optional
            New accuracy bound; ``None`` removes it (cost problems: the thesis' 0.85). Omitted: unchanged.
        keep_history : bool
            Replay the tests made so far into the new optimiser (same tests, new limits: the next
            choices and the incumbent follow the new limits). Default: start from scratch.
        """
        changes = {k: v for k, v in (("max_cost", max_cost), ("max_time", max_time), ("min_accuracy", min_accuracy))
                   if v is not _UNSET}
        if not changes:
            raise ValueError("set_constraint needs max_cost and/or max_time (or min_accuracy)")
        old = self._tests() if keep_history else []
        self.configure(**changes)
        for pair in old:
            if self.done:
                break
            self._step(pair)
        return self

    def reset(self, seed: int | None = None) -> "ExplorerController":
        """Start the run again with the same settings (or a new ``seed``)."""
        return self.configure(**({} if seed is None else {"seed": seed}))

    # ------------------------------------------------------------------------------------ properties
    @property
    def optimizer(self):
        """The optimiser of the current run (:class:`tt_core.optimizers.Optimizer`)."""
        return self.replay.optimizer

    @property
    def objective(self) -> str:
        """``"accuracy"`` (maximised under a cost limit) or ``"cost"`` (minimised under an accuracy limit)."""
        return self.replay.objective

    @property
    def family(self) -> str:
        """The optimiser's family: ``"model-based"``, ``"random"`` or ``"budgeted"``."""
        return optimizer_spec(self.settings["optimizer"]).family

    @property
    def budgeted(self) -> bool:
        """Whether the run stops when its budget is spent rather than after ``iterations`` tests."""
        return self.family == "budgeted"

    @property
    def metric(self) -> str:
        """The trajectory column scoring the incumbent: ``"accuracy_c"`` or ``"cno"``."""
        return "accuracy_c" if self.objective == "accuracy" else "cno"

    @property
    def limits(self) -> dict:
        """The effective limits of the run: ``max_cost, max_time, min_accuracy, budget`` (defaults filled)."""
        return dict(self.replay.limits)

    @property
    def max_tests(self) -> int | None:
        """Tests the run will make (``iterations``), or None when the budget is the stop rule."""
        if self.budgeted:
            return None
        opt = self.optimizer
        return min(self.settings["iterations"], opt.pool.n_untested + opt.pool.n_tested)

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

    @staticmethod
    def accuracy_range(benchmark: Benchmark) -> tuple[float, float]:
        """Smallest and largest measured accuracy of the data (the accuracy slider's range)."""
        a = benchmark.table["accuracy"].to_numpy(float)
        a = a[np.isfinite(a) & (a > 0)]
        return (float(a.min()), float(min(a.max(), 1.0))) if a.size else (0.01, 1.0)

    # ------------------------------------------------------------------------------------ actions
    @property
    def compiles_next(self) -> bool:
        """Whether the next step is this process' first to fit models (a model-based optimiser after its
        first test), so that numba compiles the kernels during it (:data:`FIRST_STEP_SECONDS`); False
        without numba (``TT_NO_JIT=1``), once any controller of this process has fitted models, and when
        the run is finished."""
        from tt_core.models.jit import AVAILABLE

        return (AVAILABLE and not _PROCESS["models_fitted"] and self.family == "model-based" and not self.done
                and len(self.replay.rows) >= 1)

    @property
    def done(self) -> bool:
        """Whether the run is finished: ``iterations`` tests made (not for the budgeted optimisers), the
        budget spent, or every candidate tested."""
        if self.replay.done:
            return True
        return not self.budgeted and len(self.replay.rows) >= self.settings["iterations"]

    def step(self) -> dict | None:
        """Run one test through the replay driver: suggest, measure (replay), observe, score the incumbent.

        Returns
        -------
        dict or None
            The new trajectory row, or None when the run is finished (see :attr:`done`).
        """
        if self.done:
            return None
        self._step()
        return self.last_row()

    def run(self, n: int | None = None, callback=None) -> pd.DataFrame:
        """Run ``n`` more tests (default: until the run is finished, see :attr:`done`).

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
            raise ValueError(f"n must be a non-negative integer number of steps (or None: until done), got {shown(n)}")
        count = 0
        while not self.done and (n is None or count < n):
            self._step()
            count += 1
            if callback is not None:
                callback(self.last_row())
        return self.trajectory

    def _tests(self) -> list[tuple[int, int]]:
        return [(int(r["config_id"]), int(r["size"])) for r in self.replay.rows]

    def _step(self, pair: tuple[int, int] | None = None) -> None:
        row = self.replay.step(pair)
        if LOSS in (getattr(self.optimizer, "models", None) or {}):
            _PROCESS["models_fitted"] = True
        inc = None if row["incumbent"] < 0 else (int(row["incumbent"]), int(row["incumbent_size"]))
        self._extra.append({"s": row["size"] / self.benchmark.max_size, "n_untested": self.optimizer.pool.n_untested,
                            **self._predicted(inc)})
        self._traj = None
        self._top_cache = {}

    def _predicted(self, incumbent: tuple[int, int] | None) -> dict:
        """The models' prediction for the incumbent at its size (median of the log-normal); model-based only."""
        out = {"predicted_accuracy": np.nan, "predicted_cost": np.nan, "predicted_time": np.nan}
        models = getattr(self.optimizer, "models", None) or {}
        if incumbent is None or LOSS not in models:
            return out
        X = self.optimizer.space.encode(np.array([incumbent[0]]), np.array([incumbent[1]]))
        out["predicted_accuracy"] = float(-np.expm1(models[LOSS].predict(X)[0]))
        for kind in ("cost", "time"):
            if kind in models:
                out[f"predicted_{kind}"] = float(np.exp(models[kind].predict(X)[0]))
        return out

    # ------------------------------------------------------------------------------------ views
    @property
    def trajectory(self) -> pd.DataFrame:
        """One row per test so far: :data:`TRAJECTORY_COLUMNS` (accuracy problems) or
        :data:`COST_TRAJECTORY_COLUMNS` (cost problems)."""
        cols = TRAJECTORY_COLUMNS if self.objective == "accuracy" else COST_TRAJECTORY_COLUMNS
        if self._traj is None:
            traj = self.replay.frame()
            if traj.empty:
                self._traj = pd.DataFrame(columns=cols)
            else:
                extra = pd.DataFrame(self._extra, index=traj.index)
                self._traj = pd.concat([traj, extra], axis=1).reindex(columns=cols)
        return self._traj.copy()

    def last_row(self) -> dict | None:
        """The last trajectory row as plain Python values (None before the first test)."""
        traj = self.trajectory
        return None if traj.empty else {k: _plain(v) for k, v in traj.iloc[-1].items()}

    @property
    def history(self) -> pd.DataFrame:
        """The optimiser's own observations (config_id, size, accuracy, cost, time, phase, charged_*, ...)."""
        return self.optimizer.history

    def state(self) -> dict:
        """A snapshot of the settings and of the run (plain Python values).

        Returns
        -------
        dict
            The settings (:data:`SETTINGS`); ``objective``, ``family``, ``metric``, the effective
            ``limits``, ``filter_used`` and ``beta_used`` (None unless model-based); ``iteration`` (tests
            so far), ``max_tests`` (None when the budget is the stop rule), ``done``, ``n_untested``,
            ``n_candidates`` (size of the pool at the start), ``n_init`` (initial design; None for the
            budgeted optimisers, whose initial sampling is a budget), ``budget``, ``spent`` and
            ``budget_left`` (None without a budget); ``incumbent`` (config id or None) and
            ``incumbent_size`` with its true ``incumbent_accuracy`` / ``incumbent_cost`` /
            ``incumbent_time`` at that size and the models' ``predicted_accuracy`` / ``predicted_cost``
            / ``predicted_time``, ``accuracy_c`` and ``cno`` (NaN when not the problem's metric),
            ``cumulative_cost``, ``cumulative_time``, ``incumbent_config`` (its configuration values) and
            ``last`` (last row).
        """
        opt = self.optimizer
        last = self.last_row()
        pool = opt.pool
        model_based = self.family == "model-based"
        out = dict(self.settings)
        out.update(
            objective=self.objective, family=self.family, metric=self.metric, limits=self.limits,
            filter_used=getattr(opt, "filter", None) if model_based else None,
            beta_used=getattr(opt, "beta", None) if model_based else None,
            iteration=len(self.replay.rows), max_tests=self.max_tests, done=self.done,
            n_untested=pool.n_untested, n_candidates=pool.n_untested + pool.n_tested,
            n_init=getattr(opt, "n_init", None), budget=opt.budget, spent=float(opt.spent),
            budget_left=None if opt.budget is None else float(opt.remaining),
            cumulative_cost=0.0 if last is None else last["cumulative_cost"],
            cumulative_time=0.0 if last is None else last["cumulative_time"], last=last,
        )
        keys = ("incumbent_accuracy", "incumbent_cost", "incumbent_time", "predicted_accuracy", "predicted_cost",
                "predicted_time", "accuracy_c", "cno")
        if last is None or last["incumbent"] < 0:
            out.update(incumbent=None, incumbent_size=None, incumbent_config=None, **dict.fromkeys(keys, np.nan))
        else:
            out.update(incumbent=int(last["incumbent"]), incumbent_size=int(last["incumbent_size"]),
                       **{k: last.get(k, np.nan) for k in keys})
            cfg = self.benchmark.configs().set_index("config_id").loc[int(last["incumbent"])]
            out["incumbent_config"] = {k: _plain(v) for k, v in cfg.items()}
        return out

    def status(self) -> str:
        """One line on the run: tests (of ``iterations``, or the budget spent), the optimisation cost, the
        untested candidates and the incumbent with its metric; parts separated by ``" | "``."""
        st = self.state()
        if st["max_tests"] is None:
            head = f"test {st['iteration']} (until the ${st['budget']:g} budget is spent)"
        else:
            head = f"test {st['iteration']}/{st['max_tests']}"
        parts = [head]
        lim = st["limits"]
        if self.objective == "cost":
            bound = f"accuracy >= {lim['min_accuracy']:g}"
        else:
            bound = f"cost <= ${lim['max_cost']:g}"
        if lim.get("max_time") is not None:
            bound += f", time <= {lim['max_time']:g} s"
        parts.append(bound)
        if st["budget"] is not None:
            parts.append(f"spent ${st['spent']:.3f} of ${st['budget']:g}")
        else:
            parts.append(f"optimisation cost ${st['cumulative_cost']:.3f}")
        parts.append(f"{st['n_untested']} untested candidates")
        if st["incumbent"] is None:
            parts.append("no feasible test yet" if self.objective == "cost" else "no incumbent yet")
        else:
            where = "" if st["incumbent_size"] == self.benchmark.max_size else \
                f" at {size_label(st['incumbent_size'], self.benchmark.max_size)}"
            pred = (f" (predicted {st['predicted_accuracy']:.3f})" if np.isfinite(st["predicted_accuracy"]) else "")
            inc = (f"incumbent #{st['incumbent']}{where}: accuracy {st['incumbent_accuracy']:.3f}{pred}, "
                   f"cost ${st['incumbent_cost']:.4f}")
            if self.objective == "accuracy":
                inc += f", Accuracy_C {st['accuracy_c']:.3f}"
            else:
                inc += f", time {st['incumbent_time']:.0f} s, CNO {st['cno']:.3f}"
            parts.append(inc)
        if st["done"]:
            parts.append("done")
        return " | ".join(parts)

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
            (probability that the constraints hold), ``cea``, ``cea_rank`` (1 = best of all untested; equal
            CEA values share a rank, as ties: 1, 1, 3, ...), ``cea_tied`` (another untested candidate has the
            same CEA),
            ``in_filter`` (whether CEA with this ``beta`` keeps it; only for the ``"cea"`` filter) and
            ``acquisition`` (the optimiser's acquisition at this iteration). Empty (with a ``note`` in
            ``.attrs``) before the models exist and for the optimisers without persistent models
            (random search, the budgeted optimisers).
        """
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"k must be a positive integer, got {shown(k)}")
        key = int(k)
        if key in self._top_cache:
            return self._top_cache[key].copy()
        opt = self.optimizer
        cols = ["config_id", "size", "s", *self.benchmark.config_columns, "predicted_accuracy", "predicted_cost",
                "p_feasible", "cea", "cea_rank", "cea_tied", "in_filter", "acquisition"]
        models = getattr(opt, "models", None) or {}
        if LOSS not in models or opt.pool.n_untested == 0:
            df = pd.DataFrame(columns=cols)
            name = self.settings["optimizer"]
            if self.family == "random":
                note = "random search has no models: no CEA, no acquisition"
            elif self.family == "budgeted":
                note = (f"{name} refits its tree ensembles inside each choice and has no CEA filter "
                        "(it ranks by EIc or reward/cost)")
            elif opt.pool.n_untested:
                note = "no models yet (they are fitted from the second observation on)"
            else:
                note = "every candidate has been tested"
            df.attrs["note"] = note
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
        df["cea_rank"], df["cea_tied"] = tie_ranks(cea[top], cea)
        used = getattr(opt, "filter", None)
        # the filter keeps the first n_keep in this (stable) order; among tied CEA values the order is the filter's
        df["in_filter"] = (np.arange(1, len(top) + 1) <= n_keep(opt.beta, len(ids))) if used == "cea" else np.nan
        df["acquisition"] = self._acquisition(X[top])
        df = df[cols]
        self._top_cache[key] = df
        return df.copy()

    def _acquisition(self, X) -> np.ndarray:
        """The optimiser's acquisition at ``X``, leaving its random state untouched."""
        opt = self.optimizer
        if not hasattr(opt, "preview_acquisition"):
            return np.full(len(X), np.nan)
        try:
            values = np.asarray(opt.preview_acquisition()(X), dtype=float).ravel()
        except (ValueError, KeyError, np.linalg.LinAlgError):  # e.g. EIc before a feasible observation
            values = np.full(len(X), np.nan)
        return values

    # ------------------------------------------------------------------------------------ comparison
    def baseline_curves(self) -> tuple[pd.DataFrame, str]:
        """Curves of the other optimisers to compare with, and a note saying where they come from.

        Stored runs (``runs/<benchmark>/<variant>/seed*.parquet``, same limits and objective) are used
        when they exist; otherwise, with ``compute_baseline``, one random-search run with this seed
        (minimising the cost for a cost problem) is computed now. The curves are of :attr:`metric`.
        """
        from tt_workbook.runs.profiles import EXPLORATION_BUDGETS

        s, lim = self.settings, self.limits
        key = (s["benchmark"], self.objective, tuple(sorted(lim.items())), s["seed"],
               None if self.budgeted else s["iterations"])
        if key in self._baseline_cache:
            return self._baseline_cache[key]
        if self.objective == "accuracy":
            curves = stored_curves(s["benchmark"], max_cost=lim["max_cost"], max_time=lim["max_time"],
                                   default_max_cost=self.benchmark.max_cost, runs_dir=self.runs_dir,
                                   iterations=s["iterations"])
        else:
            curves = stored_curves(s["benchmark"], objective="cost", max_time=lim["max_time"],
                                   min_accuracy=lim["min_accuracy"], budget=lim["budget"],
                                   default_budget=EXPLORATION_BUDGETS.get(self.benchmark.name.lower()),
                                   runs_dir=self.runs_dir)
        if len(curves):
            n = curves.groupby("optimizer")["n_runs"].first()
            note = "stored runs (mean over seeds): " + ", ".join(f"{o} x{int(v)}" for o, v in n.items())
            curves["source"] = "stored"
        elif self.compute_baseline:
            if self.objective == "accuracy":
                base = Replay.from_benchmark(self.benchmark, "random", seed=s["seed"], **lim)
                traj = base.run(s["iterations"])
            else:
                base = Replay.from_benchmark(self.benchmark, "random", seed=s["seed"], objective="cost",
                                             max_time=lim["max_time"], min_accuracy=lim["min_accuracy"],
                                             budget=lim["budget"])
                traj = base.run(None)
            m = traj[self.metric]
            curves = pd.DataFrame({"optimizer": "random", "cumulative_cost": traj["cumulative_cost"], "mean": m,
                                   "lo": m, "hi": m, "n": 1, "n_runs": 1, "source": "computed now"})
            what = "random-search run" if self.objective == "accuracy" else "cost-minimising random-search run"
            note = (f"no stored runs for {s['benchmark']} with these limits; showing one {what} computed now "
                    f"(seed {s['seed']}). Store runs with `tt runs` to compare all optimisers.")
        else:
            note = f"no stored runs for {s['benchmark']} with these limits"
        self._baseline_cache[key] = (curves, note)
        return curves, note

    # ------------------------------------------------------------------------------------ figure
    def figure(self, k: int = 8, figsize: tuple[float, float] | None = None, title: bool = True):
        """The four live panels as a matplotlib Figure (see :func:`tt_workbook.apps.explorer.panels.figure`;
        ``figsize`` None: the laptop-sized :data:`tt_workbook.apps.explorer.panels.FIGSIZE`)."""
        from tt_workbook.apps.explorer.panels import FIGSIZE, figure

        return figure(self, k=k, figsize=FIGSIZE if figsize is None else figsize, title=title)
