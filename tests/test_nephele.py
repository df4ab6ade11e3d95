"""Nephele and its baselines (thesis ch. 3, Algs. 2-3; §6.1-6.5): known answers, budget, determinism, errors."""

from __future__ import annotations

import math
import os

import numpy as np
import pandas as pd
import pytest

from tt_core.acquisitions.trimtuner import gauss_hermite_normal
from tt_core.data.benchmarks import benchmark_from_table, load_benchmark
from tt_workbook import runs as ex
from tt_core.acquisitions.ei import constrained_cost_ei, lognormal_expected_improvement
from tt_workbook.studies.nephele.analysis import cost_to_reach, iteration_curves, percentile
from tt_core.bo.constraints import predicted_feasible
from tt_core.bo.design import latin_hypercube
from tt_core.data.benchmarks import price_per_second
from tt_core.data.space import ConfigSpace
from tt_core.replay.metrics import optimum
from tt_workbook.runs.profiles import settings as profile_settings
from tt_core.replay.driver import run_optimization
from tt_core.optimizers import Exhausted, Problem, constraints_for, make_optimizer

TIMING_COLUMNS = ["overhead_s", "cumulative_wall"]
BUDGETED = ("cherrypick", "lynceus", "nephele", "random")


def make_nephele_optimizer(name, bench, *, seed, **kw):
    """A cost-minimising optimiser on ``bench`` (random search minimises the cost, no initial budget)."""
    kw = dict(kw)
    if name == "random":
        kw.pop("initial_budget", None)
        kw["objective"] = "cost"
    return make_optimizer(name, bench, seed=seed, **kw)


def run_nephele(bench, name, seed, horizon=0, **kw):
    """Replay until the budget is spent (the one replay driver)."""
    kw = dict(kw)
    if horizon:
        kw["horizon"] = horizon
    if name == "random":
        kw.pop("initial_budget", None)
        kw["objective"] = "cost"
    return run_optimization(bench, name, seed=seed, iterations=None, **kw)


def _toy_table(seed: int = 0) -> pd.DataFrame:
    """36 configurations x 3 sizes with cost = price x time (a generic-format benchmark)."""
    rng = np.random.default_rng(seed)
    rows = []
    for vm, rate in (("small", 0.0005), ("large", 0.0015)):
        for n in (1, 2, 4):
            for lr in (0.1, 0.01, 0.001):
                for batch in (16, 256):
                    quality = {0.1: 0.0, 0.01: 0.03, 0.001: -0.05}[lr] + (0.01 if batch == 16 else 0.0)
                    speed = n * (3.0 if vm == "large" else 1.0) * (1.5 if batch == 256 else 1.0)
                    for size in (100, 1000, 10000):
                        time = size / speed * 0.05 * (1 + 0.2 * rng.random())
                        acc = min(0.99, 0.78 + 0.04 * math.log10(size) + quality + 0.01 * rng.random())
                        rows.append({"vm": vm, "n": n, "lr": lr, "batch": batch, "size": size, "accuracy": acc,
                                     "time": time, "cost": rate * n * time})
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def toy():
    return benchmark_from_table(_toy_table(), ["vm", "n", "lr", "batch"], name="toy")


TOY = dict(budget=3.0, initial_budget=0.8, min_accuracy=0.88, max_time=150.0)


# ------------------------------------------------------------------------------- known answers
@pytest.mark.parametrize("n", [1, 3, 5])
def test_gauss_hermite_integrates_gaussian_moments(n):
    z, w = gauss_hermite_normal(n)
    def moment(k):  # E[Z^k] = (k - 1)!! for even k, 0 for odd k
        return 0 if k % 2 else math.prod(range(k - 1, 0, -2))

    assert np.sum(w) == pytest.approx(1.0)
    for k in range(2 * n):  # an n-point rule is exact up to degree 2n - 1
        assert np.sum(w * z**k) == pytest.approx(moment(k), abs=1e-9)
    mu, sd = 0.7, 0.4  # and for N(mu, sd^2) through the affine map the lookahead uses
    x = mu + sd * z
    assert np.sum(w * x) == pytest.approx(mu)
    if n >= 2:
        assert np.sum(w * (x - mu) ** 2) == pytest.approx(sd**2)


def test_nephele_uses_three_gauss_hermite_points_on_cost_and_mean_accuracy(toy):
    opt = make_nephele_optimizer("nephele", toy, seed=0, horizon=1, **TOY)
    assert opt.gh_cost == 3 and opt.gh_accuracy == 1 and opt.discount == 0.9 and opt.n_trees == 5
    z, w = opt.lookahead.gh_accuracy
    assert z.tolist() == [0.0] and w.tolist() == [1.0]


def test_lognormal_expected_improvement_matches_monte_carlo():
    rng = np.random.default_rng(1)
    mu, sd, best = np.array([-3.0, -2.0, -4.5]), np.array([0.5, 1.0, 0.2]), 0.05
    ei = lognormal_expected_improvement(mu, sd, best)
    draws = np.exp(mu + sd * rng.standard_normal((400_000, 3)))
    mc = np.maximum(best - draws, 0).mean(axis=0)
    np.testing.assert_allclose(ei, mc, rtol=0.02, atol=1e-6)
    # sd = 0: deterministic improvement
    assert lognormal_expected_improvement([math.log(0.02)], [0.0], 0.05)[0] == pytest.approx(0.03)
    assert lognormal_expected_improvement([math.log(0.08)], [0.0], 0.05)[0] == 0.0
    with pytest.raises(ValueError, match="best"):
        lognormal_expected_improvement(mu, sd, 0.0)


def test_constrained_ei_is_probability_times_ei():
    mu_l, sd_l = np.array([math.log(0.15)]), np.array([0.3])  # median accuracy exactly A_min
    price = np.array([0.01])
    mu_c, sd_c = np.array([math.log(3.0)]), np.array([0.5])   # median time 300 s = T_max
    pred = {"mu_l": mu_l, "sd_l": sd_l, "mu_c": mu_c, "sd_c": sd_c}
    limits = constraints_for(min_accuracy=0.85, max_time=300.0)
    p = constrained_cost_ei(pred, price, None, limits)
    assert p[0] == pytest.approx(0.25)  # P(acc) = P(time) = 1/2, no incumbent -> probability alone
    v = constrained_cost_ei(pred, price, 4.0, limits)
    assert v[0] == pytest.approx(0.25 * lognormal_expected_improvement(mu_c, sd_c, 4.0)[0])


def test_feasible_set_uses_predicted_accuracy_time_and_budget():
    mu_l = np.log([0.10, 0.20, 0.10, 0.10])   # accuracy 0.90, 0.80, 0.90, 0.90
    mu_c = np.log([1.0, 1.0, 5.0, 1.0])
    price = np.array([0.01, 0.01, 0.01, 0.001])  # times 100, 100, 500, 1000 s
    limits = constraints_for(min_accuracy=0.85, max_time=300.0)
    mask = predicted_feasible(mu_l, mu_c, price, 10.0, limits)
    assert mask.tolist() == [True, False, False, False]
    assert not predicted_feasible(mu_l, mu_c, price, 0.5, limits).any()  # cost above the budget left
    assert not predicted_feasible(mu_l, mu_c, price, -1.0, limits).any()


def test_latin_hypercube_has_one_point_per_stratum():
    u = latin_hypercube(8, 3, np.random.default_rng(0))
    assert u.shape == (8, 3)
    for j in range(3):
        assert sorted(np.floor(u[:, j] * 8).astype(int)) == list(range(8))


def test_percentile_treats_missing_as_infinite():
    assert percentile([1, 2, 3, 4, 5], 50) == 3
    assert np.isinf(percentile([1, 2, np.nan, np.nan, np.nan], 50))
    assert percentile([1, 2, 3, 4, np.nan], 50) == 3
    assert percentile(np.arange(11.0), 90) == pytest.approx(9.0)


# ------------------------------------------------------------------------------- selection rule
def _advance(opt, bench, n_bo: int):
    t = bench.table.set_index(["config_id", "size"])
    while opt.phase == "init" or n_bo > 0:
        if opt.phase != "init":
            n_bo -= 1
        c, s = opt.suggest()
        r = t.loc[(c, s)]
        opt.observe(c, s, r["accuracy"], r["cost"], r["training_time"])


def test_horizon_zero_is_the_reward_over_cost_argmax(toy):
    opt = make_nephele_optimizer("nephele", toy, seed=3, **TOY)
    _advance(opt, toy, 3)
    state = opt._state()
    models = opt._fit(state)
    idx = np.flatnonzero(state.untested)
    pred = opt._predict(models, idx)
    gamma = opt.lookahead.feasible(pred, idx, state.budget_left)
    assert gamma.any()
    g = np.flatnonzero(gamma)
    sub = {k: v[g] for k, v in pred.items()}
    ratio = opt.lookahead.eic(sub, idx[g], state.best) / np.exp(sub["mu_c"] + 0.5 * sub["sd_c"] ** 2)
    c, s = opt.suggest()
    top = idx[g][ratio == ratio.max()]          # ties (trees predict piecewise constants) go by the
    expected = top[np.argmax(opt._priority[top])]  # step's seeded random priority
    assert (c, s) == (int(opt._ids[expected]), int(opt._sizes[expected]))
    # EXPLOREPATHS with h = 0 returns (EIc, predicted cost)
    R, C = opt.explore_paths(c, s, horizon=0)
    k = int(np.flatnonzero(idx[g] == expected)[0])
    assert R / C == pytest.approx(ratio[k])


def test_zero_discount_lookahead_equals_no_lookahead(toy):
    """Thesis §3.2.1: with gamma = 0 the path does not count and Nephele behaves as with h = 0."""
    import copy

    opt = make_nephele_optimizer("nephele", toy, seed=4, **TOY)
    _advance(opt, toy, 2)
    twin = copy.deepcopy(opt)             # same state and random stream
    twin.horizon, twin.lookahead.discount = 1, 0.0
    picks = [opt.suggest(), twin.suggest()]
    assert picks[0] == picks[1]


def test_lookahead_adds_discounted_path_value(toy):
    opt = make_nephele_optimizer("nephele", toy, seed=5, horizon=1, max_paths=5, **TOY)
    _advance(opt, toy, 1)
    idx = np.flatnonzero(opt.pool.untested_mask)
    c, s = int(opt._ids[idx[0]]), int(opt._sizes[idx[0]])
    r0, c0 = opt.explore_paths(c, s, horizon=0)
    r1, c1 = opt.explore_paths(c, s, horizon=1)
    assert r1 >= r0 and c1 > c0  # the path adds discounted reward and cost of a next step
    c, s = opt.suggest()  # runs the full lookahead over Gamma
    assert opt.step_info["gamma_size"] is not None


@pytest.mark.parametrize("horizon", [1, 2])
def test_the_fantasy_memo_changes_no_path_value_and_fits_the_loss_model_once_per_node(toy, horizon):
    """With M = 1 the speculated loss is the predicted mean at every one of the N = 3 cost nodes: through the
    memo a path from one pair at h = 1 fits the loss model once and the cost model three times (4 fits, 2
    answered from memory), and every path value is the one of the models without the memo, to the bit."""
    from tt_core.acquisitions.lookahead import expected_cost
    from tt_core.acquisitions.memo import FantasyMemo

    opt = make_nephele_optimizer("nephele", toy, seed=5, horizon=horizon, **TOY)
    _advance(opt, toy, 1)
    state = opt._state()
    models = opt._fit(state)
    idx = np.flatnonzero(state.untested)
    pred = opt._predict(models, idx)
    eic = opt.lookahead.eic(pred, idx, state.best)
    for k in range(0, len(idx), 7):
        p = {key: v[k] for key, v in pred.items()}
        args = (int(idx[k]), horizon, state)
        plain = opt.lookahead.paths(*args, models, eic[k], float(expected_cost(pred, k)), p)
        memo = FantasyMemo()
        wrapped = (memo.wrap(models[0]), memo.wrap(models[1]))
        assert opt.lookahead.paths(*args, wrapped, eic[k], float(expected_cost(pred, k)), p) == plain
        if horizon == 1:
            assert (memo.n_fits, memo.n_reused) == (4, 2)


def test_incumbent_is_the_cheapest_feasible_observation(toy):
    opt = make_nephele_optimizer("random", toy, seed=0, **TOY)
    assert opt.incumbent() is None
    opt.observe(0, 100, 0.80, 0.001, 10.0)    # accuracy too low
    opt.observe(1, 100, 0.95, 0.020, 10.0)    # feasible
    opt.observe(2, 100, 0.95, 0.010, 400.0)   # too slow
    opt.observe(3, 100, 0.90, 0.015, 100.0)   # feasible and cheaper
    assert opt.incumbent().config_id == 3
    assert opt.history["feasible"].tolist() == [False, True, False, True]


# ------------------------------------------------------------------------------- budget accounting
@pytest.mark.parametrize("name", BUDGETED)
def test_budget_never_overspent_except_by_the_crossing_run(toy, name):
    traj = run_nephele(toy, name, seed=1, **TOY)
    B, B_init = TOY["budget"], TOY["initial_budget"]
    assert (traj["cumulative_cost"].iloc[:-1] < B).all()           # every run but the last started under B
    assert traj["cumulative_cost"].iloc[-1] >= B or traj["budget_left"].iloc[-1] > 0  # stopped at B (or space exhausted)
    assert traj["cumulative_cost"].iloc[-1] - B <= traj["cost"].iloc[-1] + 1e-12   # overspend <= the last run
    assert np.allclose(traj["cumulative_cost"], traj["charged_cost"].cumsum())
    init = traj[traj["phase"] == "init"]
    if name == "random":
        assert init.empty
    else:
        assert (init["cumulative_cost"].iloc[:-1] < B_init).all() and init["cumulative_cost"].iloc[-1] >= B_init
        assert (traj.loc[traj["phase"] == "bo", "cumulative_cost"] > B_init).all()


def test_aborting_the_crossing_run_spends_exactly_the_budget(toy):
    traj = run_nephele(toy, "nephele", seed=2, finish_last_run=False, **TOY)
    assert traj["cumulative_cost"].iloc[-1] == pytest.approx(TOY["budget"])
    assert not traj["used"].iloc[-1] and traj["used"].iloc[:-1].all()


def test_suggest_after_the_budget_is_spent_raises(toy):
    opt = make_nephele_optimizer("random", toy, seed=0, budget=0.05, min_accuracy=0.85)
    while not opt.done:
        c, s = opt.suggest()
        row = toy.lookup(c, s)
        opt.observe(c, s, row["accuracy"], row["cost"], row["training_time"])
    with pytest.raises(Exhausted, match="budget is spent"):
        opt.suggest()


def test_full_size_optimisers_test_only_the_full_size(toy):
    for name in ("lynceus", "cherrypick"):
        traj = run_nephele(toy, name, seed=1, **TOY)
        assert (traj["size"] == toy.max_size).all()
    assert run_nephele(toy, "nephele", seed=1, **TOY)["size"].nunique() > 1


# ------------------------------------------------------------------------------- determinism
def test_seed_reproduces_the_trajectory(toy):
    small = dict(TOY, budget=1.2)
    a = run_nephele(toy, "nephele", seed=7, horizon=1, max_paths=2, **small).drop(columns=TIMING_COLUMNS)
    b = run_nephele(toy, "nephele", seed=7, horizon=1, max_paths=2, **small).drop(columns=TIMING_COLUMNS)
    pd.testing.assert_frame_equal(a, b)
    assert (a["phase"] == "bo").sum() >= 10
    c = run_nephele(toy, "nephele", seed=8, horizon=1, max_paths=2, **small).drop(columns=TIMING_COLUMNS)
    assert not a[["config_id", "size"]].equals(c[["config_id", "size"]])


def test_max_paths_does_not_change_horizon_zero(toy):
    a = run_nephele(toy, "nephele", seed=9, **TOY)
    b = run_nephele(toy, "nephele", seed=9, max_paths=1, **TOY)
    assert a[["config_id", "size"]].equals(b[["config_id", "size"]])


# ------------------------------------------------------------------------------- real data, CNO, grid
def test_optimum_and_cno_on_the_rnn_measurements():
    rnn = load_benchmark("rnn")
    o, f = optimum(rnn, 0.85, 300.0), optimum(rnn, 0.85, 300.0, full_size_only=True)
    assert int(o["size"]) == 15000 and int(f["size"]) == 60000 and f["cost"] > o["cost"]
    p = price_per_second(rnn)
    t = rnn.full_size().sort_values("config_id")
    np.testing.assert_allclose(t["cost"] / t["training_time"], p, rtol=1e-6)
    traj = run_nephele(rnn, "nephele", seed=1, budget=1.1)
    assert traj["initial_budget"].iloc[0] == 1.0  # thesis Table 6.1
    has = traj["incumbent_cost"].notna()
    np.testing.assert_allclose(traj.loc[has, "cno"], traj.loc[has, "incumbent_cost"] / o["cost"])
    assert (traj.loc[has, "cno"] >= 1 - 1e-12).all()
    assert traj.loc[has, "cno"].is_monotonic_decreasing


def test_grid_stores_one_file_per_run_and_resumes(toy, tmp_path):
    csv = tmp_path / "toy.csv"
    _toy_table().to_csv(csv, index=False)
    specs = ex.cost_grid([str(csv)], ["nephele", "random"], [1, 2], budget=1.5, options={"initial_budget": 0.5})
    paths = ex.run_grid(specs, tmp_path / "runs", progress=False)
    assert paths[0] == tmp_path / "runs" / "toy" / "nephele-initial_budget0.5-B1.5" / "seed1.parquet"
    assert paths[2] == tmp_path / "runs" / "toy" / "random-mincost-B1.5" / "seed1.parquet"
    assert all(p.is_file() for p in paths)
    stamps = [os.stat(p).st_mtime_ns for p in paths]
    ex.run_grid(specs, tmp_path / "runs", progress=False)   # resume: nothing is rerun
    assert [os.stat(p).st_mtime_ns for p in paths] == stamps

    df = ex.load_runs(specs, tmp_path / "runs")
    assert (df["budget"] == 1.5).all() and (df.loc[df["optimizer"] == "nephele", "initial_budget"] == 0.5).all()
    default = ex.cost_grid(["rnn"], ["cherrypick"], [1])[0]  # no budget given: the stored one is the effective B
    assert default.budget is None
    assert (ex.read_run(ex.run_one(default, tmp_path / "runs"))[0]["budget"] == 2.5).all()
    curves = iteration_curves(df)
    assert set(curves["optimizer"]) == {"nephele", "random"}
    reach = cost_to_reach(curves, 1e9)
    assert reach.notna().all()  # every curve has an incumbent eventually on the toy data


# ------------------------------------------------------------------------------- errors
def test_unknown_optimizer_lists_the_known_ones(toy):
    with pytest.raises(ValueError, match="known optimizers: \\['cherrypick', 'ei', 'eic', 'eic-usd', 'fabolas', 'fabulinus', 'lynceus', "
                                         "'nephele', 'random', 'trimtuner-dt', 'trimtuner-gp'\\]"):
        make_nephele_optimizer("bogus", toy, seed=0, **TOY)
    with pytest.raises(ValueError, match="known optimizers"):
        ex.RunSpec("rnn", "bogus", 1)


@pytest.mark.parametrize("kwargs, match", [
    (dict(budget=-1.0, initial_budget=0.5), "budget must be a positive number"),
    (dict(budget=1.0, initial_budget=-0.1), "initial_budget must be a finite number >= 0"),
    (dict(budget=1.0, initial_budget=1.0), "must be smaller than budget"),
    (dict(budget=1.0, initial_budget=0.5, horizon=-1), "horizon must be an int from 0"),
    (dict(budget=1.0, initial_budget=0.5, discount=1.5), "discount"),
    (dict(budget=1.0, initial_budget=0.5, min_accuracy=85), "accuracy constraint: lower must lie in"),
    (dict(budget=1.0, initial_budget=0.5, max_cost=0.1), "cannot honour max_cost"),
    (dict(budget=1.0, initial_budget=0.5, beta=0.1), "has no candidate filter"),
    (dict(budget=1.0), "needs initial_budget"),
    (dict(budget=float("nan"), initial_budget=0.5), "budget must be a finite number"),
])
def test_bad_settings_raise_clear_errors(toy, kwargs, match):
    kwargs.setdefault("min_accuracy", 0.85)
    with pytest.raises(ValueError, match=match):
        make_nephele_optimizer("nephele", toy, seed=0, **kwargs)


def test_bad_observations_raise_clear_errors(toy):
    opt = make_nephele_optimizer("lynceus", toy, seed=0, **TOY)
    with pytest.raises(ValueError, match="not a candidate at the full size"):
        opt.observe(0, 100, 0.9, 0.01, 10.0)
    opt.observe(0, 10000, 0.9, 0.01, 10.0)
    with pytest.raises(ValueError, match="already tested"):
        opt.observe(0, 10000, 0.9, 0.01, 10.0)
    with pytest.raises(ValueError, match="accuracy must be a fraction in \\[0, 1\\]"):
        opt.observe(1, 10000, 90.0, 0.01, 10.0)
    with pytest.raises(ValueError, match="cost must be a finite number >= 0"):
        opt.observe(1, 10000, 0.9, -0.01, 10.0)
    with pytest.raises(ValueError, match="'cherrypick' has no option horizon"):
        run_nephele(toy, "cherrypick", seed=0, horizon=1, **TOY)
    with pytest.raises(ValueError, match="price_per_second must hold one finite price > 0 per configuration"):
        Problem(ConfigSpace.from_benchmark(toy), objective="cost", budget=1.0, price_per_second=[1.0, 2.0])
    with pytest.raises(ValueError, match="known profiles"):
        profile_settings("huge", "nephele")


def test_lynceus_takes_the_lookahead_options_but_not_the_size_choice(toy):
    """Lynceus is Nephele at the full size (thesis §6.1): it has a horizon; its sizes are not an option."""
    opt = make_nephele_optimizer("lynceus", toy, seed=0, horizon=1, max_paths=2, **TOY)
    assert opt.horizon == 1 and opt.max_paths == 2 and opt.full_size_only
    with pytest.raises(ValueError, match="'lynceus' has no option full_size_only"):
        make_nephele_optimizer("lynceus", toy, seed=0, full_size_only=False, **TOY)


def test_initial_budget_check_by_hand():
    """B_init / mean cost on a table whose costs are set by hand: 4 configurations x 2 sizes."""
    from tt_workbook.studies.nephele.analysis import initial_budget_check

    rows = [{"vm": vm, "n": 1, "lr": 0.1, "batch": b, "size": size, "accuracy": 0.9, "time": 10.0,
             "cost": cost} for (vm, b, size, cost) in [("a", 16, 10, 0.1), ("a", 16, 100, 1.0), ("a", 32, 10, 0.2),
                                                       ("a", 32, 100, 2.0), ("b", 16, 10, 0.3), ("b", 16, 100, 3.0),
                                                       ("b", 32, 10, 0.4), ("b", 32, 100, 4.0)]]
    bench = benchmark_from_table(pd.DataFrame(rows), ["vm", "n", "lr", "batch"], name="hand")
    out = initial_budget_check({"hand": bench}, {"hand": 5.0}).iloc[0]
    assert out["mean_cost_full_size"] == pytest.approx(2.5)           # (1 + 2 + 3 + 4) / 4
    assert out["expected_samples_full_size"] == pytest.approx(2.0)     # 5 / 2.5
    assert out["mean_cost_all_sizes"] == pytest.approx(1.375)         # 11 / 8
    assert out["expected_samples_all_sizes"] == pytest.approx(5 / 1.375)


def test_projected_time_and_the_overhead_the_thesis_ratio_needs(monkeypatch):
    """Hand-made: h = 0 runs train 1000 s and make 10 recommendations of 1 s; h = 1 runs train 1000 s and
    make 10 recommendations of 5 s. Projected ratio (1000 + 50) / (1000 + 10); the thesis' 2.34 needs
    w = (2.34 * 1010 - 1000) / 10 = 136.34 s per h = 1 recommendation."""
    import tt_workbook.studies.nephele.rows as rn

    look = pd.DataFrame({"benchmark": ["cnn", "cnn"], "horizon": [0, 1], "recommendations": [20, 20], "runs": [2, 2],
                         "exploration_time_s": [1000.0, 1000.0]})
    monkeypatch.setattr(rn, "lookahead_table", lambda df, *a, **k: look)
    timing = pd.DataFrame({"benchmark": ["cnn", "cnn"], "horizon": [0, 1], "max_paths": ["all", "all"],
                           "wall_s": [1.0, 5.0]})
    out = rn.projected_total_time(None, timing).set_index("horizon")
    assert out.loc[1, "projected_ratio"] == pytest.approx(1050 / 1010)
    assert out.loc[1, "implied_wall_per_rec_s"] == pytest.approx((2.34 * 1010 - 1000) / 10)
    row = rn.projected_time_rows(out.reset_index())[0]
    assert row["paper"] == 2.34 and "needs 136 s per h = 1 recommendation, 27x this code's 5.0 s" in row["cause"]


def test_equal_spend_curves_by_hand():
    """Two seeds of one optimiser (horizon 0) read on the grid 1, 2, 4, 8 (log-spaced from the cheapest first
    exploration, $1, to the budget, $8); a horizon-1 run (cheaper start, larger budget) must not move the grid.
    Medians (q = 50) of two seeds: inf where one run has not explored yet, else the mean of the two."""
    import pandas as pd

    from tt_workbook.studies.nephele.analysis import equal_spend_curves

    rows = []
    for seed, costs, cno, space in ((1, [1, 2, 4], [5, 3, 1], [4, 2, 1]), (2, [2, 4], [4, 2], [3, 1])):
        rows += [{"benchmark": "rnn", "optimizer": "lynceus", "horizon": 0, "seed": seed, "iteration": i + 1,
                  "cumulative_cost": c, "cno": v, "cno_space": w, "budget": 8.0}
                 for i, (c, v, w) in enumerate(zip(costs, cno, space))]
    rows.append({"benchmark": "rnn", "optimizer": "lynceus", "horizon": 1, "seed": 1, "iteration": 1,
                 "cumulative_cost": 0.5, "cno": 9.0, "cno_space": 9.0, "budget": 100.0})
    out = equal_spend_curves(pd.DataFrame(rows), ["rnn"], q=50, points=4)
    assert sorted(out.columns) == sorted(["benchmark", "optimizer", "horizon", "cumulative_cost", "cno", "cno_space"])
    assert out["cumulative_cost"].tolist() == pytest.approx([1, 2, 4, 8])
    assert out["cno"].tolist() == [float("inf"), 3.5, 1.5, 1.5]
    assert out["cno_space"].tolist() == [float("inf"), 2.5, 1.0, 1.0]


def test_best_case_cause_spreads_the_ratio_over_the_spend_grid():
    """A hand-made grid: ratios 2, 3, 4 (and one point where Nephele's CNO is infinite, left out); the maximum 4
    comes at spend 3 (CNO 8 vs 2); one of three within 3.0 +- 25%."""
    import pandas as pd

    from tt_workbook.studies.nephele.rows import best_case_cause
    from tt_workbook.report.summary import names_mechanism

    piv = pd.DataFrame({"lynceus": [4.0, 6.0, 8.0, 9.0], "nephele": [2.0, 2.0, 2.0, float("inf")]},
                       index=[1.0, 2.0, 3.0, 4.0])
    cause = best_case_cause(piv, "lynceus", 3.0, 0.25, 90)
    assert "ranges 2.00-4.00 over the 3 spend points" in cause and "median 3.00, 33% of them" in cause
    assert "at $3.00 of spend, where lynceus's p90 CNO is still 8.0 while Nephele's has reached 2.0" in cause
    assert names_mechanism(cause)[0]
