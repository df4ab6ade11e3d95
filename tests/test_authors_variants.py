"""The "as in the authors' code" variants: the tested-configuration incumbent rule, the charging of the
initial design, and scoring the initial design as the paper's Fig. 1 does."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from tt_workbook.studies.fig1_fig2.scoring import score_initial_design
from tt_workbook.studies.fig1_fig2.trajectories import time_to_target
from tt_core.bo.constraints import Constraint
from tt_core.bo.incumbent import find_tested_incumbent
from tt_core.replay.driver import run_optimization


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


# ------------------------------------------------------------------ the authors' trees: the oracle, not a reconstruction
def test_the_tree_reconstruction_is_dropped_for_the_oracle(rnn):
    """``trees="authors"`` (a reconstruction of their tree model) is gone: no variant of the study uses it, and
    asking for it names the oracle instead."""
    from tt_workbook.studies.fig1_fig2.variants import VARIANTS
    from tt_core.optimizers.registry import make_optimizer

    assert not any(dict(opts).get("trees") for opts, _ in VARIANTS.values())
    with pytest.raises(ValueError, match="was dropped; run the authors' code itself: tt authors run"):
        make_optimizer("trimtuner-dt", rnn, seed=1, trees="authors")


def test_variant_effects_score_an_authors_run_from_its_own_record(rnn):
    """The oracle's row of the variants table: an ``authors-dt`` trajectory (the reference run RNN seed 1,
    empirical residue, read back through :func:`tt_workbook.authors.oracle.trajectory`) scored by
    :func:`variant_effects`; the size mix, cost per BO test and total cost are recomputed here from the
    reference file's own tests, independently of the trajectory code."""
    import json

    from tt_workbook.studies.fig1_fig2.variants import variant_effects
    from tt_workbook.authors import oracle as A

    ref = A.reference_dir()
    if ref is None:
        pytest.skip("reference runs ../shared/data/authors_code_runs/ not found")
    raw = json.loads((ref / "out_rnn_s1_cea10_empirical0_44.json").read_text())
    result = {"benchmark": "rnn", "incumbents": raw["incumbents"],
              "tests": [{"x": t["x"], "size": t["size"], "accuracy": t["acc"], "cost": t["cost"]} for t in raw["tests"]]}
    traj = A.trajectory(result).assign(seed=1, benchmark="rnn", optimizer="authors-dt")
    eff = variant_effects({"authors' public code": traj}, {"rnn": rnn}).iloc[0]
    bo = raw["tests"][4:]
    assert eff["runs"] == 1 and len(bo) == 40
    assert eff["mean_size_fraction"] == pytest.approx(sum(t["size"] for t in bo) / 60000 / 40, rel=1e-12)
    assert eff["cost_per_bo_test"] == pytest.approx(sum(t["cost"] for t in bo) / 40, rel=1e-12)
    # the authors' code charges every test, the initial ones included, in full
    assert eff["mean_total_cost"] == pytest.approx(sum(t["cost"] for t in raw["tests"]), rel=1e-12)


def test_trees_option_is_for_the_tree_optimiser_only(rnn):
    from tt_core.optimizers.registry import make_optimizer

    with pytest.raises(ValueError, match="has no option trees"):
        make_optimizer("trimtuner-gp", rnn, seed=1, trees="overhead")
    with pytest.raises(ValueError, match=r"unknown trees 'ours'; known: \['workbook', 'overhead'\]"):
        make_optimizer("trimtuner-dt", rnn, seed=1, trees="ours")
