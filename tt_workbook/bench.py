"""Recommendation-cost benchmark (TrimTuner paper Sec. IV-B, Tables III-IV) and the filter/beta studies.

One *recommendation* is what an optimiser does between two tests: refit its models on every observation
so far, filter the untested candidates, and maximise the acquisition over the kept ones. The harness
times exactly that on the authors' measurements:

1. build the optimiser of a *setting* (optimiser, filter, beta) and a seed in the one replay driver
   (:meth:`tt_core.replay.driver.Replay.from_benchmark`, as ``tt optimize`` builds it);
2. replay ``n_obs`` observations into it (:meth:`~tt_core.replay.driver.Replay.step`, the models not
   refitted), chosen by a seeded policy: the optimiser's own initial design
   followed by uniformly random untested (configuration, size) pairs of its candidate pool
   (``policy="random"``, the default: cheap, and the same observations for every setting of the same
   seed and pool), or the optimiser's own suggestions (``policy="own"``: realistic states, but the
   replay costs as much as an optimisation run);
3. fit the models once on the first ``n_obs - 1`` observations (untimed warm-up: the GP's MCMC burn-in
   happens here, as it does in a real run's first fit), then add the last observation;
4. make ``warmup`` untimed recommendations (default 1, discarded: the first call of a process or of a
   fresh optimiser pays one-off costs, e.g. compiling the numba kernels or filling caches, which made a
   single first repeat up to 8x slower than the next ones);
5. per repeat, time ``refit()`` (the model refit on ``n_obs`` observations: for the FABOLAS GP one
   continued MCMC segment, as at every refit of a run) and ``suggest()`` (filter + acquisition), split
   by the optimiser's public step record (``on_select``) into ``refit_s``, ``acq_setup_s`` (building the acquisition:
   representers and EPMGP), ``filter_s`` (the filter;
   for DIRECT / CMA-ES this includes their acquisition evaluations) and ``acq_eval_s`` (the rest:
   evaluating / maximising the acquisition on the kept candidates).

Wall time (``time.perf_counter``) and the process' CPU time (all threads) are both recorded, with the
1-minute load average before each measurement (other processes on the machine inflate wall time) and
the machine (CPU model, cores, BLAS threads). :func:`summarize` gives median, IQR, min and max per
setting (and per number of observations).

Settings are written ``OPTIMIZER[:FILTER[:BETA]]``, e.g. ``trimtuner-dt``, ``trimtuner-gp:cea:10%``,
``trimtuner-dt:none``, ``fabolas:cmaes:0.1``; groups ``table3`` and ``table4`` name the paper's rows
(:data:`SETTING_GROUPS`). ``tt bench recommend`` is the command line.

The second part of the module holds what notebooks 05 and 07 need for TrimTuner Figs 3-4: the run
specifications of the filter and beta studies and a plot with one colour per filter / beta.
"""

from __future__ import annotations

from tt_core.data.benchmarks import as_benchmark

import math
import os
import platform
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

from tt_core.data.io import cpu_model, write_csv
from tt_core.data.io import shown
from tt_core.data.paper_defaults import CEA_BETA, TESTS_PER_RUN, THESIS_MAX_TIME, THESIS_MIN_ACCURACY

__all__ = [
    "Setting", "SETTING_GROUPS", "parse_settings", "machine_info", "replay_pairs", "measure_recommendation",
    "bench_recommend", "summarize", "read_bench_csv", "write_bench_csv",
    "DEFAULT_N_OBS", "format_summary", "time_recommendations", "load_average",
]

#: Numbers of observations at which a recommendation is timed (initial design included).
DEFAULT_N_OBS = (8, 20, 44)
#: Columns identifying one measurement (a CSV is resumed on these).
KEY_COLUMNS = ["benchmark", "setting", "n_obs", "seed", "repeat", "policy"]
TIME_COLUMNS = ["refit_s", "acq_setup_s", "filter_s", "acq_eval_s", "suggest_s", "total_s", "cpu_s"]


# ------------------------------------------------------------------------------------------------
# Settings
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Setting:
    """An optimiser with a filter and a filter fraction ``beta`` (``filter=None``: the optimiser's own)."""

    optimizer: str
    filter: str | None = None
    beta: float = CEA_BETA

    def __post_init__(self):
        from tt_core.bo.filters import FILTERS
        from tt_core.optimizers import available

        if self.optimizer not in available():
            raise ValueError(f"unknown optimizer {shown(self.optimizer)}; known optimizers: {available()}")
        from tt_core.optimizers.registry import spec

        if spec(self.optimizer).family == "budgeted":
            raise ValueError(f"{shown(self.optimizer)} is timed by time_recommendations (thesis §6.5, notebook 09); "
                             "tt bench recommend times the TrimTuner-family optimisers")
        if self.filter is not None and self.filter not in FILTERS:
            raise ValueError(f"unknown filter {shown(self.filter)}; known filters: {sorted(FILTERS)}")
        b = self.beta
        if isinstance(b, bool) or not isinstance(b, (int, float)) or not math.isfinite(b) or not 0.0 < b <= 1.0:
            raise ValueError(f"beta must be a fraction in (0, 1] (e.g. 0.1 or 10%), got {shown(b)}")
        object.__setattr__(self, "beta", float(b))

    @property
    def label(self) -> str:
        """``optimizer``, ``optimizer:filter`` (no filter / filter keeps all) or ``optimizer:filter:beta%``."""
        if self.filter is None and self.beta == CEA_BETA:
            return self.optimizer
        if self.filter == "none":
            return f"{self.optimizer}:none"
        return f"{self.optimizer}:{self.filter or 'default'}:{_pct(self.beta)}"

    @classmethod
    def parse(cls, text: str) -> "Setting":
        """``OPTIMIZER[:FILTER[:BETA]]``; BETA as a fraction (0.1) or a percentage (10%)."""
        if isinstance(text, Setting):
            return text
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"a setting is OPTIMIZER[:FILTER[:BETA]], e.g. trimtuner-dt:cea:10%; got {shown(text)}")
        parts = [p.strip() for p in text.strip().split(":")]
        if len(parts) > 3:
            raise ValueError(f"a setting is OPTIMIZER[:FILTER[:BETA]], got {shown(text)}")
        opt = parts[0]
        filt = parts[1] if len(parts) > 1 and parts[1] not in ("", "default") else None
        beta = CEA_BETA
        if len(parts) == 3:
            raw = parts[2]
            try:
                beta = float(raw[:-1]) / 100.0 if raw.endswith("%") else float(raw)
            except ValueError:
                raise ValueError(f"beta in setting {shown(text)} must be a fraction (0.1) or a percentage (10%), "
                                 f"got {shown(raw)}") from None
        if filt == "none":
            beta = 1.0
        return cls(opt, filt, beta)


def _pct(beta: float) -> str:
    return f"{100 * beta:g}%"


def _table4(opt: str) -> list[Setting]:
    # CEA at 10% is the TrimTuner optimisers' default: Setting(opt) shares its measurements with Table III
    return [Setting(opt, "none", 1.0), Setting(opt, "cea", 0.01), Setting(opt), Setting(opt, "cea", 0.2),
            Setting(opt, "direct", 0.1), Setting(opt, "cmaes", 0.1), Setting(opt, "random", 0.1)]


#: Named groups of settings: the rows of TrimTuner Tables III and IV.
SETTING_GROUPS: dict[str, list[Setting]] = {
    "table3": [Setting("trimtuner-gp"), Setting("trimtuner-dt"), Setting("fabolas"), Setting("eic"),
               Setting("eic-usd")],
    "table4": _table4("trimtuner-dt") + _table4("trimtuner-gp"),
    "table4-dt": _table4("trimtuner-dt"),
    "table4-gp": _table4("trimtuner-gp"),
}


def parse_settings(items: Iterable[str | Setting]) -> list[Setting]:
    """Settings from strings and group names (:data:`SETTING_GROUPS`), duplicates removed, order kept."""
    if isinstance(items, (str, Setting)):
        items = [items]
    out: list[Setting] = []
    for it in items:
        group = SETTING_GROUPS.get(it) if isinstance(it, str) else None
        for s in group if group is not None else [Setting.parse(it)]:
            if s not in out:
                out.append(s)
    if not out:
        raise ValueError(f"no settings given; use OPTIMIZER[:FILTER[:BETA]] or a group: {sorted(SETTING_GROUPS)}")
    return out


# ------------------------------------------------------------------------------------------------
# Machine
# ------------------------------------------------------------------------------------------------


def machine_info() -> dict:
    """Where the numbers were measured: CPU model, cores, BLAS and its threads, memory, versions."""
    import numpy
    import scipy
    import sklearn

    from tt_core import __version__

    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = os.cpu_count()
    blas, blas_threads = "unknown", None
    try:
        from threadpoolctl import threadpool_info

        pools = [p for p in threadpool_info() if p.get("user_api") == "blas"]
        if pools:
            blas = f"{pools[0].get('internal_api')} {pools[0].get('version')}"
            blas_threads = int(pools[0].get("num_threads"))
    except Exception:  # pragma: no cover - threadpoolctl is optional here
        pass
    mem_gb = None
    try:
        mem_gb = round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)
    except (ValueError, OSError, AttributeError):  # pragma: no cover
        pass
    return {
        "cpu_model": cpu_model(), "n_cores": os.cpu_count(), "n_cores_usable": usable, "memory_gb": mem_gb,
        "blas": blas, "blas_threads": blas_threads, "platform": platform.platform(),
        "python": platform.python_version(), "numpy": numpy.__version__, "scipy": scipy.__version__,
        "sklearn": sklearn.__version__, "tt_core": __version__,
    }


def load_average() -> float:
    """The machine's 1-minute load average (NaN where the system has none)."""
    try:
        return float(os.getloadavg()[0])
    except (OSError, AttributeError):  # pragma: no cover
        return float("nan")


# ------------------------------------------------------------------------------------------------
# One measurement
# ------------------------------------------------------------------------------------------------
def _replay(setting: Setting, bench, seed: int):
    """The replay driver (:class:`tt_core.replay.driver.Replay`) of one setting: its optimiser built as a
    run of ``tt optimize`` builds it, on the benchmark's own limits."""
    from tt_core.replay.driver import Replay
    from tt_core.optimizers.registry import spec

    filtered = spec(setting.optimizer).family == "model-based"
    return Replay.from_benchmark(bench, setting.optimizer, seed=int(seed), beta=setting.beta if filtered else None,
                                 filter=setting.filter if filtered else None)


def _make(setting: Setting, bench, seed: int):
    """The optimiser of one setting (that of :func:`_replay`)."""
    return _replay(setting, bench, seed).optimizer


def replay_pairs(opt, n_obs: int, seed: int) -> list[tuple[int, int]]:
    """The ``n_obs`` (configuration, size) pairs replayed into ``opt`` with ``policy="random"``.

    The optimiser's initial design first, then distinct untested pairs of its candidate pool drawn
    uniformly with ``numpy.random.default_rng([seed, n_obs])``.
    """
    _check_n_obs(opt, n_obs)
    pairs = list(dict.fromkeys((int(c), int(s)) for c, s in opt.initial_pairs))[:n_obs]
    ids, sizes = opt.pool.untested()
    rng = np.random.default_rng([int(seed), int(n_obs)])
    for j in rng.permutation(len(ids)):
        if len(pairs) >= n_obs:
            break
        p = (int(ids[j]), int(sizes[j]))
        if p not in pairs:
            pairs.append(p)
    return pairs


def _check_n_obs(opt, n_obs) -> None:
    if isinstance(n_obs, bool) or not isinstance(n_obs, (int, np.integer)):
        raise ValueError(f"n_obs must be an integer, got {shown(n_obs)}")
    if n_obs < max(opt.n_init, 2):
        raise ValueError(f"n_obs={n_obs} is smaller than the initial design ({opt.n_init} tests) of "
                         f"{getattr(opt, 'name', type(opt).__name__)}; use n_obs >= {max(opt.n_init, 2)}")
    if n_obs >= len(opt.pool):
        raise ValueError(f"n_obs={n_obs} leaves no untested candidate (the pool has {len(opt.pool)} pairs)")


def measure_recommendation(setting: Setting | str, benchmark="rnn", n_obs: int = 20, seed: int = 1,
                           repeats: int = 1, policy: str = "random", warmup: int = 1) -> list[dict]:
    """Time ``repeats`` recommendations of one setting after ``n_obs`` observations (one optimiser state),
    after ``warmup`` untimed ones (discarded: one-off costs of a first call, such as compiling kernels).

    The observations are replayed by the one replay driver (:meth:`tt_core.replay.driver.Replay.step`,
    without refitting the models, so that the refit is timed on its own); each timed recommendation is a
    ``refit()`` and a ``suggest()`` of the optimiser, split by its public step record
    (:class:`tt_core.optimizers.model_based.SelectionStep`: the refit, the acquisition's set-up, the filter).

    Returns one dict per repeat with the timings (seconds) of :data:`TIME_COLUMNS` (``cpu_s``: the
    process' CPU seconds of the refit and the suggestion), the number of
    untested candidates, how many the filter kept, ``n_info_rows`` (how many distinct candidates'
    information gain per cost was computed, the filter's searches included; -1 for the EI methods),
    ``n_fantasised`` (how many candidates' constraint factor of Eq. 5 was computed, each with a model
    fantasy per Gauss-Hermite root: the costly part; -1 without that factor),
    the suggestion, the load average before it, and ``warmup`` (the untimed recommendations made first).
    """
    setting = Setting.parse(setting)
    if policy not in ("random", "own"):
        raise ValueError(f"policy must be 'random' (seeded random observations) or 'own' (the optimiser's "
                         f"own suggestions), got {shown(policy)}")
    if isinstance(repeats, bool) or not isinstance(repeats, (int, np.integer)) or repeats < 1:
        raise ValueError(f"repeats must be an integer >= 1, got {shown(repeats)}")
    _check_warmup(warmup)
    bench = as_benchmark(benchmark)
    run = _replay(setting, bench, seed)
    opt = run.optimizer
    _check_n_obs(opt, n_obs)

    if policy == "own":
        for _ in range(n_obs - 1):
            run.step()
        run.step(refit=False)
    else:
        pairs = replay_pairs(opt, n_obs, seed)
        for pair in pairs[:-1]:
            run.step(pair, refit=False)
        opt.refit()  # warm-up fit on n_obs - 1 observations (untimed)
        run.step(pairs[-1], refit=False)

    for _ in range(int(warmup)):  # discarded: a first call's one-off costs are no recommendation's time
        opt.refit()
        opt.suggest()
    steps = []
    opt.on_select(steps.append)  # the step record: refit, acquisition set-up, filter and argmax times
    rows = []
    for r in range(repeats):
        steps.clear()
        n_cand = int(opt.pool.n_untested)
        load = load_average()
        c0, t0 = time.process_time(), time.perf_counter()
        refit = opt.refit()
        t1 = time.perf_counter()
        cid, size = opt.suggest()
        t2, c2 = time.perf_counter(), time.process_time()
        suggest = t2 - t1
        step = steps[0] if steps else None  # None: no model-based choice (random search)
        acq_setup = step.acquisition_s if step else 0.0
        filter_s = step.filter_s if step else 0.0
        acquisition = step.acquisition if step else None
        memo = getattr(acquisition, "information_gain_per_cost", acquisition)
        rows.append({
            "repeat": r, "refit_s": step.refit_s if step else refit, "acq_setup_s": acq_setup, "filter_s": filter_s,
            "acq_eval_s": max(suggest - acq_setup - filter_s, 0.0), "suggest_s": suggest,
            "total_s": t2 - t0, "cpu_s": c2 - c0, "n_candidates": n_cand,
            "n_evaluated": n_cand if step is None else int(step.keep.size),
            "n_info_rows": int(getattr(memo, "n_computed", -1)),
            "n_fantasised": int(getattr(acquisition, "n_fantasised", -1)),
            "suggested_config": int(cid), "suggested_size": int(size), "load_1min": load, "warmup": int(warmup),
        })
    return rows


def _check_warmup(warmup) -> None:
    if isinstance(warmup, bool) or not isinstance(warmup, (int, np.integer)) or warmup < 0:
        raise ValueError(f"warmup must be an integer >= 0 (untimed recommendations before the timed ones), "
                         f"got {shown(warmup)}")


# ------------------------------------------------------------------------------------------------
# Grid of measurements, CSV
# ------------------------------------------------------------------------------------------------
def _resolved_filter(setting: Setting, bench) -> tuple[str, float]:
    """The filter and beta the optimiser actually uses (its default filter when none is given)."""
    opt = _make(setting, bench, 0)
    filt = getattr(opt, "filter", None)
    if filt is None:
        return "-", float("nan")
    return filt, (1.0 if filt == "none" else float(getattr(opt, "beta", setting.beta)))


def bench_recommend(settings: Sequence[str | Setting] = ("table3",), n_obs: Sequence[int] = DEFAULT_N_OBS,
                    repeats: int = 3, seeds: Sequence[int] = (1, 2), benchmark="rnn", policy: str = "random",
                    out: str | Path | None = None, resume: bool = False, blas_threads: int | None = 1,
                    progress: bool = False, warmup: int = 1) -> pd.DataFrame:
    """Time one recommendation per setting x number of observations x seed x repeat.

    Parameters
    ----------
    settings : sequence of str or Setting
        ``OPTIMIZER[:FILTER[:BETA]]`` or group names (``table3``, ``table4``, ``table4-dt``, ``table4-gp``).
    n_obs : sequence of int
        Observations (initial design included) before the timed recommendation (paper runs: 5..44).
    repeats : int
        Timed recommendations per optimiser state.
    seeds : sequence of int
        One optimiser state (seeded observations) per seed.
    benchmark : str or Benchmark
        Default ``rnn`` (Table IV is on the RNN).
    policy : {"random", "own"}
        How the observations are chosen (see the module docstring).
    out : path, optional
        CSV written atomically after every optimiser state (so an interruption keeps what was measured).
        The grid is interleaved: at each state (``n_obs``, seed) every setting is measured before the
        next state, so a change of the machine's load falls on all settings alike.
    resume : bool
        Keep the rows already in ``out`` and measure only the missing ones (rows measured with fewer
        untimed warm-up recommendations than ``warmup``, e.g. before warm-ups existed, are measured again).
    blas_threads : int or None
        Limit the BLAS threads during the measurements (default 1, as every run of the run store and
        the replay driver; None: as configured).
    progress : bool
        Print one line per measured state.
    warmup : int
        Untimed recommendations before the timed ones at each state (default 1; discarded).

    Returns
    -------
    DataFrame
        One row per measurement: :data:`KEY_COLUMNS`, optimiser, filter, beta, :data:`TIME_COLUMNS`,
        candidates, kept candidates, suggestion, load average, and the machine's columns
        (:func:`machine_info`).
    """
    settings = parse_settings(settings)
    n_obs = _int_list(n_obs, "n_obs")
    seeds = _int_list(seeds, "seeds")
    if isinstance(repeats, bool) or not isinstance(repeats, (int, np.integer)) or repeats < 1:
        raise ValueError(f"repeats must be an integer >= 1, got {shown(repeats)}")
    _check_warmup(warmup)
    bench = as_benchmark(benchmark)
    previous = read_bench_csv(out) if (resume and out is not None and Path(out).is_file()) else None
    if previous is not None:
        warmed = previous["warmup"] if "warmup" in previous.columns else pd.Series(0, index=previous.index)
        previous = previous[warmed.fillna(0) >= warmup] if len(previous) else previous
        previous = previous if len(previous) else None
    done = set()
    if previous is not None:
        done = set(map(tuple, previous[KEY_COLUMNS].astype(str).to_numpy()))
    machine = machine_info()
    frames = [previous] if previous is not None else []
    limiter = _blas_limit(blas_threads)
    with limiter:
        if blas_threads is not None:
            machine["blas_threads"] = int(blas_threads)
        resolved = {setting.label: _resolved_filter(setting, bench) for setting in settings}
        # Interleaved: every setting is measured at one optimiser state (n_obs, seed) before the next
        # state, so a change of the machine's load during the grid falls on all settings alike.
        for n in n_obs:
            for seed in seeds:
                rows = []
                for setting in settings:
                    filt, beta = resolved[setting.label]
                    keys = [(bench.name, setting.label, str(n), str(seed), str(r), policy) for r in range(repeats)]
                    if all(k in done for k in keys):
                        continue
                    t0 = time.perf_counter()
                    measured = measure_recommendation(setting, bench, n, seed, repeats, policy, warmup)
                    for m in measured:
                        if (bench.name, setting.label, str(n), str(seed), str(m["repeat"]), policy) in done:
                            continue
                        rows.append({"benchmark": bench.name, "setting": setting.label, "n_obs": int(n),
                                     "seed": int(seed), "policy": policy, "optimizer": setting.optimizer,
                                     "filter": filt, "beta": beta, **m, **machine,
                                     "measured_at": time.strftime("%Y-%m-%dT%H:%M:%S")})
                    if progress:
                        med = np.median([m["total_s"] for m in measured])
                        cpu = np.median([m["cpu_s"] for m in measured])
                        print(f"{setting.label:<26} n_obs={n:<3} seed={seed}: median {med:8.3f} s wall, {cpu:8.3f} s "
                              f"CPU ({len(measured)} repeats after {warmup} warm-up, load {load_average():.2f}, "
                              f"{time.perf_counter() - t0:.1f} s incl. replay)", flush=True)
                if rows:
                    frames.append(pd.DataFrame(rows))
                    if out is not None:
                        write_bench_csv(pd.concat(frames, ignore_index=True), out)
    if not frames:
        return pd.DataFrame(columns=KEY_COLUMNS + TIME_COLUMNS)
    df = pd.concat(frames, ignore_index=True)
    if out is not None:
        write_bench_csv(df, out)
    return df


@contextmanager
def _blas_limit(n):
    if n is None:
        yield
        return
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"blas_threads must be an integer >= 1, got {shown(n)}")
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=int(n), user_api="blas"):
        yield


def _int_list(values, name) -> list[int]:
    if isinstance(values, (int, np.integer)) and not isinstance(values, bool):
        values = [values]
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise ValueError(f"{name} must be integers, got {shown(v)}")
        out.append(int(v))
    if not out:
        raise ValueError(f"{name} is empty")
    return list(dict.fromkeys(out))


def write_bench_csv(df: pd.DataFrame, path: str | Path) -> Path:
    """Write measurements atomically (a reader never sees a half-written file)."""
    missing = [c for c in KEY_COLUMNS + TIME_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"not a bench_recommend table: columns {missing} are missing")
    return write_csv(df, path)


def read_bench_csv(path: str | Path) -> pd.DataFrame:
    """Measurements written by :func:`bench_recommend` / ``tt bench recommend``."""
    from tt_core.data.io import check_regular

    path = Path(path)
    if not path.exists() and not path.is_symlink():
        raise FileNotFoundError(f"{path} does not exist; measure with `tt bench recommend --out {path}`")
    check_regular(path, "bench_recommend table", fix=f"give the CSV `tt bench recommend --out {path}` writes")
    df = pd.read_csv(path)
    missing = [c for c in KEY_COLUMNS + TIME_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"{path} is not a bench_recommend CSV: columns {missing} are missing")
    return df


def summarize(df: pd.DataFrame, by: Sequence[str] = ("benchmark", "setting"), value: str = "total_s") -> pd.DataFrame:
    """Median, quartiles, IQR, min, max and count of ``value`` per group (default: pooled over n_obs).

    Group also by ``n_obs`` (``by=("benchmark", "setting", "n_obs")``) for one row per state size. The
    rows keep the order in which the settings were measured.
    """
    by = list(by)
    missing = [c for c in [*by, value] if c not in df.columns]
    if missing:
        raise ValueError(f"measurements lack column(s) {missing}")
    g = df.groupby(by, sort=False)[value]
    out = pd.DataFrame({
        "median": g.median(), "q25": g.quantile(0.25), "q75": g.quantile(0.75), "min": g.min(), "max": g.max(),
        "mean": g.mean(), "sd": g.std(ddof=1), "n": g.size(),
    })
    out.insert(3, "iqr", out["q75"] - out["q25"])
    extra = [c for c in ("optimizer", "filter", "beta") if c in df.columns and c not in by]
    if extra:
        out = out.join(df.groupby(by, sort=False)[extra].first())
    return out.reset_index()


def format_summary(summary: pd.DataFrame) -> str:
    """A plain-text table of :func:`summarize` (seconds)."""
    cols = [c for c in summary.columns if c not in ("q25", "q75", "mean", "sd")]
    return summary[cols].to_string(index=False, float_format=lambda v: f"{v:.3f}")


# ------------------------------------------------------------------------------------------------
# Nephele: time of one recommendation per lookahead horizon (thesis §6.5)
# ------------------------------------------------------------------------------------------------
def time_recommendations(benchmark, *, horizons=(0, 1, 2), max_paths=(None,), seed: int = 1, n_states: int = 3,
                         steps_between: int = 5, budget: float | None = None, initial_budget: float | None = None,
                         min_accuracy: float = THESIS_MIN_ACCURACY, max_time: float = THESIS_MAX_TIME,
                         skip=None) -> pd.DataFrame:
    """Wall time of one Nephele recommendation per lookahead horizon, at identical optimiser states.

    A Nephele run (``h = 0``) is replayed through its initial sampling and then ``steps_between`` BO steps
    between snapshots; at each of ``n_states`` snapshots a copy of the optimiser is asked for one
    recommendation with every ``(horizon, max_paths)`` combination and timed.

    Parameters
    ----------
    horizons : iterable of int
    max_paths : iterable of (int or None)
        None = lookahead from every pair of Gamma (the thesis).
    skip : callable, optional
        ``skip(horizon, max_paths) -> bool`` to leave out slow combinations.

    Returns
    -------
    pandas.DataFrame
        ``benchmark, state, observations, gamma_size, horizon, max_paths, wall_s`` (``max_paths`` is
        ``"all"`` for None).
    """
    import copy

    from tt_core.replay.driver import Replay

    bench = as_benchmark(benchmark)
    run = Replay.from_benchmark(bench, "nephele", seed=seed, min_accuracy=min_accuracy, max_time=max_time,
                                budget=budget, horizon=0,
                                **({} if initial_budget is None else {"initial_budget": initial_budget}))
    opt = run.optimizer
    step = run.step  # the one replay driver's test: suggest, measure, observe

    while not opt.done and opt.phase == "init":
        step()
    rows = []
    for state in range(n_states):
        if opt.done:
            break
        for h in horizons:
            for mp in max_paths:
                if skip is not None and skip(h, mp):
                    continue
                o = copy.deepcopy(opt)
                o.horizon, o.max_paths = int(h), mp
                t0 = time.perf_counter()
                o.suggest()
                rows.append({"benchmark": bench.name, "state": state, "observations": len(opt.history),
                             "gamma_size": o.step_info.get("gamma_size"), "horizon": int(h),
                             "max_paths": "all" if mp is None else int(mp), "wall_s": time.perf_counter() - t0})
        for _ in range(steps_between):
            if opt.done:
                break
            step()
    return pd.DataFrame(rows)


def bench_authors(benchmark: str = "rnn", seed: int = 1, residue: str = "empirical", iterations: int = TESTS_PER_RUN) -> dict:
    """CPU seconds (this process and the authors' harness, ``getrusage``) and wall seconds of one run of the
    authors' TrimTuner-DT (:func:`tt_workbook.authors.oracle.run_authors`), with its BO tests' mean size
    fraction (a check that the run is the one measured)."""
    import resource

    from tt_workbook.authors import oracle as A

    A.ensure_env()  # an install on first use is not timed
    def cpu():
        return sum(getattr(resource.getrusage(w), f) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
                   for f in ("ru_utime", "ru_stime"))
    c0, t0 = cpu(), time.perf_counter()
    res = A.run_authors(benchmark, seed, residue=residue, iterations=iterations)
    return {"benchmark": benchmark, "seed": seed, "residue": residue, "tests": len(res["tests"]),
            "cpu_s": cpu() - c0, "wall_s": time.perf_counter() - t0,
            "mean_size_fraction": A.summary(res)["mean_size_fraction"]}
