"""The Optuna sampler (issue 37, item 4), with the real ``optuna`` package and an SQLite storage.

The second path to each answer is the library's own loop (:func:`tt_core.replay.driver.run_optimization`)
with the same seed on the same measurements: the sampler must propose the same tests, although its
optimiser hears every result back through Optuna's trial storage (the trial's value and user attributes).
"""

from __future__ import annotations

import itertools
import sys

import numpy as np
import optuna
import pandas as pd
import pytest

from tt_core.data.benchmarks import benchmark_from_table
from tt_core.replay.driver import run_optimization
from tt_core.integrations.optuna import MISSING, TrimTunerSampler, require_optuna

optuna.logging.set_verbosity(optuna.logging.WARNING)
LIMIT = 0.004  # USD per full-size run: depth 1 and 2 are affordable at 1600 examples, 3 and 4 are not


@pytest.fixture(scope="module")
def bench():
    """12 configurations (depth x learning rate) x 3 sizes, measured by a formula with seeded noise."""
    rng = np.random.default_rng(0)
    rows = []
    for d, lr, size in itertools.product([1, 2, 3, 4], [0.1, 0.01, 0.001], [100, 400, 1600]):
        rows.append({"depth": d, "lr": lr, "size": size,
                     "accuracy": round(0.5 + 0.1 * d * np.log10(size) / 4 - abs(np.log10(lr) + 2) / 10, 4),
                     "time": round(size * d / 1000 * (1 + 0.1 * rng.random()), 5),
                     "cost": round(size * d / 1e6 * (1 + 0.1 * rng.random()), 9)})
    return benchmark_from_table(pd.DataFrame(rows), ["depth", "lr"])


def _job(bench):
    rows = {(r.depth, r.lr, r.size): r for r in bench.table.itertuples()}

    def job(config, size):
        r = rows[(config["depth"], config["lr"], size)]
        return {"accuracy": r.accuracy, "cost": r.cost, "time": r.training_time}
    return job


def _study(tmp_path, sampler, name="s"):
    return optuna.create_study(direction="maximize", sampler=sampler, study_name=name,
                               storage=f"sqlite:///{tmp_path / 'optuna.db'}")


@pytest.mark.parametrize("optimizer", ["trimtuner-dt", "eic", "random"])
def test_the_sampler_proposes_what_the_library_loop_proposes(bench, tmp_path, optimizer):
    n = 10
    lib = run_optimization(bench, optimizer, seed=1, iterations=n, max_cost=LIMIT)
    sampler = TrimTunerSampler(bench.configs(), bench.sizes, optimizer, seed=1, max_cost=LIMIT)
    _study(tmp_path, sampler).optimize(sampler.objective(_job(bench)), n_trials=n)
    trials = optuna.load_study(study_name="s", storage=f"sqlite:///{tmp_path / 'optuna.db'}").trials  # from disk
    pairs = [(t.user_attrs["config_id"], t.params["size"]) for t in trials]
    assert pairs == list(zip(lib["config_id"], lib["size"]))
    assert sampler.incumbent().config_id == lib["incumbent"].iloc[-1]
    table = bench.table.set_index(["config_id", "size"])
    for t, (cid, size) in zip(trials, pairs):
        row = table.loc[(cid, size)]
        assert t.value == row["accuracy"] and t.user_attrs["cost"] == row["cost"]
        assert t.user_attrs["time"] == row["training_time"] and t.user_attrs["size"] == size
        assert t.user_attrs["fidelity"] == size / 1600
        # Optuna's convention: a constraint value <= 0 is met; here cost - limit, feasible iff cost <= limit
        assert t.user_attrs["constraints"] == [pytest.approx(row["cost"] - LIMIT, abs=1e-15)]
        assert t.user_attrs["feasible"] == (row["cost"] <= LIMIT)


def test_the_recommendation_is_a_study_attribute_and_meets_the_limit(bench, tmp_path):
    sampler = TrimTunerSampler(bench.configs(), bench.sizes, "random", seed=3, max_cost=LIMIT)
    study = _study(tmp_path, sampler)
    study.optimize(sampler.objective(_job(bench)), n_trials=12)  # every configuration at full size
    full = bench.full_size()
    best = full[full["cost"] <= LIMIT].sort_values("accuracy").iloc[-1]  # by hand: best affordable
    rec = study.user_attrs["recommendation"]
    assert rec["config_id"] == best["config_id"] and rec["size"] == 1600 and rec["depth"] == best["depth"]
    # study.best_trial ignores the limit: it is a depth-4 configuration that breaks it
    assert study.best_trial.user_attrs["feasible"] is False and study.best_trial.value > best["accuracy"]


def test_a_budget_stops_the_study(bench, tmp_path):
    lib = run_optimization(bench, "random", seed=1, iterations=12, max_cost=LIMIT)
    budget = float(lib["cost"].iloc[:3].sum()) - 1e-9  # crossed by the third test
    sampler = TrimTunerSampler(bench.configs(), bench.sizes, "random", seed=1, max_cost=LIMIT, budget=budget)
    study = _study(tmp_path, sampler)
    study.optimize(sampler.objective(_job(bench)), n_trials=10)
    assert len(study.trials) == 3


def test_a_reopened_study_resumes_from_its_storage(bench, tmp_path):
    first = TrimTunerSampler(bench.configs(), bench.sizes, "trimtuner-dt", seed=1, max_cost=LIMIT)
    _study(tmp_path, first).optimize(first.objective(_job(bench)), n_trials=5)
    again = TrimTunerSampler(bench.configs(), bench.sizes, "trimtuner-dt", seed=1, max_cost=LIMIT)
    study = optuna.load_study(study_name="s", storage=f"sqlite:///{tmp_path / 'optuna.db'}", sampler=again)
    study.optimize(again.objective(_job(bench)), n_trials=3)
    pairs = [(t.user_attrs["config_id"], t.params["size"]) for t in study.trials]
    # the new sampler's optimiser was told the 5 stored trials: no test is repeated (its initial design
    # would start again at the first pair otherwise)
    assert len(pairs) == 8 and len(set(pairs)) == 8 and again.optimizer.n_observations == 8


def test_none_and_text_values_of_a_search_space(tmp_path):
    space = {"max_depth": [2, 4, None], "criterion": ["gini", "entropy"]}
    gain = {2: 0.0, 4: 0.04, None: 0.07}

    def job(config, size):
        assert config["max_depth"] is None or type(config["max_depth"]) is int
        acc = 0.8 + gain[config["max_depth"]] + (0.01 if config["criterion"] == "gini" else 0) - 5 / size
        return {"accuracy": acc, "time": size / 1000}

    sampler = TrimTunerSampler(space, [100, 1000], "random", seed=2, max_time=2.0)
    study = _study(tmp_path, sampler)
    study.optimize(sampler.objective(job), n_trials=6)
    assert {t.params["max_depth"] for t in study.trials} == {2, 4, None}
    # by hand: every configuration fits 1 s < 2 s; the best is max_depth=None with gini: 0.8 + 0.07 + 0.01 - 0.005
    rec = sampler.recommendation()
    assert (rec["max_depth"], rec["criterion"]) == (None, "gini")
    assert max(t.value for t in study.trials) == pytest.approx(0.875)


def test_clear_errors(bench, tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="'nephele' minimises the cost"):
        TrimTunerSampler(bench.configs(), bench.sizes, "nephele", seed=1)
    sampler = TrimTunerSampler(bench.configs(), bench.sizes, "random", seed=1, max_cost=LIMIT)
    study = optuna.create_study(direction="minimize", sampler=sampler)
    with pytest.raises(ValueError, match="direction='maximize'"):
        study.optimize(sampler.objective(_job(bench)), n_trials=1)
    sampler = TrimTunerSampler(bench.configs(), bench.sizes, "random", seed=1, max_cost=LIMIT)
    study = optuna.create_study(direction="maximize", sampler=sampler)
    with pytest.raises(ValueError, match="parameter 'width' is neither a configuration column"):
        study.optimize(lambda trial: trial.suggest_int("width", 1, 4) / 10, n_trials=1)
    monkeypatch.setitem(sys.modules, "optuna", None)  # as if it were not installed
    with pytest.raises(ImportError) as exc:
        require_optuna()
    assert str(exc.value) == MISSING and "pip install 'tt-core[optuna]'" in MISSING
