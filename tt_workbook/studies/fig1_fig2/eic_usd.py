"""Why EIc/USD (Lynceus) tests cost about as much as EIc's: its division by the predicted cost, traced.

EIc/USD chooses its next full-size test by ``EIc(x) / E[C(x)]`` (:class:`tt_core.acquisitions.per_cost.PerUnitCost` of EIc):
``E[C] = exp(mu_c + sigma_c^2 / 2)``, the log-normal mean of the GP's prediction of ``ln cost``, in USD (the
division is in natural units, not in log space). :func:`trace_run` replays one seeded EIc/USD run and, at every
BO step, evaluates on the same untested candidates and the same models

* EIc (the numerator) and ``E[C]`` of every candidate, the argmax of EIc and of EIc / E[C];
* the predicted and the measured cost of EIc/USD's pick, of EIc's argmax and of the cheapest candidate;
* the spread of EIc and of ``E[C]`` over the candidates, in decades: if EIc varies over many more decades than
  the cost, dividing by the cost hardly moves the argmax.

The trace calls the optimiser's own acquisition of the step (no random draw), so the traced run is the same
run as an untraced one with the same seed. :func:`step_record` is the per-step arithmetic (hand-checkable),
:func:`summarise` the table (notebook 03, ``figures/fig1_eic_usd_mechanism.csv``), :func:`measured_cause`
the sentence.

Measured (quick profile, seeds 1-3, 44 tests, 120 BO steps per network): EIc spans 14.6 (RNN) / 11.6 (CNN)
decades (median over steps of max/median) over the 264 full-size candidates, the predicted cost 0.90 / 0.67
(1.9 / 1.3 max/min), so a median 13 / 8.5 candidates can outrank EIc's argmax after the division; EIc/USD's pick
is EIc's argmax in 65% / 74% of the steps (40% / 63% in the first ten BO steps, 73% / 78% after), and its tests
cost $0.027 / $0.144 (0.75x / 0.82x EIc's argmax at the same state; cheapest candidate $0.0013 / $0.0145). The
cost model's prediction of the picks is 0.90x / 0.88x their measured cost: no defect in the cost or its space.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tt_core.data.paper_defaults import TESTS_PER_RUN

__all__ = ["step_record", "trace_run", "trace_runs", "summarise", "measured_cause"]


def _decades(v: np.ndarray) -> float:
    """``log10(max / median)`` over the positive values (nan with fewer than 2)."""
    v = v[np.isfinite(v) & (v > 0)]
    return float(np.log10(v.max()) - np.log10(np.median(v))) if v.size > 1 else np.nan


def step_record(eic, cost) -> dict:
    """The per-step comparison of ``argmax EIc`` and ``argmax EIc / cost`` over one step's candidates.

    Parameters
    ----------
    eic : array-like of shape (n,)
        EIc of each candidate (>= 0).
    cost : array-like of shape (n,)
        Predicted cost ``E[C]`` of each candidate (> 0).

    Returns
    -------
    dict
        ``i_usd`` / ``i_eic`` (index of the first maximum of EIc/cost and of EIc), ``same`` (they coincide),
        ``i_cheapest`` (smallest cost), ``eic_ratio`` (EIc of the EIc/USD pick / max EIc), ``cost_ratio``
        (cost of the EIc/USD pick / cost of EIc's pick), ``eic_decades`` and ``cost_decades``
        (``log10(max / median)`` over the candidates), ``cost_range_decades`` (``log10(max / min)`` of the cost)
        and ``eic_range_decades`` (the same over the positive EIc values), ``n_contenders`` (candidates whose EIc
        is at least ``max EIc * min cost / max cost``: only these can beat EIc's argmax after the division).
    """
    eic = np.asarray(eic, dtype=float).ravel()
    cost = np.asarray(cost, dtype=float).ravel()
    if eic.shape != cost.shape or eic.size == 0:
        raise ValueError(f"eic and cost need the same non-empty shape, got {eic.shape} and {cost.shape}")
    if not (np.all(np.isfinite(cost)) and np.all(cost > 0)):
        raise ValueError("cost must be finite and > 0")
    i_usd, i_eic = int(np.argmax(eic / cost)), int(np.argmax(eic))
    pos = eic[eic > 0]
    return {"i_usd": i_usd, "i_eic": i_eic, "same": i_usd == i_eic, "i_cheapest": int(np.argmin(cost)),
            "eic_ratio": float(eic[i_usd] / eic[i_eic]) if eic[i_eic] > 0 else np.nan,
            "cost_ratio": float(cost[i_usd] / cost[i_eic]),
            "eic_decades": _decades(eic), "cost_decades": _decades(cost),
            "eic_range_decades": float(np.log10(pos.max()) - np.log10(pos.min())) if pos.size > 1 else np.nan,
            "cost_range_decades": float(np.log10(cost.max() / cost.min())),
            "n_contenders": int(np.sum(eic >= eic.max() * cost.min() / cost.max()))}


def trace_run(benchmark="rnn", seed: int = 1, *, iterations: int = TESTS_PER_RUN, **options) -> pd.DataFrame:
    """Replay one EIc/USD run and record, at every BO step, :func:`step_record` of its candidates.

    Returns
    -------
    DataFrame, one row per BO step: ``seed, iteration, n_candidates, chosen, pick_eic`` (configuration ids),
    the :func:`step_record` fields, ``pred_cost_usd / true_cost_usd`` (EIc/USD's pick), ``pred_cost_eic /
    true_cost_eic`` (EIc's argmax), ``pred_cost_min / true_cost_min`` (smallest predicted and smallest measured
    cost among the candidates), ``true_cost_median`` (median measured cost of the candidates) and
    ``best_feasible`` (whether EIc had a feasible incumbent, else it is P(constraints) alone).
    """
    from tt_core.replay.driver import Replay

    replay = Replay.from_benchmark(benchmark, "eic-usd", seed=int(seed), **options)
    opt = replay.optimizer
    rows: list[dict] = []

    def _record(step) -> None:
        ids, sizes, X, acq, choice = step.ids, step.sizes, step.X, step.acquisition, step.choice
        eic = np.asarray(acq.acquisition(X), dtype=float)  # PerUnitCost(EIc, LogNormalMeanCost)
        cost = np.asarray(acq.cost(X), dtype=float)
        rec = step_record(eic, cost)
        true = np.array([replay.score(int(c), int(s)).cost for c, s in zip(ids, sizes)], dtype=float)
        j = int(np.flatnonzero((ids == choice[0]) & (sizes == choice[1]))[0])
        if eic[j] / cost[j] < eic[rec["i_usd"]] / cost[rec["i_usd"]] * (1 - 1e-9):
            raise RuntimeError(f"the traced choice {choice} is not a maximum of EIc/USD")
        rec.update({"seed": int(seed), "iteration": step.iteration, "n_candidates": int(ids.size),
                    "chosen": int(choice[0]), "pick_eic": int(ids[rec["i_eic"]]),
                    "pred_cost_usd": float(cost[j]), "true_cost_usd": float(true[j]),
                    "pred_cost_eic": float(cost[rec["i_eic"]]), "true_cost_eic": float(true[rec["i_eic"]]),
                    "pred_cost_min": float(cost.min()), "true_cost_min": float(true.min()),
                    "true_cost_median": float(np.median(true)), "best_feasible": acq.acquisition.best_feasible is not None})
        rec["same"] = bool(int(ids[rec["i_usd"]]) == rec["pick_eic"])
        rows.append(rec)

    opt.on_select(_record)  # the acquisition the choice was made with, not a rebuilt one
    replay.run(iterations)
    return pd.DataFrame(rows)


def trace_runs(seeds, benchmarks=("rnn",), iterations: int = TESTS_PER_RUN, **options) -> pd.DataFrame:
    """:func:`trace_run` for every benchmark and seed, concatenated (column ``benchmark``)."""
    out = [trace_run(b, int(s), iterations=iterations, **options).assign(benchmark=str(b))
           for b in benchmarks for s in seeds]
    return pd.concat(out, ignore_index=True)


def summarise(trace: pd.DataFrame) -> pd.DataFrame:
    """Per benchmark: share of steps where argmax EIc/USD == argmax EIc, costs of the picks, spreads.

    Columns: ``benchmark, seeds, steps, same_share`` (argmax EIc/USD is argmax EIc), ``eic_ratio`` (median EIc
    of the EIc/USD pick / max EIc), ``pred_cost_usd, true_cost_usd, pred_cost_eic, true_cost_eic, pred_cost_min,
    true_cost_min, true_cost_median`` (means over the steps, USD), ``pred_over_true`` (geometric mean of the
    pick's predicted / measured cost), ``usd_over_cheapest`` (geometric mean of the pick's measured cost /
    the cheapest candidate's), ``eic_decades, cost_decades`` (median over steps of ``log10(max / median)``),
    ``cost_range_decades`` (median ``log10(max / min)`` of the predicted cost), ``n_contenders`` /
    ``n_candidates`` (medians over steps, :func:`step_record`) and ``feasible_share`` (steps
    with a feasible incumbent).
    """
    rows = []
    for b, t in trace.groupby("benchmark", sort=True):
        rows.append({"benchmark": b, "seeds": int(t["seed"].nunique()), "steps": len(t),
                     "same_share": float(t["same"].mean()), "eic_ratio": float(t["eic_ratio"].median()),
                     **{c: float(t[c].mean()) for c in ("pred_cost_usd", "true_cost_usd", "pred_cost_eic",
                                                          "true_cost_eic", "pred_cost_min", "true_cost_min",
                                                          "true_cost_median")},
                     "pred_over_true": float(np.exp(np.mean(np.log(t["pred_cost_usd"] / t["true_cost_usd"])))),
                     "usd_over_cheapest": float(np.exp(np.mean(np.log(t["true_cost_usd"] / t["true_cost_min"])))),
                     "eic_decades": float(t["eic_decades"].median()), "cost_decades": float(t["cost_decades"].median()),
                     "cost_range_decades": float(t["cost_range_decades"].median()),
                     "n_contenders": float(t["n_contenders"].median()), "n_candidates": float(t["n_candidates"].median()),
                     "feasible_share": float(t["best_feasible"].mean())})
    return pd.DataFrame(rows)


def measured_cause(summary: pd.DataFrame) -> str:
    """The mechanism in words, from :func:`summarise` (one clause per benchmark)."""
    if summary.empty:
        raise ValueError("no traced EIc/USD steps to summarise")
    parts = []
    for _, r in summary.iterrows():
        parts.append(
            f"{r['benchmark']} ({int(r['seeds'])} seeds, {int(r['steps'])} BO steps): EIc/USD divides EIc by the "
            f"log-normal mean of the predicted cost in USD (not in log space; predicted/measured cost of its picks "
            f"{r['pred_over_true']:.2f}), but EIc spans {r['eic_decades']:.1f} decades (max/median) over the "
            f"full-size candidates and the predicted cost {r['cost_decades']:.2f} ({r['cost_range_decades']:.2f} "
            f"max/min), so a median {r['n_contenders']:.0f} of {r['n_candidates']:.0f} candidates can outrank EIc's "
            f"argmax after the division and the pick is EIc's argmax in {100 * r['same_share']:.0f}% of the steps; "
            f"its tests cost ${r['true_cost_usd']:.4f} on average ({r['true_cost_usd'] / r['true_cost_eic']:.2f}x "
            f"EIc's argmax at the same state, ${r['true_cost_eic']:.4f}; cheapest candidate ${r['true_cost_min']:.4f}, "
            f"median ${r['true_cost_median']:.4f})")
    return "; ".join(parts)
