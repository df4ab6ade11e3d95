"""Learning curves of scikit-learn models trained here: substitutes for the paper's benchmarks (Table II).

The paper's data sets (Epsilon, YearPredictionMSD, CIFAR-10) and its measurements are not available, so
small scikit-learn models are trained, one per hyper-parameter setting, and the validation metric after
every step (an epoch, or a boosting stage) is recorded (:func:`train_curve`). The losses of seed 1 (every
study's and ``tt spot simulate``'s) were trained once and are shipped (:mod:`tt_spotsim.curve_losses`,
re-trained only by ``tt spot train-losses``), because training them again on another CPU gives other
losses (BLAS kernels round differently); :func:`generate` reads them, and trains only seeds the table
lacks. The seconds per step come from the shipped table of :mod:`tt_spotsim.step_times` (measured once,
never as a side effect of training):

========  ==========================================  ==================  ==================================
name      model (substitutes the paper's)             data                metric (Table II's)
========  ==========================================  ==================  ==================================
``lor``   SGD logistic regression (LoR)               make_classification log loss (cross entropy)
``svm``   linear SVM, SGD on the hinge loss (SVM)     make_classification hinge loss
``gbtr``  gradient-boosted trees (GBTR)               make_regression      MSE
``lir``   SGD linear regression (LiR)                 make_regression      MSE
``mlp``   multilayer perceptron, SGD (AlexNet/ResNet) digits (bundled)     training log loss (epoch mean)
========  ==========================================  ==================  ==================================

Each grid has 12 settings. The grids of the SGD models and the MLP include step-decay learning-rate
schedules (the rate divided by 10 after 50 % and 75 % of the epochs), so that their curves can have
stages, which EarlyCurve exists for: the linear models' ``eta0`` is set between epochs with
``set_params``; the MLP (SGD with momentum 0.9) has no public way to change its rate during training,
so its optimiser's ``learning_rate`` attribute is set (a private attribute of scikit-learn; checked, and
an error says so if a version lacks it). The MLP's metric is the epoch-mean training loss
(``loss_curve_``, what deep-learning frameworks report per epoch; smoother than a validation loss).
Gradient boosting has no schedule. Targets of the regressions are standardised; a diverging loss is
capped at 10x the first step's. How many curves Eq. 7 actually splits into stages is measured in
notebook 14, not assumed.

Results are cached as one CSV per (algorithm, profile, seed) under ``data/spot_curves/`` (git-ignored),
named by a hash of the settings: each an entry of :mod:`tt_core.data.entries` (atomic write, a sidecar
with the settings, the identity of the data read and the CSV's sha256; a mismatching or damaged file is
set aside and recomputed), so a run killed half-way resumes with the algorithms it had finished. Same seed, same curves,
and same step times on any machine and load: the ``metric`` column of seed 1 is the loss table's and the
``seconds`` column the step-time table's (both sha256 are among the settings, so a file cached with other
losses or step times, such as the ones this module trained and measured at run time before, is
recomputed); the job sets use the median seconds per setting.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd

from tt_core.data import entries
from tt_spotsim.catalogue import SpotError
from tt_core.data.io import shown

ALGORITHMS = ("lor", "svm", "gbtr", "lir", "mlp")
#: Sizes of the quick and full generations: samples, features, steps (epochs or boosting stages).
SIZES = {
    "quick": {"samples": 1500, "features": 20, "epochs": 24, "trees": 40, "mlp_epochs": 24},
    "full": {"samples": 8000, "features": 60, "epochs": 80, "trees": 200, "mlp_epochs": 80},
}
METRIC = {"lor": "log loss", "svm": "hinge loss", "gbtr": "MSE", "lir": "MSE", "mlp": "training log loss"}
MODEL = {"lor": "SGD logistic regression", "svm": "linear SVM (SGD, hinge loss)", "gbtr": "gradient-boosted trees",
         "lir": "SGD linear regression", "mlp": "MLP on digits (SGD, momentum)"}


def grid(name: str) -> list[dict]:
    """The 12 hyper-parameter settings of an algorithm."""
    if name in ("lor", "svm", "lir"):
        etas = (0.01, 0.1, 1.0) if name != "lir" else (0.001, 0.01, 0.05)
        return [{"eta0": e, "alpha": a, "schedule": s} for e in etas for a in (1e-5, 1e-3)
                for s in ("constant", "step-decay")]
    if name == "gbtr":
        return [{"learning_rate": lr, "max_depth": d, "subsample": ss} for lr in (0.03, 0.1, 0.3) for d in (2, 4)
                for ss in (1.0, 0.7)]
    if name == "mlp":
        return [{"hidden": h, "learning_rate_init": lr, "schedule": s} for h in (32, 128) for lr in (0.01, 0.03, 0.1)
                for s in ("constant", "step-decay")]
    raise SpotError(f"unknown curve algorithm {shown(name)}; known: {list(ALGORITHMS)}")


def training_data(name: str, size: dict, seed: int):
    from sklearn.datasets import load_digits, make_classification, make_regression
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    if name in ("lor", "svm"):
        X, y = make_classification(size["samples"], size["features"], n_informative=size["features"] // 2,
                                   flip_y=0.01, class_sep=2.0, random_state=seed)
    elif name in ("gbtr", "lir"):
        X, y = make_regression(size["samples"], size["features"], n_informative=size["features"] // 2,
                               noise=20.0 if name == "gbtr" else 2.0, random_state=seed)
        y = (y - y.mean()) / y.std()
    else:
        X, y = load_digits(return_X_y=True)
    Xtr, Xva, ytr, yva = train_test_split(X, y, test_size=0.25, random_state=seed)
    sc = StandardScaler().fit(Xtr)
    return sc.transform(Xtr), sc.transform(Xva), ytr, yva


def _sgd_curve(name, hp, epochs, data, seed):
    from sklearn.linear_model import SGDClassifier, SGDRegressor
    from sklearn.metrics import hinge_loss, log_loss, mean_squared_error

    Xtr, Xva, ytr, yva = data
    if name == "lir":
        model = SGDRegressor(learning_rate="constant", eta0=hp["eta0"], alpha=hp["alpha"], random_state=seed)
    else:
        model = SGDClassifier(loss="log_loss" if name == "lor" else "hinge", learning_rate="constant",
                              eta0=hp["eta0"], alpha=hp["alpha"], random_state=seed)
    metric, secs = [], []
    for e in range(epochs):
        if hp["schedule"] == "step-decay":
            model.set_params(eta0=hp["eta0"] * (0.1 ** ((e >= epochs // 2) + (e >= (3 * epochs) // 4))))
        t0 = time.process_time()
        if name == "lir":
            model.partial_fit(Xtr, ytr)
        else:
            model.partial_fit(Xtr, ytr, classes=np.array([0, 1]))
        secs.append(time.process_time() - t0)
        with np.errstate(all="ignore"):
            if name == "lor":
                m = log_loss(yva, np.clip(model.predict_proba(Xva), 1e-12, 1))
            elif name == "svm":
                m = hinge_loss(np.where(yva > 0, 1, -1), model.decision_function(Xva))
            else:
                m = mean_squared_error(yva, model.predict(Xva))
        metric.append(m)
    return metric, secs


def _gbt_curve(hp, trees, data, seed):
    from sklearn.ensemble import GradientBoostingRegressor
    from sklearn.metrics import mean_squared_error

    Xtr, Xva, ytr, yva = data
    t0 = time.process_time()
    model = GradientBoostingRegressor(n_estimators=trees, learning_rate=hp["learning_rate"], max_depth=hp["max_depth"],
                                      subsample=hp["subsample"], random_state=seed).fit(Xtr, ytr)
    per = (time.process_time() - t0) / trees
    return [mean_squared_error(yva, p) for p in model.staged_predict(Xva)], [per] * trees


def _mlp_curve(hp, epochs, data, seed):
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPClassifier

    Xtr, Xva, ytr, yva = data
    model = MLPClassifier(hidden_layer_sizes=(hp["hidden"],), solver="sgd", momentum=0.9, learning_rate="constant",
                          learning_rate_init=hp["learning_rate_init"], batch_size=32, random_state=seed)
    classes = np.unique(ytr)
    secs = []
    for e in range(epochs):
        if hp["schedule"] == "step-decay" and e in (epochs // 2, (3 * epochs) // 4):
            opt = getattr(model, "_optimizer", None)
            if opt is None or not hasattr(opt, "learning_rate"):
                raise SpotError("this scikit-learn version's MLP has no optimiser learning_rate to decay; "
                                "generate the other algorithms (names=...)")
            opt.learning_rate *= 0.1
        t0 = time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.partial_fit(Xtr, ytr, classes=classes)
        secs.append(time.process_time() - t0)
    return list(model.loss_curve_), secs


def train_curve(name: str, hp: dict, size: dict, seed: int, data=None) -> tuple[np.ndarray, np.ndarray]:
    """One setting's validation metric per step and the CPU seconds per step of this run (what
    ``tt spot measure-step-times`` times; :func:`generate` keeps the metric and takes the seconds from the
    step-time table)."""
    data = data if data is not None else training_data(name, size, seed)
    if name in ("lor", "svm", "lir"):
        metric, secs = _sgd_curve(name, hp, size["epochs"], data, seed)
    elif name == "gbtr":
        metric, secs = _gbt_curve(hp, size["trees"], data, seed)
    else:
        metric, secs = _mlp_curve(hp, size["mlp_epochs"], data, seed)
    m = np.asarray(metric, float)
    cap = 10.0 * (m[0] if np.isfinite(m[0]) and m[0] > 0 else 1.0)
    m = np.where(np.isfinite(m), np.minimum(m, cap), cap)
    return m, np.asarray(secs, float)


def cache_root() -> Path:
    from tt_core.data.benchmarks import cache_dir

    return cache_dir() / "spot_curves"


def _settings(name: str, profile: str, seed: int) -> dict:
    from tt_spotsim import step_times

    from tt_spotsim import curve_losses

    return {"name": name, "size": SIZES[profile], "grid": grid(name), "seed": seed, "v": 4,
            "step_times": step_times.identity(), "losses": curve_losses.identity(f"sklearn/{name}", profile, seed)}


def _key(name: str, profile: str, seed: int) -> str:
    spec = json.dumps(_settings(name, profile, seed), sort_keys=True)
    return hashlib.sha256(spec.encode()).hexdigest()[:12]


def cache_path(name: str, profile: str = "quick", seed: int = 1, root: Path | None = None) -> Path:
    return Path(root or cache_root()) / f"{name}-{profile}-seed{seed}-{_key(name, profile, seed)}.csv"


def data_identity(name: str) -> dict:
    """The data an algorithm's curves are trained on: scikit-learn's generator and version for the synthetic
    sets (the generator's output is fixed by the seed, a setting), the bundled digits file's sha256 for ``mlp``."""
    import sklearn

    if name == "mlp":
        digits = Path(sklearn.__file__).parent / "datasets" / "data" / "digits.csv.gz"
        return {"file": "sklearn/datasets/data/digits.csv.gz", "sha256": entries.file_sha256(digits)}
    gen = "make_classification" if name in ("lor", "svm") else "make_regression"
    return {"generator": f"sklearn.datasets.{gen}", "sklearn": sklearn.__version__}


def cache_entry(name: str, profile: str = "quick", seed: int = 1, root: Path | None = None) -> entries.Entry:
    """The stored CSV of one algorithm's curves (:class:`tt_core.data.entries.Entry`)."""
    return entries.Entry(cache_path(name, profile, seed, root), _settings(name, profile, seed), data_identity(name))


def _write(df: pd.DataFrame, tmp: Path) -> None:
    df.to_csv(tmp, index=False)


def generate(names=ALGORITHMS, profile: str = "quick", seed: int = 1, root: Path | None = None,
             progress: bool = True, n_jobs: int = 1, force: bool = False) -> dict[str, pd.DataFrame]:
    """The curves of every setting of each algorithm (or the cache); one long table per algorithm with
    columns ``setting, step, metric, seconds`` and the hyper-parameters. ``metric`` is the loss table's
    (:mod:`tt_spotsim.curve_losses`) where it holds the profile and seed, else trained here;
    ``seconds`` is the step-time table's (:mod:`tt_spotsim.step_times`), never a training's."""
    from tqdm.auto import tqdm

    from tt_spotsim import curve_losses, step_times

    if profile not in SIZES:
        raise SpotError(f"unknown curve profile {shown(profile)}; known: {list(SIZES)}")
    for n in names:
        grid(n)
    out = {}
    todo = [n for n in names if force or cache_entry(n, profile, seed, root).status()[0] != "fresh"]
    size = SIZES[profile]
    bar = tqdm(total=sum(len(grid(n)) for n in todo), desc=f"learning curves ({profile})", unit="setting",
               disable=not (progress and todo))

    def compute(n: str) -> pd.DataFrame:
        steps = size["trees"] if n == "gbtr" else size["mlp_epochs"] if n == "mlp" else size["epochs"]
        table = step_times.seconds(f"sklearn/{n}", profile, len(grid(n)), steps)   # before training: fail fast
        if curve_losses.has(f"sklearn/{n}", profile, seed):         # the shipped losses: no training here
            losses = curve_losses.losses(f"sklearn/{n}", profile, seed, len(grid(n)), steps)
            results = [(m, None) for m in losses]
            bar.update(len(results))
        elif n_jobs == 1:
            data = training_data(n, size, seed)
            results = []
            for hp in grid(n):
                results.append(train_curve(n, hp, size, seed, data))
                bar.update()
        else:
            from joblib import Parallel, delayed

            data = training_data(n, size, seed)
            results = Parallel(n_jobs=n_jobs)(delayed(train_curve)(n, hp, size, seed, data) for hp in grid(n))
            bar.update(len(results))
        frames = []
        for i, (hp, (m, _)) in enumerate(zip(grid(n), results)):     # this run's own timings are dropped
            frames.append(pd.DataFrame({"setting": i, "step": np.arange(1, len(m) + 1), "metric": m,
                                        "seconds": table[i, :len(m)],
                                        **{k: [v] * len(m) for k, v in hp.items()}}))
        return pd.concat(frames, ignore_index=True)

    for n in names:
        out[n], _ = cache_entry(n, profile, seed, root).ensure(lambda n=n: compute(n), _write, pd.read_csv,
                                                               force=force and n in todo, stacklevel=2)
    bar.close()
    return out


def job_sets(names=ALGORITHMS, profile: str = "quick", seed: int = 1, reference_hours: float | None = None,
             speed=None, model_mb: float | None = None, progress: bool = False,
             parallel_fraction: float | None = None, **kwargs) -> list:
    """Job sets from the generated curves (see :func:`tt_spotsim.workloads.scaled_job_set`). ``speed``: one
    speed model for all; by default each algorithm's own (:func:`tt_spotsim.workloads.speed_model_for`:
    single-threaded ones ``f = 0``, the others ``parallel_fraction``, default 0.9)."""
    from tt_spotsim import workloads as W

    tables = generate(names, profile, seed, progress=progress, **kwargs)
    out = []
    for n, df in tables.items():
        hps = [c for c in df.columns if c not in ("setting", "step", "metric", "seconds")]
        curves, measured, labels, hyper = [], [], [], []
        for i, g in df.groupby("setting", sort=True):
            curves.append(g["metric"].to_numpy(float))
            measured.append(max(1e-6, float(np.median(g["seconds"]))))
            h = {k: g[k].iloc[0] for k in hps}
            hyper.append(h)
            labels.append(" ".join(f"{k}={v}" for k, v in h.items()))
        sm = speed or W.speed_model_for(f"sklearn/{n}", W.DEFAULT_PARALLEL_FRACTION if parallel_fraction is None
                                        else parallel_fraction)
        out.append(W.scaled_job_set(
            f"sklearn/{n}", curves, measured, sm,
            reference_hours if reference_hours is not None else W.DEFAULT_REFERENCE_HOURS, names=labels, hyper=hyper,
            model_mb=W.DEFAULT_MODEL_MB if model_mb is None else model_mb, metric_name=METRIC[n],
            source=f"{MODEL[n]}, trained ({profile}, seed {seed})",
            substitution=f"{MODEL[n]} trained for the paper's benchmark (losses of the shipped table, "
                         "tt_spotsim/curve_losses.csv, where it holds the seed); CPU seconds per step from the "
                         "shipped step-time table (measured once, tt_spotsim/step_times.csv), "
                         f"scaled by the speed model (parallel fraction {sm.parallel_fraction:g})"))
    return out
