"""tt_workbook.studies.fig1_fig2.alpha_trace: the per-size trace of TrimTuner's acquisition, on a problem small enough to check by hand.

Toy benchmark: configurations a = 1..4 at sizes 10, 50, 100 (s~ = 0, 0.699, 1). TrimTuner's initial design
is one configuration at the sub-sampled sizes 10 and 50. The acquisition's parts are given, not modelled:

===========  ==============  ==============  ============  ===============  ===========
size         information     predicted cost  alpha_F       constraint       alpha_T
===========  ==============  ==============  ============  ===============  ===========
10 (0.1)     0.2             0.01            20            1.0              20
50 (0.5)     0.5             0.02            25            0.6              15
100 (1)      0.6             0.04            15            1.0              15
===========  ==============  ==============  ============  ===============  ===========

So the 3 untested configurations at size 10 are chosen first (tied: 3, then 2, then 1 left), and then
every untested candidate at sizes 50 and 100 ties at alpha_T = 15 (a tie across two sizes).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tt_core.acquisitions.trimtuner import TrimTunerAcquisition
from tt_workbook.studies.fig1_fig2.alpha_trace import measured_cause, summarise_traces, trace_run, true_cost_ratios
from tt_core.data.benchmarks import benchmark_from_table
from tt_core.acquisitions.per_cost import MedianCost, PerUnitCost
from tt_core.optimizers import parts

GAIN = {10: 0.2, 50: 0.5, 100: 0.6}
COST = {10: 0.01, 50: 0.02, 100: 0.04}
FACTOR = {10: 1.0, 50: 0.6, 100: 1.0}


@pytest.fixture
def toy():
    rows = [(a, size, 0.5 + 0.1 * a * size / 100, 1.0 * size, cost * a)
            for a in (1, 2, 3, 4) for size, cost in ((10, 0.002), (50, 0.006), (100, 0.01))]
    df = pd.DataFrame(rows, columns=["a", "size", "accuracy", "time", "cost"])
    return benchmark_from_table(df, ["a"], name="toy", max_cost=0.10)


def _size_of(X):
    return np.array([{0.0: 10, 1.0: 100}.get(round(v, 6), 50) for v in np.asarray(X, float)[:, -1]])


class KnownGain:
    def __call__(self, X):
        return np.array([GAIN[s] for s in _size_of(X)])


class KnownCost:
    def predict(self, X, return_std=False):
        mu = np.log([COST[s] for s in _size_of(X)])
        return (mu, np.zeros_like(mu)) if return_std else mu




class KnownTrimTuner(TrimTunerAcquisition):
    def constraint_term(self, X, return_incumbents=False):
        return np.array([FACTOR[s] for s in _size_of(X)])


@pytest.fixture
def known_acquisition(monkeypatch):
    def build(opt, **options):  # TrimTuner's acquisition recipe builds the known acquisition
        return KnownTrimTuner(PerUnitCost(KnownGain(), MedianCost(KnownCost())), opt.models, opt.constraints,
                              opt.X_full)

    recipe = parts.ACQUISITIONS["trimtuner"]
    monkeypatch.setitem(parts.ACQUISITIONS, "trimtuner", parts.AcquisitionRecipe(build, recipe.needs_cost, recipe.options))


def test_trace_of_a_known_acquisition(toy, known_acquisition):
    trace, traj = trace_run(toy, seed=3, beta=1.0, iterations=7)
    assert list(traj["phase"]) == ["init"] * 2 + ["bo"] * 5
    chosen = trace[trace["role"] == "chosen"].set_index("iteration")
    assert list(chosen.index) == [3, 4, 5, 6, 7]
    assert list(chosen["size"]) == list(traj["size"].iloc[2:])  # the trace follows the run
    first = chosen.loc[3]
    assert first["size"] == 10 and first["info_gain"] == pytest.approx(0.2)
    assert first["pred_cost"] == pytest.approx(0.01) and first["alpha_f"] == pytest.approx(20.0)
    assert first["constraint_factor"] == 1.0 and first["alpha_t"] == pytest.approx(20.0)
    # 3, 2, 1 untested configurations left at size 10; then 3 at size 50 and 4 at size 100 tie at 15
    assert list(chosen["n_tied"].iloc[:4]) == [3, 2, 1, 7]
    assert list(chosen["tied_sizes"].iloc[:4]) == [1, 1, 1, 2]
    assert chosen.loc[6, "alpha_t"] == pytest.approx(15.0)
    it3 = trace[(trace["iteration"] == 3) & (trace["role"] != "chosen")].set_index("size")
    np.testing.assert_allclose(it3["info_gain"], [0.2, 0.5, 0.6])
    np.testing.assert_allclose(it3["alpha_f"], [20.0, 25.0, 15.0])
    np.testing.assert_allclose(it3["constraint_factor"], [1.0, 0.6, 1.0])
    np.testing.assert_allclose(it3["alpha_t"], [20.0, 15.0, 15.0])
    np.testing.assert_allclose(it3["pred_cost_ratio"], [0.25, 0.5, 1.0])
    assert list(it3["kept_at_size"]) == [3, 3, 4] and list(it3["n_tied"]) == [3, 3, 4]
    # measured cost ratios of the toy: cost = a x (0.002, 0.006, 0.01), so 0.2 and 0.6 of full size
    assert true_cost_ratios(toy) == pytest.approx({10: 0.2, 50: 0.6, 100: 1.0})
    np.testing.assert_allclose(it3["true_cost_ratio"], [0.2, 0.6, 1.0])
    # predicted / measured at size 10: 0.01 / (a x 0.002), geometric mean over a = 1..4
    assert it3.loc[10, "pred_over_true_cost"] == pytest.approx(5.0 / np.prod([1, 2, 3, 4]) ** 0.25)


def test_summary_of_a_known_acquisition(toy, known_acquisition):
    trace, traj = trace_run(toy, seed=3, beta=1.0, iterations=7)
    summary = summarise_traces(trace, traj.assign(seed=3, beta=1.0))
    sizes = summary[summary["s"] != "all"].set_index("s")
    np.testing.assert_allclose(sizes.loc[0.1, "chosen_share"], 3 / 5)
    np.testing.assert_allclose(sizes.loc[0.1, "info_ratio_vs_full"], 0.2 / 0.6)
    np.testing.assert_allclose(sizes.loc[0.5, "info_ratio_vs_full"], 0.5 / 0.6)
    np.testing.assert_allclose(sizes.loc[0.1, "pred_cost_ratio"], 0.25)
    assert sizes["info_zero_share"].eq(0).all()
    total = summary[summary["s"] == "all"].iloc[0]
    chosen = trace[trace["role"] == "chosen"]
    # ties at iterations 3, 4 (size 10), 6 and 7 (sizes 50 and 100, 7 then 6 candidates); iteration 5 is alone
    assert total["tie_share"] == pytest.approx(4 / 5)
    assert total["tie_across_sizes_share"] == pytest.approx(2 / 5)
    assert total["all_zero_share"] == 0 and total["iterations"] == 5
    assert total["mean_size_fraction"] == pytest.approx(chosen["s"].mean())
    text = measured_cause(summary)
    assert "0.33x the full size's" in text and "no filter: 60% of the BO tests at the smallest size" in text


def test_tracing_does_not_change_the_run(toy):
    from tt_core.replay.driver import run_optimization

    plain = run_optimization(toy, "trimtuner-dt", seed=5, beta=1.0, iterations=8)
    trace, traced = trace_run(toy, seed=5, beta=1.0, iterations=8)
    pd.testing.assert_frame_equal(plain.drop(columns=["overhead_s", "cumulative_wall"]),
                                  traced.drop(columns=["overhead_s", "cumulative_wall"]))
    assert (trace["role"] == "chosen").sum() == 6


def test_an_observer_sees_every_choice_and_changes_nothing():
    """The one tracing hook (ModelBasedOptimizer.on_select): each BO step's observed choice is the test the
    run then makes, the kept rows index the candidates, and the trajectory is the one without observers."""
    from tt_core.replay.driver import Replay

    def run(with_observer: bool):
        replay = Replay.from_benchmark("rnn", "trimtuner-dt", seed=3)
        seen = []
        if with_observer:
            replay.optimizer.on_select(lambda step: seen.append(step))
        traj = replay.run(10)
        return traj, seen

    plain, _ = run(False)
    traced, seen = run(True)
    cols = ["config_id", "size", "accuracy", "cost"]
    assert plain[cols].equals(traced[cols])
    bo = traced[traced["phase"] == "bo"]
    assert [s.choice for s in seen] == list(zip(bo["config_id"].astype(int), bo["size"].astype(int)))
    for s in seen:
        assert s.keep.size and s.keep.max() < s.ids.size and len(s.X) == s.ids.size
