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

    def __init__(self, model, log_size_ratio: float):
        if not (isinstance(log_size_ratio, (int, float)) and math.isfinite(log_size_ratio) and log_size_ratio >= 0):
            raise ValueError(f"log_size_ratio must be a finite number >= 0 (ln(s_max/s_min)), got {shown(log_size_ratio)}")
        self.model = model
        self.log_size_ratio = float(log_size_ratio)

    def offset(self, X) -> np.ndarray:
        """``ln(size / s_max)`` of each row of ``X`` (last column ``s~``)."""
        X = check_X(X)
        return (X[:, -1] - 1.0) * self.log_size_ratio

    def fit(self, X, y) -> "SizeOffset":
        self.model.fit(X, np.asarray(y, float) - self.offset(X))
        return self

    def predict(self, X, return_std: bool = False):
        out = self.model.predict(X, return_std=True)
        mean, std = out
        mean = np.asarray(mean, float) + self.offset(X)
        return (mean, std) if return_std else mean

    def fantasize(self, X_new, y_new) -> "SizeOffset":
        y_new = np.atleast_1d(np.asarray(y_new, float)) - self.offset(X_new)
        return SizeOffset(self.model.fantasize(X_new, y_new), self.log_size_ratio)

    def joint_posteriors(self, Z, X) -> list[JointPosterior]:
        oz, ox = self.offset(Z), self.offset(X)
        return [replace(p, mean_z=p.mean_z + oz, mean_x=p.mean_x + ox) for p in self.model.joint_posteriors(Z, X)]

    def __getattr__(self, name):  # expose the wrapped model's fitted attributes (e.g. members)
        if name == "model":
            raise AttributeError(name)
        return getattr(self.model, name)
