"""Seed intervals of SpotTune's Figs 7-9 numbers, and Fig. 8's shape claims.

Each number of §IV-B (savings, JCT and PCR ratios, free-step shares) is the mean over workloads of a
per-job-set ratio of seed means (:mod:`tt_workbook.studies.spottune.grids`); its interval is a percentile bootstrap over
the seeds (markets and submission times), the job sets fixed, every column resampled with the same seeds
so that ratios keep their seeds paired.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tt_workbook.studies.spottune.grids import REFERENCE, job_set_weights, workload_of


#: Seed intervals: a percentile bootstrap over the seeds (markets and submission times), the job sets fixed.
INTERVAL_LEVEL = 0.95
N_BOOT = 2000
INTERVAL_METHOD = "95% percentile bootstrap over seeds ({n} seeds, {b} resamples)"


def _membership(names) -> tuple[list, np.ndarray]:
    """Workloads and the (job sets x workloads) matrix of within-workload mean weights."""
    wl = [workload_of(n) for n in names]
    order = list(dict.fromkeys(wl))
    m = np.zeros((len(names), len(order)))
    for j, w in enumerate(wl):
        m[j, order.index(w)] = 1.0
    return order, m / m.sum(axis=0, keepdims=True)


def seed_cubes(grid: pd.DataFrame, approaches, cols) -> tuple[list, list, dict]:
    """Per column, an array (seeds, job sets, approaches) of the grid's values; every cell must be present."""
    g = grid.assign(jct_h=grid["jct_s"] / 3600.0)
    seeds = sorted({int(x) for x in g["seed"]})
    sets = list(dict.fromkeys(g["job_set"]))
    out = {}
    for col in cols:
        t = g.pivot_table(index=["seed", "job_set"], columns="approach", values=col, aggfunc="mean")
        t = t.reindex(pd.MultiIndex.from_product([seeds, sets], names=["seed", "job_set"]))
        missing = [a for a in approaches if a not in t.columns]
        if missing or t[list(approaches)].isna().to_numpy().any():
            raise ValueError(f"the grid lacks simulations ({missing or 'some (seed, job set, approach)'}) for {col}")
        out[col] = t[list(approaches)].to_numpy(float).reshape(len(seeds), len(sets), len(approaches))
    return seeds, sets, out


def boot_weights(n: int, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """(1 + n_boot, n) weights over ``n`` seeds: the plain mean first, then bootstrap resamples (counts / n);
    every column of a grid is resampled with the same rows, so ratios keep their seeds paired."""
    counts = rng.multinomial(n, np.full(n, 1.0 / n), size=n_boot) / n if n_boot > 0 else np.zeros((0, n))
    return np.vstack([np.full((1, n), 1.0 / n), counts])


def resample_means(cube: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Seed means of ``cube`` (seeds, ...) under each row of :func:`boot_weights`."""
    return np.tensordot(weights, cube, axes=(1, 0))


_FIG7_ORDER = ("single-cheapest", "single-fastest", "spottune-1", REFERENCE)


def _fig79_values(m: dict, w: np.ndarray, member: np.ndarray) -> dict:
    """The statements from seed-mean arrays ``m[col]`` of shape (..., job sets, approaches in _FIG7_ORDER)."""
    c, j = m["cost"], m["jct_h"]
    pcr = 1.0 / (c * j)
    C, D, A, B = range(4)
    mean = lambda r: r @ w                      # noqa: E731  weighted mean over job sets (workloads equal)
    up_to = lambda r: (r @ member).max(axis=-1)  # noqa: E731  maximum over workloads of the workload mean
    return {
        "saving_st1_vs_cheapest": mean(1 - c[..., A] / c[..., C]),
        "saving_st1_vs_fastest": mean(1 - c[..., A] / c[..., D]),
        "saving_st07_vs_st1": mean(1 - c[..., B] / c[..., A]),
        "saving_st07_vs_cheapest_max": up_to(1 - c[..., B] / c[..., C]),
        "saving_st07_vs_fastest_max": up_to(1 - c[..., B] / c[..., D]),
        "jct_fastest_over_st07": mean(j[..., D] / j[..., B]),
        "jct_cheapest_over_st07": mean(j[..., C] / j[..., B]),
        "pcr_st1_over_cheapest": mean(pcr[..., A] / pcr[..., C]),
        "pcr_st1_over_fastest": mean(pcr[..., A] / pcr[..., D]),
        "pcr_st07_over_cheapest": mean(pcr[..., B] / pcr[..., C]),
        "pcr_st07_over_fastest": mean(pcr[..., B] / pcr[..., D]),
        "free_step_share_st07": mean(m["free_step_share"][..., B]),
        "free_step_share_st1": mean(m["free_step_share"][..., A]),
        "refunded_share_st07": mean(m["refunded_share"][..., B]),
        "refunded_share_st1": mean(m["refunded_share"][..., A]),
        "cost_st1_over_cheapest": mean(c[..., A] / c[..., C]),
        "jct_st1_over_cheapest": mean(j[..., A] / j[..., C]),
        "st07_cheapest_of_all": mean((c.argmin(axis=-1) == B).astype(float)),
    }


def statement_intervals(grid: pd.DataFrame, n_boot: int = N_BOOT, level: float = INTERVAL_LEVEL,
                        rng: np.random.Generator | None = None) -> pd.DataFrame:
    """Figs 7 and 9's numbers with seed intervals: one row per statement (``key``, ``value``: the point
    estimate of :func:`paper_statements`, ``lo``/``hi``: the percentile bootstrap over seeds, ``seeds``,
    ``workloads``, ``method``). Means are over workloads (:func:`job_set_weights`), "max" statements the
    largest workload mean. ``rng``: the bootstrap's stream (default ``numpy.random.default_rng(0)``)."""
    rng = rng if rng is not None else np.random.default_rng(0)
    seeds, sets, cubes = seed_cubes(grid, _FIG7_ORDER, ("cost", "jct_h", "free_step_share", "refunded_share"))
    w = job_set_weights(sets)
    workloads, member = _membership(sets)
    weights = boot_weights(len(seeds), n_boot, rng)
    vals = _fig79_values({k: resample_means(v, weights) for k, v in cubes.items()}, w, member)
    a = (1 - level) / 2
    method = INTERVAL_METHOD.format(n=len(seeds), b=n_boot)
    q = (lambda v, x: float(np.quantile(v[1:], x))) if n_boot > 0 else (lambda v, x: float("nan"))
    return pd.DataFrame([{"key": k, "value": float(v[0]), "lo": q(v, a),
                          "hi": q(v, 1 - a), "seeds": len(seeds), "job_sets": len(sets),
                          "workloads": len(workloads), "method": method} for k, v in vals.items()])


def theta_intervals(theta: pd.DataFrame, n_boot: int = N_BOOT, level: float = INTERVAL_LEVEL,
                    rng: np.random.Generator | None = None) -> pd.DataFrame:
    """Fig. 8's numbers with seed intervals, from :func:`tt_workbook.studies.spottune.grids.theta_sweep`: per theta, cost and JCT relative to the
    largest theta (per job set, seed means, then the mean over workloads) and the top-1 / top-3 shares
    (mean over workloads); ``value`` plus ``lo``/``hi`` (percentile bootstrap over seeds) per quantity."""
    rng = rng if rng is not None else np.random.default_rng(0)
    thetas = sorted({float(t) for t in theta["theta"]})
    names = [theta.loc[theta["theta"] == t, "approach"].iloc[0] for t in thetas]
    seeds, sets, cubes = seed_cubes(theta, names, ("cost", "jct_h", "top1", "top3"))
    weights = boot_weights(len(seeds), n_boot, rng)
    m = {k: resample_means(v.astype(float), weights) for k, v in cubes.items()}
    w = job_set_weights(sets)
    a = (1 - level) / 2
    qs = {"cost_vs_max_theta": m["cost"] / m["cost"][..., -1:], "jct_vs_max_theta": m["jct_h"] / m["jct_h"][..., -1:],
          "top1": m["top1"], "top3": m["top3"]}
    rows = []
    for i, t in enumerate(thetas):
        row = {"theta": t}
        for q, arr in qs.items():
            v = np.tensordot(arr[..., i], w, axes=(1, 0))            # (1 + B,)
            row[q] = float(v[0])
            row[q + "_lo"] = float(np.quantile(v[1:], a)) if n_boot else float("nan")
            row[q + "_hi"] = float(np.quantile(v[1:], 1 - a)) if n_boot else float("nan")
        rows.append(row)
    return pd.DataFrame(rows).assign(method=INTERVAL_METHOD.format(n=len(seeds), b=n_boot))


#: Fig. 8's shape claims, as read here: "proportional" and "near-linear" mean a correlation (cost) and an
#: R² of a straight line (JCT) of at least this, over the θ grid, on the means over workloads.
SHAPE_THRESHOLD = 0.9


def theta_shape(table: pd.DataFrame, threshold: float = SHAPE_THRESHOLD) -> tuple[dict, dict]:
    """Fig. 8's shape claims from :func:`theta_intervals`: ``({"fig8_cost_rises", "fig8_jct_linear"} -> bool,
    the same keys -> the measured correlation / R² as text)``."""
    th = table["theta"].to_numpy(float)
    r_cost = float(np.corrcoef(th, table["cost_vs_max_theta"])[0, 1])
    r_jct = float(np.corrcoef(th, table["jct_vs_max_theta"])[0, 1])
    values = {"fig8_cost_rises": r_cost >= threshold, "fig8_jct_linear": r_jct ** 2 >= threshold}
    grid = ", ".join(f"{t:g}" for t in th)
    text = {"fig8_cost_rises": f"correlation of the mean cost ratio with θ {r_cost:.3f} over θ = {grid}",
            "fig8_jct_linear": f"R² of a straight line through the mean JCT ratios {r_jct ** 2:.3f} over θ = {grid}"}
    return values, text


def _corr_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson correlation of ``x`` with each row of ``y``."""
    xc = x - x.mean()
    yc = y - y.mean(axis=-1, keepdims=True)
    return (yc @ xc) / np.sqrt((yc ** 2).sum(axis=-1) * (xc ** 2).sum())


def theta_shape_intervals(theta: pd.DataFrame, n_boot: int = N_BOOT, level: float = INTERVAL_LEVEL,
                          threshold: float = SHAPE_THRESHOLD, rng: np.random.Generator | None = None) -> dict:
    """Fig. 8's shape claims on a :func:`tt_workbook.studies.spottune.grids.theta_sweep` grid, with seed intervals.

    Per seed resample (percentile bootstrap over the seeds, the job sets fixed; the first "resample" is the
    plain mean): per job set the seed-mean cost and JCT relative to the largest θ, the mean over workloads
    (:func:`tt_workbook.studies.spottune.grids.job_set_weights`), then

    * ``cost_r``: the correlation of that mean cost with θ ("generally proportional": >= ``threshold``);
    * ``jct_r2``: the R² of a straight line through the mean JCT (``near-linear``: >= ``threshold``);
    * ``largest_fall``: per workload (mean of its job sets' relative costs) the cost change from each θ to
      the next, divided by the cost at the lower θ; the most negative over workloads and θ steps ("sometimes
      the higher θ yields lower cost": < 0), with the workload and θ pair of the point estimate.

    Returns ``{"values": {claim key: bool}, "table": DataFrame (quantity, value, lo, hi, share_holds),
    "text": {claim key: note}}``; ``share_holds``: the share of resamples in which the claim holds."""
    rng = rng if rng is not None else np.random.default_rng(0)
    th = np.array(sorted({float(t) for t in theta["theta"]}))
    names = [theta.loc[theta["theta"] == t, "approach"].iloc[0] for t in th]
    seeds, sets, cubes = seed_cubes(theta, names, ("cost", "jct_h"))
    n = len(seeds)
    weights = boot_weights(n, n_boot, rng)
    m = {k: resample_means(v, weights) for k, v in cubes.items()}           # (1 + B, sets, thetas)
    rel = {k: v / v[..., -1:] for k, v in m.items()}
    w = job_set_weights(sets)
    mean = {k: np.einsum("bjt,j->bt", v, w) for k, v in rel.items()}         # (1 + B, thetas)
    cost_r = _corr_rows(th, mean["cost"])
    jct_r2 = _corr_rows(th, mean["jct_h"]) ** 2
    names, member = _membership(sets)
    per_wl = np.einsum("bjt,jw->bwt", rel["cost"], member)                   # (1 + B, workloads, thetas)
    change = np.diff(per_wl, axis=-1) / per_wl[..., :-1]                      # (1 + B, workloads, steps)
    fall = change.reshape(change.shape[0], -1).min(axis=1)
    i_wl, i_step = np.unravel_index(int(np.argmin(change[0])), change.shape[1:])
    a = (1 - level) / 2
    q = (lambda v, x: float(np.quantile(v[1:], x))) if n_boot > 0 else (lambda v, x: float("nan"))
    share = (lambda ok: float(ok[1:].mean())) if n_boot > 0 else (lambda ok: float("nan"))
    stats = {"fig8_cost_rises": ("cost_r", cost_r, cost_r >= threshold),
             "fig8_jct_linear": ("jct_r2", jct_r2, jct_r2 >= threshold),
             "fig8_higher_theta_cheaper": ("largest_fall", fall, fall < 0)}
    method = INTERVAL_METHOD.format(n=n, b=n_boot)
    table = pd.DataFrame([{"claim": key, "quantity": qn, "value": float(v[0]), "lo": q(v, a), "hi": q(v, 1 - a),
                           "share_holds": share(ok), "seeds": n, "method": method}
                          for key, (qn, v, ok) in stats.items()])
    grid = ", ".join(f"{t:g}" for t in th)
    r = table.set_index("claim")
    iv = lambda k: f"[{r.loc[k, 'lo']:.3f}, {r.loc[k, 'hi']:.3f}]"            # noqa: E731
    held = lambda k: f"holds in {100 * r.loc[k, 'share_holds']:.0f}% of {n_boot} seed resamples"  # noqa: E731
    text = {
        "fig8_cost_rises": f"correlation of the mean cost ratio with θ {r.loc['fig8_cost_rises', 'value']:.3f} "
                           f"{iv('fig8_cost_rises')} over θ = {grid} (threshold {threshold:g}); {held('fig8_cost_rises')}",
        "fig8_jct_linear": f"R² of a straight line through the mean JCT ratios {r.loc['fig8_jct_linear', 'value']:.3f} "
                           f"{iv('fig8_jct_linear')} over θ = {grid} (threshold {threshold:g}); {held('fig8_jct_linear')}",
        "fig8_higher_theta_cheaper": f"largest fall of a workload's mean cost from one θ to the next "
                                     f"{100 * r.loc['fig8_higher_theta_cheaper', 'value']:+.1f}% "
                                     f"({names[i_wl]}, θ {th[i_step]:g} -> {th[i_step + 1]:g}; seed interval of the "
                                     f"largest fall {iv('fig8_higher_theta_cheaper')}); {held('fig8_higher_theta_cheaper')}",
    }
    values = {k: bool(ok[0]) for k, (_, _, ok) in stats.items()}
    return {"values": values, "table": table, "text": text}


def paper_statements(per: pd.DataFrame, grid: pd.DataFrame) -> dict:
    """The workbook's values of the paper's §IV-B/IV-C statements: per job set the seed means, then the
    mean over workloads of the per-job-set ratios (the 48 TrimTuner groups count as two workloads), "max":
    the largest workload mean (:func:`statement_intervals` adds the seed intervals). ``per`` is unused
    (kept for callers that have it)."""
    t = statement_intervals(grid, n_boot=0)
    return dict(zip(t["key"], t["value"].astype(float)))
