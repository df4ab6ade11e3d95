"""HPT job sets for the SpotTune simulation: learning curves plus seconds per step on each instance type.

A :class:`JobSet` is what the user tunes: one :class:`Job` per hyper-parameter setting, each with its
metric curve (loss-like, one value per step; its length is the job's maximum steps), its true seconds
per step on every instance type, and its model size (for checkpoints). A user builds one from their own
curves and step times with :func:`job_set`.

Workloads (substitutions: the paper's benchmarks and measurements are not public)
-------------------------------------------------------------------------------
* :func:`trimtuner_job_sets`: the TrimTuner measurements' real learning curves
  (``intermediate_acc_values``, metric ``1 - accuracy``): every (VM type, cluster size) group at one
  training-set size has 12 hyper-parameter settings, one job set. Their learning rate is constant, so
  their curves have one stage.
* :mod:`tt_spotsim.curves`: scikit-learn models trained here with step-decay learning rates.

Speed model (:class:`SpeedModel`; the paper's Fig. 6 measurements are not published)
-----------------------------------------------------------------------------------
The step time on type *i* relative to the reference type (r4.large) is Amdahl's law over the vCPUs with
a parallel fraction ``f``, times the ratio of ECU per vCPU (AWS' compute unit rating):
``T_i / T_ref = [(1 - f) + f / n_i] / [(1 - f) + f / n_ref] * (ecu_ref / n_ref) / (ecu_i / n_i)``.
``f`` should be measured locally (:func:`measure_parallel_fraction`); on this shared 2-core machine the
measurement was impossible (under a load of 7 two BLAS threads ran 4-8 times *slower* than one), so the
default ``f = 0.9`` is an assumption, not a measurement.

One speed model per workload (:func:`speed_model_for`, table :func:`speed_models`): a job that runs on one
thread does not get faster with more vCPUs, so its parallel fraction is 0 and only the ECU per vCPU
matters (r4.large, 3.5 ECU per vCPU, is then both the cheapest and the fastest type); a multi-threaded
job uses the parallel fraction above (default 0.9, or the one a study sweeps). Which workloads are
single-threaded is stated in :data:`THREADS` from how they train: scikit-learn's SGD models and its
gradient boosting run on one thread; its MLP spends its time in BLAS matrix products (threaded); the
TrimTuner measurements are TensorFlow training (threaded). A user's job set (a CSV) is taken as
multi-threaded unless its speed model is given.

Time scale: each job set's seconds per step are the measured (or locally timed) ones scaled by one
factor so that its median job takes ``reference_hours`` (default 4 h) on the reference type at its full
number of steps. The paper's jobs ran on over 100 GB of data for hours; the substitutes train in
seconds to minutes, and the spot market's hour-scale rules (first-hour refund, hourly re-deployment)
only matter for jobs of hours. The default was fixed before any comparison was run.
"""

from __future__ import annotations

import csv
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from tt_spotsim.catalogue import CATALOGUE, SpotError, check_types, instance
from tt_core.data.io import csv_row_lines, shown

if TYPE_CHECKING:
    import pandas as pd

DEFAULT_PARALLEL_FRACTION = 0.9
REFERENCE_TYPE = "r4.large"
DEFAULT_REFERENCE_HOURS = 4.0
#: Model size for checkpoints when none is known (an assumption: small models checkpoint in about a second).
DEFAULT_MODEL_MB = 100.0


@dataclass(frozen=True)
class SpeedModel:
    """Seconds per step on each type relative to the reference type (see the module docstring)."""

    parallel_fraction: float = DEFAULT_PARALLEL_FRACTION
    reference: str = REFERENCE_TYPE

    def __post_init__(self):
        if not 0 <= self.parallel_fraction <= 1:
            raise SpotError(f"parallel_fraction must lie in [0, 1], got {shown(self.parallel_fraction)}")
        instance(self.reference)

    def _amdahl(self, n: int) -> float:
        f = self.parallel_fraction
        return (1 - f) + f / n

    def relative_time(self, name: str) -> float:
        """``T_name / T_reference`` for the same step."""
        it, ref = instance(name), instance(self.reference)
        return (self._amdahl(it.vcpus) / self._amdahl(ref.vcpus)) * (ref.ecu_per_vcpu / it.ecu_per_vcpu)

    def step_times(self, reference_seconds: float, types=None) -> dict[str, float]:
        return {t: float(reference_seconds) * self.relative_time(t) for t in check_types(types or list(CATALOGUE))}


#: How each workload trains, which decides its speed model: name (or family, the part before ``/`` of
#: a TrimTuner group) -> ("single-threaded" | "multi-threaded", why).
THREADS: dict[str, tuple[str, str]] = {
    "cnn": ("multi-threaded", "TensorFlow training (the TrimTuner measurements) uses all cores"),
    "rnn": ("multi-threaded", "TensorFlow training (the TrimTuner measurements) uses all cores"),
    "sklearn/lor": ("single-threaded", "scikit-learn SGDClassifier: one thread"),
    "sklearn/svm": ("single-threaded", "scikit-learn SGDClassifier: one thread"),
    "sklearn/lir": ("single-threaded", "scikit-learn SGDRegressor: one thread"),
    "sklearn/gbtr": ("single-threaded", "scikit-learn GradientBoostingRegressor: one thread"),
    "sklearn/mlp": ("multi-threaded", "scikit-learn MLPClassifier: matrix products in threaded BLAS"),
    "staged/staged-digits": ("single-threaded", "scikit-learn SGDClassifier: one thread"),
}


def threads_of(name: str) -> tuple[str, str]:
    """``(kind, why)`` of a workload (job-set name), by :data:`THREADS`; unknown names are multi-threaded."""
    if name in THREADS:
        return THREADS[name]
    family = str(name).split("/", 1)[0]
    if family in ("cnn", "rnn"):
        return THREADS[family]
    return "multi-threaded", "not stated (a user's job set): taken as multi-threaded"


def speed_model_for(name: str, parallel_fraction: float = DEFAULT_PARALLEL_FRACTION) -> SpeedModel:
    """The speed model of a workload: ``f = 0`` if it is single-threaded (:data:`THREADS`), else
    ``parallel_fraction``."""
    kind, _ = threads_of(name)
    return SpeedModel(0.0 if kind == "single-threaded" else parallel_fraction)


def speed_models(names=None, parallel_fraction: float = DEFAULT_PARALLEL_FRACTION) -> "pd.DataFrame":
    """The stated speed model per workload: threads, parallel fraction, why, and the step time on each type
    relative to r4.large."""
    import pandas as pd

    rows = []
    for name in names or list(THREADS):
        kind, why = threads_of(name)
        sm = speed_model_for(name, parallel_fraction)
        rows.append({"workload": name, "threads": kind, "parallel_fraction": sm.parallel_fraction, "why": why,
                     **{f"time {t}": sm.relative_time(t) for t in CATALOGUE}})
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class Job:
    """One hyper-parameter setting: its metric per step (loss-like), true seconds per step per type,
    model size in MB, and a description of its hyper-parameters."""

    name: str
    metric: np.ndarray
    seconds_per_step: dict
    model_mb: float = DEFAULT_MODEL_MB
    hyper: dict = field(default_factory=dict)

    @property
    def max_steps(self) -> int:
        return len(self.metric)

    @property
    def final_metric(self) -> float:
        return float(self.metric[-1])


@dataclass(frozen=True)
class JobSet:
    """The hyper-parameter settings of one tuning task."""

    name: str
    jobs: tuple
    metric_name: str = "loss"
    source: str = ""
    substitution: str = ""

    def __len__(self) -> int:
        return len(self.jobs)

    @property
    def types(self) -> list[str]:
        return list(self.jobs[0].seconds_per_step)

    def true_best(self) -> int:
        """Index of the setting with the lowest final metric."""
        return int(np.argmin([j.final_metric for j in self.jobs]))


def job_set(name: str, curves, seconds_per_step, model_mb=DEFAULT_MODEL_MB, names=None, metric_name="loss",
            source="user", substitution="", hyper=None) -> JobSet:
    """Build a job set from the user's own curves (loss-like, one value per step) and step times.

    ``seconds_per_step``: one dict ``{type: seconds}`` for all jobs, or one per job. Every type must be in
    the catalogue; curves must be non-empty, finite and non-negative.
    """
    curves = [np.asarray(c, float) for c in curves]
    if not curves:
        raise SpotError(f"job set {shown(name)} has no jobs")
    per_job = seconds_per_step if isinstance(seconds_per_step, (list, tuple)) else [seconds_per_step] * len(curves)
    if len(per_job) != len(curves):
        raise SpotError(f"job set {shown(name)}: {len(curves)} curves but {len(per_job)} step-time tables")
    sizes = model_mb if isinstance(model_mb, (list, tuple, np.ndarray)) else [model_mb] * len(curves)
    jobs = []
    for i, (c, sps) in enumerate(zip(curves, per_job)):
        label = names[i] if names else f"setting {i}"
        if c.ndim != 1 or len(c) == 0 or not np.isfinite(c).all() or (c < 0).any():
            raise SpotError(f"job set {shown(name)}, {label}: a curve must be a non-empty list of finite, non-negative "
                            "metric values (loss-like; use 1 - accuracy)")
        check_types(sps)
        bad = {t: v for t, v in sps.items() if not (np.isfinite(v) and v > 0)}
        if bad:
            raise SpotError(f"job set {shown(name)}, {label}: seconds per step must be positive, got {bad}")
        if not (np.isfinite(sizes[i]) and sizes[i] >= 0):
            raise SpotError(f"job set {shown(name)}, {label}: model size must be >= 0 MB, got {shown(sizes[i])}")
        jobs.append(Job(label, c, {t: float(v) for t, v in sps.items()}, float(sizes[i]),
                        dict(hyper[i]) if hyper else {}))
    return JobSet(name, tuple(jobs), metric_name, source, substitution)


def scaled_job_set(name: str, curves, measured_seconds_per_step, speed: SpeedModel | None = None,
                   reference_hours: float = DEFAULT_REFERENCE_HOURS, types=None, **kwargs) -> JobSet:
    """A job set whose step times come from measured seconds per step (any machine) scaled so that the
    median job takes ``reference_hours`` on the speed model's reference type (module docstring)."""
    speed = speed or SpeedModel()
    if not (np.isfinite(reference_hours) and reference_hours > 0):
        raise SpotError(f"reference_hours must be positive, got {shown(reference_hours)}")
    measured = np.asarray(measured_seconds_per_step, float)
    steps = np.array([len(c) for c in curves], float)
    scale = reference_hours * 3600.0 / float(np.median(measured * steps))
    tables = [speed.step_times(s * scale, types) for s in measured]
    return job_set(name, curves, tables, **kwargs)


def trimtuner_job_sets(benchmark="cnn", size: int | None = None, reference_hours: float = DEFAULT_REFERENCE_HOURS,
                       speed: SpeedModel | None = None, model_mb: float = DEFAULT_MODEL_MB,
                       groups=None) -> list[JobSet]:
    """One job set per (VM type, cluster size) group of a TrimTuner benchmark at one training-set size
    (default: the full size), metric ``1 - accuracy`` of the recorded learning curve.

    Measured seconds per step = ``training_time / number of curve points``. ``groups``: keep only these
    names (e.g. ``["cnn/t2.small-x8"]``)."""
    from tt_core.data.benchmarks import as_benchmark

    bench = as_benchmark(benchmark)
    table = bench.full_size() if size is None else bench.at_size(size)
    if "curve" not in table:
        raise SpotError(f"benchmark {shown(bench.name)} has no learning curves (intermediate_acc_values)")
    out = []
    for (vm, n), g in table.groupby(["vm_flavor", "n_workers"], sort=True):
        name = f"{bench.name}/{vm}-x{n}"
        if groups is not None and name not in groups:
            continue
        g = g[g["curve"].apply(len) > 0].sort_values(["learning_rate", "batch_size", "sync"])
        curves = [1.0 - np.asarray(c, float) for c in g["curve"]]
        measured = (g["training_time"] / g["curve"].apply(len)).to_numpy(float)
        names = [f"lr={r.learning_rate:g} batch={r.batch_size} {r.sync}" for r in g.itertuples()]
        hyper = [{"learning_rate": r.learning_rate, "batch_size": r.batch_size, "sync": r.sync} for r in g.itertuples()]
        out.append(scaled_job_set(name, curves, measured, speed, reference_hours, names=names, hyper=hyper,
                                  model_mb=model_mb, metric_name="1 - accuracy",
                                  source=f"TrimTuner {bench.name.upper()} measurements, {vm} x {n}, size {int(g['size'].iloc[0])}",
                                  substitution="TrimTuner learning curves (MNIST CNN/RNN) for the paper's benchmarks; "
                                               f"step times scaled to {reference_hours:g} h median on r4.large by the "
                                               "speed model"))
    if groups is not None:
        missing = sorted(set(groups) - {s.name for s in out})
        if missing:
            raise SpotError(f"unknown job set(s) {missing}; known: {[s.name for s in trimtuner_job_sets(bench, size, reference_hours, speed, model_mb)]}")
    if not out:
        raise SpotError(f"benchmark {shown(bench.name)}: no learning curves found")
    return out


def measure_parallel_fraction(threads: int = 2, repeats: int = 2) -> dict:
    """Time a BLAS-bound step (an MLP epoch on the digits set) with 1 and ``threads`` BLAS threads and
    return Amdahl's parallel fraction ``f = (1 - 1/S) / (1 - 1/threads)`` with the speed-up ``S`` (best of
    ``repeats``). Only meaningful on an otherwise idle machine: the load average is returned too."""
    import os

    from sklearn.datasets import load_digits
    from sklearn.neural_network import MLPClassifier
    from threadpoolctl import threadpool_limits

    X, y = load_digits(return_X_y=True)
    X = np.repeat(X, 4, axis=0)
    y = np.repeat(y, 4)

    def run(n):
        best = np.inf
        for _ in range(repeats):
            with threadpool_limits(n):
                clf = MLPClassifier(hidden_layer_sizes=(512, 512), batch_size=512, random_state=0)
                t0 = time.perf_counter()
                clf.partial_fit(X, y, classes=np.arange(10))
                best = min(best, time.perf_counter() - t0)
        return best

    w1, wn = run(1), run(threads)
    S = w1 / wn
    f = (1 - 1 / S) / (1 - 1 / threads)
    return {"speedup": S, "parallel_fraction": f, "seconds_1": w1, f"seconds_{threads}": wn,
            "load": os.getloadavg()[0], "valid": bool(0 <= f <= 1)}


#: The largest job-set CSV read (bytes): 100,000 steps of a few hundred settings fit in a few MB.
MAX_JOB_CSV_BYTES = 64 * 2**20
#: Plausible ranges of a job-set CSV's numbers (inclusive), with what they are: a step is numbered from 1 and a
#: job of more than 100,000 steps is no tuning trial; a step (an epoch or a few hundred mini-batches) of more than
#: a week on the reference type is none either (the paper's steps take seconds to minutes; the floor, 1 µs, is
#: the shortest timed call, as for the benchmark files); a loss-like metric is >= 0 and may be huge on a diverging
#: setting (the shipped curves reach 2.2e24, an unstable logistic regression), so its bound, 1e100, only keeps the
#: curve fits' sums and squares finite in float64.
JOB_CSV_RANGES = {
    "step": (1, 100_000, "", "a step number (whole, from 1)"),
    "seconds": (1e-6, 7 * 86_400.0, " s", "seconds per step"),
    "metric": (0.0, 1e100, "", "a loss-like metric"),
}


def read_job_csv(path, speed: SpeedModel | None = None, reference_hours: float | None = None,
                 model_mb: float = DEFAULT_MODEL_MB, types=None) -> JobSet:
    """A user's job set from a CSV with one row per (setting, step): columns ``setting``, ``step`` (1, 2,
    ...), ``metric`` (loss-like) and either ``seconds`` (seconds per step on the reference type, r4.large,
    carried to the other types by the speed model) or ``seconds_<type>`` for every type. With
    ``reference_hours`` the step times are rescaled so the median job takes that long on r4.large."""
    import pandas as pd
    from pathlib import Path

    path = Path(path)
    if not path.is_file():
        from tt_core.data.io import why_not_a_file

        raise SpotError(f"job set file {shown(str(path))} {why_not_a_file(path)} (give a CSV of setting, step, "
                        "metric, seconds)")
    if path.stat().st_size > MAX_JOB_CSV_BYTES:
        raise SpotError(f"{path}: {path.stat().st_size / 2**20:.0f} MB, more than a job-set CSV may hold "
                        f"({MAX_JOB_CSV_BYTES // 2**20} MB, MAX_JOB_CSV_BYTES); give the settings you simulate")
    try:
        df = pd.read_csv(path)
        lines = csv_row_lines(path)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, csv.Error) as exc:
        raise SpotError(f"{path}: not a readable CSV file ({str(exc).splitlines()[0]})") from None
    if len(lines) != len(df):     # a case pandas and the csv module split otherwise: count rows from line 2
        lines = list(range(2, len(df) + 2))
    need = {"setting", "step", "metric"}
    if not need <= set(df.columns):
        raise SpotError(f"{path}: missing column(s) {sorted(need - set(df.columns))} (line 1); a job set CSV has "
                        "setting, step, metric and seconds (or seconds_<type> per instance type)")
    per_type = [c for c in df.columns if c.startswith("seconds_")]
    if "seconds" not in df.columns and not per_type:
        raise SpotError(f"{path}: no step times: add a 'seconds' column (seconds per step on r4.large) or "
                        "'seconds_<type>' columns")
    for col in ["step", "metric", "seconds", *per_type]:
        if col not in df.columns:
            continue
        v = pd.to_numeric(df[col], errors="coerce")
        bad = ~np.isfinite(v) | ((v <= 0) if col != "metric" else (v < 0))
        if bad.any():
            i = int(np.flatnonzero(bad.to_numpy())[0])
            raise SpotError(f"{path}, line {lines[i]}, column {shown(col)}: {shown(df[col].iloc[i])} is not a "
                            f"{'non-negative' if col == 'metric' else 'positive'} number")
        lo, hi, unit, why = JOB_CSV_RANGES["seconds" if col.startswith("seconds") else col]
        out = (v < lo) | (v > hi) | ((v != np.round(v)) if col == "step" else False)
        if out.any():
            i = int(np.flatnonzero(out.to_numpy())[0])
            raise SpotError(f"{path}, line {lines[i]}, column {shown(col)}: {shown(df[col].iloc[i])} is outside the "
                            f"plausible range [{lo:g}, {hi:g}]{unit} of {why} (JOB_CSV_RANGES; a typo or another unit?)")
        df[col] = v
    speed = speed or SpeedModel()
    curves, tables, names = [], [], []
    for s, g in df.groupby("setting", sort=False):
        g = g.sort_values("step")
        if not np.array_equal(g["step"].to_numpy(), np.arange(1, len(g) + 1)):
            raise SpotError(f"{path}: setting {shown(s)} has steps {g['step'].tolist()[:6]}...; steps must be 1, 2, 3, ...")
        curves.append(g["metric"].to_numpy(float))
        names.append(str(s))
        if per_type:
            tables.append({c[len("seconds_"):]: float(g[c].median()) for c in per_type})
        else:
            tables.append(speed.step_times(float(g["seconds"].median()), types))
    if reference_hours is not None:
        med = float(np.median([t[speed.reference] * len(c) for t, c in zip(tables, curves)]))
        f = reference_hours * 3600.0 / med
        tables = [{k: v * f for k, v in t.items()} for t in tables]
    return job_set(path.stem, curves, tables, model_mb=model_mb, names=names, source=str(path),
                   substitution="" if per_type else "step times on other types from the speed model")
