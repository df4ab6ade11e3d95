"""The public record of a model-based step (``ModelBasedOptimizer.on_select``) and the public methods that
replace reaching into an optimiser (``refit``, ``observe(refit=False)``, ``preview_acquisition``,
``last_observation``).

Benchmark ``grid12`` (conftest): configurations a = 1..4 at sizes 10, 50, 100 (12 candidate tests). TrimTuner's initial design
is one configuration at the sub-sampled sizes 10 and 50, so the first BO choice is test 3, made among
12 - 2 = 10 untested candidates; with beta = 0.5 the CEA filter keeps ceil(0.5 n) of the n untested
candidates: 5 of 10, 5 of 9, 4 of 8, 4 of 7, 3 of 6.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from tt_core.data.objectives import ReplayObjective
from tt_core.replay.driver import Replay
from tt_core.optimizers import make_optimizer


def test_each_bo_step_is_recorded_with_its_candidates_filter_and_timings(grid12):
    replay = Replay.from_benchmark(grid12, "trimtuner-dt", seed=2, beta=0.5)
    steps = []
    replay.optimizer.on_select(steps.append)
    traj = replay.run(7)
    assert list(traj["phase"]) == ["init"] * 2 + ["bo"] * 5
    assert [s.iteration for s in steps] == [3, 4, 5, 6, 7]
    assert [len(s.ids) for s in steps] == [10, 9, 8, 7, 6]
    assert [s.keep.size for s in steps] == [5, 5, 4, 4, 3]
    for s in steps:
        row = traj.iloc[s.iteration - 1]
        assert s.choice == (row["config_id"], row["size"])  # the record is the test that was run
        pos = int(np.flatnonzero((s.ids == s.choice[0]) & (s.sizes == s.choice[1]))[0])
        assert pos in set(s.keep)  # the choice is among the kept candidates
        for t in (s.refit_s, s.acquisition_s, s.filter_s, s.argmax_s):
            assert math.isfinite(t) and t >= 0.0


def test_deferred_refit_gives_the_same_run(grid12):
    table = ReplayObjective(grid12)

    def run(defer: bool):
        opt = make_optimizer("trimtuner-dt", grid12, seed=4, beta=0.5, max_cost=grid12.max_cost)
        out = []
        for _ in range(10):
            c, s = opt.suggest()
            m = table(c, s)
            opt.observe(c, s, m.accuracy, m.cost, m.time, refit=not defer)
            if defer:
                assert opt.refit() >= 0.0 and opt.refit_s >= 0.0
            out.append((c, s, opt.incumbent()))
        return out

    assert run(True) == run(False)


def test_preview_leaves_the_run_untouched_and_is_the_step_acquisition(grid12):
    plain = Replay.from_benchmark(grid12, "trimtuner-dt", seed=5, beta=1.0).run(8)
    replay = Replay.from_benchmark(grid12, "trimtuner-dt", seed=5, beta=1.0)
    opt = replay.optimizer
    with pytest.raises(ValueError, match="no model fitted yet"):
        opt.preview_acquisition()
    previews, built = [], []
    # evaluated when the step is made (the models are refitted in place after the test)
    opt.on_select(lambda s: built.append(np.asarray(s.acquisition(s.X), dtype=float)))
    while len(replay.rows) < 8:
        if opt.models:
            ids, sizes = opt.pool.untested()
            X = opt.space.encode(ids, sizes)
            previews.append(np.asarray(opt.preview_acquisition()(X), dtype=float))
        replay.step()
    cols = ["config_id", "size", "incumbent", "accuracy_c"]
    pd.testing.assert_frame_equal(replay.frame()[cols], plain[cols])
    # the acquisition previewed before a step is the one that step built (same models, same representers)
    assert len(built) == len(previews) == 6
    for values, preview in zip(built, previews):
        assert np.allclose(values, preview, rtol=1e-12, atol=0.0)


def test_last_observation_is_the_last_history_row(grid12):
    opt = make_optimizer("random", grid12, seed=1, max_cost=grid12.max_cost)
    assert opt.last_observation is None and opt.n_observations == 0
    c, s = opt.suggest()
    opt.observe(c, s, 0.7, 0.004, 12.0)
    last = opt.last_observation
    assert (last["config_id"], last["size"], last["accuracy"], last["cost"]) == (c, s, 0.7, 0.004)
    assert last == opt.history.iloc[-1].to_dict() and opt.n_observations == 1
    last["accuracy"] = 0.0  # a copy: the history is not changed through it
    assert opt.last_observation["accuracy"] == 0.7
