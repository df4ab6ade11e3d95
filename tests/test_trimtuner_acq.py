"""Tests of tt_core.acquisitions.trimtuner.TrimTunerAcquisition (paper Eq. 5)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

from tt_core.acquisitions.trimtuner import TrimTunerAcquisition, gauss_hermite_normal
from tt_core.bo.constraints import Constraint
from tt_core.models.trees import ExtraTreesEnsemble


class TrendModel:
    """Fake log-space model on inputs (u, s~): mean = base[u] + trend * (1 - s~), std = std0.

    ``fantasize((u, s), y)`` returns a NEW model in which config ``u`` "learns" the value: its
    full-size mean becomes ``y - trend * (1 - s)`` and its std shrinks tenfold. Every fantasy is
    logged (model name, u, s, y, number of fantasies already in the parent).
    """

    def __init__(self, name, base, trend, std0, log, overrides=None):
        self.name, self.base, self.trend, self.std0, self.log = name, dict(base), trend, std0, log
        self.overrides = dict(overrides or {})

    def predict(self, X, return_std=False):
        X = np.asarray(X, float)
        u, s = X[:, 0], X[:, 1]
        full = np.array([self.overrides.get(v, self.base[v]) for v in u])
        std = np.array([self.std0 * (0.1 if v in self.overrides else 1.0) for v in u])
        mean = full + self.trend * (1 - s)
        return (mean, std) if return_std else mean

    def fantasize(self, X_new, y_new):
        (u, s), y = np.asarray(X_new, float)[0], float(np.asarray(y_new).ravel()[0])
        self.log.append((self.name, u, s, y, len(self.overrides)))
        over = dict(self.overrides)
        over[u] = y - self.trend * (1 - s)
        return TrendModel(self.name, self.base, self.trend, self.std0, self.log, over)


LN_CMAX = np.log(0.02)
X_FULL = np.array([[0.0, 1.0], [0.5, 1.0], [1.0, 1.0]])


def fake_models(log):
    loss = TrendModel("loss", {0.0: -2.0, 0.5: -1.5, 1.0: -3.0}, 0.5, 0.3, log)
    cost = TrendModel("cost", {0.0: np.log(0.01), 0.5: np.log(0.015), 1.0: np.log(0.05)}, -1.0, 0.5, log)
    return {"loss": loss, "cost": cost}


def gain(X):
    return 1.0 + X[:, 0] + X[:, 1]


def test_gauss_hermite_normal_moments():
    z, w = gauss_hermite_normal(1)
    np.testing.assert_allclose(z, [0.0])
    np.testing.assert_allclose(w, [1.0])
    z, w = gauss_hermite_normal(5)
    np.testing.assert_allclose([w.sum(), w @ z, w @ z**2, w @ z**4, w @ z**6], [1, 0, 1, 3, 15], atol=1e-10)


def test_without_constraints_alpha_is_the_information_gain():
    log = []
    acq = TrimTunerAcquisition(gain, fake_models(log), [], X_FULL)
    X = np.array([[0.0, 0.5], [1.0, 0.0]])
    np.testing.assert_allclose(acq(X), gain(X))
    assert log == []  # no fantasies needed


def test_single_root_known_answer():
    """Fantasy at the predicted means keeps every mean, sharpens the fantasised config's cost."""
    log = []
    models = fake_models(log)
    acq = TrimTunerAcquisition(gain, models, [Constraint("cost", upper=0.02)], X_FULL)
    X = np.array([[0.0, 0.5], [0.5, 0.5], [1.0, 0.5]])
    p_base = norm.cdf((LN_CMAX - np.log([0.01, 0.015, 0.05])) / 0.5)  # 0.917, 0.717, 0.033
    # incumbent stays config 0 (acc 1 - e^-2 beats config 1; config 2 infeasible) in every fantasy;
    # only the fantasy of config 0 itself changes its probability (std 0.5 -> 0.05)
    expected_term = np.array([norm.cdf((LN_CMAX - np.log(0.01)) / 0.05), p_base[0], p_base[0]])
    term, inc = acq.constraint_term(X, return_incumbents=True)
    np.testing.assert_allclose(term, expected_term, rtol=1e-12)
    np.testing.assert_array_equal(inc[:, 0], [0, 0, 0])
    # the fantasies were at the predicted means, built from the current models (never cumulative)
    mu_l, mu_c = models["loss"].predict(X), models["cost"].predict(X)
    got = sorted((name, u, y) for name, u, s, y, depth in log)
    want = sorted([("loss", u, y) for u, y in zip(X[:, 0], mu_l)] + [("cost", u, y) for u, y in zip(X[:, 0], mu_c)])
    np.testing.assert_allclose([g[2] for g in got], [w[2] for w in want])
    assert all(depth == 0 for *_, depth in log)
    np.testing.assert_allclose(acq(X), gain(X) * expected_term, rtol=1e-12)


def test_three_roots_known_answer():
    """With roots over the loss, a low-loss root of config 0.5 makes it the incumbent."""
    log = []
    acq = TrimTunerAcquisition(gain, fake_models(log), [Constraint("cost", upper=0.02)], X_FULL, n_roots=3)
    z, w = gauss_hermite_normal(3)  # z = -sqrt(3), 0, sqrt(3); w = 1/6, 2/3, 1/6
    np.testing.assert_allclose(z, [-np.sqrt(3), 0, np.sqrt(3)], atol=1e-12)
    X = np.array([[0.5, 0.5], [1.0, 0.5]])
    term, inc = acq.constraint_term(X, return_incumbents=True)
    p0 = norm.cdf((LN_CMAX - np.log(0.01)) / 0.5)
    p1_sharp = norm.cdf((LN_CMAX - np.log(0.015)) / 0.05)
    # candidate (0.5, 0.5): loss at full size becomes -1.5 + 0.3 z -> -2.02 < -2.0 at z = -sqrt(3)
    np.testing.assert_array_equal(inc[0], [1, 0, 0])
    np.testing.assert_allclose(term[0], w[0] * p1_sharp + (w[1] + w[2]) * p0, rtol=1e-12)
    # candidate (1.0, 0.5): config 2 has the best accuracy but its sharpened cost is infeasible
    np.testing.assert_array_equal(inc[1], [0, 0, 0])
    np.testing.assert_allclose(term[1], p0, rtol=1e-12)
    loss_fantasies = [y for name, u, s, y, _ in log if name == "loss" and u == 0.5]
    np.testing.assert_allclose(loss_fantasies, -1.25 + 0.3 * z)


LOSS_SEED, COST_SEED = 1, 2


def _tree_data():
    rng = np.random.default_rng(0)
    X = rng.random((20, 3))
    X[:5, -1] = 1.0
    y = -1.5 - X[:, 0] + 0.5 * X[:, 1] - 0.8 * X[:, -1]
    c = np.log(0.02) + 1.5 * (X[:, 1] - 0.4) + X[:, -1] - 0.5
    X_full = np.column_stack([rng.random((30, 2)), np.ones(30)])
    cand = rng.random((12, 3))
    return X, y, c, X_full, cand


@pytest.fixture(scope="module")
def tree_setup():
    X, y, c, X_full, cand = _tree_data()
    models = {"loss": ExtraTreesEnsemble(seed=LOSS_SEED).fit(X, y), "cost": ExtraTreesEnsemble(seed=COST_SEED).fit(X, c)}
    return models, X_full, cand


def _paper_incumbent(loss_mean, p):
    """Alg. 1 line 19 written out: max predicted accuracy 1 - e^loss among p >= 0.5, else max accuracy * p;
    ties to the lowest row (strict > in a forward scan)."""
    acc = 1.0 - np.exp(loss_mean)
    feasible = [j for j in range(len(p)) if p[j] >= 0.5]
    rows, score = (feasible, acc) if feasible else (range(len(p)), acc * p)
    best = None
    for j in rows:
        if best is None or score[j] > score[best]:
            best = j
    return best


@pytest.mark.parametrize("n_roots, nodes, weights", [
    (1, [0.0], [1.0]),  # the paper's single root: the fantasy is the predicted mean
    # 2 Gauss-Hermite roots t = -+1/sqrt(2), w = sqrt(pi)/2 -> z = sqrt(2) t = -+1, weight w / sqrt(pi) = 1/2
    (2, [-1.0, 1.0], [0.5, 0.5]),
])
def test_trees_match_manual_fantasies(tree_setup, n_roots, nodes, weights):
    """Brute force from scratch for every candidate (no fantasize, select_incumbent or constraint helpers).

    Each fantasy is a NEW ensemble with the same seed fit on the training data plus the one fantasised point
    (the cost at its predicted mean, the loss at mu + sd z_r); P(cost <= 0.02) = Phi((ln 0.02 - mu_c) / sd_c)
    on the full-size rows, the incumbent by the paper's rule, term = sum_r weight_r * P(incumbent_r).
    """
    models, X_full, cand = tree_setup
    X, y, c, _, _ = _tree_data()
    acq = TrimTunerAcquisition(gain, models, [Constraint("cost", upper=0.02)], X_full, n_roots=n_roots)
    term, inc = acq.constraint_term(cand, return_incumbents=True)
    expected = np.empty(len(cand))
    for i, x in enumerate(cand):
        mu_l, sd_l = models["loss"].predict(x[None], return_std=True)
        mu_c = models["cost"].predict(x[None])
        cost_f = ExtraTreesEnsemble(seed=COST_SEED).fit(np.vstack([X, x]), np.r_[c, mu_c])
        mc, sc = cost_f.predict(X_full, return_std=True)
        p = norm.cdf((np.log(0.02) - mc) / sc)
        total = 0.0
        for r, (z, w) in enumerate(zip(nodes, weights)):
            loss_f = ExtraTreesEnsemble(seed=LOSS_SEED).fit(np.vstack([X, x]), np.r_[y, mu_l + sd_l * z])
            j = _paper_incumbent(loss_f.predict(X_full), p)
            assert inc[i, r] == j
            total += w * p[j]
        expected[i] = total
    np.testing.assert_allclose(term, expected, rtol=1e-12)
    # the check has teeth: without refitting, every candidate would get the current incumbent's probability
    mc0, sc0 = models["cost"].predict(X_full, return_std=True)
    p0 = norm.cdf((np.log(0.02) - mc0) / sc0)
    assert np.all(np.abs(expected - p0[_paper_incumbent(models["loss"].predict(X_full), p0)]) > 1e-3)
    assert np.ptp(expected) > 0.05 and len(set(inc[:, 0])) > 1


def test_independent_of_order_and_batching_and_models_untouched(tree_setup):
    models, X_full, cand = tree_setup
    before = {k: m.predict(X_full, return_std=True) for k, m in models.items()}
    acq = TrimTunerAcquisition(gain, models, [Constraint("cost", upper=0.02)], X_full)
    full = acq(cand)
    perm = np.random.default_rng(1).permutation(len(cand))
    np.testing.assert_array_equal(acq(cand[perm]), full[perm])
    np.testing.assert_array_equal(np.concatenate([acq(cand[:5]), acq(cand[5:])]), full)
    for k, m in models.items():
        for a, b in zip(m.predict(X_full, return_std=True), before[k]):
            np.testing.assert_array_equal(a, b)
    # the fantasies refit, so the factor is not constant across candidates (the original's DT bug)
    assert np.ptp(acq.constraint_term(cand)) > 0


def test_deterministic_given_model_seeds(tree_setup):
    _, X_full, cand = tree_setup
    rng = np.random.default_rng(0)
    X = rng.random((20, 3))
    y, c = -1.5 - X[:, 0], np.log(0.02) + X[:, 1] - 0.5
    vals = []
    for _ in range(2):
        models = {"loss": ExtraTreesEnsemble(seed=7).fit(X, y), "cost": ExtraTreesEnsemble(seed=8).fit(X, c)}
        vals.append(TrimTunerAcquisition(gain, models, [Constraint("cost", upper=0.02)], X_full, n_roots=2)(cand))
    np.testing.assert_array_equal(vals[0], vals[1])


def test_errors(tree_setup):
    models, X_full, cand = tree_setup
    cons = [Constraint("cost", upper=0.02)]
    with pytest.raises(ValueError, match="callable"):
        TrimTunerAcquisition(3.0, models, cons, X_full)
    with pytest.raises(ValueError, match="full-size"):
        TrimTunerAcquisition(gain, models, cons, cand)
    with pytest.raises(ValueError, match="n_roots"):
        TrimTunerAcquisition(gain, models, cons, X_full, n_roots=0)
    with pytest.raises(ValueError, match="'time' model"):
        TrimTunerAcquisition(gain, models, [Constraint("time", upper=5.0)], X_full)
    with pytest.raises(ValueError, match="fantasize"):
        TrimTunerAcquisition(gain, {"loss": object(), "cost": models["cost"]}, cons, X_full)
    acq = TrimTunerAcquisition(lambda X: np.ones(2), models, cons, X_full)
    with pytest.raises(ValueError, match="returned shape"):
        acq(cand)
    with pytest.raises(ValueError, match="columns"):
        TrimTunerAcquisition(gain, models, cons, X_full)(cand[:, :2])


def test_argmax_bound_equals_full_evaluation():
    """TrimTunerAcquisition.argmax (branch and bound on alpha_F) picks the argmax of alpha_T."""
    from tt_core.acquisitions.trimtuner import TrimTunerAcquisition
    from tt_core.bo.constraints import Constraint
    from tt_core.models.trees import ExtraTreesEnsemble

    rng = np.random.default_rng(3)
    X = np.column_stack([rng.uniform(size=(30, 2)), rng.choice([0.0, 0.5, 1.0], size=30)])
    loss = np.log(0.1 + X[:, 0] * 0.5 + 0.2 * (1 - X[:, 2]))
    cost = np.log(0.01 + 0.05 * X[:, 1] * (0.1 + X[:, 2]))
    models = {"loss": ExtraTreesEnsemble(seed=1).fit(X, loss), "cost": ExtraTreesEnsemble(seed=2).fit(X, cost)}
    X_full = np.column_stack([rng.uniform(size=(20, 2)), np.ones(20)])
    cand = np.column_stack([rng.uniform(size=(25, 2)), rng.choice([0.0, 0.5, 1.0], size=25)])
    for seed in range(3):
        gains = np.random.default_rng(seed).uniform(0, 1, 25)
        acq = TrimTunerAcquisition(lambda Z, g=gains: g[: len(Z)] if len(Z) == 25 else g[_rows(cand, Z)],
                                   models, [Constraint("cost", upper=0.02)], X_full)
        values = acq(cand)
        i, v, n = acq.argmax(cand)
        assert i == int(np.argmax(values)) and v == pytest.approx(values.max())
        assert 1 <= n <= 25


def _rows(A, B):
    return [int(np.flatnonzero((A == b).all(axis=1))[0]) for b in B]
