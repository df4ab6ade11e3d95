"""Tests of tt_core.bo.filters: CEA (paper Eq. 6) and the other candidate filters."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from tt_core.bo.constraints import Constraint
from tt_core.bo.filters import FILTERS, apply_filter, cea_scores, filter_candidates, get_filter, n_keep, register_filter
from tt_core.models.trees import ExtraTreesEnsemble
from tt_core.data.space import ConfigSpace

ALL = ["cea", "random", "none", "direct", "cmaes"]


@pytest.fixture(scope="module")
def setup():
    """Synthetic 48-config x 4-size benchmark, some pairs tested, tree models fit on them."""
    grid = list(itertools.product(["t2.small", "t2.medium", "t2.xlarge"], [1, 4, 16, 64], [1e-4, 1e-3],
                                  ["async", "sync"]))
    cfg = pd.DataFrame(grid, columns=["vm_flavor", "n_workers", "learning_rate", "sync"])
    cfg.insert(0, "config_id", np.arange(len(cfg)))
    table = cfg.merge(pd.DataFrame({"size": [500, 2000, 8000, 32000]}), how="cross")
    space = ConfigSpace.from_table(table, ["vm_flavor", "n_workers", "learning_rate", "sync"])
    X_all = space.encode(*space.all_pairs())
    loss = -1.0 - 2.0 * X_all[:, -1] + np.sin(4 * X_all[:, 1]) * 0.3 - 0.5 * X_all[:, 2]
    cost = np.log(0.01) + 1.5 * X_all[:, -1] - X_all[:, 0] + 0.5 * X_all[:, 1]
    pool = space.pool()
    rng = np.random.default_rng(0)
    tested = rng.choice(len(X_all), size=30, replace=False)
    ids, sizes = space.all_pairs()
    for j in tested:
        pool.mark_tested(ids[j], sizes[j])
    models = {"loss": ExtraTreesEnsemble(seed=1).fit(X_all[tested], loss[tested]),
              "cost": ExtraTreesEnsemble(seed=2).fit(X_all[tested], cost[tested])}
    return space, pool, models, [Constraint("cost", upper=0.02)]


def test_n_keep_edge_cases():
    assert n_keep(0.1, 1440) == 144  # 0.1 * 1440 is 144.00000000000003 in floating point
    assert n_keep(0.1, 1441) == 145
    assert n_keep(1.0, 7) == 7
    assert n_keep(1e-9, 7) == 1
    assert n_keep(0.5, 1) == 1
    for bad in [0, 0.0, -0.1, 1.01, float("nan"), float("inf"), True, "0.1"]:
        with pytest.raises(ValueError, match=r"beta must be a fraction in \(0, 1\]"):
            n_keep(bad, 10)
    with pytest.raises(ValueError, match="empty"):
        n_keep(0.1, 0)


def test_cea_definition_recomputed_independently(setup):
    space, pool, models, cons = setup
    X = space.encode(*pool.untested())
    mu_l = models["loss"].predict(X)
    mu_c, sd_c = models["cost"].predict(X, return_std=True)
    expected = (1 - np.exp(mu_l)) * norm.cdf((np.log(0.02) - mu_c) / sd_c)
    np.testing.assert_allclose(cea_scores(models, cons, X), expected, rtol=1e-10)
    idx = filter_candidates("cea", X, 0.1, models=models, constraints=cons)
    k = int(np.ceil(0.1 * len(X)))
    assert len(idx) == k
    np.testing.assert_array_equal(idx, np.argsort(-expected, kind="stable")[:k])
    assert np.all(np.diff(expected[idx]) <= 0)  # best first
    # without constraints CEA is the predicted accuracy
    np.testing.assert_allclose(cea_scores(models, [], X), 1 - np.exp(mu_l))


@pytest.mark.parametrize("name", ALL)
def test_filters_return_only_untested_distinct_candidates(setup, name):
    space, pool, models, cons = setup
    ids, sizes = pool.untested()
    X = space.encode(ids, sizes)
    idx = filter_candidates(name, X, 0.2, models=models, constraints=cons, rng=5)
    assert len(np.unique(idx)) == len(idx)
    assert len(idx) == (len(X) if name == "none" else n_keep(0.2, len(X)))
    tested = set(zip(*(a.tolist() for a in pool.tested())))
    chosen = set(zip(ids[idx].tolist(), sizes[idx].tolist()))
    assert not chosen & tested
    # same seed -> identical output
    again = filter_candidates(name, X, 0.2, models=models, constraints=cons, rng=5)
    np.testing.assert_array_equal(idx, again)
    again = filter_candidates(name, X, 0.2, models=models, constraints=cons, rng=np.random.default_rng(5))
    np.testing.assert_array_equal(idx, again)


@pytest.mark.parametrize("name", ALL)
def test_beta_one_and_tiny_beta(setup, name):
    space, pool, models, cons = setup
    X = space.encode(*pool.untested())
    all_idx = filter_candidates(name, X, 1.0, models=models, constraints=cons, rng=0)
    assert sorted(all_idx.tolist()) == list(range(len(X)))
    one = filter_candidates(name, X, 1e-6, models=models, constraints=cons, rng=0)
    assert len(one) == (len(X) if name == "none" else 1)


def test_random_filter_depends_on_seed(setup):
    space, pool, models, cons = setup
    X = space.encode(*pool.untested())
    a = filter_candidates("random", X, 0.1, rng=1)
    b = filter_candidates("random", X, 0.1, rng=2)
    assert set(a.tolist()) != set(b.tolist())


@pytest.mark.parametrize("name", ["direct", "cmaes"])
def test_optimiser_filters_respect_budget_and_objective(setup, name):
    space, pool, models, cons = setup
    X = space.encode(*pool.untested())
    target = X[17]
    evaluated = []

    def objective(Xs):
        evaluated.extend(map(tuple, Xs))
        return -((Xs - target) ** 2).sum(axis=1)

    k = n_keep(0.3, len(X))
    idx = filter_candidates(name, X, 0.3, objective=objective, rng=3)
    assert len(idx) == k
    # each candidate evaluated at most once, and at most k evaluations (the budget)
    assert len(evaluated) == len(set(evaluated)) <= k
    vals = -((X[idx] - target) ** 2).sum(axis=1)
    n_eval = len(evaluated)
    assert np.all(np.diff(vals[:n_eval]) <= 0)  # evaluated ones come best first
    assert idx[0] == 17  # an easy quadratic: the optimiser finds the maximiser


def test_cmaes_leaves_global_numpy_state_alone(setup):
    space, pool, models, cons = setup
    X = space.encode(*pool.untested())
    np.random.seed(123)
    state = np.random.get_state()[1].copy()
    filter_candidates("cmaes", X, 0.1, models=models, constraints=cons, rng=0)
    np.testing.assert_array_equal(np.random.get_state()[1], state)


def test_errors(setup):
    space, pool, models, cons = setup
    X = space.encode(*pool.untested())
    with pytest.raises(ValueError, match=r"unknown filter 'ceaa'; known filters: \['cea', 'cmaes', 'cmaes-raw', 'direct', 'direct-raw'"):
        filter_candidates("ceaa", X, 0.1, models=models)
    with pytest.raises(ValueError, match="empty"):
        filter_candidates("cea", X[:0], 0.1, models=models)
    with pytest.raises(ValueError, match="empty"):
        filter_candidates("cea", [], 0.1, models=models)
    with pytest.raises(ValueError, match="beta"):
        filter_candidates("cea", X, 0.0, models=models)
    with pytest.raises(ValueError, match="needs models"):
        filter_candidates("cea", X, 0.1)
    with pytest.raises(ValueError, match="'time' model"):
        filter_candidates("cea", X, 0.1, models=models, constraints=[Constraint("time", upper=10.0)])
    with pytest.raises(ValueError, match="objective"):
        filter_candidates("direct", X, 0.1)
    with pytest.raises(ValueError, match="rng"):
        filter_candidates("random", X, 0.1, rng="seed")
    with pytest.raises(ValueError, match="columns"):
        filter_candidates("random", X[:, 1:], 0.1, rng=0, space=space)


def test_apply_filter_keeps_the_top_tenth_by_eq6(setup):
    """CEA through apply_filter (with the space) keeps ceil(0.1 n) candidates: those of largest Eq. 6 score,
    ranked here with numpy rather than by the filter."""
    space, pool, models, cons = setup
    X = space.encode(*pool.untested())
    n = len(X)
    assert n == 48 * 4 - 30
    kept = apply_filter("cea", X, beta=0.1, models=models, constraints=cons, rng=np.random.default_rng(0), space=space)
    assert len(kept) == 17  # ceil(0.1 x 162) = 17
    scores = cea_scores(models, cons, X)
    threshold = np.sort(scores)[::-1][16]
    assert len(set(kept.tolist())) == 17 and (scores[kept] >= threshold).all()  # a top-17 set (ties aside)


def test_registry():
    assert set(ALL) <= set(FILTERS)
    assert get_filter("cea") is FILTERS["cea"]
    with pytest.raises(ValueError, match="already registered"):
        register_filter("cea", lambda X, k, **kw: np.arange(k))
    register_filter("first_k_test", lambda X, k, **kw: np.arange(k))
    try:
        np.testing.assert_array_equal(filter_candidates("first_k_test", np.zeros((10, 2)), 0.3), [0, 1, 2])
    finally:
        del FILTERS["first_k_test"]


# ------------------------------------------------------------------ the authors' raw-box variants
@pytest.fixture(scope="module")
def rnn_space():
    from tt_core.data.benchmarks import load_benchmark

    return ConfigSpace.from_benchmark(load_benchmark("rnn"))


def test_raw_box_is_linear_in_raw_units(rnn_space):
    from tt_core.bo.filters import _RawBox

    box = _RawBox(rnn_space)
    centre = box.encoded(box.raw(np.full(6, 0.5)))[0]
    names = [e.name for e in rnn_space.encodings]
    # the raw learning-rate box [1e-5, 1e-3] has its centre at 5.05e-4; log-encoded by hand:
    # ln(5.05e-4 / 1e-5) / ln(1e-3 / 1e-5) = ln(50.5) / ln(100) = 0.85165
    assert centre[names.index("learning_rate")] == pytest.approx(np.log(50.5) / np.log(100), abs=1e-12)
    # the size centre, 30,500 images, log2-encoded between 1,000 and 60,000
    assert centre[-1] == pytest.approx(np.log2(30500 / 1000) / np.log2(60), abs=1e-12)


def test_raw_rounding_as_in_the_authors_code(rnn_space):
    from tt_core.bo.filters import _RawBox

    box = _RawBox(rnn_space)
    names = [e.name for e in rnn_space.encodings]

    def decoded(raw):
        row = box.rounded(np.asarray(raw, dtype=float))
        return rnn_space.decode(row[None, :]).iloc[0], float(rnn_space.s_to_size(row[-1]).round())

    # flavor index 1.4 -> 1 (t2.medium), 50 workers -> 48, lr 6e-4 -> 1e-3 but 5e-4 -> 1e-4 (nearest in
    # raw units), batch 130 -> 16 and 140 -> 256, sync index 0.6 -> 1; SOURCE.md: every size above
    # 22,500 images goes to the full data set (60,000), 22,400 to 15,000
    cfg, size = decoded([1.4, 50, 6e-4, 130, 0.6, 22_600])
    assert (cfg["vm_flavor"], round(cfg["n_workers"]), cfg["learning_rate"], round(cfg["batch_size"]), cfg["sync"]) == \
        ("t2.medium", 48, pytest.approx(1e-3), 16, "sync") and size == 60_000
    cfg, size = decoded([1.4, 50, 5e-4, 140, 0.4, 22_400])
    assert cfg["learning_rate"] == pytest.approx(1e-4) and round(cfg["batch_size"]) == 256 and cfg["sync"] == "async"
    assert size == 15_000
    assert names == ["vm_flavor", "n_workers", "learning_rate", "batch_size", "sync"]


@pytest.mark.parametrize("name", ["direct-raw", "cmaes-raw"])
def test_raw_filters_find_a_corner_maximum_and_return_one_candidate(rnn_space, name):
    ids, sizes = rnn_space.all_pairs()
    X = rnn_space.encode(ids, sizes)
    evaluated = []

    def objective(Xs):  # increasing in every encoded coordinate: the maximum is the all-high corner
        evaluated.append(len(Xs))
        return Xs.sum(axis=1)

    idx = filter_candidates(name, X, 1.0, objective=objective, rng=4, space=rnn_space)
    assert len(idx) == 1 and sum(evaluated) <= len(X)  # budget: k = 1440 evaluations at beta = 1
    # the rounded maximiser is the all-high corner (t2.2xlarge, 80 workers, lr 1e-3, batch 256, sync, full
    # size); the data have no such configuration, so the nearest one is tested: by brute force, the
    # candidate of least squared encoded distance to (1, ..., 1)
    assert idx[0] == int(np.argmin(((X - 1.0) ** 2).sum(axis=1)))
    assert sizes[idx[0]] == 60_000 and rnn_space.decode(X[idx])["learning_rate"].iloc[0] == pytest.approx(1e-3)
    again = filter_candidates(name, X, 1.0, objective=objective, rng=4, space=rnn_space)
    np.testing.assert_array_equal(idx, again)


def test_raw_filters_need_the_space(setup):
    space, pool, models, cons = setup
    X = space.encode(*pool.untested())
    with pytest.raises(ValueError, match="need space="):
        filter_candidates("direct-raw", X, 0.1, models=models, constraints=cons, rng=0)
