"""Accuracy_C (TrimTuner Eq. 7), its thesis variant (Eq. 7.1), CNO (Eq. 6.1), replay objective."""

import numpy as np
import pandas as pd
import pytest

from tt_core.data.benchmarks import load_benchmark
from tt_core.replay.metrics import accuracy_c, accuracy_c_thesis, cno
from tt_core.data.objectives import CallableObjective, ReplayObjective


def test_accuracy_c_known_values():
    acc = np.array([0.9, 0.9, 0.8, np.nan])
    cost = np.array([0.05, 0.10, 0.20, np.nan])
    np.testing.assert_allclose(accuracy_c(acc, cost, 0.10), [0.9, 0.9, 0.4, np.nan])
    np.testing.assert_allclose(accuracy_c_thesis(acc, cost, 0.10), [0.9, 0.9, 0.0, np.nan])
    assert accuracy_c(0.5, 1.0, 0.5) == pytest.approx(0.25)


def test_accuracy_c_never_exceeds_accuracy_and_is_monotone_in_violation():
    rng = np.random.default_rng(0)
    acc, cost = rng.uniform(0, 1, 1000), rng.uniform(0.001, 1, 1000)
    ac = accuracy_c(acc, cost, 0.1)
    assert np.all(ac <= acc + 1e-15)
    worse = accuracy_c(acc, cost * 2, 0.1)
    assert np.all(worse <= ac + 1e-15)


@pytest.mark.parametrize("bad", [0, -1, None, np.nan])
def test_metrics_reject_bad_limits(bad):
    with pytest.raises(ValueError, match="max_cost must be a positive number"):
        accuracy_c(0.5, 0.1, bad)
    with pytest.raises(ValueError, match="optimum_cost must be > 0"):
        cno(1.0, 0 if bad is None else bad)


def test_cno_is_one_at_the_optimum():
    np.testing.assert_allclose(cno([2.0, 4.0], 2.0), [1.0, 2.0])


def test_replay_objective_answers_from_the_table():
    b = load_benchmark("rnn")
    obj = ReplayObjective(b)
    row = b.table.iloc[123]
    m = obj(row.config_id, row["size"])
    assert (m.accuracy, m.cost, m.time) == (row.accuracy, row.cost, row.training_time)
    full = obj.full_size(row.config_id)
    ref = b.lookup(row.config_id, 60000)
    assert full.accuracy == ref.accuracy
    with pytest.raises(ValueError, match=r"no measurement of configuration 5 at size 7; sizes: \[1000"):
        obj(5, 7)


def test_callable_objective_checks_its_output():
    configs = pd.DataFrame({"config_id": [0, 1], "lr": [0.1, 0.01]})
    obj = CallableObjective(lambda c, s: {"accuracy": c["lr"] * 5, "cost": s * 1e-3}, configs)
    m = obj(0, 100)
    assert m.accuracy == 0.5 and m.cost == 0.1 and np.isnan(m.time)
    with pytest.raises(ValueError, match="must be a fraction in"):
        CallableObjective(lambda c, s: {"accuracy": 42}, configs)(1, 100)
    with pytest.raises(ValueError, match="must return a dict"):
        CallableObjective(lambda c, s: 0.3, configs)(1, 100)
