"""The settings the paper does not state, swept (§IV-B's claims against the bid rule, Amdahl's parallel
fraction, the start-up time and the model size).

SpotTune (theta 1 and 0.7) against both single-spot baselines of Fig. 7 as one unstated setting changes
at a time; per setting the Figs 7 and 9 ratios with seed intervals (:mod:`tt_workbook.studies.spottune.intervals`), the
truth values of the paper's claims (:func:`tt_workbook.studies.spottune.grids.claims`), and where the paper's numbers fall.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tt_core.data.io import shown
from tt_spotsim import simulator as S, workloads as W
from tt_workbook.studies.spottune.grids import REFERENCE, claims, job_set_weights, per_job_set, sim_settings, simulate_grid, study_job_sets
from tt_workbook.studies.spottune.intervals import INTERVAL_LEVEL, INTERVAL_METHOD, N_BOOT, boot_weights, resample_means, seed_cubes


#: Bid rules of the sweep: the current price plus a relative margin (0, 5%, 25%), Alg. 2's margin (the
#: default) and Tributary's random margin (as Fig. 10(c) and the paper's inference).
SENSITIVITY_BIDS = (0.0, 0.05, "algorithm2", 0.25, "tributary")
#: Amdahl's parallel fractions of the sweep (the default 0.9 is an assumption, see the speed model); they
#: apply to the multi-threaded workloads only (the single-threaded ones keep f = 0:
#: :func:`tt_spotsim.workloads.speed_model_for`).
SENSITIVITY_FRACTIONS = (0.5, 0.7, 0.9, 0.95)
#: Start-up times (s; the simulator assumes 60) and model sizes (MB; the profiles assume 100) of the sweep.
SENSITIVITY_STARTUPS = (0.0, 60.0, 300.0)
SENSITIVITY_MODEL_MB = (100.0, 1024.0, 5120.0)
#: The sweep's quantities: (SpotTune approach, baseline) -> ratio keys.
_SWEEP_APPROACHES = ("spottune-1", REFERENCE)
_SWEEP_BASELINES = ("single-cheapest", "single-fastest")


def bid_label(bid) -> str:
    """``0.05 -> "+5%"``, ``"algorithm2" -> "Alg. 2 margin"``, ``"tributary" -> "random (Tributary)"``."""
    if bid == "algorithm2":
        return "Alg. 2 margin"
    if bid == "tributary":
        return "random (Tributary)"
    return f"+{100 * float(bid):g}%"


def check_bid(bid):
    """A bid rule as the provisioner takes it: "algorithm2", "tributary" or a relative margin >= 0 (a number or
    its text); anything else is a SpotError naming the choices."""
    if bid in ("algorithm2", "tributary"):
        return bid
    try:
        m = float(bid)
    except (TypeError, ValueError):
        m = float("nan")
    if not (m >= 0 and np.isfinite(m)):
        raise W.SpotError(f"bid rule must be 'algorithm2', 'tributary' or a relative margin >= 0 (0.05 = 5% above the "
                          f"price), got {shown(bid)}")
    return m


def sensitivity(cfg: dict, seeds=None, bids=SENSITIVITY_BIDS, fractions=SENSITIVITY_FRACTIONS, prices="synthetic",
                base_grid: pd.DataFrame | None = None, progress: bool = False, startups=SENSITIVITY_STARTUPS,
                model_sizes=SENSITIVITY_MODEL_MB, runs_dir=None) -> pd.DataFrame:
    """SpotTune (theta 1 and 0.7) against both single-spot baselines as one unstated setting changes at a time,
    the others at the profile's values: the bid rule, Amdahl's parallel fraction, the start-up time (s) and
    the model size (MB, the checkpoints' and restores' time).

    One simulation per (setting, job set, seed, approach); simulations that do not depend on the changed
    setting are shared (the baselines never bid; the profile's own setting is simulated once).
    ``base_grid``: the Fig. 7 grid at the profile's own settings (reused); ``runs_dir``: keep the
    simulations in the run store (:func:`tt_workbook.studies.spottune.grids.simulate_grid`). Returns the grid rows plus
    ``axis``, ``setting``, ``bid``, ``parallel_fraction``, ``startup_s`` and ``model_mb``, ordered by axis."""
    seeds = list(cfg["seeds"] if seeds is None else seeds)
    bids = [check_bid(b) for b in bids]
    fractions = [float(f) for f in fractions]
    for f in fractions:
        if not 0 < f <= 1:
            raise W.SpotError(f"parallel fraction must lie in (0, 1], got {shown(f)}")
    startups, model_sizes = [float(x) for x in startups], [float(x) for x in model_sizes]
    for name, vals in (("start-up time", startups), ("model size", model_sizes)):
        if any(not (np.isfinite(v) and v >= 0) for v in vals):
            raise W.SpotError(f"{name} must be >= 0, got {vals}")
    f0, b0, m0 = float(cfg["parallel_fraction"]), check_bid(cfg["bid"]), float(cfg["model_mb"])
    s0 = float(sim_settings(cfg).startup_s)
    variants = ([("bid", bid_label(b), f0, b, s0, m0) for b in bids]
                + [("parallel fraction", f"f = {f:g}", f, b0, s0, m0) for f in sorted(fractions)]
                + [("start-up", f"{x:g} s", f0, b0, x, m0) for x in sorted(startups)]
                + [("model size", f"{x:g} MB", f0, b0, s0, x) for x in sorted(model_sizes)])
    spot_aps = [S.spottune(1.0), S.spottune(0.7)]
    singles = [a for a in S.FIG7_APPROACHES if a.kind == "single"]
    base = None
    if base_grid is not None and set(base_grid["seed"]) >= set(seeds):
        base = base_grid[base_grid["seed"].isin(seeds)]
    sets_cache, singles_cache, spot_cache = {}, {}, {}
    out = []
    for axis, label, f, b, su, mb in variants:
        jkey = (f, mb)
        if jkey not in sets_cache:
            sets_cache[jkey] = study_job_sets({**cfg, "parallel_fraction": f, "model_mb": mb})
        st = sim_settings(cfg, bid=b, startup_s=su)
        own = (f, b, su, mb) == (f0, b0, s0, m0)
        if (f, mb, su) not in singles_cache:
            singles_cache[(f, mb, su)] = (base[base["approach"].isin([a.name for a in singles])] if own and base is not None
                                          else simulate_grid(sets_cache[jkey], seeds, singles, st, cfg["market_days"], prices,
                                                             progress, runs_dir))
        if (f, b, su, mb) not in spot_cache:
            spot_cache[(f, b, su, mb)] = (base[base["approach"].isin([a.name for a in spot_aps])] if own and base is not None
                                          else simulate_grid(sets_cache[jkey], seeds, spot_aps, st, cfg["market_days"], prices,
                                                             progress, runs_dir))
        out.append(pd.concat([singles_cache[(f, mb, su)], spot_cache[(f, b, su, mb)]], ignore_index=True).assign(
            axis=axis, setting=label, bid=bid_label(b), parallel_fraction=f, startup_s=su, model_mb=mb))
    return pd.concat(out, ignore_index=True)


def sensitivity_table(sweep: pd.DataFrame, n_boot: int = N_BOOT, level: float = INTERVAL_LEVEL,
                      rng: np.random.Generator | None = None) -> pd.DataFrame:
    """Per (axis, setting, SpotTune approach): cost, JCT and PCR relative to each baseline and the share of steps
    run on refunded instances, each the mean over workloads of the per-job-set ratio of seed means, with a seed
    interval (``_lo``/``_hi``, percentile bootstrap), and the paper's claims' truth values (:func:`claims`)."""
    rng = rng if rng is not None else np.random.default_rng(0)
    a = (1 - level) / 2
    rows = []
    order = list(_SWEEP_BASELINES) + list(_SWEEP_APPROACHES)
    for (axis, setting), g in sweep.groupby(["axis", "setting"], sort=False):
        seeds, sets, cubes = seed_cubes(g, order, ("cost", "jct_h", "free_step_share"))
        weights = boot_weights(len(seeds), n_boot, rng)
        m = {k: resample_means(v, weights) for k, v in cubes.items()}
        m["pcr"] = 1.0 / (m["cost"] * m["jct_h"])
        w = job_set_weights(sets)
        truth = claims(per_job_set(g))
        for i, ap in enumerate(_SWEEP_APPROACHES):
            k = 2 + i
            row = {"axis": axis, "setting": setting, "approach": ap, "bid": g["bid"].iloc[0],
                   "parallel_fraction": float(g["parallel_fraction"].iloc[0]), "seeds": len(seeds),
                   **{k: float(g[k].iloc[0]) for k in ("startup_s", "model_mb") if k in g.columns}}
            qs = {"steps_free": m["free_step_share"][..., k]}
            for j, base in enumerate(_SWEEP_BASELINES):
                short = base.split("-")[1]
                for col in ("cost", "jct_h", "pcr"):
                    qs[f"{col.split('_')[0]}_vs_{short}"] = m[col][..., k] / m[col][..., j]
            for q, arr in qs.items():
                v = arr @ w
                row[q] = float(v[0])
                row[q + "_lo"] = float(np.quantile(v[1:], a)) if n_boot else float("nan")
                row[q + "_hi"] = float(np.quantile(v[1:], 1 - a)) if n_boot else float("nan")
            rows.append({**row, **{f"claim_{c}": bool(t) for c, t in truth.items()}})
    return pd.DataFrame(rows).assign(method=INTERVAL_METHOD.format(n=rows[0]["seeds"] if rows else 0, b=n_boot))


#: The paper's numbers on the sweep's scales (§IV-B1, §IV-C): (approach, quantity) -> value; the cost and JCT
#: ratios are 1 - saving and the inverse of the paper's "x faster" ratios; θ=0.7's cost ratios multiply its
#: saving over θ=1 (57.16%) with θ=1's.
PAPER_ON_SWEEP = {
    ("spottune-1", "cost_vs_cheapest"): 1 - 0.415, ("spottune-1", "cost_vs_fastest"): 1 - 0.8604,
    ("spottune-0.7", "cost_vs_cheapest"): (1 - 0.415) * (1 - 0.5716),
    ("spottune-0.7", "cost_vs_fastest"): (1 - 0.8604) * (1 - 0.5716),
    ("spottune-0.7", "jct_vs_cheapest"): 1 / 2.14, ("spottune-0.7", "jct_vs_fastest"): 1 / 0.6459,
    ("spottune-1", "pcr_vs_cheapest"): 2.65, ("spottune-1", "pcr_vs_fastest"): 3.36,
    ("spottune-0.7", "pcr_vs_cheapest"): 13.11, ("spottune-0.7", "pcr_vs_fastest"): 16.61,
    ("spottune-0.7", "steps_free"): 0.775,
}


def paper_on_sweep(table: pd.DataFrame) -> pd.DataFrame:
    """Where the paper's numbers fall on the sweep: per (approach, quantity), the paper's value, the sweep's
    range, and the settings whose seed interval contains it (or the nearest setting when none does)."""
    rows = []
    for (ap, q), paper in PAPER_ON_SWEEP.items():
        t = table[table["approach"] == ap]
        inside = t[(t[q + "_lo"] <= paper) & (paper <= t[q + "_hi"])]
        near = t.iloc[int(np.argmin(np.abs(np.log(t[q].to_numpy()) - np.log(paper))))] if len(t) else None
        rows.append({"approach": ap, "quantity": q, "paper": round(paper, 4),
                     "sweep_min": float(t[q].min()), "sweep_max": float(t[q].max()),
                     "within_interval_at": ", ".join(f"{r.axis}: {r.setting}" for r in inside.itertuples()) or "none",
                     "nearest": "" if near is None else f"{near['axis']}: {near['setting']} ({near[q]:.3g})"})
    return pd.DataFrame(rows)


def holds_text(table: pd.DataFrame, key: str, paper: bool = True) -> str:
    """The settings range in which claim ``key`` (a :func:`claims` key) has the paper's truth value ``paper``,
    per axis of a :func:`sensitivity_table`: ``"holds for bid: +0%, +5%; parallel fraction: f = 0.9, f = 0.95;
    not for bid: +25%, ..."``."""
    col = f"claim_{key}"
    if col not in table.columns:
        return ""
    t = table.drop_duplicates(["axis", "setting"])
    yes = {ax: [s for s, v in zip(g["setting"], g[col]) if bool(v) == paper] for ax, g in t.groupby("axis", sort=False)}
    no = {ax: [s for s, v in zip(g["setting"], g[col]) if bool(v) != paper] for ax, g in t.groupby("axis", sort=False)}
    fmt = lambda d: "; ".join(f"{ax}: {', '.join(v)}" for ax, v in d.items() if v) or "none"  # noqa: E731
    head = f"sweep ({t['seeds'].iloc[0]} seeds, one setting changed at a time): "
    if not any(no.values()):
        return head + f"holds for every setting swept ({fmt(yes)})"
    if not any(yes.values()):
        return head + f"holds for no setting swept ({fmt(no)})"
    return head + f"holds for {fmt(yes)}; not for {fmt(no)}"
