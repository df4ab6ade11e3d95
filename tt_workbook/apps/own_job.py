"""Bring your own job: tune a real scikit-learn training job with the workbook's optimisers.

The TrimTuner benchmarks replay measurements; here every test *trains a model*. The job
(:class:`DigitsJob`) is a small multilayer perceptron (:class:`sklearn.neural_network.MLPClassifier`)
on the hand-written digits that scikit-learn ships (:func:`sklearn.datasets.load_digits`, 1797 images
of 8x8 pixels, no download):

* a **configuration** is hyper-parameters (hidden units, initial learning rate, batch size) plus a
  **simulated VM type** from a price table (:data:`DEFAULT_VMS`: price per hour and speed relative to
  the machine the notebook runs on);
* a **size** is a sub-sample of the training set, at the TrimTuner paper's rates 1/60, 1/10, 1/4, 1/2
  and 1 (nested, class-balanced sub-samples);
* a test trains the model on the sub-sample (single-threaded, seeded) and measures the **accuracy** on
  the held-out test set and the **wall time**; the VM's training time is ``wall time / speed`` and its
  **cost** ``price per hour / 3600 x time``.

Accuracy is deterministic (fixed seeds, one BLAS thread); time and cost are measured, so they vary a
little from run to run, as on a real cloud. :func:`optimize_job` runs any accuracy-maximising registered
optimiser on the job with the replay driver of :mod:`tt_core.replay.driver` (``Replay``: measure =
train the job, score = train the recommendation on the full training set, an evaluation outside the
optimisation budget, cached per configuration).

To tune your own job, write a function ``fn(config: dict, size: int) -> {"accuracy", "cost", "time"}``,
a table of configurations and a list of sizes: ``optimize_job(fn, configs=..., sizes=..., max_cost=...)``
and :func:`plot_runs` take it as they take :class:`DigitsJob` (or a
:class:`tt_core.data.objectives.CallableObjective`). A configuration reaches ``fn`` as plain values: integer
columns as ``int``, a missing value as ``None`` (scikit-learn's ``max_depth=None``); costs are printed with their
significant digits at any scale (``$0.0000112``, not ``$0.0000``).
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from itertools import product

import numpy as np
import pandas as pd

from tt_core.data.objectives import CallableObjective, Measurement
from tt_core.data.space import ConfigSpace
from tt_core.data.io import shown
from tt_core.data.seeds import check_seed

__all__ = ["DEFAULT_VMS", "PAPER_FRACTIONS", "DigitsJob", "make_space", "optimize_job", "plot_grid", "plot_runs",
           "price_table"]

#: Sub-sampling rates of the TrimTuner paper (Table I: 1.67%, 10%, 25%, 50%, 100% of the data).
PAPER_FRACTIONS = (1 / 60, 1 / 10, 1 / 4, 1 / 2, 1.0)

#: Simulated VM types: on-demand price (USD per hour, AWS t2-like list prices) and speed relative to the
#: machine that runs the notebook (simulated, sub-linear in the number of vCPUs). Replace with your own.
DEFAULT_VMS: dict[str, dict[str, float]] = {
    "small": {"vcpus": 1, "price_per_hour": 0.023, "speed": 0.6},
    "medium": {"vcpus": 2, "price_per_hour": 0.0464, "speed": 1.0},
    "large": {"vcpus": 4, "price_per_hour": 0.0928, "speed": 1.7},
    "xlarge": {"vcpus": 8, "price_per_hour": 0.1856, "speed": 2.6},
}


def price_table(vms: dict | None = None) -> pd.DataFrame:
    """The VM table as a DataFrame (one row per VM type), with the price per unit of work.

    Parameters
    ----------
    vms : dict, optional
        ``{name: {"price_per_hour": USD, "speed": relative speed, ...}}``; default :data:`DEFAULT_VMS`.

    Raises
    ------
    ValueError
        A VM lacks a price or a speed, or one of them is not a positive number.
    """
    vms = DEFAULT_VMS if vms is None else vms
    if not isinstance(vms, dict) or not vms:
        raise ValueError("vms must be a non-empty dict {name: {'price_per_hour': USD, 'speed': factor}}")
    rows = []
    for name, spec in vms.items():
        for key in ("price_per_hour", "speed"):
            v = spec.get(key) if isinstance(spec, dict) else None
            if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) \
                    or not np.isfinite(v) or v <= 0:
                raise ValueError(f"VM {shown(name)}: {key} must be a positive number, got {shown(v)}")
        rows.append({"vm": str(name), **spec, "usd_per_work_hour": spec["price_per_hour"] / spec["speed"]})
    return pd.DataFrame(rows)


def make_space(configs: pd.DataFrame, sizes, categorical_order: dict | None = None) -> ConfigSpace:
    """A :class:`ConfigSpace` of every configuration at every size (for your own job).

    Parameters
    ----------
    configs : pandas.DataFrame
        One row per configuration: ``config_id`` and the configuration columns.
    sizes : iterable of int
        Training-set sizes (the largest is the full size).
    categorical_order : dict, optional
        Order of categorical columns (e.g. VM types from cheap to expensive).
    """
    if "config_id" not in configs.columns:
        raise ValueError("configs needs a 'config_id' column (0..n-1) besides the configuration columns")
    sizes = sorted({int(s) for s in sizes})
    cols = [c for c in configs.columns if c != "config_id"]
    table = configs.loc[configs.index.repeat(len(sizes))].reset_index(drop=True)
    table["size"] = np.tile(np.asarray(sizes, dtype=np.int64), len(configs))
    return ConfigSpace.from_table(table, cols, sizes=sizes, categorical_order=categorical_order)


def _balanced_order(y: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A permutation whose every prefix is (nearly) class-balanced: round-robin over shuffled classes."""
    perm = rng.permutation(len(y))
    rank = np.empty(len(y), dtype=np.int64)
    for c in np.unique(y):
        idx = perm[y[perm] == c]
        rank[idx] = np.arange(idx.size)
    tiebreak = np.empty(len(y), dtype=np.int64)
    tiebreak[perm] = np.arange(len(y))
    return np.lexsort((tiebreak, rank))


@dataclass
class DigitsJob:
    """An MLP on scikit-learn's digits, with simulated VM types and prices.

    Parameters
    ----------
    hidden_units, learning_rate_init, batch_size : tuple
        Hyper-parameter values (the configuration grid is their product with the VM types).
    vms : dict
        VM types, see :data:`DEFAULT_VMS` / :func:`price_table`.
    fractions : tuple of float
        Sub-sampling rates of the training set (the largest must be 1).
    max_iter : int
        Training epochs of the MLP.
    test_size : float
        Share of the images held out to measure the accuracy.
    seed : int
        Seed of the train/test split, of the sub-sample order and of every MLP.
    """

    hidden_units: tuple = (16, 64, 128)
    learning_rate_init: tuple = (1e-3, 1e-2)
    batch_size: tuple = (16, 128)
    vms: dict = field(default_factory=lambda: {k: dict(v) for k, v in DEFAULT_VMS.items()})
    fractions: tuple = PAPER_FRACTIONS
    max_iter: int = 20
    test_size: float = 0.25
    seed: int = 0

    def __post_init__(self):
        from sklearn.datasets import load_digits
        from sklearn.model_selection import train_test_split

        check_seed(self.seed)
        fr = sorted(float(f) for f in self.fractions)
        if not fr or fr[0] <= 0 or not np.isclose(fr[-1], 1.0) or len(set(fr)) != len(fr):
            raise ValueError(f"fractions must be distinct rates in (0, 1] that include 1 (the full training set), "
                             f"got {self.fractions}")
        for name in ("hidden_units", "learning_rate_init", "batch_size"):
            vals = getattr(self, name)
            if not vals or any(isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating))
                               or v <= 0 for v in vals):
                raise ValueError(f"{name} must be a non-empty tuple of positive numbers, got {shown(vals)}")
        self.prices = price_table(self.vms)
        X, y = load_digits(return_X_y=True)
        X = X / 16.0
        Xtr, self.X_test, ytr, self.y_test = train_test_split(X, y, test_size=self.test_size, random_state=self.seed,
                                                              stratify=y)
        order = _balanced_order(ytr, np.random.default_rng(self.seed))
        self.X_train, self.y_train = Xtr[order], ytr[order]
        n = len(self.y_train)
        self.sizes = tuple(sorted({max(10, int(round(f * n))) for f in fr}))
        self._configs = pd.DataFrame(
            list(product(self.prices["vm"], self.hidden_units, self.learning_rate_init, self.batch_size)),
            columns=["vm", "hidden_units", "learning_rate_init", "batch_size"],
        )
        self._configs.insert(0, "config_id", np.arange(len(self._configs)))

    # ---------------------------------------------------------------------------------------- parts
    @property
    def max_size(self) -> int:
        """The full training-set size (images)."""
        return self.sizes[-1]

    def configs(self) -> pd.DataFrame:
        """One row per configuration: ``config_id, vm, hidden_units, learning_rate_init, batch_size``."""
        return self._configs.copy()

    def space(self) -> ConfigSpace:
        """The configuration space (VM types ordered by price), every configuration at every size."""
        order = self.prices.sort_values("price_per_hour")["vm"].tolist()
        return make_space(self._configs, self.sizes, categorical_order={"vm": order})

    def objective(self) -> CallableObjective:
        """The job as an objective ``(config_id, size) -> Measurement`` for the optimisers."""
        return CallableObjective(self.train, self._configs)

    # ---------------------------------------------------------------------------------------- the job
    def train(self, config: dict, size: int) -> dict:
        """Train one configuration on the first ``size`` training images and measure it.

        Parameters
        ----------
        config : dict
            ``vm, hidden_units, learning_rate_init, batch_size``.
        size : int
            One of :attr:`sizes`.

        Returns
        -------
        dict
            ``accuracy`` (test set), ``wall_time`` (s, measured here), ``time`` (s, on the simulated VM)
            and ``cost`` (USD, ``price_per_hour / 3600 * time``).
        """
        from sklearn.exceptions import ConvergenceWarning
        from sklearn.neural_network import MLPClassifier
        from threadpoolctl import threadpool_limits

        size = int(size)
        if size not in self.sizes:
            raise ValueError(f"size {size} is not one of the job's sizes {list(self.sizes)}")
        prices = self.prices.set_index("vm")
        if str(config.get("vm")) not in prices.index:
            raise ValueError(f"unknown VM type {shown(config.get('vm'))}; the price table has {prices.index.tolist()}")
        vm = prices.loc[str(config["vm"])]
        model = MLPClassifier(hidden_layer_sizes=(int(config["hidden_units"]),),
                              learning_rate_init=float(config["learning_rate_init"]),
                              batch_size=min(int(config["batch_size"]), size), max_iter=self.max_iter,
                              random_state=self.seed)
        with threadpool_limits(1), warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            t0 = time.perf_counter()
            model.fit(self.X_train[:size], self.y_train[:size])
            wall = time.perf_counter() - t0
        accuracy = float(model.score(self.X_test, self.y_test))
        vm_time = wall / float(vm["speed"])
        return {"accuracy": accuracy, "wall_time": wall, "time": vm_time,
                "cost": float(vm["price_per_hour"]) / 3600.0 * vm_time}

    def measure(self, config_ids=None, sizes=None) -> pd.DataFrame:
        """Train configurations at sizes (default: every configuration at full size) and tabulate them.

        Returns
        -------
        pandas.DataFrame
            The configuration columns plus ``config_id, size, accuracy, time, cost, wall_time``.
        """
        ids = self._configs["config_id"].tolist() if config_ids is None else [int(c) for c in config_ids]
        sizes = [self.max_size] if sizes is None else [int(s) for s in sizes]
        cfg = self._configs.set_index("config_id")
        rows = []
        for cid in ids:
            for s in sizes:
                rows.append({"config_id": cid, **cfg.loc[cid].to_dict(), "size": s,
                             **self.train(cfg.loc[cid].to_dict(), s)})
        return pd.DataFrame(rows)

    def reference_cost(self, vm: str = "medium", hidden_units: int | None = None, learning_rate_init: float | None = None,
                       batch_size: int | None = None) -> float:
        """Cost of one full-size run of a middle-of-the-grid configuration on ``vm`` (a machine-independent
        way to set a cost limit: "at most what this run costs")."""
        pick = lambda vals, v: sorted(vals)[len(vals) // 2] if v is None else v  # noqa: E731
        cfg = {"vm": vm, "hidden_units": pick(self.hidden_units, hidden_units),
               "learning_rate_init": pick(self.learning_rate_init, learning_rate_init),
               "batch_size": pick(self.batch_size, batch_size)}
        return self.train(cfg, self.max_size)["cost"]


@dataclass
class _Job:
    """Any job as :func:`optimize_job` drives it: its space, its objective, its sizes and how it scores."""

    space: ConfigSpace
    objective: CallableObjective
    sizes: tuple
    digits: DigitsJob | None = None

    @property
    def max_size(self) -> int:
        return self.sizes[-1]


def _as_job(job, configs=None, sizes=None, categorical_order=None) -> _Job:
    """A :class:`DigitsJob`, a :class:`CallableObjective` (with ``sizes``) or a function ``fn(config, size)``
    (with ``configs`` and ``sizes``) as a :class:`_Job`."""
    if isinstance(job, DigitsJob):
        if configs is not None or sizes is not None:
            raise ValueError("a DigitsJob has its own configurations and sizes: leave configs and sizes out")
        return _Job(job.space(), job.objective(), tuple(job.sizes), job)
    if isinstance(job, CallableObjective):
        if configs is not None:
            raise ValueError("a CallableObjective has its configurations: leave configs out")
        objective = job
        configs = job.configs.reset_index()
    elif callable(job):
        if configs is None:
            raise ValueError("a job function fn(config, size) needs configs=<DataFrame with config_id and the "
                             "configuration columns> and sizes=<training-set sizes>")
        objective = CallableObjective(job, configs)
    else:
        raise ValueError(f"job must be a DigitsJob, a CallableObjective or a function fn(config, size) -> dict with "
                         f"accuracy and cost and/or time; got {type(job).__name__}")
    if sizes is None:
        raise ValueError("give sizes=<the training-set sizes, the largest the full set> for this job")
    space = make_space(configs, sizes, categorical_order)
    return _Job(space, objective, tuple(space.sizes))


def optimize_job(job, optimizer: str = "trimtuner-dt", *, seed: int, iterations: int = 20,
                 max_cost: float | None = None, max_time: float | None = None, beta: float | None = None,
                 filter: str | None = None, reference: pd.DataFrame | None = None, configs: pd.DataFrame | None = None,
                 sizes=None, categorical_order: dict | None = None) -> pd.DataFrame:
    """Optimise a job with a registered optimiser (ask/tell loop of paper Alg. 1, real training).

    The optimiser is built by :func:`tt_core.optimizers.make_optimizer` on the job's space and driven
    by the replay driver :class:`tt_core.replay.driver.Replay`, whose ``measure`` trains the job
    at (configuration, size) and whose ``score`` trains the recommendation at its size (the full size
    for these optimisers) once, so charging, phases and Accuracy_C are those of ``tt optimize``.

    Parameters
    ----------
    job : DigitsJob, CallableObjective or callable
        The digits demo; a :class:`~tt_core.data.objectives.CallableObjective` (give ``sizes``); or a function
        ``fn(config: dict, size: int) -> {"accuracy", "cost" and/or "time"}`` (give ``configs`` and ``sizes``).
        A configuration reaches the job as plain values (an integer column as ``int``, a missing value as
        ``None``, e.g. scikit-learn's ``max_depth=None``, encoded as its own ordinal value).
    optimizer : str
        A registered optimiser that maximises accuracy (:func:`tt_core.optimizers.available`: not
        nephele, lynceus or cherrypick, which minimise the cost of a priced benchmark).
    seed : int
    iterations : int
        Tests, initial design included.
    max_cost, max_time : float, optional
        Constraints (USD per full-size run, seconds); at least one is needed.
    beta, filter : optional
        Filter fraction and filter of the model-based optimisers (see
        :func:`tt_core.optimizers.make_optimizer`; default their own: 0.1 and e.g. CEA for TrimTuner).
    reference : pandas.DataFrame, optional
        Full-size measurements (``job.measure()``) used to score recommendations; configurations not in
        it are trained at full size when recommended (cached; not charged to the optimisation).
    configs, sizes, categorical_order : optional
        For a job that is not a :class:`DigitsJob`: one row per configuration (``config_id`` and the
        configuration columns), the training-set sizes (the largest is the full set) and the order of
        categorical columns (see :func:`make_space`).

    Returns
    -------
    pandas.DataFrame
        One row per test: ``optimizer, iteration, phase, config_id, size, s, accuracy, cost, time,
        wall_time, charged_cost, charged_time, cumulative_cost, cumulative_time, overhead_s, incumbent,
        incumbent_size, incumbent_accuracy, incumbent_cost, incumbent_time, accuracy_c,
        accuracy_c_thesis, cumulative_wall``. The sub-sampled initial design is charged as one run
        snapshotted at each size (:meth:`tt_core.optimizers.Optimizer.observe`). ``wall_time`` is the
        measured wall time of the training (a DigitsJob's simulated VM time x its speed; another job's call).
    """
    from tt_core.replay.driver import Replay
    from tt_core.optimizers import available, make_optimizer
    from tt_core.optimizers.registry import spec

    if max_cost is None and max_time is None:
        raise ValueError("optimize_job needs a constraint: max_cost (USD per full-size run) and/or max_time (s)")
    if spec(optimizer).objective == "cost":
        raise ValueError(f"{shown(optimizer)} minimises the cost under an accuracy bound and a budget; optimize_job "
                         "maximises the accuracy under max_cost/max_time: use one of "
                         f"{[n for n in available() if spec(n).objective != 'cost']}")
    work = _as_job(job, configs, sizes, categorical_order)
    opt = make_optimizer(optimizer, work.space, seed=seed, beta=beta, filter=filter, max_cost=max_cost,
                         max_time=max_time)
    objective = work.objective
    speed = work.digits.prices.set_index("vm")["speed"].to_dict() if work.digits is not None else None
    scored: dict[tuple[int, int], Measurement] = {}
    if reference is not None:
        full = reference[reference["size"] == work.max_size]
        scored = {(int(r.config_id), work.max_size): Measurement(float(r.accuracy), float(r.cost), float(r.time))
                  for r in full.itertuples()}
    wall: list[float] = []

    def measure(config_id: int, size: int) -> Measurement:
        t0 = time.perf_counter()
        m = objective(config_id, size)  # trains the model: the generic CallableObjective path of any user job
        elapsed = time.perf_counter() - t0
        wall.append(elapsed if speed is None else m.time * speed[objective.config(config_id)["vm"]])
        scored.setdefault((int(config_id), int(size)), m)  # a full-size test also scores that configuration
        return m

    def score(config_id: int, size: int) -> Measurement:
        key = (int(config_id), int(size))
        if key not in scored:  # an evaluation outside the optimisation budget
            scored[key] = objective(*key)
        return scored[key]

    replay = Replay(opt, measure, score, {"max_cost": max_cost, "max_time": max_time, "min_accuracy": None})
    if isinstance(iterations, bool) or not isinstance(iterations, (int, np.integer)):
        raise ValueError(f"iterations must be an integer number of tests, got {shown(iterations)}")
    replay.check_iterations(iterations)
    traj = replay.run(iterations)
    traj.insert(traj.columns.get_loc("size") + 1, "s", traj["size"] / work.max_size)
    traj.insert(traj.columns.get_loc("time") + 1, "wall_time", wall)
    traj.insert(0, "optimizer", optimizer)
    return traj


# ------------------------------------------------------------------------------------------------ figures
def _plain_log_x(ax) -> None:
    """Log x axis with plain-number labels (call after plotting)."""
    import matplotlib.ticker as mt

    ax.set_xscale("log")
    lo, hi = ax.get_xlim()
    dense = lo > 0 and np.log10(hi / lo) <= 2.0
    ax.xaxis.set_major_locator(mt.LogLocator(base=10, subs=(1.0, 2.0, 5.0) if dense else (1.0,)))
    ax.xaxis.set_major_formatter(mt.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(mt.NullFormatter())


def plot_grid(grid: pd.DataFrame, max_cost: float | None = None):
    """Full-size cost vs accuracy of every configuration (``job.measure()``), one colour per VM type.

    Returns the matplotlib Figure.
    """
    import matplotlib.pyplot as plt

    from tt_workbook.plotting.style import legend_right

    fig, ax = plt.subplots(figsize=(7.5, 4.6), constrained_layout=True)
    for (vm, g), color in zip(grid.groupby("vm", sort=False), plt.get_cmap("tab10").colors):
        ax.scatter(g["cost"] * 1e6, g["accuracy"], s=30, color=color, label=f"VM {vm}", edgecolor="k", linewidth=0.3)
    if max_cost is not None:
        ax.axvline(max_cost * 1e6, color="#d62728", linestyle="--", label=f"cost limit {max_cost * 1e6:.2f} µ$")
        feas = grid[grid["cost"] <= max_cost]
        if len(feas):
            best = feas.loc[feas["accuracy"].idxmax()]
            ax.scatter([best["cost"] * 1e6], [best["accuracy"]], marker="*", s=260, color="#ffbf00", edgecolor="k",
                       zorder=5, label=f"best affordable: #{int(best['config_id'])} ({best['accuracy']:.3f})")
    _plain_log_x(ax)
    ax.set_xlabel("Cost of one full-size training run [µ$ = 1e-6 USD] (log)")
    ax.set_ylabel("Test accuracy")
    ax.set_title(f"Every configuration of the digits job at full size ({len(grid)} runs)")
    legend_right(ax)
    return fig


def _money_unit(costs) -> tuple[float, str]:
    """The factor and name of the cost axis: micro-dollars (µ$) when the costs are under a tenth of a cent, else USD."""
    c = np.asarray(pd.to_numeric(pd.Series(costs), errors="coerce"), dtype=float)
    c = c[np.isfinite(c) & (c > 0)]
    return (1e6, "µ$") if c.size == 0 or c.max() < 1e-3 else (1.0, "USD")


def plot_runs(trajs: pd.DataFrame, job=None, max_cost: float | None = None, grid: pd.DataFrame | None = None):
    """Two panels per optimiser run: the tests (cost vs accuracy, coloured by size) and Accuracy_C vs
    cumulative optimisation cost. ``trajs``: concatenated :func:`optimize_job` outputs; ``job``: the job
    (anything with ``sizes``, e.g. a :class:`DigitsJob`; default: the sizes of the tests). Costs are drawn in
    µ$ when they are under a tenth of a cent, else in USD, and printed with their significant digits.
    Returns the Figure."""
    import matplotlib.pyplot as plt

    from tt_workbook.plotting.figures import METHOD_STYLES
    from tt_workbook.plotting.style import laptop_size, legend_under

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=laptop_size(13, 4.8), constrained_layout=True)
    from tt_workbook.runs.summaries import money

    sizes = sorted(int(s) for s in (getattr(job, "sizes", None) or trajs["size"].unique()))
    k, unit = _money_unit(pd.concat([trajs["cost"], trajs["cumulative_cost"]]))
    shade = {size: i / max(len(sizes) - 1, 1) for i, size in enumerate(sizes)}
    what = "images" if isinstance(job, DigitsJob) else "examples"
    if grid is not None:
        ax1.scatter(grid["cost"] * k, grid["accuracy"], s=14, color="0.8", label="all configurations (s = 1)")
    cmap = plt.get_cmap("viridis")
    markers = dict(zip(trajs["optimizer"].unique(), "o^sDvP"))
    for size in sizes:
        for name, t in trajs[trajs["size"] == size].groupby("optimizer", sort=False):
            ax1.scatter(t["cost"] * k, t["accuracy"], s=34, marker=markers[name], color=cmap(shade[size]),
                        edgecolor="k", linewidth=0.3)
    for name, m in markers.items():
        ax1.scatter([], [], marker=m, color="0.5", label=f"tests of {METHOD_STYLES.get(name, {'label': name})['label']}")
    for size in sizes:
        ax1.scatter([], [], s=34, color=cmap(shade[size]), label=f"{size} {what}")
    if max_cost is not None:
        ax1.axvline(max_cost * k, color="#d62728", linestyle="--", label=f"cost limit {money(max_cost)} (full size)")
    _plain_log_x(ax1)
    ax1.set_xlabel(f"Cost of the test [{unit}] (log)")
    ax1.set_ylabel("Test accuracy")
    ax1.set_title("Tests, coloured by training-set size")
    legend_under(ax1, fontsize=7.5, ncol=2)
    for name, t in trajs.groupby("optimizer", sort=False):
        style = METHOD_STYLES.get(name, {"color": "0.4", "linestyle": "-", "label": name})
        ax2.step(t["cumulative_cost"] * k, t["accuracy_c"], where="post", color=style["color"],
                 linestyle=style["linestyle"], linewidth=2,
                 label=f"{style['label']}: {t['accuracy_c'].iloc[-1]:.3f} after {money(t['cumulative_cost'].iloc[-1])}")
    _plain_log_x(ax2)
    ax2.set_xlabel(f"Cumulative optimisation cost [{unit}] (log)")
    ax2.set_ylabel("Accuracy_C of the incumbent (Eq. 7)")
    ax2.set_title(f"The incumbent per {unit} spent on tests")
    legend_under(ax2)
    return fig
