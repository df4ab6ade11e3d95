"""The "bring your own job" tutorial's job (notebook 11): a real, seeded scikit-learn training job.

Accuracy is deterministic (seeds, one BLAS thread); time and cost are measured, so the tests check
their relations (cost = price x time, time = wall time / speed), not their values.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tt_workbook.apps.own_job import (DEFAULT_VMS, PAPER_FRACTIONS, DigitsJob, make_space, optimize_job, plot_runs,
                                 price_table)
from tt_core.data.objectives import CallableObjective, Measurement
from tt_core.replay.driver import Replay
from tt_core.optimizers import Recommendation, make_optimizer


@pytest.fixture(scope="module")
def job():
    # 4 VM types x 1 hyper-parameter setting: 4 configurations, 5 sizes; a few epochs keep it fast
    return DigitsJob(hidden_units=(8,), learning_rate_init=(1e-2,), batch_size=(64,), max_iter=5, seed=0)


def test_job_parts(job):
    assert len(job.sizes) == len(PAPER_FRACTIONS) == 5
    assert job.max_size == len(job.y_train) == 1347  # 75% of sklearn's 1797 digits
    assert job.sizes[0] == round(1347 / 60)
    # nested, class-balanced sub-samples: the first 10 training images are one of each digit
    assert sorted(job.y_train[:10]) == list(range(10))
    configs = job.configs()
    assert list(configs.columns) == ["config_id", "vm", "hidden_units", "learning_rate_init", "batch_size"]
    assert configs["config_id"].tolist() == [0, 1, 2, 3] and set(configs["vm"]) == set(DEFAULT_VMS)
    space = job.space()
    assert space.n_configs == 4 and space.sizes == job.sizes
    vm = next(e for e in space.encodings if e.name == "vm")
    assert vm.kind == "categorical" and list(vm.categories) == ["small", "medium", "large", "xlarge"]  # by price


def test_training_is_deterministic_and_cost_is_price_times_time(job):
    cfg = job.configs().set_index("config_id")
    small, xlarge = cfg.loc[0].to_dict(), cfg.loc[3].to_dict()
    a, b = job.train(small, job.sizes[1]), job.train(small, job.sizes[1])
    assert a["accuracy"] == b["accuracy"]  # same seed, same data, one thread: same model
    assert 0.0 <= a["accuracy"] <= 1.0
    c = job.train(xlarge, job.sizes[1])
    assert c["accuracy"] == a["accuracy"]  # the VM changes time and cost, not the model
    prices = price_table().set_index("vm")
    for out, vm in ((a, "small"), (c, "xlarge")):
        assert out["wall_time"] > 0
        assert out["time"] == pytest.approx(out["wall_time"] / prices.loc[vm, "speed"])
        assert out["cost"] == pytest.approx(prices.loc[vm, "price_per_hour"] / 3600 * out["time"])
    # more data, better model (for this configuration)
    assert job.train(small, job.max_size)["accuracy"] > job.train(small, job.sizes[0])["accuracy"]


def test_objective_and_measure(job):
    obj = job.objective()
    assert isinstance(obj, CallableObjective)
    m = obj(1, job.sizes[0])
    assert isinstance(m, Measurement)
    assert m.accuracy == job.train(job.configs().set_index("config_id").loc[1].to_dict(), job.sizes[0])["accuracy"]
    grid = job.measure([0, 2], sizes=job.sizes[:2])
    assert len(grid) == 4 and {"config_id", "vm", "size", "accuracy", "cost", "time", "wall_time"} <= set(grid.columns)


def test_optimize_job_runs_the_ask_tell_loop(job):
    ref = job.measure()  # full-size measurements: recommendations are scored without retraining
    a = optimize_job(job, "random", seed=2, iterations=4, max_cost=1.0, reference=ref)
    b = optimize_job(job, "random", seed=2, iterations=4, max_cost=1.0, reference=ref)
    assert len(a) == 4 and (a["size"] == job.max_size).all()
    assert a["config_id"].tolist() == b["config_id"].tolist()
    assert a["accuracy"].tolist() == b["accuracy"].tolist()  # deterministic accuracy, measured costs
    assert a["cumulative_cost"].is_monotonic_increasing
    assert (a["accuracy_c"] == a["incumbent_accuracy"]).all()  # a $1 limit: every configuration is affordable

    tt = optimize_job(job, "trimtuner-dt", seed=1, iterations=5, max_cost=float(ref["cost"].median()), reference=ref)
    assert tt["phase"].tolist() == ["init"] * 4 + ["bo"]
    assert tt.loc[tt["phase"] == "init", "size"].tolist() == sorted(tt.loc[tt["phase"] == "init", "size"])
    assert (tt["size"] < job.max_size).sum() >= 4  # the initial design uses sub-samples
    assert tt["incumbent"].ge(0).all() and tt["accuracy_c"].notna().all()
    # the initial design is charged as one run snapshotted at each size
    init = tt[tt["phase"] == "init"]
    assert init["charged_cost"].sum() == pytest.approx(init["cost"].max())

    assert (tt["incumbent_size"] == job.max_size).all()  # recommendations are deployed at full size
    assert {"s", "wall_time", "charged_time", "cumulative_time"} <= set(tt.columns)
    np.testing.assert_allclose(tt["s"], tt["size"] / job.max_size)

    timed = optimize_job(job, "random", seed=2, iterations=4, max_time=1e-9, reference=ref)
    assert (timed["accuracy_c"] < timed["incumbent_accuracy"]).all()  # nothing meets a 1 ns limit


def test_optimize_job_scores_by_training_the_recommendation(job, monkeypatch):
    # without a reference, a recommendation not tested at full size is trained once (cached), and the
    # optimisation is not charged for it
    calls = []
    train = job.train

    def counting(config, size):
        calls.append((config["vm"], size))
        return train(config, size)

    monkeypatch.setattr(job, "train", counting)
    tt = optimize_job(job, "trimtuner-dt", seed=1, iterations=5, max_cost=1.0)
    assert len(calls) <= len(tt) + tt["incumbent"].nunique()  # one training per test, one per new incumbent
    init = tt[tt["phase"] == "init"]
    assert tt["cumulative_cost"].iloc[-1] == pytest.approx(init["cost"].max() + tt["charged_cost"].iloc[4:].sum())
    inc = int(tt["incumbent"].iloc[-1])
    expected = train(job.configs().set_index("config_id").loc[inc].to_dict(), job.max_size)["accuracy"]
    assert tt["incumbent_accuracy"].iloc[-1] == expected  # deterministic accuracy


def test_the_recipe_with_the_optimizer_api(job):
    # notebook 11, section 6: make_optimizer on a user's space, a CallableObjective, the ask/tell loop
    objective = job.objective()
    opt = make_optimizer("trimtuner-dt", job.space(), seed=1, max_cost=1.0)
    for _ in range(5):
        config_id, size = opt.suggest()
        m = objective(config_id, size)
        opt.observe(config_id, size, m.accuracy, m.cost, m.time)
    rec = opt.incumbent()
    assert isinstance(rec, Recommendation) and rec.size == job.max_size
    assert 0 <= rec.config_id < len(job.configs())
    assert len(opt.history) == 5
    # the same loop through the replay driver, with any measure/score callables
    opt = make_optimizer("random", job.space(), seed=1, max_cost=1.0)
    run = Replay(opt, objective, objective, {"max_cost": 1.0, "max_time": None, "min_accuracy": None})
    traj = run.run(4)
    assert len(traj) == 4 and (traj["accuracy_c"] == traj["incumbent_accuracy"]).all()


def test_make_space_for_any_job():
    configs = pd.DataFrame({"config_id": [0, 1, 2], "width": [8, 16, 32], "vm": ["a", "b", "a"]})
    space = make_space(configs, [10, 100, 1000])
    assert space.n_configs == 3 and space.sizes == (10, 100, 1000)
    assert space.all_pairs()[0].size == 9
    with pytest.raises(ValueError, match="config_id"):
        make_space(configs.drop(columns="config_id"), [10, 100])


def test_clear_errors(job):
    with pytest.raises(ValueError, match="price_per_hour must be a positive number"):
        price_table({"tiny": {"price_per_hour": -1, "speed": 1}})
    with pytest.raises(ValueError, match="speed must be a positive number"):
        price_table({"tiny": {"price_per_hour": 0.01}})
    with pytest.raises(ValueError, match="unknown VM type 'huge'"):
        job.train({"vm": "huge", "hidden_units": 8, "learning_rate_init": 0.01, "batch_size": 64}, job.max_size)
    with pytest.raises(ValueError, match="is not one of the job's sizes"):
        job.train(job.configs().iloc[0].to_dict(), 123)
    with pytest.raises(ValueError, match="needs a constraint"):
        optimize_job(job, "random", seed=1, iterations=4)
    with pytest.raises(ValueError, match=r"iterations=2 is smaller than the initial design .* use iterations >= 4"):
        optimize_job(job, "trimtuner-dt", seed=1, iterations=2, max_cost=1.0)
    with pytest.raises(ValueError, match="iterations must be an integer"):
        optimize_job(job, "random", seed=1, iterations=None, max_cost=1.0)
    with pytest.raises(ValueError, match="'nephele' minimises the cost"):
        optimize_job(job, "nephele", seed=1, iterations=4, max_cost=1.0)
    with pytest.raises(ValueError, match="'random' has no candidate filter"):
        optimize_job(job, "random", seed=1, iterations=4, max_cost=1.0, beta=0.1)
    with pytest.raises(ValueError, match="unknown optimizer"):
        optimize_job(job, "grid-search", seed=1, iterations=4, max_cost=1.0)
    with pytest.raises(ValueError, match="fractions must be distinct rates"):
        DigitsJob(fractions=(0.1, 0.5))
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        DigitsJob(seed=-1)
    with pytest.raises(ValueError, match="hidden_units must be a non-empty tuple"):
        DigitsJob(hidden_units=())
    assert np.isclose(max(PAPER_FRACTIONS), 1.0)


# ------------------------------------------------------------------------------------ any job (issue 37, item 5)
#: A forest-like job written as a formula: the accuracy grows with depth (None = unlimited, the best) and the
#: size; the cost is 1.4 micro-dollars per 1000 examples x the number of trees / 10.
FOREST = pd.DataFrame({"config_id": range(6), "max_depth": [2, 4, None, 2, 4, None],
                       "n_estimators": [10, 10, 10, 30, 30, 30], "max_samples": [0.5] * 6})
DEPTH_GAIN = {2: 0.0, 4: 0.05, None: 0.08}


def _forest(config, size):
    acc = 0.8 + DEPTH_GAIN[config["max_depth"]] + config["n_estimators"] / 1000 - 10 / size
    return {"accuracy": acc, "cost": 1.4e-6 * size / 1000 * config["n_estimators"] / 10, "time": 0.01}


def test_a_job_receives_plain_values_none_and_integers():
    seen = []
    objective = CallableObjective(lambda c, s: seen.append(c) or {"accuracy": 0.5, "time": 1.0}, FOREST)
    for cid in range(6):
        objective(cid, 100)
    # pandas stores [2, 4, None] as [2.0, 4.0, nan] and a row of numbers as floats; the job gets ints and None
    assert [c["max_depth"] for c in seen] == [2, 4, None, 2, 4, None]
    assert all(type(c["n_estimators"]) is int and type(c["max_samples"]) is float for c in seen)
    assert all(c["max_depth"] is None or type(c["max_depth"]) is int for c in seen)


def test_none_is_an_ordinal_value_after_the_numbers():
    space = make_space(FOREST, [100, 1000])
    # max_depth 2, 4, None -> 0, 1/2, 1 (None = unlimited, after the numbers); n_estimators 10, 30 -> 0, 1
    np.testing.assert_array_equal(space.encoded_configs[:, 0], [0, 0.5, 1, 0, 0.5, 1])
    np.testing.assert_array_equal(space.encoded_configs[:, 1], [0, 0, 0, 1, 1, 1])
    mixed = pd.DataFrame({"config_id": range(3), "max_features": ["sqrt", 0.5, 1.0]})
    assert make_space(mixed, [10]).encodings[0].categories == (0.5, 1.0, "sqrt")


def test_optimize_job_takes_a_function_and_finds_the_best_affordable_configuration():
    sizes = [100, 1000]
    limit = 3e-6  # 10 trees at 1000 examples cost 1.4e-6 USD, 30 trees 4.2e-6: only the 10-tree ones are affordable
    traj = optimize_job(_forest, "random", seed=1, iterations=6, max_cost=limit, configs=FOREST, sizes=sizes)
    assert sorted(traj["config_id"]) == list(range(6)) and (traj["size"] == 1000).all()
    assert traj["config_id"].dtype.kind == "i" and traj["incumbent"].dtype.kind == "i"
    # by hand: the best 10-tree configuration is max_depth=None (id 2): 0.8 + 0.08 + 0.01 - 0.01
    assert traj["incumbent"].iloc[-1] == 2 and traj["accuracy_c"].iloc[-1] == pytest.approx(0.88)
    assert (traj["wall_time"] >= 0).all() and traj["s"].eq(1.0).all()


def test_optimize_job_takes_a_callable_objective_and_subsamples():
    objective = CallableObjective(_forest, FOREST)
    traj = optimize_job(objective, "trimtuner-dt", seed=1, iterations=6, max_cost=3e-6, sizes=[100, 300, 1000])
    assert len(traj) == 6 and (traj["size"] < 1000).any()
    # each test's cost is the formula's, the job having received ints and None
    want = [_forest(objective.config(c), s)["cost"] for c, s in zip(traj["config_id"], traj["size"])]
    np.testing.assert_allclose(traj["cost"], want, rtol=1e-15)
    with pytest.raises(ValueError, match="give sizes="):
        optimize_job(objective, "random", seed=1, iterations=4, max_cost=1.0)
    with pytest.raises(ValueError, match="needs configs="):
        optimize_job(_forest, "random", seed=1, iterations=4, max_cost=1.0, sizes=[10])
    with pytest.raises(ValueError, match="job must be a DigitsJob, a CallableObjective or a function"):
        optimize_job("digits", "random", seed=1, iterations=4, max_cost=1.0)


def test_the_figure_of_any_job_prints_money_with_its_significant_digits():
    import matplotlib.pyplot as plt

    traj = optimize_job(_forest, "random", seed=1, iterations=4, max_cost=3e-6, configs=FOREST, sizes=[100, 1000])
    fig = plot_runs(traj, None, max_cost=3e-6)
    ax1, ax2 = fig.axes[:2]
    spent = traj["cumulative_cost"].iloc[-1]  # four full-size tests: 2 of 10 trees, 2 of 30 = 11.2e-6 USD
    assert spent == pytest.approx(2 * 1.4e-6 + 2 * 4.2e-6)
    labels = [t.get_text() for ax in fig.axes for t in (ax.get_legend().get_texts() if ax.get_legend() else [])]
    labels += [t.get_text() for t in fig.legends[0].get_texts()] if fig.legends else []
    assert any("after $0.0000112" in t for t in labels), labels
    assert any("cost limit $0.000003 " in t for t in labels), labels
    assert not any("$0.0000 " in t or t.endswith("$0.0000") for t in labels)
    assert "[µ$]" in ax1.get_xlabel() and "[µ$]" in ax2.get_xlabel()
    plt.close(fig)
    dollars = traj.assign(cost=traj["cost"] * 1e6, cumulative_cost=traj["cumulative_cost"] * 1e6)
    fig = plot_runs(dollars, None)
    assert "[USD]" in fig.axes[0].get_xlabel()
    plt.close(fig)
