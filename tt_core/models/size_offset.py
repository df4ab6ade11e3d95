"""A size-aware offset for log-cost / log-time models that cannot extrapolate in the data-set size.

Training cost and time grow roughly in proportion to the training-set size. FABOLAS' GP encodes this
with a basis function in ``s~`` (Klein et al., AISTATS 2017: ``u = s~`` for the cost kernel). Trees
cannot extrapolate: a regression tree fitted mostly on sub-sampled runs predicts their (small) costs for
the full data set, so the cost constraint looks satisfied where it is not. :class:`SizeOffset` gives the
trees the same prior knowledge: the wrapped model learns ``ln(cost) - ln(s)`` (cost per fraction of the
data), and ``ln(s)`` is added back to its predictions. With ``s~ = log2-scaled size``,
``ln(s) = (s~ - 1) * ln(s_max / s_min)``.

On the authors' data the offset makes the target nearly size-invariant: the mean gap between full-size
and sub-sampled ``ln(cost / s)`` is within 0.9 (RNN 30000 images: 0.01), against 0.4 to 3.3 for ``ln(cost)``
(see ``tests/test_size_offset.py``).

Option ``overhead`` (default None: the proportional offset above). Training has a fixed start-up part,
so a small run costs more than its share of the data: on the RNN a 1/60-size run costs 0.040 of the
full-size run (geometric mean over configurations; CNN 0.038), not 1/60 = 0.017. With the proportional
offset and data mostly at 1/60, the trees predict a 1/60-size test at about 0.022 of the full-size cost
and over-predict full-size costs by 1.5-1.7x (geometric mean over configurations; at most
``0.040 x 60 = 2.4x``), measured in TrimTuner-DT runs by :mod:`tt_workbook.studies.fig1_fig2.alpha_trace`; with
``overhead="fit"`` 0.031 and 1.3x. ``overhead=r`` uses the affine offset
``ln(r + (1 - r) s)`` (cost = a fixed share ``r`` of the full-size cost plus the proportional rest);
``overhead="fit"`` chooses ``r`` on every fit from the observations: the ``r`` in ``[0, 0.5]`` (grid of
0.001) that minimises the within-configuration variance of ``y - offset`` over the configurations
observed at two or more sizes (``r = 0``, the proportional offset, when there are none). On all RNN
configurations that gives ``r = 0.024``, and predicted size ratios 0.040 / 0.12 / 0.27 / 0.51 against
the measured 0.040 / 0.12 / 0.27 / 0.49. A fantasy keeps the ``r`` of the fit it comes from.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from tt_core.models.base import JointPosterior, check_X
from tt_core.data.io import shown


class SizeOffset:
    """Wrap a surrogate so that it models ``y - ln(s)`` and predicts ``f + ln(s)``.

    Parameters
    ----------
    model : Surrogate
        Any model with ``fit``, ``predict(return_std=True)``, ``fantasize`` and ``joint_posteriors``.
    log_size_ratio : float
        ``ln(s_max / s_min)`` of the space (``> 0``); ``0`` makes the offset vanish.
    """

    def __init__(self, model, log_size_ratio: float, overhead=None):
        if not (isinstance(log_size_ratio, (int, float)) and math.isfinite(log_size_ratio) and log_size_ratio >= 0):
            raise ValueError(f"log_size_ratio must be a finite number >= 0 (ln(s_max/s_min)), got {shown(log_size_ratio)}")
        if not (overhead is None or overhead == "fit" or (isinstance(overhead, (int, float)) and not isinstance(
                overhead, bool) and 0.0 <= overhead < 1.0)):
            raise ValueError(f"overhead must be None, 'fit' or a share in [0, 1), got {shown(overhead)}")
        self.model = model
        self.log_size_ratio = float(log_size_ratio)
        self.overhead = overhead
        #: The fixed share ``r`` of the offset in use (0: proportional).
        self.r_ = float(overhead) if isinstance(overhead, (int, float)) else 0.0

    def _offset(self, X, r: float) -> np.ndarray:
        log_s = (X[:, -1] - 1.0) * self.log_size_ratio
        return log_s if r == 0.0 else np.log(r + (1.0 - r) * np.exp(log_s))

    def offset(self, X) -> np.ndarray:
        """``ln(size / s_max)`` of each row of ``X`` (last column ``s~``); ``ln(r + (1 - r) size / s_max)``
        with an overhead share ``r``."""
        return self._offset(check_X(X), self.r_)

    def fit_overhead(self, X, y) -> float:
        """The overhead share ``r`` in ``[0, 0.5]`` that makes ``y - offset`` most nearly constant within each
        configuration observed at two or more sizes (0 when there is none)."""
        X, y = check_X(X), np.asarray(y, float)
        _, group = np.unique(X[:, :-1], axis=0, return_inverse=True)
        group = group.ravel()
        sizes_per = np.array([np.unique(X[group == g, -1]).size for g in range(group.max() + 1)])
        keep = sizes_per[group] >= 2
        if not keep.any():
            return 0.0
        grid = np.linspace(0.0, 0.5, 501)
        log_s = (X[keep, -1] - 1.0) * self.log_size_ratio
        res = y[keep][None, :] - np.log(grid[:, None] + (1.0 - grid[:, None]) * np.exp(log_s)[None, :])
        g = np.unique(group[keep], return_inverse=True)[1].ravel()
        counts = np.bincount(g).astype(float)
        means = np.stack([np.bincount(g, weights=row) for row in res]) / counts
        sse = ((res - means[:, g]) ** 2).sum(axis=1)
        return float(grid[int(np.argmin(sse))])

    def fit(self, X, y) -> "SizeOffset":
        if self.overhead == "fit":
            self.r_ = self.fit_overhead(X, y)
        self.model.fit(X, np.asarray(y, float) - self.offset(X))
        return self

    def predict(self, X, return_std: bool = False):
        out = self.model.predict(X, return_std=True)
        mean, std = out
        mean = np.asarray(mean, float) + self.offset(X)
        return (mean, std) if return_std else mean

    def fantasize(self, X_new, y_new) -> "SizeOffset":
        y_new = np.atleast_1d(np.asarray(y_new, float)) - self.offset(X_new)
        return SizeOffset(self.model.fantasize(X_new, y_new), self.log_size_ratio, overhead=self.r_)

    def joint_posteriors(self, Z, X) -> list[JointPosterior]:
        oz, ox = self.offset(Z), self.offset(X)
        return [replace(p, mean_z=p.mean_z + oz, mean_x=p.mean_x + ox) for p in self.model.joint_posteriors(Z, X)]

    def __getattr__(self, name):  # expose the wrapped model's fitted attributes (e.g. members)
        if name == "model":
            raise AttributeError(name)
        return getattr(self.model, name)
