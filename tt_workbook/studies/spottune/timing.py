"""The cost of running SpotTune's studies: CPU and wall seconds of a Fig. 7 grid and of the Fig. 10 LSTMs'
training and inference (``tt bench spot``, ``tt bench revpred``)."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from tt_spotsim import revpred as RP, simulator as S
from tt_workbook.studies.spottune.grids import sim_settings, simulate_grid, study_job_sets
from tt_workbook.studies.spottune.revpred_study import fig10_split, revpred_market


def bench_revpred(cfg: dict, prices="synthetic", seed: int = 1, name: str | None = None,
                  n_infer: int = 2000) -> pd.DataFrame:
    """CPU seconds of training and inference per 1000 windows for each LSTM (one type, the profile's
    settings, no weight cache): training per 1000 windows per epoch, batched inference, and one
    provisioner-style query (a single window)."""
    trace = revpred_market(cfg, prices, seed)
    name = name or trace.types[0]
    one = trace.subset([name])
    settings = RP.settings_from(cfg)
    until = fig10_split(one, cfg)[0]
    rows = []
    for kind in RP.KINDS:
        pred = RP.LSTMPredictor(kind, settings, cache=False).fit(one, until=until)
        info = pred.fit_info[name]
        lo = int(until // 60)
        minutes = np.arange(lo, lo + n_infer) % (one.n_minutes - 60)
        p = one.series(name)
        c0 = time.process_time()
        pred.probabilities(name, p[minutes] + 0.01, minutes)
        infer = time.process_time() - c0
        c0 = time.process_time()
        for m in minutes[:200]:
            pred.probability(name, float(p[m]) + 0.01, 60.0 * m)
        single = (time.process_time() - c0) / 200
        rows.append({"model": kind, "type": name, "samples": info["samples"], "epochs": settings.epochs,
                     "hidden": settings.hidden, "threads": settings.threads, "train_cpu_s": info["cpu_s"],
                     "train_cpu_s_per_1000_windows_epoch": info["cpu_s"] / (info["samples"] * settings.epochs) * 1000,
                     "infer_cpu_s_per_1000_windows": infer / n_infer * 1000,
                     "single_query_cpu_ms": single * 1000})
    return pd.DataFrame(rows)


def bench_fig7(cfg: dict, prices="synthetic", repeats: int = 1) -> dict:
    """CPU and wall seconds of a whole Fig. 7 grid of the profile (markets, predictor fits, simulations).
    The job sets are built first (and the curve cache filled) outside the timing."""
    sets = study_job_sets(cfg)
    st = sim_settings(cfg)
    cpu, wall = [], []
    for _ in range(repeats):
        S.clear_fitted_predictors()
        c0, w0 = time.process_time(), time.perf_counter()
        grid = simulate_grid(sets, cfg["seeds"], S.FIG7_APPROACHES, st, cfg["market_days"], prices)
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return {"profile": cfg.get("name", ""), "job_sets": len(sets), "seeds": len(cfg["seeds"]),
            "simulations": int(len(grid)), "cpu_s": float(np.median(cpu)), "wall_s": float(np.median(wall)),
            "cpu_s_per_simulation": float(np.median(cpu) / len(grid))}
