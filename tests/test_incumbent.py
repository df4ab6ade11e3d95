"""Tests of tt_core.bo.incumbent (paper Alg. 1 line 19)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

from tt_core.bo.constraints import Constraint
from tt_core.bo.incumbent import FEASIBILITY_THRESHOLD, find_incumbent, select_incumbent
from tt_core.models.trees import ExtraTreesEnsemble


class TableModel:
    """Predictions looked up by the first input column (an integer row id)."""

    def __init__(self, mean, std):
        self.mean, self.std = np.asarray(mean, float), np.asarray(std, float)

    def predict(self, X, return_std=False):
        i = np.asarray(X)[:, 0].astype(int)
        return (self.mean[i], self.std[i]) if return_std else self.mean[i]


def test_threshold_is_one_half():
    assert FEASIBILITY_THRESHOLD == 0.5


def test_max_accuracy_among_predicted_feasible():
    loss = np.log(1 - np.array([0.95, 0.90, 0.92, 0.80]))
    p = np.array([0.3, 0.6, 0.5, 0.99])
    inc = select_incumbent(loss, p)
    # 0.95 is infeasible (p < 0.5); 0.92 has p == 0.5 exactly -> counts as feasible and beats 0.90
    assert inc.index == 2 and inc.predicted_feasible
    assert inc.predicted_accuracy == pytest.approx(0.92) and inc.p_feasible == 0.5
    assert select_incumbent(loss, p, threshold=0.55).index == 1
    assert select_incumbent(loss, p, threshold=0.0).index == 0


def test_fallback_max_cea_when_none_feasible():
    acc = np.array([0.95, 0.60, 0.90, 0.50])
    p = np.array([0.10, 0.45, 0.30, 0.49])
    inc = select_incumbent(np.log(1 - acc), p)
    cea = acc * p  # 0.095, 0.27, 0.27, 0.245 -> tie between rows 1 and 2: lowest index
    assert inc.index == int(np.argmax(cea)) == 1
    assert not inc.predicted_feasible
    # neither the most accurate (0) nor the most likely feasible (3)


def test_ties_go_to_lowest_index():
    assert select_incumbent([-1.0, -2.0, -2.0], [1.0, 1.0, 1.0]).index == 1


def test_find_incumbent_matches_manual_computation():
    rng = np.random.default_rng(0)
    n = 40
    mu_l, sd_l = np.log(rng.uniform(0.05, 0.3, n)), rng.uniform(0.05, 0.4, n)
    mu_c, sd_c = np.log(rng.uniform(0.005, 0.05, n)), rng.uniform(0.1, 0.6, n)
    models = {"loss": TableModel(mu_l, sd_l), "cost": TableModel(mu_c, sd_c)}
    X_full = np.column_stack([np.arange(n), np.ones(n)])
    inc = find_incumbent(models, [Constraint("cost", upper=0.02)], X_full)
    p = norm.cdf((np.log(0.02) - mu_c) / sd_c)
    acc = 1 - np.exp(mu_l)
    feas = np.flatnonzero(p >= 0.5)
    assert inc.index == feas[np.argmax(acc[feas])]
    assert inc.p_feasible == pytest.approx(p[inc.index])
    # without constraints: the lowest predicted loss
    assert find_incumbent(models, [], X_full).index == int(np.argmin(mu_l))


def test_find_incumbent_with_trees_is_deterministic():
    rng = np.random.default_rng(1)
    X = rng.random((30, 3))
    y, c = -1 - X[:, 0], np.log(0.02) + X[:, 1] - 0.5
    X_full = np.column_stack([rng.random((50, 2)), np.ones(50)])
    res = [find_incumbent({"loss": ExtraTreesEnsemble(seed=3).fit(X, y), "cost": ExtraTreesEnsemble(seed=4).fit(X, c)},
                          [Constraint("cost", upper=0.02)], X_full) for _ in range(2)]
    assert res[0] == res[1]


def test_errors():
    models = {"loss": TableModel([-1.0], [0.1])}
    with pytest.raises(ValueError, match="threshold"):
        select_incumbent([-1.0], [1.0], threshold=1.5)
    with pytest.raises(ValueError, match="no configurations"):
        select_incumbent([], [])
    with pytest.raises(ValueError, match="same length"):
        select_incumbent([-1.0, -2.0], [1.0])
    with pytest.raises(ValueError, match="full-size"):
        find_incumbent(models, [], np.array([[0.0, 0.5]]))
    with pytest.raises(ValueError, match="'cost' model"):
        find_incumbent(models, [Constraint("cost", upper=1.0)], np.array([[0.0, 1.0]]))
