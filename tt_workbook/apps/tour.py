"""The guided tour of notebook ``00_tour``: cost-aware constrained BO in five pictures.

Each function is one step of the tour: it computes what the step shows from the measurements (or a
short optimisation run) and returns a :class:`TourStep` with the data, one matplotlib figure and a
few headline numbers (``facts``) that the notebook's text refers to.

1. :func:`search_space` -- the configurations, what they cost and how accurate they are at full size;
2. :func:`subsampling_scatter` -- why sub-sampled runs predict full-size runs (accuracy at s = 1/10 vs
   s = 1, rank correlation);
3. :func:`surrogates` -- a surrogate's mean and uncertainty: bagged extra-trees vs the FABOLAS GP;
4. :func:`cea_filter` -- what the CEA filter (TrimTuner Eq. 6) keeps and drops;
5. :func:`incumbent_progress` -- how the incumbent improves per dollar of optimisation cost: median and band
   over seeds, beside the one seed the step describes.

Everything is seeded: the same arguments give the same figures.
"""

from __future__ import annotations

from tt_core.data.benchmarks import as_benchmark
from tt_workbook.plotting.style import laptop_size, legend_under, log_axis, size_fraction

from dataclasses import dataclass, field

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from tt_core.data.benchmarks import Benchmark
from tt_core.bo.history import loss_target
from tt_core.data.space import ConfigSpace
from tt_core.data.io import shown
from tt_core.data.paper_defaults import CEA_BETA, TESTS_PER_RUN

__all__ = ["TourStep", "cea_filter", "comparison_rows", "incumbent_progress", "search_space", "subsampling_scatter",
           "surrogates"]

VM_COLORS = {"t2.small": "#8ecae6", "t2.medium": "#219ebc", "t2.xlarge": "#fb8500", "t2.2xlarge": "#9d0208"}


@dataclass
class TourStep:
    """One step of the tour.

    Attributes
    ----------
    data : pandas.DataFrame
        What the figure shows.
    figure : matplotlib.figure.Figure
    facts : dict
        Headline numbers of the step (plain Python values).
    figures : dict
        Further figures of the step, by name.
    """

    data: pd.DataFrame
    figure: object
    facts: dict = field(default_factory=dict)
    figures: dict = field(default_factory=dict)


# ------------------------------------------------------------------------------------------------ 1
def search_space(benchmarks=("cnn", "rnn")) -> TourStep:
    """Step 1: the configuration space and the cost limit, at full size.

    Parameters
    ----------
    benchmarks : iterable of str or Benchmark

    Returns
    -------
    TourStep
        ``data``: one row per network (configurations, sizes, points, feasible configurations, best
        feasible accuracy). ``facts``: the same keyed by network. The figure shows every full-size
        configuration's cost and accuracy, coloured by VM type, with the paper's cost limit.
    """
    from tt_workbook.studies.feasibility.analysis import feasibility

    benches = [as_benchmark(b) for b in benchmarks]
    fig, axes = plt.subplots(1, len(benches), figsize=laptop_size(6.0 * len(benches), 4.9), squeeze=False,
                             constrained_layout=True)
    rows = []
    for ax, b in zip(axes[0], benches):
        full = b.full_size()
        fz = feasibility(b)
        rows.append({"network": b.name, "configurations": b.n_configs, "sizes": len(b.sizes),
                     "points": len(b.table), "max_cost": b.max_cost, "feasible": fz["feasible"],
                     "feasible_pct": fz["feasible_pct"], "best_feasible_accuracy": fz["best_accuracy"],
                     "high_accuracy": fz["high_accuracy"]})
        col = "vm_flavor" if "vm_flavor" in full.columns else None
        groups = full.groupby(col, sort=False) if col else [("configurations", full)]
        order = [v for v in VM_COLORS if col and v in set(full[col])] or [g for g, _ in groups]
        for name in order:
            g = full[full[col] == name] if col else full
            ax.scatter(g["cost"], g["accuracy"], s=16, alpha=0.8, color=VM_COLORS.get(name), label=name)
        ax.axvline(b.max_cost, color="#d62728", linestyle="--", label=f"cost limit ${b.max_cost:g}")
        ax.axvspan(full["cost"].min() * 0.8, b.max_cost, color="#2a9d8f", alpha=0.07, zorder=0)
        ax.axhline(fz["best_accuracy"], color="0.3", linestyle=":", linewidth=1,
                   label=f"best feasible {fz['best_accuracy']:.3f}")
        log_axis(ax, "x", money=True, scale=True)
        ax.set_xlabel("Cost of one full-size training run [USD]")
        ax.set_ylabel("Accuracy (s = 1)")
        ax.set_title(f"{b.name.upper()}: {b.n_configs} configurations, {fz['feasible']} affordable")
        legend_under(ax, ncol=3)
    fig.suptitle("Step 1 - the search space: every configuration trained on the full data set")
    data = pd.DataFrame(rows)
    return TourStep(data, fig, {r["network"]: r for r in rows})


# ------------------------------------------------------------------------------------------------ 2
def subsampling_scatter(benchmarks=("cnn", "rnn"), fraction: float = 0.1) -> TourStep:
    """Step 2: accuracy on a sub-sample vs on the full data set, one point per configuration.

    Parameters
    ----------
    benchmarks : iterable of str or Benchmark
    fraction : float
        The sub-sampling rate to compare with s = 1; the nearest size of the data is used.

    Returns
    -------
    TourStep
        ``data``: one row per (network, configuration) with ``accuracy_sub``, ``accuracy_full``,
        ``cost_sub``, ``cost_full``. ``facts[network]``: the size used, Spearman's rank correlation of the
        accuracies, the share of the best 10% at full size that are also among the best 10% on the
        sub-sample, and the median cost ratio full / sub-sample.
    """
    from scipy import stats

    if not 0 < fraction < 1:
        raise ValueError(f"fraction must lie in (0, 1) (a sub-sampling rate such as 0.1), got {shown(fraction)}")
    benches = [as_benchmark(b) for b in benchmarks]
    fig, axes = plt.subplots(1, len(benches), figsize=laptop_size(5.6 * len(benches), 5.0), squeeze=False,
                             constrained_layout=True)
    frames, facts = [], {}
    for ax, b in zip(axes[0], benches):
        size = min(b.sizes[:-1], key=lambda s: abs(np.log(s / (fraction * b.max_size))))
        sub = b.at_size(size).set_index("config_id")
        full = b.full_size().set_index("config_id")
        df = pd.DataFrame({"network": b.name, "config_id": full.index, "accuracy_sub": sub["accuracy"].reindex(full.index),
                           "accuracy_full": full["accuracy"], "cost_sub": sub["cost"].reindex(full.index),
                           "cost_full": full["cost"]}).reset_index(drop=True)
        frames.append(df)
        rho = float(stats.spearmanr(df["accuracy_sub"], df["accuracy_full"]).statistic)
        k = max(1, round(0.1 * len(df)))
        top_full = set(df.nlargest(k, "accuracy_full")["config_id"])
        top_sub = set(df.nlargest(k, "accuracy_sub")["config_id"])
        ratio = float(np.median(df["cost_full"] / df["cost_sub"]))
        name = size_fraction(size, b.max_size)
        facts[b.name] = {"size": int(size), "s": name, "spearman": rho, "top10_overlap": len(top_full & top_sub) / k,
                         "median_cost_ratio": ratio}
        feas = df["cost_full"] <= b.max_cost
        ax.scatter(df.loc[~feas, "accuracy_sub"], df.loc[~feas, "accuracy_full"], s=14, color="0.65",
                   label="too expensive at s = 1")
        ax.scatter(df.loc[feas, "accuracy_sub"], df.loc[feas, "accuracy_full"], s=16, color="#2a9d8f",
                   label=f"affordable at s = 1 (<= ${b.max_cost:g})")
        lo = float(min(df["accuracy_sub"].min(), df["accuracy_full"].min()))
        ax.plot([lo, 1], [lo, 1], color="0.3", linestyle=":", linewidth=1, label="same accuracy")
        ax.set_xlabel(f"Accuracy with s = {name} of the data ({size} images)")
        ax.set_ylabel(f"Accuracy with the full data set ({b.max_size} images)")
        ax.set_title(f"{b.name.upper()}: Spearman rho {rho:.2f}; a run costs ~{ratio:.0f}x less")
        legend_under(ax, ncol=2)
    fig.suptitle("Step 2 - cheap sub-sampled runs rank configurations like full-size runs do")
    return TourStep(pd.concat(frames, ignore_index=True), fig, facts)


# ------------------------------------------------------------------------------------------------ 3
def _observations(b: Benchmark, n_random: int, rng: np.random.Generator, probe: int,
                  probe_sizes: tuple[int, ...]) -> pd.DataFrame:
    """The probe at ``probe_sizes`` plus ``n_random`` random (configuration, size) pairs of other configs."""
    t = b.table
    probe_rows = t[(t["config_id"] == probe) & t["size"].isin(probe_sizes)]
    others = t[t["config_id"] != probe]
    pick = rng.choice(len(others), size=min(n_random, len(others)), replace=False)
    return pd.concat([probe_rows, others.iloc[np.sort(pick)]], ignore_index=True)


def surrogates(benchmark="cnn", *, n_random: int = 30, seed: int = 1, gp_burnin: int = 100) -> TourStep:
    """Step 3: what a surrogate model's mean and uncertainty look like -- extra-trees vs GP.

    Both models are fitted on the same observations of ``ln(1 - accuracy)``: one *probe*
    configuration tested only on the two smallest sub-samples, plus ``n_random`` random
    (configuration, size) pairs of other configurations.

    Parameters
    ----------
    benchmark : str or Benchmark
    n_random : int
        Random observations besides the probe's.
    seed : int
        Seed of the observations, the probe and both models.
    gp_burnin : int
        MCMC burn-in steps of the GP (smaller is faster).

    Returns
    -------
    TourStep
        ``data``: the predictions at s = 1 of every configuration for both models (``model, config_id,
        true_accuracy, mean_accuracy, lo, hi, std_log``). ``facts[model]``: Spearman rho between
        predicted and true full-size accuracy, share of true values inside the +-2 sd band, mean
        predictive sd; ``facts["probe"]``: the probe's id and its true/predicted full-size accuracy.
    """
    from scipy import stats

    from tt_core.models.fabolas_gp import FabolasGP
    from tt_core.models.trees import ExtraTreesEnsemble

    b = as_benchmark(benchmark)
    space = ConfigSpace.from_benchmark(b)
    rng = np.random.default_rng(seed)
    full = b.full_size().set_index("config_id")
    small = b.at_size(b.sizes[0]).set_index("config_id")
    gain = full["accuracy"] - small["accuracy"]  # a probe whose accuracy still grows with the data
    curves = b.table.pivot(index="config_id", columns="size", values="accuracy").reindex(full.index)
    monotone = (curves.diff(axis=1).iloc[:, 1:] > 0).all(axis=1)
    candidates = gain[(full["accuracy"] > 0.9) & (gain > 0.1) & monotone].index.to_numpy()
    if candidates.size == 0:
        candidates = full.index.to_numpy()
    probe = int(rng.choice(candidates))
    probe_sizes = tuple(b.sizes[:2])
    obs = _observations(b, n_random, rng, probe, probe_sizes)
    X = space.encode(obs["config_id"].to_numpy(), obs["size"].to_numpy())
    y = loss_target(obs["accuracy"].to_numpy())
    models = {
        "extra-trees (TrimTuner-DT)": ExtraTreesEnsemble(n_members=10, seed=seed),
        "FABOLAS GP (TrimTuner-GP)": FabolasGP(kind="loss", seed=seed, burnin=gp_burnin),
    }
    for m in models.values():
        m.fit(X, y)

    s_grid = np.linspace(0.0, 1.0, 121)
    U = space.encode([probe], [b.max_size])[0, :-1]
    X_probe = np.column_stack([np.tile(U, (s_grid.size, 1)), s_grid])
    sizes_grid = space.s_to_size(s_grid)
    X_full = space.full_size_X()
    true_full = full.loc[space.config_ids, "accuracy"].to_numpy()
    probe_true = b.table[b.table["config_id"] == probe].sort_values("size")

    fig = plt.figure(figsize=laptop_size(12, 6.2), layout="constrained")
    top, bottom = fig.subfigures(2, 1, height_ratios=[1.08, 1])  # the top row's legend between the rows
    axes = np.array([top.subplots(1, 2), bottom.subplots(1, 2)])
    frames, facts = [], {}
    for j, (name, m) in enumerate(models.items()):
        mu, sd = m.predict(X_probe, return_std=True)
        ax = axes[0, j]
        ax.fill_between(sizes_grid, -np.expm1(mu + 2 * sd), -np.expm1(mu - 2 * sd), color="#457b9d", alpha=0.2,
                        label="mean +- 2 sd")
        ax.plot(sizes_grid, -np.expm1(mu), color="#1d3557", label="predicted (mean)")
        seen = probe_true["size"].isin(probe_sizes)
        ax.plot(probe_true.loc[seen, "size"], probe_true.loc[seen, "accuracy"], "o", color="#e63946", ms=8,
                label="observed (training data)")
        ax.plot(probe_true.loc[~seen, "size"], probe_true.loc[~seen, "accuracy"], "x", color="k", ms=8, mew=2,
                label="true, not observed")
        ax.set_xscale("log")
        ax.set_ylim(max(-0.05, float(min(probe_true["accuracy"].min(), -np.expm1(mu).min())) - 0.15), 1.02)
        ax.set_xlabel("Training-set size [images] (log)")
        ax.set_ylabel("Accuracy")
        ax.set_title(f"{name}\nconfiguration #{probe} across sizes")

        mu_f, sd_f = m.predict(X_full, return_std=True)
        pred, lo, hi = -np.expm1(mu_f), -np.expm1(mu_f + 2 * sd_f), -np.expm1(mu_f - 2 * sd_f)
        inside = float(np.mean((true_full >= lo) & (true_full <= hi)))
        rho = float(stats.spearmanr(pred, true_full).statistic)
        facts[name] = {"spearman": rho, "coverage_2sd": inside, "mean_sd_log": float(np.mean(sd_f))}
        frames.append(pd.DataFrame({"model": name, "config_id": space.config_ids, "true_accuracy": true_full,
                                    "mean_accuracy": pred, "lo": lo, "hi": hi, "std_log": sd_f}))
        ax = axes[1, j]
        sc = ax.scatter(true_full, pred, c=sd_f, cmap="magma_r", s=14, vmin=0)
        ax.plot([0, 1], [0, 1], color="0.3", linestyle=":", linewidth=1)
        bottom.colorbar(sc, ax=ax, label="predictive sd of ln(1 - accuracy)")
        ax.set_xlabel("True accuracy at s = 1")
        ax.set_ylabel("Predicted accuracy at s = 1")
        ax.set_title(f"all {len(true_full)} configurations at s = 1: rho {rho:.2f}, {inside:.0%} inside +-2 sd")
    facts["probe"] = {"config_id": probe, "true_full_accuracy": float(full.loc[probe, "accuracy"]),
                      "observed_sizes": [int(s) for s in probe_sizes], "n_observations": len(obs)}
    fig.suptitle(f"Step 3 - two surrogates fitted on the same {len(obs)} observations ({b.name.upper()})")
    top.legend(*axes[0, 0].get_legend_handles_labels(), loc="outside lower center", ncol=4, fontsize=8,
               frameon=False)  # the top panels' entries once, under them
    return TourStep(pd.concat(frames, ignore_index=True), fig, facts)


# ------------------------------------------------------------------------------------------------ 4
def cea_filter(benchmark="rnn", *, n_random: int = 20, beta: float = CEA_BETA, seed: int = 1,
               max_cost: float | None = None) -> TourStep:
    """Step 4: what the CEA filter (Eq. 6) keeps and drops, compared with a random filter.

    The loss and cost models (extra-trees, as TrimTuner-DT) are fitted on TrimTuner's initial design
    (one configuration at 1/60, 1/10, 1/4, 1/2 of the data) plus ``n_random`` random tests; CEA then
    ranks every untested (configuration, size) pair and keeps the best ``beta`` share.

    Parameters
    ----------
    benchmark : str or Benchmark
    n_random : int
        Random tests besides the initial design.
    beta : float
        Share kept by the filters (paper: 0.1).
    seed : int
    max_cost : float, optional
        Cost limit (default the benchmark's).

    Returns
    -------
    TourStep
        ``data``: one row per untested candidate (``config_id, size, cost, accuracy, cea, kept_cea,
        kept_random, feasible_here, good_config``). ``facts``: numbers of candidates and kept ones, and for
        all / CEA / random: share of candidates whose own run is affordable (``feasible_here``), share whose
        configuration is a Table II "high accuracy" one (affordable at s = 1 and within 5% of the best),
        and mean true full-size accuracy of their configurations.
    """
    from tt_core.bo.filters import cea_scores, filter_candidates
    from tt_core.models.trees import ExtraTreesEnsemble
    from tt_core.bo.design import INIT_FRACTIONS
    from tt_core.optimizers import constraints_for

    b = as_benchmark(benchmark)
    max_cost = b.max_cost if max_cost is None else float(max_cost)
    space = ConfigSpace.from_benchmark(b)
    rng = np.random.default_rng(seed)
    first = int(rng.choice(space.config_ids))
    sub = [s for s in b.sizes if s < b.max_size]
    init_sizes = sorted({min(sub, key=lambda s: abs(np.log(s / (f * b.max_size)))) for f in INIT_FRACTIONS})
    t = b.table.reset_index(drop=True)
    is_init = (t["config_id"] == first) & t["size"].isin(init_sizes)
    rest = np.flatnonzero(~is_init.to_numpy())
    picked = np.sort(rng.choice(rest, size=min(n_random, rest.size), replace=False))
    tested = np.zeros(len(t), dtype=bool)
    tested[np.flatnonzero(is_init.to_numpy())] = True
    tested[picked] = True
    obs, cand = t[tested], t[~tested].reset_index(drop=True)
    X_obs = space.encode(obs["config_id"].to_numpy(), obs["size"].to_numpy())
    models = {"loss": ExtraTreesEnsemble(seed=seed).fit(X_obs, loss_target(obs["accuracy"].to_numpy())),
              "cost": ExtraTreesEnsemble(seed=seed + 1).fit(X_obs, np.log(obs["cost"].to_numpy(float)))}
    cons = constraints_for(max_cost=max_cost)
    X = space.encode(cand["config_id"].to_numpy(), cand["size"].to_numpy())
    cea = cea_scores(models, cons, X)
    keep_cea = filter_candidates("cea", X, beta, models=models, constraints=cons)
    keep_rnd = filter_candidates("random", X, beta, rng=np.random.default_rng(seed))
    full = b.full_size().set_index("config_id")
    feasible_full = full["cost"] <= max_cost
    best = float(full.loc[feasible_full, "accuracy"].max())
    good = feasible_full & (full["accuracy"] >= 0.95 * best)
    data = pd.DataFrame({
        "config_id": cand["config_id"], "size": cand["size"], "cost": cand["cost"], "accuracy": cand["accuracy"],
        "cea": cea, "kept_cea": np.isin(np.arange(len(cand)), keep_cea),
        "kept_random": np.isin(np.arange(len(cand)), keep_rnd), "feasible_here": cand["cost"].to_numpy() <= max_cost,
        "good_config": good.reindex(cand["config_id"]).to_numpy(),
        "full_accuracy": full["accuracy"].reindex(cand["config_id"]).to_numpy(),
    })
    sets = {"all untested": np.ones(len(data), bool), "kept by CEA": data["kept_cea"].to_numpy(),
            "kept by random": data["kept_random"].to_numpy()}
    summary = {name: {"n": int(m.sum()), "feasible_here": float(data.loc[m, "feasible_here"].mean()),
                      "good_config": float(data.loc[m, "good_config"].mean()),
                      "mean_full_accuracy": float(data.loc[m, "full_accuracy"].mean()),
                      "mean_s": float((data.loc[m, "size"] / b.max_size).mean())} for name, m in sets.items()}

    fig, axes = plt.subplots(1, 2, figsize=laptop_size(12, 5.4), constrained_layout=True,
                             gridspec_kw={"width_ratios": [1.3, 1]})
    ax = axes[0]
    drop = ~data["kept_cea"]
    ax.scatter(data.loc[drop, "cost"], data.loc[drop, "accuracy"], s=8, color="0.8", label="dropped by CEA")
    cmap = plt.get_cmap("viridis")
    for i, size in enumerate(b.sizes):
        m = data["kept_cea"] & (data["size"] == size)
        if m.any():
            ax.scatter(data.loc[m, "cost"], data.loc[m, "accuracy"], s=22, edgecolor="k", linewidth=0.3,
                       color=cmap(i / max(1, len(b.sizes) - 1)), label=f"kept, s = {size_fraction(size, b.max_size)}")
    ax.scatter(obs["cost"], obs["accuracy"], marker="P", s=60, color="#e63946", edgecolor="k", linewidth=0.5,
               label="already tested")
    ax.axvline(max_cost, color="#d62728", linestyle="--", label=f"cost limit ${max_cost:g}")
    log_axis(ax, "x", money=True, scale=True)
    ax.set_xlabel("True cost of the candidate's run [USD]")
    ax.set_ylabel("True accuracy of the candidate's run")
    ax.set_title(f"CEA keeps {summary['kept by CEA']['n']} of {len(data)} untested candidates (beta = {beta:g})")
    legend_under(ax, ncol=4)

    ax = axes[1]
    metrics = [("feasible_here", "run affordable"), ("good_config", "config is a top one\n(Table II, s = 1)"),
               ("mean_full_accuracy", "mean accuracy of\nthe config at s = 1")]
    width = 0.26
    colors = {"all untested": "0.7", "kept by CEA": "#2a9d8f", "kept by random": "#e9c46a"}
    for i, (name, vals) in enumerate(summary.items()):
        xs = np.arange(len(metrics)) + (i - 1) * width
        ys = [vals[k] for k, _ in metrics]
        ax.bar(xs, ys, width, color=colors[name], edgecolor="k", linewidth=0.4, label=name)
        for x, v in zip(xs, ys):
            ax.text(x, v + 0.01, f"{v:.2f}", ha="center", fontsize=7.5)
    ax.set_xticks(np.arange(len(metrics)), [lab for _, lab in metrics], fontsize=8.5)
    ax.set_ylim(0, 1.1)
    ax.set_ylabel("share / accuracy")
    ax.set_title("What the kept candidates are like (true values)")
    legend_under(ax, offset=0.75, ncol=3)  # past the two-line tick labels
    fig.suptitle(f"Step 4 - the CEA filter after {len(obs)} tests ({b.name.upper()}): "
                 "predicted accuracy x P(affordable)")
    facts = {"n_untested": len(data), "n_kept": int(summary["kept by CEA"]["n"]), "n_tested": len(obs), **summary}
    return TourStep(data, fig, facts)


# ------------------------------------------------------------------------------------------------ 5
#: Step 5's runs in the tour notebook: the optimisers, and (tests per run, seeds of the band) by smoke mode.
STEP5_OPTIMIZERS = ("trimtuner-dt", "eic", "random")
STEP5 = {False: (TESTS_PER_RUN, tuple(range(1, 11))), True: (5, (1, 2))}


def step5_specs(benchmark: str = "rnn", optimizers=STEP5_OPTIMIZERS, seeds=STEP5[False][1],
                iterations: int = TESTS_PER_RUN):
    """The runs :func:`incumbent_progress` reads: ``benchmark`` x ``optimizers`` x ``seeds``, in that order."""
    from tt_workbook.runs.store import grid

    return grid([benchmark], list(optimizers), list(seeds), iterations=iterations)


def notebook_00_runs(profile: str | None = None, smoke: bool = False, seed: int = 10) -> list:
    """Every run the tour notebook reads (step 5, :data:`STEP5`; ``seed``: its parameter, the run described;
    the same in every profile)."""
    iterations, seeds = STEP5[bool(smoke)]
    return step5_specs("rnn", STEP5_OPTIMIZERS, sorted({*seeds, int(seed)}), iterations)


def _runs(benchmark: str, optimizers, seeds, iterations: int, runs_dir) -> pd.DataFrame:
    """The trajectories of ``optimizers`` x ``seeds`` (column ``optimizer``), from the run store ``runs_dir`` (each
    run computed once, then read) or, without one, computed here."""
    from tt_workbook.runs.store import ensure_runs

    specs = step5_specs(benchmark, optimizers, seeds, iterations)
    if runs_dir is not None:
        return ensure_runs(specs, runs_dir, progress=False)
    frames = []
    for spec in specs:
        traj = spec.run()
        frames.append(traj.assign(benchmark=spec.benchmark, optimizer=spec.optimizer, seed=spec.seed))
    return pd.concat(frames, ignore_index=True)


def _and(words: list[str]) -> str:
    """``"a, b and c"``."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def incumbent_progress(benchmark="rnn", optimizers=("trimtuner-dt", "eic", "random"), *, seed: int = 1,
                       seeds=tuple(range(1, 11)), iterations: int = TESTS_PER_RUN, runs_dir=None,
                       quantiles: tuple[float, float] = (0.1, 0.9)) -> TourStep:
    """Step 5: Accuracy_C of the incumbent vs cumulative optimisation cost, over seeds and for one seed.

    Every optimiser runs once per seed of ``seeds`` (and ``seed``); the figure shows, per optimiser, the median
    and the ``quantiles`` band of the runs' curves (:func:`tt_workbook.studies.fig1_fig2.trajectories.seed_band`) and, as a
    thin line, the run of ``seed``: the one the step's numbers describe.

    Parameters
    ----------
    benchmark : str
        A registered benchmark name (the runs are stored under it).
    optimizers : iterable of str
        Registered optimisers (:func:`tt_core.optimizers.registry.available`).
    seed : int
        The run described one test at a time.
    seeds : iterable of int
        The runs of the band.
    iterations : int
        Tests per run, initial design included (the paper's 44).
    runs_dir : path, optional
        Run store (:mod:`tt_workbook.runs.store`): runs found there are read, the others computed and stored.
    quantiles : (float, float)
        The band's lower and upper quantile over the seeds.

    Returns
    -------
    TourStep
        ``data``: the band (``optimizer, cumulative_cost, median, lo, hi, n``). ``facts[optimizer]``: of the run of
        ``seed``: final Accuracy_C, total optimisation cost, mean cost per test, mean sub-sampling rate of the tests,
        and the cost at which Accuracy_C first reached 90% of the best feasible accuracy after the initial design
        (NaN if never; a guess of the initial design is not the method's result); over the seeds: the median final
        Accuracy_C and total cost, and the final Accuracy_C at the band's quantiles. ``figures["headline"]``: the
        band without the single seed (the report's and the README's first figure).
    """
    from tt_workbook.studies.fig1_fig2.trajectories import best_feasible_accuracy, seed_band
    from tt_workbook.plotting.seed_bands import plot_seed_bands
    from tt_workbook.plotting.style import method_style

    b = as_benchmark(benchmark)
    name = benchmark if isinstance(benchmark, str) else b.name
    band_seeds = sorted({int(s) for s in seeds})
    target = 0.9 * best_feasible_accuracy(b)
    runs = _runs(name, optimizers, sorted({*band_seeds, int(seed)}), iterations, runs_dir)
    in_band = runs[runs["seed"].isin(band_seeds)]
    band = seed_band(in_band, by=["optimizer"], quantiles=quantiles)
    facts = {}
    for opt in optimizers:
        traj = runs[(runs["optimizer"] == opt) & (runs["seed"] == seed)].sort_values("iteration")
        # counted after the initial design only: before the models exist a recommendation is a guess,
        # and a guess that happens to score well is not the method's result
        reached = traj[(traj["phase"] != "init") & (traj["accuracy_c"] >= target)]
        finals = in_band[in_band["optimizer"] == opt].sort_values("iteration").groupby("seed").tail(1)
        lo, hi = np.quantile(finals["accuracy_c"], quantiles)
        facts[opt] = {"final_accuracy_c": float(traj["accuracy_c"].iloc[-1]),
                      "total_cost": float(traj["cumulative_cost"].iloc[-1]),
                      "mean_cost_per_test": float(traj["charged_cost"].mean()),
                      "mean_s": float((traj["size"] / b.max_size).mean()),
                      "cost_to_90pct": float(reached["cumulative_cost"].iloc[0]) if len(reached) else float("nan"),
                      "median_final_accuracy_c": float(np.median(finals["accuracy_c"])),
                      f"final_accuracy_c_p{round(100 * quantiles[0])}": float(lo),
                      f"final_accuracy_c_p{round(100 * quantiles[1])}": float(hi),
                      "median_total_cost": float(np.median(finals["cumulative_cost"]))}
    labels = [method_style(o).get("label", o) for o in optimizers]
    versus = labels[0] + (" vs " + _and(labels[1:]) if len(labels) > 1 else "")
    pct = f"{round(100 * quantiles[0])}-{round(100 * quantiles[1])}%"
    what = f"{versus} ({b.name.upper()}, {iterations} tests): median and {pct} band over {len(band_seeds)} seeds"
    one = runs[runs["seed"] == seed]
    fig = plot_seed_bands(band, runs=in_band, highlight=one, highlight_label=f"seed {seed} (thin lines)",
                          target=target, band_label=f"{pct} of the seeds",
                          title=f"Step 5 - {what};\nthe thin lines are seed {seed}, the one stepped through")
    headline = plot_seed_bands(band, runs=in_band, target=target, band_label=f"{pct} of the seeds",
                               title=what[0].upper() + what[1:])
    return TourStep(band, fig, facts, figures={"headline": headline})


# ------------------------------------------------------------------------------------------------ summary
def comparison_rows(space_step: TourStep) -> list[dict]:
    """Paper-vs-workbook rows (:func:`tt_workbook.report.summary.comparison`) of step 1: TrimTuner §IV / Table I
    (configurations, points) and Table II (affordable configurations) per network."""
    from tt_workbook import paper_values as pv

    rows = []
    for net, f in space_step.facts.items():
        label = net.upper()
        rows += [
            {"source": "TrimTuner §IV text", "item": f"{label}: configurations per data-set size (count)",
             "paper": pv.TABLE_I["n_configs"], "workbook": f["configurations"]},
            {"source": "TrimTuner §IV text", "item": f"{label}: configurations x sizes (count)",
             "paper": pv.TABLE_I["n_points"], "workbook": f["points"]},
        ]
        if net in pv.TABLE_II:
            rows.append({"source": "TrimTuner Table II", "item": f"{label}: feasible configurations (count)",
                         "paper": pv.TABLE_II[net]["feasible"], "workbook": f["feasible"],
                         "note": f"cost <= ${pv.TABLE_II[net]['max_cost']:g} at s = 1"})
    return [{**r, "check": "data"} for r in rows]
