"""Fabulinus (thesis ch. 4) and the ch. 7 statistics, on hand-computable toys."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from tt_core.acquisitions.trimtuner import TrimTunerAcquisition
from tt_workbook.studies.fabulinus import analysis as fab
from tt_core.bo.constraints import Constraint
from tt_core.bo.design import random_configs, subsampled_configs
from tt_core.bo.incumbent import select_incumbent
from tt_core.data.benchmarks import benchmark_from_table, load_benchmark
from tt_core.data.space import ConfigSpace
from tt_core.optimizers import make_optimizer
from tt_core.optimizers.model_based import ModelBasedOptimizer
from tt_core.optimizers.registry import fabulinus_n_init, make_problem


class FixedModel:
    """Log-space model on inputs (u, s~) predicting ``mean[u]`` with std ``std[u]`` at every size; a
    fantasy changes nothing (so the fantasised incumbent is the current one)."""

    def __init__(self, mean: dict, std: dict):
        self.mean, self.std = mean, std

    def predict(self, X, return_std=False):
        u = np.asarray(X, float)[:, 0]
        m = np.array([self.mean[v] for v in u])
        return (m, np.array([self.std[v] for v in u])) if return_std else m

    def fantasize(self, X_new, y_new):
        return self


X_FULL = np.array([[0.0, 1.0], [0.5, 1.0], [1.0, 1.0]])
LOSS = {0.0: np.log(1 - 0.8), 0.5: np.log(1 - 0.7), 1.0: np.log(1 - 0.95)}   # accuracies 0.8, 0.7, 0.95
COST = {0.0: np.log(0.01), 0.5: np.log(0.005), 1.0: np.log(0.05)}
SD = {0.0: 0.5, 0.5: 0.5, 1.0: 0.5}


def _acq(factor, threshold):
    models = {"loss": FixedModel(LOSS, SD), "cost": FixedModel(COST, SD)}
    return TrimTunerAcquisition(lambda X: np.ones(len(X)), models, [Constraint("cost", upper=0.02)], X_FULL,
                                factor=factor, feasibility_threshold=threshold)


def test_es_c_multiplies_the_probability_by_the_incumbents_predicted_accuracy():
    # P(cost <= 0.02) = Phi((ln 0.02 - ln c) / 0.5): 0.9172 (config 0), 0.9972 (config 0.5), 0.0334 (config 1)
    p = norm.cdf((np.log(0.02) - np.log([0.01, 0.005, 0.05])) / 0.5)
    X = np.array([[0.0, 0.25], [1.0, 0.1]])
    # threshold 0.5: configs 0 and 0.5 are predicted feasible, config 0 is more accurate -> x_inc = config 0
    np.testing.assert_allclose(_acq("probability", 0.5).constraint_term(X), [p[0], p[0]], rtol=1e-12)  # Eq. 5
    np.testing.assert_allclose(_acq("cea", 0.5).constraint_term(X), [0.8 * p[0]] * 2, rtol=1e-12)     # Eq. 4.5
    # threshold 0.99 (thesis §4.2): only config 0.5 qualifies -> x_inc = config 0.5
    np.testing.assert_allclose(_acq("cea", 0.99).constraint_term(X), [0.7 * p[1]] * 2, rtol=1e-12)
    np.testing.assert_allclose(_acq("probability", 0.99).constraint_term(X), [p[1]] * 2, rtol=1e-12)
    with pytest.raises(ValueError, match="unknown factor"):
        _acq("bogus", 0.5)


def test_incumbent_threshold_of_99_percent():
    loss = np.log(1 - np.array([0.9, 0.8, 0.95]))
    p = np.array([0.98, 0.995, 0.4])
    assert select_incumbent(loss, p, 0.5).index == 0
    assert select_incumbent(loss, p, 0.99).index == 1
    assert select_incumbent(loss, np.array([0.98, 0.5, 0.4]), 0.99).index == 0  # none qualifies: max CEA


def _toy_table():
    rows = [{"x": x, "size": s, "accuracy": 0.5, "cost": 1.0, "time": 1.0}
            for x, s in itertools.product([0, 1, 2, 3], [1000, 6000, 15000, 30000, 60000])]
    return benchmark_from_table(pd.DataFrame(rows), ["x"], max_cost=0.5)


class TableModel:
    """Predicts a fixed (mean, 0.1) per configuration, whatever the size; ignores fitting."""

    def __init__(self, means: dict, space: ConfigSpace):
        self.means = means
        self.enc = {float(space.encode([c], [space.max_size])[0, 0]): c for c in space.config_ids}

    def fit(self, X, y):
        return self

    def predict(self, X, return_std=False):
        m = np.array([self.means[self.enc[float(v)]] for v in np.asarray(X, float)[:, 0]])
        return (m, np.full(m.shape, 0.1)) if return_std else m


def _optimizer(acquisition, constrained_incumbent, **kw):
    bench = _toy_table()
    problem = make_problem("eic", bench, max_cost=0.5)
    means = {"loss": {0: np.log(0.5), 1: np.log(0.4), 2: np.log(0.05), 3: np.log(0.10)},
             "cost": {0: np.log(0.1), 1: np.log(0.1), 2: np.log(1.0), 3: np.log(0.1)}}
    factory = lambda kind, seed, space: TableModel(means[kind], space)  # noqa: E731
    return ModelBasedOptimizer.from_settings(problem, seed=0, model_factory=factory, acquisition=acquisition,
                                             filter="none", subsampling=kw.pop("subsampling", False),
                                             constrained_incumbent=constrained_incumbent, init_design="random",
                                             n_init=0, **kw)


def test_bo_with_ei_ignores_the_constraint_where_eic_does_not():
    # observed: configs 0 (accuracy 0.5) and 1 (0.6); untested: 2 (predicted 0.95, cost $1 > $0.5) and
    # 3 (predicted 0.90, cost $0.1). EI below ln(0.4) is largest at config 2; EIc multiplies it by
    # P(cost <= 0.5) ~ Phi(ln 0.5 / 0.1) ~ 0 there and chooses config 3.
    for acq, constrained, choice, incumbent in (("ei", False, 2, 2), ("eic", True, 3, 3)):
        opt = _optimizer(acq, constrained)
        opt.observe(0, 60000, 0.5, 0.1, 1.0)
        opt.observe(1, 60000, 0.6, 0.1, 1.0)
        assert opt.suggest() == (choice, 60000)
        assert opt.incumbent().config_id == incumbent  # unconstrained: max predicted accuracy


def test_sub_sampled_only_never_tests_the_full_size():
    opt = _optimizer("eic", True, subsampling=True, test_full_size=False)
    ids, sizes = opt.pool.untested()
    assert len(ids) == 16 and sizes.max() == 30000
    with pytest.raises(ValueError, match="never tests the full size"):
        opt.observe(0, 60000, 0.5, 0.1, 1.0)
    with pytest.raises(ValueError, match="needs subsampling"):
        _optimizer("eic", True, subsampling=False, test_full_size=False)


def test_fabulinus_initial_design_is_three_percent_at_every_sub_sampled_size():
    rnn = load_benchmark("rnn")
    space = ConfigSpace.from_benchmark(rnn)
    assert fabulinus_n_init(space) == 9  # ceil(0.03 x 288 = 8.64)
    pairs = subsampled_configs(space, 3, np.random.default_rng(5))
    configs = [c for c, _ in random_configs(space, 3, np.random.default_rng(5))]
    assert pairs == [(c, s) for c in configs for s in (1000, 6000, 15000, 30000)]
    fabulinus = make_optimizer("fabulinus", rnn, seed=4, max_cost=0.02)
    eic = make_optimizer("eic", rnn, seed=4, max_cost=0.02, init_design="random", n_init=9)
    assert len(fabulinus.initial_pairs) == 36 and not fabulinus.init_is_snapshot
    assert sorted({c for c, _ in fabulinus.initial_pairs}) == sorted(c for c, _ in eic.initial_pairs)
    assert fabulinus.feasibility_threshold == 0.99 and fabulinus.constraint_factor == "cea"
    assert fabulinus.pool.n_untested == 288 * 4 and fabulinus.pool.untested()[1].max() == 30000  # no full size


def _runs():
    """Two seeds, methods fabulinus and eic; cumulative cost / time / wall at the end of each run."""
    rows = []
    ends = {("fabulinus", 1): (1.0, 200.0, 300.0), ("fabulinus", 2): (3.0, 200.0, 500.0),
            ("eic", 1): (4.0, 100.0, 100.0), ("eic", 2): (6.0, 300.0, 300.0)}
    init = {("fabulinus", 1): [0.4, 0.5], ("fabulinus", 2): [0.5, 0.6], ("eic", 1): [1.0], ("eic", 2): [1.5]}
    for (opt, seed), (c, t, w) in ends.items():
        charged = init[(opt, seed)]
        for i, ch in enumerate(charged, 1):
            rows.append({"benchmark": "rnn", "optimizer": opt, "seed": seed, "iteration": i, "phase": "init",
                         "charged_cost": ch, "charged_time": 1.0, "cumulative_cost": sum(charged[:i]),
                         "cumulative_time": 1.0, "cumulative_wall": 1.0, "overhead_s": 0.0,
                         "incumbent_cost": 0.01, "incumbent_accuracy": 0.9})
        n = len(charged) + 1
        rows.append({"benchmark": "rnn", "optimizer": opt, "seed": seed, "iteration": n, "phase": "bo",
                     "charged_cost": c - sum(charged), "charged_time": 1.0, "cumulative_cost": c,
                     "cumulative_time": t, "cumulative_wall": w, "overhead_s": w - t,
                     "incumbent_cost": 0.03 if (opt, seed) == ("eic", 2) else 0.01,
                     "incumbent_accuracy": 0.8 if seed == 1 else 0.9})
    return pd.DataFrame(rows)


def test_cost_reduction_by_hand():
    red = fab.cost_reduction(_runs(), baselines=("eic",)).iloc[0]
    # mean totals 2.0 vs 5.0 -> 100 (1 - 2/5) = 60%, ratio 2.5; per seed 75% and 50% -> median 62.5%
    assert red["reduction_pct"] == pytest.approx(60.0) and red["ratio"] == pytest.approx(2.5)
    assert red["paired_median_pct"] == pytest.approx(62.5)
    ini = fab.initial_cost_reduction(_runs(), baselines=("eic",)).iloc[0]
    # initial sampling: (0.9 + 1.1) / 2 = 1.0 vs (1.0 + 1.5) / 2 = 1.25 -> 20%
    assert ini["reduction_pct"] == pytest.approx(20.0)
    assert fab.initial_phase(_runs()).set_index("optimizer").loc["fabulinus", "tests"] == 2


def test_time_ratio_overhead_and_compliance_by_hand():
    t = fab.time_ratio(_runs(), baselines=("eic",)).iloc[0]
    assert t["wall_ratio"] == pytest.approx(400 / 200) and t["time_ratio"] == pytest.approx(200 / 200)
    ov = fab.overhead_profile(_runs()).set_index("optimizer")
    assert ov.loc["fabulinus", "first_bo_s"] == pytest.approx(200.0)  # median of 100 and 300
    assert ov.loc["fabulinus", "overhead_share"] == pytest.approx((100 / 300 + 300 / 500) / 2)
    c = fab.constraint_compliance(_runs(), {"rnn": 0.02}).set_index("optimizer")
    assert c.loc["eic", "feasible_share"] == 0.5 and c.loc["fabulinus", "feasible_share"] == 1.0
    assert c.loc["fabulinus", "good_share"] == 0.5  # seed 1's incumbent has accuracy 0.8 < 0.85


def test_expected_initial_cost_ratio_by_hand():
    sizes = [1000, 6000, 15000, 30000, 60000]
    costs = {0: [1, 2, 3, 4, 10], 1: [1, 1, 1, 1, 10]}
    rows = [{"x": x, "size": s, "accuracy": 0.5, "cost": c} for x, cs in costs.items() for s, c in zip(sizes, cs)]
    r = fab.expected_initial_cost_ratio(benchmark_from_table(pd.DataFrame(rows), ["x"]))
    assert r["in_full"] == pytest.approx(7 / 10) and r["snapshot"] == pytest.approx(2.5 / 10)


def test_cost_ceiling_by_hand():
    # full-size costs 1, 5, 3, 2 with accuracies 0.9, 0.1, 0.8, 0.7: the two costliest sum to 5 + 3 = 8,
    # the two most accurate to 1 + 3 = 4; sub-sampled rows do not count
    sizes = [1000, 60000]
    full = {0: (1.0, 0.9), 1: (5.0, 0.1), 2: (3.0, 0.8), 3: (2.0, 0.7)}
    rows = [{"x": x, "size": s, "accuracy": a, "cost": c if s == 60000 else 100.0}
            for x, (c, a) in full.items() for s in sizes]
    ceil = fab.cost_ceiling(benchmark_from_table(pd.DataFrame(rows), ["x"]), 2)
    assert ceil == {"tests": 2, "costliest": 8.0, "most_accurate": 4.0, "grid": 11.0}


def test_a_reduction_beyond_the_cost_ceiling_names_the_measurements_as_cause():
    from tt_workbook.studies.fabulinus import rows as freport

    # Fabulinus $5 per run, EI $20; a thesis reduction of 90% needs EI to spend 5 / 0.1 = $50, more than the
    # ceiling of $40 (at most 1 - 5/40 = 87.5%); 70% would need $16.7, which the ceiling allows
    red = pd.DataFrame([{"benchmark": "cnn", "method": "fabulinus", "baseline": "ei", "cost_method": 5.0,
                         "cost_baseline": 20.0, "reduction_pct": 75.0, "ratio": 4.0, "paired_median_pct": 75.0}])
    ceil = {"tests": 100, "costliest": 40.0, "most_accurate": 30.0, "grid": 60.0}
    cause = freport._ceiling_cause(red, ceil, "cnn", "ei", 90.0)
    assert "$50.00" in cause and "($40.00: at most 87.5%)" in cause and "$20.00" in cause
    assert freport._ceiling_cause(red, ceil, "cnn", "ei", 70.0) == ""
    assert freport._ceiling_cause(red, None, "cnn", "ei", 90.0) == ""


def _runs_seeds(n_fab: int, n_eic: int):
    """``_runs``' two seeds repeated: seeds 1..n of each method alternate seed 1's and seed 2's trajectories, so
    every mean is the same as with two seeds when n is even (and the rows' values do not depend on n otherwise)."""
    base = _runs()
    frames = []
    for opt, n in (("fabulinus", n_fab), ("eic", n_eic)):
        for s in range(1, n + 1):
            frames.append(base[(base["optimizer"] == opt) & (base["seed"] == 2 - s % 2)].assign(seed=s))
    return pd.concat(frames, ignore_index=True)


def test_rows_from_fewer_than_five_runs_per_method_are_no_verdict():
    from tt_workbook.studies.fabulinus import rows as freport
    from tt_workbook import paper_values as pv
    from tt_workbook.report.summary import comparison, runs_by_arm

    def rows(n_fab, n_eic):
        runs = _runs_seeds(n_fab, n_eic)
        counts = runs_by_arm(runs, ["benchmark", "optimizer"])
        red = fab.cost_reduction(runs, baselines=("eic",))
        out = freport.cost_rows(red, fab.initial_cost_reduction(runs, baselines=("eic",)), {},
                                pv.SECTION_7_2["iterations"], networks=("rnn",), runs=counts)
        out += freport.time_rows(fab.time_ratio(runs, baselines=("eic",)), fab.overhead_profile(runs),
                                 pv.SECTION_7_2["iterations"], networks=("rnn",), runs=counts)
        out += freport.statement_rows(fab.constraint_compliance(runs, {"rnn": 0.02}), fab.time_ratio(runs, baselines=("eic",)),
                                      fab.initial_phase(runs), runs=counts)
        return comparison(out).set_index("item")

    four, six = rows(4, 4), rows(6, 6)
    item = "RNN: optimisation cost reduction of Fabulinus vs BO with EIc (%)"
    # mean totals (1 + 3) / 2 = 2 vs (4 + 6) / 2 = 5 with any even number of seeds: 60% in both
    assert four.loc[item, "workbook"] == six.loc[item, "workbook"] == pytest.approx(60.0)
    assert four.loc[item, "status"] == "too few runs" and four.loc[item, "cause"].startswith("4 runs per arm")
    assert six.loc[item, "status"] in ("agrees", "differs")
    # the initial-sampling reduction (20%), "EIc always recommends ..." and "sub-sampling
    # gives more initial tests ..." are read from the runs: too few with four seeds a method, verdicts with six
    read = [i for i in four.index if four.loc[i, "workbook"] is not None and pd.notna(four.loc[i, "workbook"])
            and pd.notna(four.loc[i, "paper"])]
    runs_rows = [i for i in read if "overhead at the" not in i and "total time" not in i]
    # the total-time ratio and the overhead rest on seconds measured here: timing rows, whatever the runs
    timed = [i for i in read if "overhead at the" in i or "total time" in i]
    assert timed and (four.loc[timed, "status"] == "timing").all() and (six.loc[timed, "status"] == "timing").all()
    assert "RNN: initial-sampling cost reduction of Fabulinus vs BO without sub-sampling (%)" in runs_rows
    assert "RNN: BO with EIc always recommends a high-accuracy (> 85%) configuration within the limit" in runs_rows
    assert (four.loc[runs_rows, "status"] == "too few runs").all()
    assert six.loc[runs_rows, "status"].isin(["agrees", "differs"]).all()
    assert four.loc[runs_rows, "agrees"].tolist() == six.loc[runs_rows, "agrees"].tolist()
    # the fewer method decides: six Fabulinus runs against four of EIc are too few for a comparison of the two
    mixed = rows(6, 4)
    assert mixed.loc[item, "status"] == "too few runs"
    # a row of FABOLAS, not run here, stays not comparable whatever the counts
    fabolas = "RNN: optimisation cost reduction of Fabulinus vs Fabolas (%)"
    assert four.loc[fabolas, "status"] == "not comparable"
