"""The "as in the authors' code" variants: the tested-configuration incumbent rule, the charging of the
initial design, and scoring the initial design as the paper's Fig. 1 does."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from tt_core.analysis.scoring import score_initial_design
from tt_core.analysis.trajectories import time_to_target
from tt_core.bo.constraints import Constraint
from tt_core.bo.incumbent import find_tested_incumbent
from tt_core.experiments.replay import run_optimization


class TableModel:
    """Predictions looked up by the first input column (an integer row id)."""

    def __init__(self, mean, std):
        self.mean, self.std = np.asarray(mean, float), np.asarray(std, float)

    def predict(self, X, return_std=False):
        i = np.asarray(X)[:, 0].astype(int)
        return (self.mean[i], self.std[i]) if return_std else self.mean[i]


def test_tested_incumbent_is_max_cea_by_hand():
    acc = np.array([0.95, 0.90, 0.60, 0.85])
    cost_mu = np.log([0.05, 0.01, 0.001, 0.02])          # limit 0.02: row 3 sits exactly on it
    sd = np.array([0.5, 0.5, 0.5, 0.5])
    models = {"loss": TableModel(np.log(1 - acc), np.full(4, 0.1)), "cost": TableModel(cost_mu, sd)}
    p = norm.cdf((np.log(0.02) - cost_mu) / sd)          # P(cost <= 0.02), log-normal
    cea = acc * p                                         # 0.95*0.034, 0.90*0.917, 0.60*1.0, 0.85*0.5
    X = np.column_stack([np.arange(4), np.ones(4)])
    inc = find_tested_incumbent(models, [Constraint("cost", upper=0.02)], X)
    assert inc.index == int(np.argmax(cea)) == 1
    assert inc.p_feasible == pytest.approx(p[1]) and inc.predicted_accuracy == pytest.approx(0.90)
    # only the rows given (the tested ones) are candidates
    inc2 = find_tested_incumbent(models, [Constraint("cost", upper=0.02)], X[[0, 2, 3]])
    assert inc2.index == 1  # row 2 of the table: 0.60 * 1.0 beats 0.85 * 0.5
    # without constraints: max predicted accuracy
    assert find_tested_incumbent({"loss": models["loss"]}, [], X).index == 0
    with pytest.raises(ValueError, match="full size"):
        find_tested_incumbent(models, [Constraint("cost", upper=0.02)], np.column_stack([np.arange(4), np.zeros(4)]))


@pytest.fixture(scope="module")
def short_runs(rnn):
    """TrimTuner-DT, 9 tests, default and both authors'-code options (same seed)."""
    out = {}
    for name, opts in (("default", {}), ("tested", {"incumbent_rule": "tested-cea"}), ("full", {"snapshot_init": False})):
        out[name] = run_optimization(rnn, "trimtuner-dt", seed=3, iterations=9, **opts)
    return out


def test_tested_incumbent_recommends_a_tested_configuration(short_runs):
    t = short_runs["tested"]
    bo = t[t["phase"] == "bo"]
    for _, r in bo.iterrows():
        tested = set(t.loc[t["iteration"] <= r["iteration"], "config_id"])
        assert r["incumbent"] in tested and r["incumbent_size"] == 60000
    # the tests themselves do not depend on the incumbent rule
    assert list(t["config_id"]) == list(short_runs["default"]["config_id"])


def test_initial_design_charged_in_full_is_the_sum_of_its_tests(short_runs, rnn):
    full, snap = short_runs["full"], short_runs["default"]
    init = full[full["phase"] == "init"]
    assert np.allclose(init["charged_cost"], init["cost"])
    # snapshot: the largest test alone (sizes grow: the last one), so the difference is the three smaller
    s_init = snap[snap["phase"] == "init"]
    assert s_init["cumulative_cost"].iloc[-1] == pytest.approx(s_init["cost"].max())
    assert init["cumulative_cost"].iloc[-1] - s_init["cumulative_cost"].iloc[-1] == pytest.approx(
        init["cost"].iloc[:3].sum())


def test_unknown_incumbent_rule_is_refused(rnn):
    with pytest.raises(ValueError, match="incumbent_rule"):
        run_optimization(rnn, "trimtuner-dt", seed=1, iterations=5, incumbent_rule="best")


def test_paper_scoring_of_the_initial_design(rnn):
    runs = pd.DataFrame({
        "benchmark": "rnn", "variant": "x", "optimizer": "x", "seed": 1, "iteration": [1, 2, 3],
        "phase": ["init", "init", "bo"], "accuracy": [0.5, 0.9, 0.7], "cost": [0.001, 0.04, 0.01],
        "incumbent_accuracy": [0.97, 0.97, 0.95], "incumbent_cost": [0.01, 0.01, 0.015],
        "accuracy_c": [0.97, 0.97, 0.95], "cumulative_cost": [0.001, 0.041, 0.051],
        "cumulative_time": [1.0, 2.0, 3.0]})
    paper = score_initial_design(runs, {"rnn": rnn}, "paper")
    # Eq. 7 of each initial test itself: 0.5 (feasible); 0.9 * 0.02 / 0.04 = 0.45 (twice the limit)
    assert list(paper["accuracy_c"]) == pytest.approx([0.5, 0.45, 0.95])
    assert list(paper["recommendation"]) == [False, False, True]
    ttt_paper = time_to_target(paper, {"rnn": rnn})
    ttt_inc = time_to_target(score_initial_design(runs, {"rnn": rnn}, "incumbent"), {"rnn": rnn})
    assert ttt_inc["iteration"].iloc[0] == 1 and ttt_paper["iteration"].iloc[0] == 3
    with pytest.raises(ValueError, match="how must be"):
        score_initial_design(runs, {"rnn": rnn}, "fig1")


# ------------------------------------------------------------------ the authors' tree ensemble
def test_authors_trees_give_entropy_search_no_information():
    from tt_core.acquisitions.entropy_search import EntropySearch
    from tt_core.models.trees import AuthorsExtraTrees, ExtraTreesEnsemble

    rng = np.random.default_rng(0)
    X = rng.uniform(size=(30, 3))
    y = np.sin(3 * X[:, 0]) + X[:, 2]
    ours, theirs = ExtraTreesEnsemble(seed=4).fit(X, y), AuthorsExtraTrees(seed=4).fit(X, y)
    Z, C = rng.uniform(size=(8, 3)), rng.uniform(size=(20, 3))
    Z[:, -1] = 1.0  # representers at the full data set
    np.testing.assert_array_equal(ours.predict(C), theirs.predict(C))  # same fit, same predictions
    (post,) = theirs.joint_posteriors(Z, C)
    assert not post.cov_zx.any()  # zero covariance between representers and candidates
    lam = np.full(8, np.log(1 / 8))
    assert np.all(EntropySearch(theirs, Z, lam)(C) == 0.0)  # hence no information anywhere
    assert np.any(EntropySearch(ours, Z, lam)(C) > 0.0)
    # a fantasy does not refit: its predictions are the model's own
    fant = theirs.fantasize(C[:1], np.array([10.0]))
    np.testing.assert_array_equal(fant.predict(C), theirs.predict(C))


def test_authors_trees_make_trimtuner_dt_test_the_max_cea_candidate(rnn):
    from tt_core.data.objectives import ReplayObjective
    from tt_core.optimizers.registry import make_optimizer

    opt = make_optimizer("trimtuner-dt", rnn, seed=3, trees="authors", random_ties=False, max_cost=rnn.max_cost)
    replay = ReplayObjective(rnn)
    for _ in range(6):
        c, s = opt.suggest()
        m = replay(c, s)
        opt.observe(c, s, m.accuracy, m.cost, m.time)
    opt.refit()
    ids, sizes = opt.pool.untested()
    X = opt.space.encode(ids, sizes)
    # CEA (Eq. 6) by hand from the models' predictions: (1 - exp(mu_loss)) * P(cost <= limit), the cost
    # model being a log-normal of the cost
    mu_l = opt.models["loss"].predict(X)
    mu_c, sd_c = opt.models["cost"].predict(X, return_std=True)
    cea = (1 - np.exp(mu_l)) * norm.cdf((np.log(rnn.max_cost) - mu_c) / sd_c)
    c, s = opt.suggest()
    j = int(np.flatnonzero((ids == c) & (sizes == s))[0])
    assert cea[j] == pytest.approx(cea.max(), rel=1e-12)


def test_trees_option_is_for_the_tree_optimiser_only(rnn):
    from tt_core.optimizers.registry import make_optimizer

    with pytest.raises(ValueError, match="has no option trees"):
        make_optimizer("trimtuner-gp", rnn, seed=1, trees="authors")
    with pytest.raises(ValueError, match=r"unknown trees 'ours'; known: \['workbook', 'authors', 'overhead'\]"):
        make_optimizer("trimtuner-dt", rnn, seed=1, trees="ours")
