""""Per unit cost": any acquisition divided by an estimate of what the candidate's test costs.

FABOLAS' information gain per cost (TrimTuner paper Eq. 3, thesis Eqs. 4.2-4.3) and Lynceus' EIc/USD
(paper Sec. IV) are one construction, :class:`PerUnitCost`, around two acquisitions and two estimates
of a test's cost from the ``ln cost`` model:

* :class:`MedianCost`, ``exp(mu_c)``: FABOLAS' ``a_F = mean_i alpha_ES,i / exp(mu_c,i)``; with a model
  of MCMC samples (the FABOLAS GP) loss sample ``i`` is paired with cost sample ``i`` when both
  models have the same number of samples (:meth:`PerUnitCost.__call__`).
* :class:`LogNormalMeanCost`, ``E[C] = exp(mu_c + sigma_c^2 / 2)``, the mean of the log-normal cost:
  EIc/USD ``= EIc / E[C]``.

The wrapper composes with any callable ``X -> values`` (larger is better), as Emukit's
``acquisition / cost`` and BoTorch's cost-weighted utilities do; it adds no floor to the cost (the
costs here are predictions of positive measured costs).
"""

from __future__ import annotations

import numpy as np

from tt_core.bo.constraints import check_models, predict_log

__all__ = ["PerUnitCost", "MedianCost", "LogNormalMeanCost"]


class MedianCost:
    """``exp(mu_c)`` of a model of ``ln cost`` (the log-normal's median): FABOLAS' cost (paper Eq. 3).

    Parameters
    ----------
    cost_model : Surrogate
        Fitted model of ``ln(cost)``, ``predict(X) -> mean``; with ``predict_per_sample(X) -> (means,
        stds)`` of shape (M, n) its samples' costs are :meth:`per_sample`.
    """

    def __init__(self, cost_model):
        if not hasattr(cost_model, "predict"):
            raise ValueError("cost_model must provide predict(X) returning the predicted log cost")
        self.cost_model = cost_model

    def __call__(self, X) -> np.ndarray:
        return np.exp(np.asarray(self.cost_model.predict(X), dtype=float))

    def per_sample(self, X) -> np.ndarray | None:
        """``exp(mu_c,i)`` per model sample, shape (M, n); None for a model without samples."""
        if not hasattr(self.cost_model, "predict_per_sample"):
            return None
        return np.exp(np.asarray(self.cost_model.predict_per_sample(X)[0]))


class LogNormalMeanCost:
    """``E[C] = exp(mu_c + sigma_c^2 / 2)``, the mean of the log-normal cost of a Gaussian ``ln cost``
    prediction (Lynceus' EIc/USD).

    Parameters
    ----------
    models : mapping of str to Surrogate
        Must hold ``"cost"``, a model of ``ln(cost)`` with ``predict(X, return_std=True)``.
    """

    def __init__(self, models):
        check_models(models, need=("cost",))
        self.models = {"cost": models["cost"]}

    def __call__(self, X) -> np.ndarray:
        mean, std = predict_log(self.models, X, ["cost"])["cost"]
        return np.exp(mean + 0.5 * std**2)


class PerUnitCost:
    """``acquisition(x) / cost(x)``: an acquisition per unit of the predicted cost of testing ``x``.

    When both the acquisition and the cost offer ``per_sample(X)`` of the same shape (M, n) (entropy
    search on M GP samples, a cost GP of M samples), the ratio is taken per sample and then averaged,
    ``mean_i a_i(x) / c_i(x)`` (FABOLAS' pairing); otherwise ``mean(a) / c`` of the averaged values.

    Parameters
    ----------
    acquisition : callable ``X -> (n,)``
        E.g. :class:`tt_core.acquisitions.entropy_search.EntropySearch`, :class:`tt_core.acquisitions.ei.EIc`.
    cost : callable ``X -> (n,)`` of positive values
        :class:`MedianCost` or :class:`LogNormalMeanCost`.
    """

    def __init__(self, acquisition, cost):
        if not callable(acquisition) or not callable(cost):
            raise ValueError("acquisition and cost must be callables X -> values")
        self.acquisition = acquisition
        self.cost = cost

    def __call__(self, X) -> np.ndarray:
        """Acquisition per unit cost for candidates X of shape (n, d + 1); returns (n,)."""
        if hasattr(self.acquisition, "per_sample") and hasattr(self.cost, "per_sample"):
            values = self.acquisition.per_sample(X)  # (M, n); validates X
            costs = self.cost.per_sample(np.asarray(X, dtype=float))
            if costs is not None and costs.shape == values.shape:
                return np.mean(values / costs, axis=0)
            return values.mean(axis=0) / self.cost(np.asarray(X, dtype=float))
        return np.asarray(self.acquisition(X), dtype=float) / self.cost(X)
