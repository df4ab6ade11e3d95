"""TrimTuner's claims tested on outside data (LCDB learning curves, notebook 17): the rules and the claims.

Rules written down before any run:

* **Selection** (:func:`eligible`): a data set is studied when its curves fit TrimTuner's setting: the
  five sizes of :data:`tt_workbook.studies.outside_data.lcdb.FRACTIONS` are distinct LCDB anchors; at least
  :data:`MIN_LEARNERS` learners have a curve at every one of them; training is worth saving (the median
  learner's full-size protocol time is at least :data:`MIN_FULL_TIME_S`); and the search matters (at most
  half of the affordable learners are within :data:`TARGET_GAP` of the best affordable one at full size).
  A profile studies ``k`` of them spread over the cost range (:func:`spread`).
* **Limit** (:func:`limit_of`): the cost constraint is the median full-size cost of the data set's learners
  (half of them are affordable at full size).
* **Tests per run**: as many as the data set has learners (EIc can then test every learner at full size).

The claims, each per data set with percentile-bootstrap intervals over seeds (:func:`claims`):

* **Fig. 2** (saving): EIc's cost to reach an Accuracy_C within :data:`TARGET_GAP` (relative) of the best
  affordable full-size accuracy, divided by TrimTuner-DT's (ratio of the medians over seeds; a run that
  never reaches it counts as infinitely expensive). Holds when the interval lies above 1.
* **Fig. 3/4** (filter): TrimTuner-DT with CEA at beta = 10 % against no filter, the difference of the mean
  Accuracy_C over the run. Holds ("no degradation") unless the interval lies below 0.
* **Fig. 1** (Accuracy_C after the same spend): at the spend of TrimTuner-DT's median run, TrimTuner-DT's
  Accuracy_C minus each baseline's. Holds when the interval lies above 0, fails when below 0.

Where a claim fails, :func:`reason` names the measured property of the data set that comes with it.
:func:`summary_rows` turns the per-data-set verdicts into the report's rows: one per claim, of the kind
*outside data* (counted apart from the reproductions), saying on how many data sets it holds, with each data set's
value and interval.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tt_workbook.studies.outside_data import lcdb

__all__ = ["MIN_LEARNERS", "MIN_FULL_TIME_S", "TARGET_GAP", "ARMS", "dataset_summary", "eligible", "spread",
           "limit_of", "cost_to_target", "accuracy_at_spend", "bootstrap", "claims", "reason", "claim_counts",
           "summary_rows"]

#: At least this many of LCDB's 20 learners with a curve at every size.
MIN_LEARNERS = 15
#: Seconds of the median learner's full-size protocol (all splits): below, sub-sampling saves little to care about.
MIN_FULL_TIME_S = 10.0
#: "Within 1 %" of the best affordable full-size accuracy (relative).
TARGET_GAP = 0.01
#: The study's arms: (label, registry name, filter).
ARMS = (("TrimTuner-DT", "trimtuner-dt", None), ("TrimTuner-DT no filter", "trimtuner-dt", "none"),
        ("TrimTuner-GP", "trimtuner-gp", None), ("FABOLAS", "fabolas", None), ("EIc", "eic", None),
        ("EIc/USD", "eic-usd", None), ("Random", "random", None))
#: Fig. 1's baselines of TrimTuner-DT.
FIG1_BASELINES = ("EIc", "EIc/USD", "FABOLAS", "Random")
N_BOOT = 2000


def limit_of(table: pd.DataFrame) -> float:
    """The cost limit of a converted data set: the median full-size cost of its learners."""
    full = table[table["size"] == table["size"].max()]
    return float(np.median(full["cost"]))


def _one(table: pd.DataFrame, info: dict) -> dict:
    sizes = info["sizes"]
    full = table[table["size"] == sizes[-1]].set_index("learner")
    small = table[table["size"] == sizes[0]].set_index("learner")
    limit = float(np.median(full["cost"]))
    affordable = full[full["cost"] <= limit]
    best = float(affordable["accuracy"].max())
    near = int((affordable["accuracy"] >= (1 - TARGET_GAP) * best).sum())
    rho = float(pd.Series(small["accuracy"]).rank().corr(full["accuracy"].rank()))
    return {"learners": len(full), "sizes": len(sizes), "full_size": int(sizes[-1]), "splits": info["splits"],
            "median_full_time_s": float(np.median(full["time"])), "limit": limit, "best_affordable": best,
            "affordable": len(affordable), "near_best": near, "share_near_best": near / len(affordable),
            "spearman_smallest_full": rho}


def dataset_summary(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per LCDB data set of the source table ``rows``: what the selection rule reads."""
    out = []
    for oid, d in rows.groupby("openmlid", sort=True):
        table, info = lcdb.curve_table(d, oid)
        row = {"openml_id": int(oid)}
        if len(info["learners"]) >= 2:
            row.update(_one(table, info))
        else:
            row.update(learners=len(info["learners"]), sizes=len(info["sizes"]))
        out.append(row)
    return pd.DataFrame(out)


def eligible(summary: pd.DataFrame) -> pd.DataFrame:
    """The data sets the selection rule keeps, cheapest median full-size time first."""
    s = summary
    keep = ((s["sizes"] == len(lcdb.FRACTIONS)) & (s["learners"] >= MIN_LEARNERS)
            & (s["median_full_time_s"] >= MIN_FULL_TIME_S) & (s["share_near_best"] <= 0.5))
    return s[keep].sort_values(["median_full_time_s", "openml_id"]).reset_index(drop=True)


def spread(chosen: pd.DataFrame, k: int | None) -> list[int]:
    """``k`` data sets evenly spaced over the eligible ones' cost order (all of them when ``k`` is None)."""
    ids = chosen["openml_id"].astype(int).tolist()
    if k is None or k >= len(ids):
        return ids
    return [ids[i] for i in np.unique(np.round(np.linspace(0, len(ids) - 1, k)).astype(int))]


def cost_to_target(run: pd.DataFrame, target: float) -> tuple[float, bool]:
    """Cumulative cost at the first test after which Accuracy_C >= ``target``; else (total cost, False)."""
    r = run.sort_values("iteration")
    hit = np.flatnonzero(r["accuracy_c"].to_numpy(float) >= target)
    if hit.size:
        return float(r["cumulative_cost"].to_numpy(float)[hit[0]]), True
    return float(r["cumulative_cost"].iloc[-1]), False


def accuracy_at_spend(run: pd.DataFrame, spend: float) -> float:
    """Accuracy_C of the last incumbent recommended within a cumulative cost of ``spend`` (0 before any)."""
    r = run.sort_values("iteration")
    within = r[r["cumulative_cost"].to_numpy(float) <= spend * (1 + 1e-12)]
    return float(within["accuracy_c"].iloc[-1]) if len(within) else 0.0


def bootstrap(stat, samples: list[np.ndarray], seed: int = 0, n_boot: int = N_BOOT) -> tuple[float, float, float]:
    """``stat(*samples)`` and its 95 % percentile-bootstrap interval, each sample resampled on its own."""
    rng = np.random.default_rng(seed)
    value = float(stat(*samples))
    draws = np.array([stat(*(x[rng.integers(0, len(x), len(x))] for x in samples)) for _ in range(n_boot)], float)
    if np.isnan(draws).all():
        return value, float("nan"), float("nan")
    lo, hi = np.nanpercentile(draws, [2.5, 97.5])
    return value, float(lo), float(hi)


def _verdict(lo: float, hi: float, at: float, no_degradation: bool = False) -> str:
    if no_degradation:
        return "fails" if hi < at else "holds"
    return "holds" if lo > at else ("fails" if hi < at else "undecided")


def claims(runs: pd.DataFrame, best: float) -> pd.DataFrame:
    """Every claim on one data set's runs (``arm``, ``seed``, ``iteration``, ``accuracy_c``,
    ``cumulative_cost``), ``best`` its best affordable full-size accuracy: one row per comparison with the
    value, its interval, the runs per arm and the verdict."""
    target = (1 - TARGET_GAP) * best
    per = {}
    for arm, g in runs.groupby("arm", sort=False):
        seeds = sorted(g["seed"].unique())
        per[arm] = [g[g["seed"] == s] for s in seeds]
    rows = []

    def ctt(arm):  # a run that never reaches the target counts as infinitely expensive (notebook 05's rule)
        got = [cost_to_target(r, target) for r in per[arm]]
        return np.array([c if ok else np.inf for c, ok in got]), sum(ok for _, ok in got)

    dt, dt_ok = ctt("TrimTuner-DT")
    eic, eic_ok = ctt("EIc")
    with np.errstate(invalid="ignore", divide="ignore"):  # inf / inf: no ratio (NaN, left out of the interval)
        v, lo, hi = bootstrap(lambda a, b: np.median(a) / np.median(b), [eic, dt])
    rows.append({"claim": "Fig. 2: EIc's cost to target / TrimTuner-DT's", "value": v, "lo": lo, "hi": hi,
                 "verdict": _verdict(lo, hi, 1.0), "runs": min(len(dt), len(eic)),
                 "note": f"reached: TrimTuner-DT {dt_ok}/{len(dt)}, EIc {eic_ok}/{len(eic)}"})
    mean_acc = {a: np.array([r["accuracy_c"].mean() for r in rs]) for a, rs in per.items()}
    v, lo, hi = bootstrap(lambda a, b: a.mean() - b.mean(), [mean_acc["TrimTuner-DT"],
                                                            mean_acc["TrimTuner-DT no filter"]])
    rows.append({"claim": "Fig. 3/4: mean Accuracy_C, CEA 10% - no filter", "value": v, "lo": lo, "hi": hi,
                 "verdict": _verdict(lo, hi, 0.0, no_degradation=True),
                 "runs": min(len(per["TrimTuner-DT"]), len(per["TrimTuner-DT no filter"])), "note": ""})
    spend = float(np.median([r["cumulative_cost"].max() for r in per["TrimTuner-DT"]]))
    at = {a: np.array([accuracy_at_spend(r, spend) for r in rs]) for a, rs in per.items()}
    for base in FIG1_BASELINES:
        v, lo, hi = bootstrap(lambda a, b: a.mean() - b.mean(), [at["TrimTuner-DT"], at[base]])
        rows.append({"claim": f"Fig. 1: Accuracy_C at equal spend, TrimTuner-DT - {base}", "value": v, "lo": lo,
                     "hi": hi, "verdict": _verdict(lo, hi, 0.0), "runs": min(len(at["TrimTuner-DT"]), len(at[base])),
                     "note": f"spend {spend:.3g} USD (TrimTuner-DT's median run)"})
    return pd.DataFrame(rows)


def reason(row: dict) -> str:
    """The measured property of a data set (a :func:`dataset_summary` row) that comes with a failing claim."""
    if row["spearman_smallest_full"] < 0.5:
        return (f"small sizes mislead: Spearman rho {row['spearman_smallest_full']:.2f} between the learners' "
                "accuracies at the smallest and the full size")
    if row["share_near_best"] >= 0.3:
        return (f"an easy target: {row['near_best']} of {row['affordable']} affordable learners are within "
                f"{100 * TARGET_GAP:g}% of the best")
    return (f"not one of the measured properties (Spearman rho {row['spearman_smallest_full']:.2f}, "
            f"{row['near_best']} of {row['affordable']} near the best)")


def claim_counts(table: pd.DataFrame) -> pd.DataFrame:
    """Per claim, on how many data sets it holds, fails or is undecided (``table``: rows of :func:`claims`
    with an ``openml_id`` column)."""
    counts = table.pivot_table(index="claim", columns="verdict", values="openml_id", aggfunc="count", fill_value=0)
    for col in ("holds", "fails", "undecided"):
        if col not in counts:
            counts[col] = 0
    counts["data sets"] = counts[["holds", "fails", "undecided"]].sum(axis=1)
    order = list(dict.fromkeys(table["claim"]))
    return counts.reindex(order)[["data sets", "holds", "fails", "undecided"]].reset_index()


def summary_rows(table: pd.DataFrame, source: str, setting: str = "") -> list[dict]:
    """The report's rows (dicts for :func:`tt_workbook.report.summary.comparison`), one per claim of ``table`` (rows
    of :func:`claims` with ``openml_id`` and ``reason``), of the kind *outside data*: ``paper`` the data sets
    studied (the claim, as a general one, says it holds on all), ``workbook`` those where it holds; the note says
    so in words and gives every data set's value, 95 % interval and verdict (with the reason of a failure) and
    the fewest runs per arm behind them; ``setting`` (the data, in words) goes into ``cause``.

    Examples
    --------
    >>> t = pd.DataFrame({"claim": ["c", "c"], "openml_id": [3, 7], "value": [1.5, 0.8], "lo": [1.2, 0.5],
    ...                   "hi": [1.9, 0.95], "verdict": ["holds", "fails"], "runs": [5, 4], "reason": ["", "easy"]})
    >>> r = summary_rows(t, "S")[0]
    >>> r["paper"], r["workbook"], r["check"]
    (2, 1, 'outside')
    >>> r["note"]
    'holds on 1 of 2 data sets; per data set, value [95% interval]: 3: 1.5 [1.2, 1.9] holds; 7: 0.8 [0.5, 0.95] fails (easy); 4 runs per arm'
    """
    rows = []
    for claim, t in table.groupby("claim", sort=False):
        holds = int((t["verdict"] == "holds").sum())
        each = "; ".join(f"{int(o)}: {v:.3g} [{lo:.3g}, {hi:.3g}] {verdict}" + (f" ({why})" if verdict == "fails" else "")
                         for o, v, lo, hi, verdict, why in zip(t["openml_id"], t["value"], t["lo"], t["hi"],
                                                               t["verdict"], t["reason"]))
        rows.append({"source": source, "item": f"{claim}: data sets where it holds, of those studied",
                     "paper": len(t), "workbook": holds, "check": "outside", "cause": setting,
                     "note": f"holds on {holds} of {len(t)} data set{'s' if len(t) != 1 else ''}; per data set, "
                             f"value [95% interval]: {each}; {int(t['runs'].min())} runs per arm"})
    return rows
