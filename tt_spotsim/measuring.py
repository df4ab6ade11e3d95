"""Making SpotTune's shipped input tables: step times measured, curve losses trained.

Reading the tables is :mod:`tt_spotsim.step_times` and :mod:`tt_spotsim.curve_losses` (which the curves
and the staged workload use); making them trains the curves (:mod:`tt_spotsim.curves`,
:mod:`tt_spotsim.staged`), so it lives here, above both, and runs only by an explicit command
(``tt spot measure-step-times``, ``tt spot train-losses``), never as a side effect of a simulation.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from tt_core.data.io import cpu_model, shown
from tt_spotsim import curve_losses as CL, curves as C, staged as ST, step_times as STT
from tt_spotsim.catalogue import SpotError

__all__ = ["workloads", "measure_step_times", "train_losses"]


# ------------------------------------------------------------------------------------------------
# Step times (only by `tt spot measure-step-times`; the table: :mod:`tt_spotsim.step_times`)
# ------------------------------------------------------------------------------------------------
def workloads() -> list[tuple[str, str]]:
    """Every ``(workload, profile)`` the table holds."""
    return [(f"sklearn/{n}", p) for p in C.SIZES for n in C.ALGORITHMS] + [(f"staged/{ST.NAME}", STT.STAGED_PROFILE)]


def _step_seconds(workload: str, profile: str, repeats: int, seed: int) -> np.ndarray:
    """``(repeats, settings, steps)`` CPU seconds of every step (the repeats interleaved over the settings)."""
    if workload.startswith("staged/"):
        data = ST.training_data(seed)
        grid = ST.grid()
        run = lambda hp: ST.train_curve(hp, seed, ST.EPOCHS, data)[1]  # noqa: E731
    else:
        name = workload.split("/", 1)[1]
        size = C.SIZES[profile]
        data = C.training_data(name, size, seed)
        grid = C.grid(name)
        run = lambda hp: C.train_curve(name, hp, size, seed, data)[1]  # noqa: E731
    return np.array([[run(hp) for hp in grid] for _ in range(repeats)])


def measure_step_times(which=None, repeats: int = 3, seed: int = 1, progress: bool = True) -> tuple[pd.DataFrame, dict]:
    """Time every step of each ``(workload, profile)`` (default :func:`workloads`) ``repeats`` times with
    BLAS on one thread; the table (median over the repeats per setting and step) and its conditions."""
    import datetime

    from threadpoolctl import threadpool_info, threadpool_limits
    from tqdm.auto import tqdm

    which = list(which or workloads())
    known = workloads()
    for w in which:
        if tuple(w) not in known:
            raise SpotError(f"no step-time workload {shown(w)}; known: {[f'{a} {b}' for a, b in known]}")
    if not (isinstance(repeats, (int, np.integer)) and repeats >= 1):
        raise SpotError(f"repeats must be a whole number >= 1, got {shown(repeats)}")
    load0 = os.getloadavg()[0]
    frames = []
    with threadpool_limits(1):
        blas = _blas(threadpool_info())
        for workload, profile in tqdm(which, desc="step times", unit="workload", disable=not progress):
            secs = np.median(_step_seconds(workload, profile, repeats, seed), axis=0)
            frames.append(_long_table(secs, "seconds", workload=workload, profile=profile))
    load1 = os.getloadavg()[0]
    cond = {
        "what": "CPU seconds per training step (time.process_time; gradient boosting: the fit over its trees), "
                "median over the repeats",
        "measured": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%MZ"),
        "command": "tt spot measure-step-times",
        "cpu": _cpu(),
        "load": f"1-minute load average {load0:.2f} before, {load1:.2f} after",
        "repeats": str(repeats),
        "seed": str(seed),
        "threads": "BLAS and OpenMP limited to 1 thread",
        "versions": _versions(blas),
    }
    return pd.concat(frames, ignore_index=True), cond


# ------------------------------------------------------------------------------------------------
# Curve losses (only by `tt spot train-losses`; the table: :mod:`tt_spotsim.curve_losses`)
# ------------------------------------------------------------------------------------------------
def _losses_of(workload: str, profile: str, seed: int) -> np.ndarray:
    """``(settings, steps)`` losses of every setting, trained here."""
    if workload.startswith("staged/"):
        data = ST.training_data(seed)
        return np.array([ST.train_curve(hp, seed, ST.EPOCHS, data)[0] for hp in ST.grid()])
    name = workload.split("/", 1)[1]
    size = C.SIZES[profile]
    data = C.training_data(name, size, seed)
    return np.array([C.train_curve(name, hp, size, seed, data)[0] for hp in C.grid(name)])


def train_losses(which=None, seeds=CL.SEEDS, progress: bool = True) -> tuple[pd.DataFrame, dict]:
    """Train every setting of each ``(workload, profile)`` (default: all of
    :func:`workloads`) at each seed with BLAS on one thread; the table and the
    conditions of its training."""
    import datetime

    from threadpoolctl import threadpool_info, threadpool_limits
    from tqdm.auto import tqdm

    known = workloads()
    which = list(which or known)
    for w in which:
        if tuple(w) not in known:
            raise SpotError(f"no curve workload {shown(w)}; known: {[f'{a} {b}' for a, b in known]}")
    seeds = list(seeds)
    if not seeds or not all(isinstance(s, (int, np.integer)) and not isinstance(s, bool) and s >= 0 for s in seeds):
        raise SpotError(f"seeds must be whole numbers >= 0, got {shown(seeds)}")
    frames = []
    with threadpool_limits(1):
        blas = _blas(threadpool_info())
        for seed in seeds:
            for workload, profile in tqdm(which, desc=f"curve losses (seed {seed})", unit="workload",
                                          disable=not progress):
                m = _losses_of(workload, profile, seed)
                frames.append(_long_table(m, "metric", workload=workload, profile=profile, seed=int(seed)))
    env = {k: os.environ[k] for k in ("OPENBLAS_CORETYPE", "NPY_DISABLE_CPU_FEATURES") if os.environ.get(k)}
    cond = {
        "what": "loss per training step of every setting (the workload's metric after the step, capped as "
                "curves.train_curve caps it), float64 in shortest round-trip form",
        "trained": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%MZ"),
        "command": "tt spot train-losses",
        "cpu": _cpu(),
        "seeds": " ".join(str(s) for s in seeds),
        "threads": "BLAS and OpenMP limited to 1 thread",
        "environment": " ".join(f"{k}={v}" for k, v in env.items()) or "no CPU-kernel override",
        "versions": _versions(blas),
    }
    return pd.concat(frames, ignore_index=True), cond


def _long_table(values: np.ndarray, column: str, **fixed) -> pd.DataFrame:
    """A ``(settings, steps)`` array as a long table: the ``fixed`` columns, ``setting`` (0, 1, ...),
    ``step`` (1, 2, ...) and ``column`` holding the values."""
    n_set, n_step = values.shape
    return pd.DataFrame({**fixed, "setting": np.repeat(np.arange(n_set), n_step),
                         "step": np.tile(np.arange(1, n_step + 1), n_set), column: values.ravel()})


def _blas(info: list[dict]) -> list[str]:
    """The BLAS libraries of ``threadpoolctl.threadpool_info()``, one line each."""
    return [f"{i.get('internal_api')} {i.get('version')} ({i.get('architecture', '-')})" for i in info
            if i.get("user_api") == "blas"]


def _cpu() -> str:
    import platform

    return f"{cpu_model()} ({os.cpu_count()} logical CPUs), {platform.machine()}"


def _versions(blas: list[str]) -> str:
    """The library versions a table's numbers depend on (a table's ``versions`` condition)."""
    import platform

    import scipy
    import sklearn

    return (f"python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}, "
            f"scikit-learn {sklearn.__version__}, pandas {pd.__version__}; BLAS: {'; '.join(blas) or '-'}")
