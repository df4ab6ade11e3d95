"""A workload with real learning-rate stages, trained here: step-decay SGD on scikit-learn's bundled digits.

Why it exists: EarlyCurve (:mod:`tt_spotsim.earlycurve`) is built for curves whose learning rate drops in
steps (the paper's Fig. 5 and Fig. 11: ResNet). The TrimTuner curves have a constant rate, and the
generated curves of :mod:`tt_spotsim.curves` rarely meet Eq. 7's test (a change of more than 50 % after
five steps that each changed by less than 1 %), so the staged fit was hardly exercised. This workload is
built so that the stages are real and known: the rate is cut at a fixed epoch that is one of the
hyper-parameters, and the test of Eq. 7 is whether it finds that epoch.

The job (one hyper-parameter setting)
-------------------------------------
* Data: the digits set (1,797 8x8 images, bundled with scikit-learn, nothing downloaded), 75 % for
  training, standardised; the split and the order of the training rows are drawn once from the named
  stream ``staged-order`` (:func:`tt_spotsim.streams.spot_rng`) and then kept (``shuffle=False``).
* Model: one-vs-rest logistic regression trained by plain SGD (``SGDClassifier(loss="log_loss",
  learning_rate="constant")``), one epoch (``partial_fit``) per step, L2 penalty ``alpha = 0.05`` for
  every setting. The rate ``eta0`` is multiplied by ``decay_factor`` before epoch ``decay_epoch``
  (0-based; the public ``set_params``). With a fixed sample order and a constant rate, SGD settles into a
  cycle whose end-of-epoch point is displaced from the optimum by an amount that grows with the rate:
  the loss is flat at a level set by the rate (five calm steps), and drops when the rate is cut.
* Metric per step: the training objective after the epoch, the ten one-vs-rest log losses summed, averaged
  over the training rows, plus ``alpha / 2 x |coef|^2`` (what the optimiser minimises; loss-like). The
  validation log loss is not used: after a cut it first dips and then rises to the new cycle's level,
  which is not the decreasing curve EarlyCurve models.
* Losses of seed 1: the training above, done once and shipped in the loss table
  (:mod:`tt_spotsim.curve_losses`, ``tt spot train-losses``), so that the same seed gives the same
  curves on any CPU (BLAS kernels round differently); other seeds are trained at run time.
* Seconds per step: CPU seconds of the ``partial_fit`` call (``time.process_time``), measured once and
  shipped in the step-time table (:mod:`tt_spotsim.step_times`, ``tt spot measure-step-times``), not
  taken from the training that makes the curves; a single-threaded job (scikit-learn's SGD does not use
  threads), so its speed model is ``f = 0`` (:func:`tt_spotsim.workloads.speed_model_for`).

The grid (12 settings, 24 epochs): ``eta0`` in {0.2, 0.3, 0.5} x ``decay_epoch`` in {8, 12} x
``decay_factor`` in {0.1, 0.02}. Whether Eq. 7 splits a curve is measured, not assumed (a small rate cut
by 0.02 drops the loss by less than 50 %: Eq. 7 leaves it one stage).

Cache: one CSV (``setting, step, metric, seconds`` and the hyper-parameters) under
``data/spot_curves/`` named by a hash of the grid, the epochs, the seed, the format version, the
step-time table's identity (:func:`tt_spotsim.step_times.identity`) and the loss table's
(:func:`tt_spotsim.curve_losses.identity`): an entry
of :mod:`tt_core.data.entries` (atomic write; a sidecar with those settings, the digits file's sha256 and
the CSV's sha256; a mismatching or damaged file is set aside and recomputed). A changed setting gives a
new name and is recomputed.
Same seed, same metric values and the same seconds on any machine and load (the tables').
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd

from tt_core.data import entries
from tt_core.data.io import shown
from tt_spotsim.catalogue import SpotError

NAME = "staged-digits"
EPOCHS = 24
ALPHA_L2 = 0.05
VERSION = 3
METRIC = "training objective (one-vs-rest log loss + L2)"
MODEL = "SGD logistic regression on digits with a step-decay learning rate"


def grid() -> list[dict]:
    """The 12 hyper-parameter settings."""
    return [{"eta0": e, "decay_epoch": d, "decay_factor": f} for e in (0.2, 0.3, 0.5) for d in (8, 12)
            for f in (0.1, 0.02)]


def learning_rate(hp: dict, epoch: int) -> float:
    """The rate used in 0-based ``epoch``."""
    return float(hp["eta0"]) * (float(hp["decay_factor"]) if epoch >= int(hp["decay_epoch"]) else 1.0)


def training_data(seed: int):
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    X, y = load_digits(return_X_y=True)
    from tt_spotsim.streams import spot_rng

    rng = spot_rng(seed, "staged-order")
    Xtr, _, ytr, _ = train_test_split(X, y, test_size=0.25, random_state=int(rng.integers(2**31)))
    order = rng.permutation(len(ytr))
    return StandardScaler().fit_transform(Xtr)[order], ytr[order]


def objective(model, X, y, alpha: float = ALPHA_L2) -> float:
    """Mean over rows of the ten one-vs-rest log losses, plus ``alpha / 2 |coef|^2`` (scikit-learn's SGD
    objective; the intercepts are not penalised)."""
    z = model.decision_function(X)
    sign = np.where(y[:, None] == model.classes_[None, :], 1.0, -1.0)
    return float(np.mean(np.sum(np.logaddexp(0.0, -sign * z), axis=1)) + 0.5 * alpha * np.sum(model.coef_ ** 2))


def train_curve(hp: dict, seed: int = 1, epochs: int = EPOCHS, data=None) -> tuple[np.ndarray, np.ndarray]:
    """One setting's metric after each epoch and the CPU seconds of each epoch's training in this run (what
    ``tt spot measure-step-times`` times; :func:`generate` takes the seconds from the step-time table)."""
    from sklearn.linear_model import SGDClassifier

    X, y = data if data is not None else training_data(seed)
    model = SGDClassifier(loss="log_loss", learning_rate="constant", eta0=float(hp["eta0"]), alpha=ALPHA_L2,
                          shuffle=False, random_state=int(seed))
    classes = np.arange(10)
    metric, secs = [], []
    for e in range(epochs):
        model.set_params(eta0=learning_rate(hp, e))
        t0 = time.process_time()
        model.partial_fit(X, y, classes=classes)
        secs.append(time.process_time() - t0)
        metric.append(objective(model, X, y))
    return np.asarray(metric, float), np.asarray(secs, float)


def _settings(seed: int, epochs: int) -> dict:
    from tt_spotsim import curve_losses, step_times

    return {"name": NAME, "grid": grid(), "epochs": epochs, "alpha": ALPHA_L2, "seed": seed, "v": VERSION,
            "step_times": step_times.identity(),
            "losses": curve_losses.identity(f"staged/{NAME}", step_times.STAGED_PROFILE, seed)}


def _key(seed: int, epochs: int) -> str:
    spec = json.dumps(_settings(seed, epochs), sort_keys=True)
    return hashlib.sha256(spec.encode()).hexdigest()[:12]


def cache_path(seed: int = 1, epochs: int = EPOCHS, root: Path | None = None) -> Path:
    if root is None:
        from tt_spotsim.curves import cache_root

        root = cache_root()
    return Path(root) / f"{NAME}-seed{seed}-{_key(seed, epochs)}.csv"


def generate(seed: int = 1, epochs: int = EPOCHS, root: Path | None = None, force: bool = False) -> pd.DataFrame:
    """Train the 12 settings (or read the cache): one long table ``setting, step, metric, seconds,
    eta0, decay_epoch, decay_factor``."""
    if not (isinstance(epochs, (int, np.integer)) and epochs > max(hp["decay_epoch"] for hp in grid())):
        raise SpotError(f"epochs must be an integer above the last decay epoch "
                        f"({max(hp['decay_epoch'] for hp in grid())}), got {shown(epochs)}")
    from tt_spotsim import curve_losses, step_times
    from tt_spotsim.curves import data_identity

    def compute() -> pd.DataFrame:
        workload, profile = f"staged/{NAME}", step_times.STAGED_PROFILE
        table = step_times.seconds(workload, profile, len(grid()), epochs)
        if curve_losses.has(workload, profile, seed):                 # the shipped losses: no training here
            losses = curve_losses.losses(workload, profile, seed, len(grid()), epochs)
        else:
            data = training_data(seed)
            losses = [train_curve(hp, seed, epochs, data)[0] for hp in grid()]   # its own timings are dropped
        frames = []
        for i, (hp, m) in enumerate(zip(grid(), losses)):
            frames.append(pd.DataFrame({"setting": i, "step": np.arange(1, epochs + 1), "metric": m,
                                        "seconds": table[i],
                                        **{k: [v] * epochs for k, v in hp.items()}}))
        return pd.concat(frames, ignore_index=True)

    entry = entries.Entry(cache_path(seed, epochs, root), _settings(seed, epochs), data_identity("mlp"))
    df, _ = entry.ensure(compute, lambda df, tmp: df.to_csv(tmp, index=False), pd.read_csv, force=force, stacklevel=2)
    return df


def job_set(seed: int = 1, reference_hours: float | None = None, speed=None, model_mb: float | None = None,
            **kwargs):
    """The workload as a :class:`tt_spotsim.workloads.JobSet` (``staged/digits``). Its speed model is
    the single-threaded one unless ``speed`` is given."""
    from tt_spotsim import workloads as W

    df = generate(seed, **kwargs)
    speed = speed or W.speed_model_for(f"staged/{NAME}")
    curves, measured, labels, hyper = [], [], [], []
    for i, g in df.groupby("setting", sort=True):
        curves.append(g["metric"].to_numpy(float))
        measured.append(max(1e-6, float(np.median(g["seconds"]))))
        h = {k: g[k].iloc[0].item() for k in ("eta0", "decay_epoch", "decay_factor")}
        hyper.append(h)
        labels.append(" ".join(f"{k}={v:g}" for k, v in h.items()))
    return W.scaled_job_set(
        f"staged/{NAME}", curves, measured, speed,
        reference_hours if reference_hours is not None else W.DEFAULT_REFERENCE_HOURS, names=labels, hyper=hyper,
        model_mb=W.DEFAULT_MODEL_MB if model_mb is None else model_mb, metric_name=METRIC,
        source=f"{MODEL}, trained (seed {seed})",
        substitution=f"{MODEL} trained for the paper's step-decay ResNet (Fig. 5, Fig. 11; losses of the shipped "
                     "table, tt_spotsim/curve_losses.csv, where it holds the seed); CPU seconds per "
                     "step from the shipped step-time table (measured once, tt_spotsim/step_times.csv), scaled by "
                     "the single-threaded speed model")
