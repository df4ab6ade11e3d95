"""The explorer controller (notebook 10): step, run, change constraint, reset, and its views.

The controller is driven exactly as the widget drives it; stored runs are looked up in a temporary
folder so that results do not depend on what ``runs/`` holds.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from tt_core.data.benchmarks import load_benchmark  # noqa: E402
from tt_core.apps.explorer import TRAJECTORY_COLUMNS, ExplorerController, build_widget  # noqa: E402
from tt_core.optimizers import available  # noqa: E402


@pytest.fixture(scope="module")
def rnn():
    return load_benchmark("rnn")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def make(rnn, tmp_path, optimizer="trimtuner-dt", **kw):
    kw.setdefault("seed", 1)
    return ExplorerController(rnn, optimizer, runs_dir=tmp_path, **kw)


def pairs_of(ctl):
    return list(zip(ctl.trajectory["config_id"], ctl.trajectory["size"]))


# ------------------------------------------------------------------------------------------- step/run
def test_step_updates_history_pool_and_incumbent(rnn, tmp_path):
    ctl = make(rnn, tmp_path)
    st = ctl.state()
    assert st["iteration"] == 0 and st["incumbent"] is None and not st["done"]
    assert st["n_candidates"] == st["n_untested"] == 1440  # 288 configurations x 5 sizes
    assert st["max_cost"] == pytest.approx(0.02)  # the paper's RNN limit by default

    untested = [st["n_untested"]]
    for i in range(1, 4):
        row = ctl.step()
        st = ctl.state()
        assert row["iteration"] == i == st["iteration"] == len(ctl.history) == len(ctl.trajectory)
        untested.append(st["n_untested"])
        assert st["incumbent"] is not None
    assert untested == [1440, 1439, 1438, 1437]  # the pool shrinks by one per test
    traj = ctl.trajectory
    assert list(traj.columns) == TRAJECTORY_COLUMNS
    assert (traj["phase"] == "init").all()
    assert traj["cumulative_cost"].is_monotonic_increasing
    # the incumbent is scored with its true full-size measurement
    inc = st["incumbent"]
    full = rnn.full_size().set_index("config_id").loc[inc]
    assert st["incumbent_accuracy"] == pytest.approx(full["accuracy"])
    assert st["incumbent_cost"] == pytest.approx(full["cost"])
    assert np.isfinite(st["predicted_accuracy"])  # models exist from the second observation on
    assert set(st["incumbent_config"]) == set(rnn.config_columns)


def test_run_uses_the_budget_then_stops(rnn, tmp_path):
    ctl = make(rnn, tmp_path, "random", iterations=7)
    seen = []
    traj = ctl.run(3, callback=seen.append)
    assert len(traj) == 3 and len(seen) == 3
    traj = ctl.run()
    assert len(traj) == 7 and ctl.done and ctl.state()["done"]
    assert ctl.step() is None  # finished: nothing more to do
    assert len(ctl.trajectory) == 7
    assert ctl.state()["n_untested"] == 288 - 7  # random search tests full-size configurations only
    assert len(set(pairs_of(ctl))) == 7  # never the same test twice


def test_reset_restores_and_same_seed_same_sequence(rnn, tmp_path):
    # with the random filter the next test depends on the optimiser's random state, which computing the
    # acquisition also draws from: inspecting must restore it, or the run would change
    a = make(rnn, tmp_path, "trimtuner-dt", seed=3, filter="random")
    a.run(4)  # the initial design
    a.top_candidates(5)
    a.step()  # the first BO iteration
    first = pairs_of(a)

    a.reset()
    st = a.state()
    assert st["iteration"] == 0 and st["n_untested"] == 1440 and st["incumbent"] is None
    assert a.trajectory.empty and a.history.empty
    a.run(5)
    assert pairs_of(a) == first  # same settings and seed, same tests (inspected or not)

    a.reset(seed=4)
    assert a.settings["seed"] == 4
    a.run(4)
    assert pairs_of(a) != first[:4]


# ------------------------------------------------------------------------------------------- constraints
def test_set_constraint_restarts_or_replays(rnn, tmp_path):
    ctl = make(rnn, tmp_path, "random")
    ctl.run(5)
    before = pairs_of(ctl)
    acc_c_before = ctl.trajectory["accuracy_c"].to_numpy()

    ctl.set_constraint(max_cost=0.005, keep_history=True)  # same tests, new limit
    assert ctl.settings["max_cost"] == 0.005
    assert [c.upper for c in ctl.optimizer.constraints] == [0.005]
    assert pairs_of(ctl) == before
    assert ctl.state()["n_untested"] == 288 - 5
    inc_cost = ctl.trajectory["incumbent_cost"].to_numpy()
    expected = np.where(inc_cost <= 0.005, ctl.trajectory["incumbent_accuracy"],
                        ctl.trajectory["incumbent_accuracy"] * 0.005 / inc_cost)
    np.testing.assert_allclose(ctl.trajectory["accuracy_c"], expected)  # Eq. 7 under the new limit
    assert not np.allclose(ctl.trajectory["accuracy_c"], acc_c_before)

    ctl.set_constraint(max_cost=0.01)  # default: a new run
    assert ctl.state()["iteration"] == 0 and ctl.settings["max_cost"] == 0.01
    ctl.set_constraint(max_cost=None)  # back to the benchmark's limit
    assert ctl.settings["max_cost"] == pytest.approx(0.02)

    ctl.configure(optimizer="eic")
    ctl.set_constraint(max_time=300.0)
    assert ctl.settings["max_time"] == 300.0
    assert {c.quantity for c in ctl.optimizer.constraints} == {"cost", "time"}
    ctl.run(2)  # initial design; the models are fitted from the second observation on
    assert {"loss", "cost", "time"} <= set(ctl.optimizer.models)
    ctl.set_constraint(max_time=None)  # removes the time limit
    assert ctl.settings["max_time"] is None
    assert {c.quantity for c in ctl.optimizer.constraints} == {"cost"}


def test_configure_changes_benchmark_and_its_default_limit(rnn, tmp_path):
    ctl = make(rnn, tmp_path, "random", max_cost=0.01)
    ctl.configure(benchmark="cnn")
    assert ctl.settings["benchmark"] == "cnn" and ctl.settings["max_cost"] == pytest.approx(0.10)
    ctl.configure(optimizer="eic", beta=0.2, filter="random", seed=5)
    assert ctl.optimizer.filter == "random" and ctl.optimizer.beta == 0.2 and ctl.settings["seed"] == 5


@pytest.mark.parametrize("bad", [-1, 0, float("nan"), float("inf"), "0.1", True])
def test_bad_cost_slider_values_are_refused(rnn, tmp_path, bad):
    ctl = make(rnn, tmp_path, "random")
    ctl.step()
    with pytest.raises(ValueError, match=r"max_cost must be a positive number \(USD\) per training run"):
        ctl.set_constraint(max_cost=bad)
    assert ctl.settings["max_cost"] == pytest.approx(0.02) and ctl.state()["iteration"] == 1  # nothing changed


def test_clear_errors(rnn, tmp_path):
    ctl = make(rnn, tmp_path, "random")
    with pytest.raises(ValueError, match="unknown optimizer 'trimtuner'; known optimizers") as exc:
        ctl.configure(optimizer="trimtuner")
    assert all(name in str(exc.value) for name in available())
    with pytest.raises(ValueError, match="unknown optimizer"):
        ExplorerController(rnn, "nope", seed=1, runs_dir=tmp_path)
    with pytest.raises(ValueError, match="max_time must be a positive number"):
        ctl.set_constraint(max_time=-5)
    with pytest.raises(ValueError, match="needs max_cost and/or max_time"):
        ctl.set_constraint()
    with pytest.raises(ValueError, match="beta must be a fraction in"):
        ctl.configure(beta=0.0)
    with pytest.raises(ValueError, match="beta must be a fraction in"):
        ctl.configure(beta=1.5)
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        ctl.configure(seed=-1)
    with pytest.raises(ValueError, match="unknown filter 'best'; known filters"):
        ctl.configure(filter="best")
    with pytest.raises(ValueError, match="unknown setting"):
        ctl.configure(colour="red")
    with pytest.raises(ValueError, match="neither a registered benchmark"):
        ctl.configure(benchmark="vgg")
    with pytest.raises(ValueError, match="smaller than the initial design"):
        ctl.configure(iterations=2)
    with pytest.raises(ValueError, match="n must be a non-negative integer"):
        ctl.run(-1)
    with pytest.raises(ValueError, match="k must be a positive integer"):
        ctl.top_candidates(0)
    assert ctl.settings["optimizer"] == "random"  # refused settings leave the controller as it was


# ------------------------------------------------------------------------------------------- views
def test_top_candidates_have_cea_and_acquisition(rnn, tmp_path):
    ctl = make(rnn, tmp_path, "trimtuner-dt")
    ctl.run(3)
    top = ctl.top_candidates(5)
    assert len(top) == 5
    assert {"config_id", "size", "cea", "acquisition", "p_feasible", "in_filter", *rnn.config_columns} <= set(top.columns)
    assert top["cea"].is_monotonic_decreasing
    assert top["cea_rank"].tolist() == [1, 2, 3, 4, 5]
    assert top["in_filter"].all()  # CEA keeps 10% of 1437 candidates: the 5 best are kept
    assert np.isfinite(top["acquisition"]).all()
    np.testing.assert_allclose(top["cea"], top["predicted_accuracy"] * top["p_feasible"], rtol=1e-9)
    tested = set(pairs_of(ctl))
    assert not tested & set(zip(top["config_id"], top["size"]))  # only untested candidates

    rnd = make(rnn, tmp_path, "random")
    rnd.step()
    empty = rnd.top_candidates(5)
    assert empty.empty and "no models" in empty.attrs["note"]


def test_figure_and_baseline_sources(rnn, tmp_path):
    from tt_core.experiments.store import RunSpec, run_one

    ctl = make(rnn, tmp_path, "random", iterations=6)
    ctl.run(4)
    curves, note = ctl.baseline_curves()
    assert "no stored runs" in note and set(curves["optimizer"]) == {"random"}  # computed on the spot
    fig = ctl.figure(k=4)
    assert len(fig.axes) >= 4

    run_one(RunSpec("rnn", "random", 1, iterations=6), tmp_path)  # a stored run with these constraints
    fresh = make(rnn, tmp_path, "random", iterations=6)
    curves, note = fresh.baseline_curves()
    assert note.startswith("stored runs") and curves["n_runs"].eq(1).all()


def test_widget_drives_the_controller(rnn, tmp_path):
    ctl = make(rnn, tmp_path, "random", iterations=6)
    ui = build_widget(ctl, k=3)
    c = ui.controls
    assert {"benchmark", "optimizer", "filter", "beta", "seed", "max_cost", "max_time", "use_time", "step", "run",
            "reset"} <= set(c)
    c["step"].click()
    assert ctl.state()["iteration"] == 1 and "test 1/6" in ui.status.value
    c["max_cost"].value = 0.01  # the slider: a new run with the new limit
    assert ctl.settings["max_cost"] == pytest.approx(0.01) and ctl.state()["iteration"] == 0
    c["run"].click()
    assert ctl.done and c["step"].disabled
    c["reset"].click()
    assert ctl.state()["iteration"] == 0 and not c["step"].disabled
    with pytest.raises(ValueError, match="needs an ExplorerController"):
        build_widget(object())
