"""Why TrimTuner tests the sizes it tests: a trace of its acquisition alpha_T (paper Eq. 5) per size.

TrimTuner chooses its next test ``(x, s)`` by ``alpha_T = IG(x, s) / c(x, s) * P(x, s)``: the expected
drop of the entropy of the full-size optimum (``IG``, Eq. 2), divided by the predicted cost ``c``
(Eq. 3), times the constraint factor ``P`` (the probability that the fantasised incumbent meets the
constraints, Eq. 5). :func:`trace_run` replays one seeded run and, at every BO iteration, records these
factors for

* the **chosen** candidate (with how many candidates tied with it on ``alpha_T``, :mod:`tt_core.bo.ties`:
  a tie means the seeded tie rule, not the acquisition, made the choice), and
* the **best candidate at each size** (largest ``alpha_T`` among the candidates the filter kept at that
  size),

plus, over *all* untested candidates of the iteration, the largest information gain at each size and
the cost model's predicted cost of every configuration at each size relative to its full-size
prediction (geometric mean over configurations), against the same ratio of the measured costs.

The trace only reads the optimiser's own acquisition object of the iteration (information gains are
memoised, constraint factors cached, the optimiser's random generator is never drawn from), so the
traced run is the same run as an untraced one with the same seed. :func:`summarise_traces` makes the
per-size table (notebook 03, ``figures/fig1_alpha_trace.csv``) and :func:`measured_cause` the sentence.

Measured (RNN, TrimTuner-DT, seeds 1-5, 44 tests; beta 10% / no filter): the largest information gain at
1/60 is 0.97x / 1.02x the full size's (median over iterations), and it is 0 at every candidate only at the
first BO step (2-3% of iterations); the cost model predicts a 1/60-size test at 0.022 / 0.023 of the
full-size cost against 0.040 measured (1/10: 0.11 against 0.12), so alpha_T ranks sizes by predicted cost.
The constraint factor of the best 1/60 candidate (0.69 / 0.75) is a little below the full size's (0.81 /
0.80): it does not favour small sizes. Ties decide 19% / 20% of the choices, almost all between candidates
of one size (0.5% / 3% across sizes). 55% / 96% of the BO tests are at 1/60: at beta 10% the CEA filter
keeps only 9% of its candidates at 1/60 (it ranks by the accuracy predicted at the tested size).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tt_core.bo.ties import TIE_RTOL, tied_with_best
from tt_core.data.paper_defaults import CEA_BETA, TESTS_PER_RUN

__all__ = ["trace_run", "trace_runs", "summarise_traces", "true_cost_ratios", "measured_cause"]

#: Columns of :func:`trace_run`'s rows.
TRACE_COLUMNS = ["seed", "beta", "iteration", "role", "s", "config_id", "size", "info_gain", "pred_cost",
                 "true_cost", "constraint_factor", "alpha_f", "alpha_t", "n_tied", "tied_sizes", "kept_at_size",
                 "zero_info_kept_at_size", "max_info_gain_untested", "pred_cost_ratio", "true_cost_ratio",
                 "pred_over_true_cost"]


def _geo_ratio(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.exp(np.mean(np.log(a) - np.log(b))))


def _cost_table(benchmark) -> pd.DataFrame:
    from tt_core.data.benchmarks import as_benchmark

    return as_benchmark(benchmark).table.pivot(index="config_id", columns="size", values="cost")


def true_cost_ratios(benchmark) -> dict[int, float]:
    """Measured cost at each size relative to full size: geometric mean over configurations, per size."""
    p = _cost_table(benchmark)
    full = p[p.columns.max()].to_numpy(float)
    return {int(size): _geo_ratio(p[size].to_numpy(float), full) for size in p.columns}


class _Tracer:
    """Observes one optimiser's choices (:meth:`tt_core.optimizers.base.Optimizer.on_select`) and records the acquisition's
    factors before the chosen test is run."""

    def __init__(self, opt, replay, true_ratios: dict[int, float], costs: pd.DataFrame):
        self.opt, self.replay, self.true_ratios = opt, replay, true_ratios
        self.log_costs = np.log(costs.reindex(opt.space.config_ids))  # configurations x sizes
        self.rows: list[dict] = []
        opt.on_select(self._record)

    def _record(self, step) -> None:
        opt, acq, choice = self.opt, step.acquisition, step.choice
        if not hasattr(acq, "constraint_term"):
            raise ValueError(f"the trace needs TrimTuner's acquisition (alpha_T); {opt.name} uses {type(acq).__name__}")
        space = opt.space
        ids, sizes, X, keep = step.ids, step.sizes, step.X, step.keep
        info = acq.information_gain_per_cost  # RowMemo(PerUnitCost(EntropySearch, MedianCost))
        igpc = getattr(info, "fn", info)
        es_model, cost_model = igpc.acquisition, igpc.cost.cost_model
        es_all = np.asarray(es_model(X), dtype=float)  # information gain of every untested candidate
        Xk = X[keep]
        alpha_f = np.asarray(info(Xk), dtype=float)
        es_k = es_all[keep]
        pc_k = np.exp(np.asarray(cost_model.predict(Xk), dtype=float))
        terms: dict[int, float] = {}

        def term(j: int) -> float:
            if j not in terms:
                terms[j] = float(acq.constraint_term(Xk[j:j + 1])[0])
            return terms[j]

        def best_of(rows: np.ndarray) -> np.ndarray:
            """Rows of Xk tied for the largest alpha_T among ``rows`` (:func:`tied_with_best`), by the scan of
            :meth:`tt_core.acquisitions.trimtuner.TrimTunerAcquisition.argmax`: a candidate whose alpha_F cannot reach the best is skipped."""
            vals, best = {}, -np.inf
            for j in rows[np.argsort(-alpha_f[rows], kind="stable")]:
                if vals and max(alpha_f[j], 0.0) < best - TIE_RTOL * abs(best):
                    break
                v = 0.0 if alpha_f[j] == 0.0 else float(alpha_f[j] * term(int(j)))
                vals[int(j)] = v
                best = max(best, v)
            idx = np.fromiter(vals, dtype=int)
            return idx[tied_with_best(np.fromiter(vals.values(), dtype=float))]

        it = step.iteration
        full = space.max_size
        # the cost model's predicted cost of every configuration at each size, relative to its full size
        all_ids = space.config_ids
        mu_full = np.asarray(cost_model.predict(space.encode(all_ids, np.full(all_ids.size, full))), dtype=float)
        base = {"seed": opt.seed, "beta": opt.beta, "iteration": it}
        tied = best_of(np.arange(keep.size))
        cid, size = choice
        j = int(np.flatnonzero((ids[keep] == cid) & (sizes[keep] == size))[0])
        if j not in tied:  # cannot happen: the optimiser chose among the tied maxima
            raise RuntimeError(f"the traced choice {choice} is not a maximum of alpha_T")
        row = self._row(base, "chosen", j, ids[keep], sizes[keep], es_k, pc_k, alpha_f, term, tied.size)
        row["tied_sizes"] = int(np.unique(sizes[keep][tied]).size)
        self.rows.append(row)
        for sz in space.sizes:
            at = np.flatnonzero(sizes[keep] == sz)
            untested = sizes == sz
            mu_s = np.asarray(cost_model.predict(space.encode(all_ids, np.full(all_ids.size, sz))), dtype=float)
            extra = {"kept_at_size": int(at.size), "zero_info_kept_at_size": int(np.sum(es_k[at] == 0.0)),
                     "max_info_gain_untested": float(es_all[untested].max()) if untested.any() else np.nan,
                     "pred_cost_ratio": float(np.exp(np.mean(mu_s - mu_full))),
                     "true_cost_ratio": self.true_ratios[int(sz)],
                     "pred_over_true_cost": float(np.exp(np.mean(mu_s - self.log_costs[sz].to_numpy(float))))}
            if at.size:
                tied_s = best_of(at)
                row = self._row(base, f"s={sz / full:.4g}", int(tied_s[0]), ids[keep], sizes[keep], es_k, pc_k,
                                alpha_f, term, tied_s.size)
            else:
                row = {**base, "role": f"s={sz / full:.4g}", "s": sz / full, "size": int(sz)}
            row.update(extra)
            self.rows.append(row)

    def _row(self, base, role, j, ids, sizes, es, pc, alpha_f, term, n_tied) -> dict:
        cid, size = int(ids[j]), int(sizes[j])
        f = term(j)
        return {**base, "role": role, "s": size / self.opt.space.max_size, "config_id": cid, "size": size,
                "info_gain": float(es[j]), "pred_cost": float(pc[j]), "true_cost": float(self.replay.score(cid, size).cost),
                "constraint_factor": f, "alpha_f": float(alpha_f[j]), "alpha_t": float(alpha_f[j] * f),
                "n_tied": int(n_tied)}


def trace_run(benchmark="rnn", seed: int = 1, *, beta: float = CEA_BETA, iterations: int = TESTS_PER_RUN,
              optimizer: str = "trimtuner-dt", **options) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Replay one run of TrimTuner and trace its acquisition at every BO iteration.

    Parameters
    ----------
    benchmark : str or Benchmark
    seed : int
    beta : float
        Share of the untested candidates the CEA filter keeps (1.0: no filter).
    iterations : int
        Tests of the run, initial design included (paper: 44).
    optimizer : str
        ``"trimtuner-dt"`` (default) or ``"trimtuner-gp"``: an optimiser whose acquisition is alpha_T.
    **options
        Optimiser options (e.g. ``trees="overhead"``, ``random_ties``).

    Returns
    -------
    trace : DataFrame
        Per BO iteration one ``role="chosen"`` row and one row per size (``role="s=<fraction>"``), with
        the columns of :data:`TRACE_COLUMNS`: ``info_gain`` (expected entropy drop, Eq. 2; for a GP the mean
        over hyperparameter samples), ``pred_cost``
        (USD, the cost model), ``true_cost`` (measured), ``constraint_factor``, ``alpha_f`` (info gain per
        predicted cost) and ``alpha_t``; ``n_tied`` candidates share the largest ``alpha_T`` (for the
        chosen row: more than one means the seeded tie rule chose; ``tied_sizes``: how many sizes the tied
        candidates span). Per-size rows also give
        ``kept_at_size`` (candidates the filter kept at that size), ``zero_info_kept_at_size`` (of which
        with information gain exactly 0), ``max_info_gain_untested`` (over all untested candidates at
        that size), ``pred_cost_ratio`` / ``true_cost_ratio`` (cost at that size / cost at full size,
        geometric mean over the configurations, predicted and measured) and ``pred_over_true_cost``
        (predicted / measured cost at that size, geometric mean over all configurations).
    trajectory : DataFrame
        The run's trajectory (as :func:`tt_core.replay.driver.run_optimization` returns it).
    """
    from tt_core.data.benchmarks import as_benchmark
    from tt_core.replay.driver import Replay

    bench = as_benchmark(benchmark)
    replay = Replay.from_benchmark(bench, optimizer, seed=int(seed), beta=beta, **options)
    tracer = _Tracer(replay.optimizer, replay, true_cost_ratios(bench), _cost_table(bench))
    traj = replay.run(iterations)
    trace = pd.DataFrame(tracer.rows).reindex(columns=TRACE_COLUMNS)
    return trace, traj


def trace_runs(seeds, betas=(CEA_BETA, 1.0), benchmark="rnn", iterations: int = TESTS_PER_RUN, **options):
    """:func:`trace_run` for every seed and beta; ``(traces, trajectories)`` concatenated (column ``beta``)."""
    traces, trajs = [], []
    for beta in betas:
        for seed in seeds:
            tr, tj = trace_run(benchmark, int(seed), beta=float(beta), iterations=iterations, **options)
            traces.append(tr)
            trajs.append(tj.assign(seed=int(seed), beta=float(beta)))
    return pd.concat(traces, ignore_index=True), pd.concat(trajs, ignore_index=True)


def summarise_traces(traces: pd.DataFrame, trajectories: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per beta and size: what decides TrimTuner's choice of size.

    Columns: ``beta, s, chosen_share`` (share of BO tests at that size), ``kept_share`` (share of the
    filter's kept candidates at that size), ``info_zero_share`` (share of iterations where every kept
    candidate at that size has information gain exactly 0), ``max_info_gain`` (mean over iterations of the
    largest information gain among all untested candidates at that size), ``info_ratio_vs_full``
    (median over iterations of that largest gain divided by the full size's), ``pred_cost_ratio`` and
    ``true_cost_ratio`` (cost at that size / full-size cost, geometric mean over configurations; the
    predicted one averaged over iterations), ``pred_over_true_cost`` (predicted / measured cost at that
    size, geometric mean over configurations, averaged over iterations), ``best_alpha_share`` (share of iterations where that size's
    best candidate has the largest ``alpha_T`` of all sizes), ``mean_constraint_factor`` (of that size's
    best candidate) and, on the rows ``s="all"``, ``tie_share`` (share of iterations decided by a tie),
    ``tie_across_sizes_share`` (by a tie between candidates of different sizes), ``all_zero_share`` (share
    where every kept candidate has information gain 0), ``mean_size_fraction`` of the BO tests and, with
    ``trajectories``, the mean final ``final_accuracy_c``.
    """
    rows = []
    for beta, tb in traces.groupby("beta", sort=True):
        chosen = tb[tb["role"] == "chosen"]
        sized = tb[tb["role"] != "chosen"].copy()
        n_it = len(chosen)
        full = sized["s"].max()
        fullmax = sized[sized["s"] == full].set_index(["seed", "iteration"])["max_info_gain_untested"]
        best_alpha = sized.groupby(["seed", "iteration"])["alpha_t"].transform("max")
        sized["is_best"] = sized["alpha_t"].notna() & (sized["alpha_t"] >= best_alpha - TIE_RTOL * best_alpha.abs())
        for s, ts in sized.groupby("s", sort=True):
            g = ts.set_index(["seed", "iteration"])
            ratio = (g["max_info_gain_untested"] / fullmax.reindex(g.index)).replace([np.inf, -np.inf], np.nan)
            kept_all = tb[tb["role"] != "chosen"]["kept_at_size"].sum()
            rows.append({"beta": beta, "s": round(float(s), 4),
                         "chosen_share": float(np.mean(np.isclose(chosen["s"], s))) if n_it else np.nan,
                         "kept_share": float(ts["kept_at_size"].sum() / kept_all) if kept_all else np.nan,
                         "info_zero_share": float(np.mean((ts["kept_at_size"] > 0)
                                                          & (ts["zero_info_kept_at_size"] == ts["kept_at_size"]))),
                         "max_info_gain": float(ts["max_info_gain_untested"].mean()),
                         "info_ratio_vs_full": float(ratio.median()),
                         "pred_cost_ratio": float(ts["pred_cost_ratio"].mean()),
                         "true_cost_ratio": float(ts["true_cost_ratio"].mean()),
                         "pred_over_true_cost": float(ts["pred_over_true_cost"].mean()),
                         "best_alpha_share": float(ts["is_best"].mean()),
                         "mean_constraint_factor": float(ts["constraint_factor"].mean())})
        kept = tb[tb["role"] != "chosen"].groupby(["seed", "iteration"])
        all_zero = (kept["zero_info_kept_at_size"].sum() == kept["kept_at_size"].sum())
        row = {"beta": beta, "s": "all", "chosen_share": 1.0, "tie_share": float(np.mean(chosen["n_tied"] > 1)),
               "tie_across_sizes_share": float(np.mean(chosen["tied_sizes"] > 1)),
               "all_zero_share": float(all_zero.mean()), "iterations": n_it, "seeds": int(chosen["seed"].nunique()),
               "mean_constraint_factor": float(chosen["constraint_factor"].mean()),
               "mean_size_fraction": float(chosen["s"].mean()) if n_it else np.nan}
        if trajectories is not None and len(trajectories):
            tj = trajectories[trajectories["beta"] == beta]
            if "accuracy_c" in tj.columns:
                row["final_accuracy_c"] = float(tj.sort_values("iteration").groupby("seed")["accuracy_c"].last().mean())
        rows.append(row)
    return pd.DataFrame(rows)


def measured_cause(summary: pd.DataFrame) -> str:
    """What makes TrimTuner test the smallest size, in words, from :func:`summarise_traces` (every beta)."""
    if summary.empty:
        raise ValueError("no traced runs to summarise")
    sizes = summary[summary["s"] != "all"].astype({"s": float})
    small = sizes[sizes["s"] == sizes["s"].min()]
    nxt = sizes[sizes["s"] == np.sort(sizes["s"].unique())[1]] if sizes["s"].nunique() > 1 else small
    tot = summary[summary["s"] == "all"]

    def span(values, fmt):
        lo, hi = float(np.min(values)), float(np.max(values))
        return fmt.format(lo) if fmt.format(lo) == fmt.format(hi) else f"{fmt.format(lo)}-{fmt.format(hi)}"

    per_beta = "; ".join(
        f"{'no filter' if b >= 1 else f'beta {b:g}'}: {100 * r['chosen_share']:.0f}% of the BO tests at the smallest "
        f"size, which holds {100 * r['kept_share']:.0f}% of the candidates alpha_T is evaluated on"
        for b, r in small.set_index("beta").iterrows())
    seeds = int(tot["seeds"].max())
    return (f"the trees' information gain is size-blind: the largest gain at the smallest size is "
            f"{span(small['info_ratio_vs_full'], '{:.2f}')}x the full size's (median over iterations) and 0 at every "
            f"kept candidate in only {span(100 * tot['all_zero_share'], '{:.0f}')}% of iterations, so alpha_T ranks "
            f"sizes by predicted cost, which the cost model puts at {span(small['pred_cost_ratio'], '{:.3f}')} of the "
            f"full-size cost at the smallest size (measured {float(small['true_cost_ratio'].mean()):.3f}; next size "
            f"{span(nxt['pred_cost_ratio'], '{:.3f}')}, measured {float(nxt['true_cost_ratio'].mean()):.3f}); the "
            f"constraint factor of the best smallest-size candidate is {span(small['mean_constraint_factor'], '{:.2f}')} "
            f"(full size {span(sizes[sizes['s'] == sizes['s'].max()]['mean_constraint_factor'], '{:.2f}')}), and ties "
            f"decide {span(100 * tot['tie_share'], '{:.0f}')}% of the choices, "
            f"{span(100 * tot['tie_across_sizes_share'], '{:.0f}')}% across sizes ({per_beta}; {seeds} seeds)")
