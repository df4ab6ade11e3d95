"""The explorer controller (notebook 10): step, run, change constraint, reset, and its views.

The controller is driven exactly as the widget drives it; stored runs are looked up in a temporary
folder so that results do not depend on what ``runs/`` holds. Every registered optimiser works in it,
through the one replay driver (``tt_core.replay.driver.Replay``).
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from tt_workbook.apps.explorer import (  # noqa: E402
    COST_TRAJECTORY_COLUMNS,
    TRAJECTORY_COLUMNS,
    ExplorerController,
    build_widget,
)
from tt_core.replay.driver import Replay  # noqa: E402
from tt_core.optimizers import Recommendation, available  # noqa: E402
from tt_core.optimizers.registry import spec  # noqa: E402


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
    # the incumbent is the optimiser's Recommendation, scored with its true full-size measurement
    rec = ctl.optimizer.incumbent()
    assert isinstance(rec, Recommendation) and rec.size == rnn.max_size
    inc = st["incumbent"]
    assert (inc, st["incumbent_size"]) == tuple(rec)
    assert (traj["incumbent_size"] == rnn.max_size).all()
    full = rnn.full_size().set_index("config_id").loc[inc]
    assert st["incumbent_accuracy"] == pytest.approx(full["accuracy"])
    assert st["incumbent_cost"] == pytest.approx(full["cost"])
    assert np.isfinite(st["predicted_accuracy"])  # models exist from the second observation on
    assert set(st["incumbent_config"]) == set(rnn.config_columns)
    assert st["accuracy_c"] == pytest.approx(full["accuracy"] if full["cost"] <= 0.02 else full["accuracy"] * 0.02 / full["cost"])


def test_steps_match_the_replay_driver(rnn, tmp_path):
    # one click = one Replay.step: the same tests, charges, phases and scores as `tt optimize`
    ctl = make(rnn, tmp_path, "trimtuner-dt", seed=2)
    ctl.run(5)  # the initial design and one BO step
    ref = Replay.from_benchmark(rnn, "trimtuner-dt", seed=2).run(5)
    traj = ctl.trajectory
    for col in ("config_id", "size", "phase", "charged_cost", "cumulative_cost", "incumbent", "incumbent_size",
                "incumbent_accuracy", "accuracy_c"):
        assert traj[col].tolist() == ref[col].tolist(), col
    init = traj[traj["phase"] == "init"]
    assert init["charged_cost"].sum() == pytest.approx(init["cost"].max())  # one run, snapshotted at each size


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
    # equal CEA values share a rank (ties: the trees often predict the same for several candidates); the
    # top holds the best, so a candidate's rank is 1 + the number of these with a strictly higher CEA
    assert top["cea_rank"].tolist() == [1 + int((top["cea"] > v * (1 + 1e-12)).sum()) for v in top["cea"]]
    for v, tied in zip(top["cea"], top["cea_tied"]):
        if (top["cea"] == v).sum() > 1:
            assert tied  # a tie inside the top
        elif v > top["cea"].min():
            assert not tied  # above the lowest value shown, a lone value has no equal outside the top either
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
    from tt_workbook.runs.store import RunSpec, run_one

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
    png0 = bytes(ui.plot.value)
    c["step"].click()
    assert ctl.state()["iteration"] == 1 and "test 1/6" in ui.status.value
    assert bytes(ui.plot.value).startswith(b"\x89PNG") and bytes(ui.plot.value) != png0  # the panels were redrawn
    c["max_cost"].value = 0.01  # the slider: a new run with the new limit
    assert ctl.settings["max_cost"] == pytest.approx(0.01) and ctl.state()["iteration"] == 0
    c["run"].click()
    assert ctl.done and c["step"].disabled
    c["reset"].click()
    assert ctl.state()["iteration"] == 0 and not c["step"].disabled
    with pytest.raises(ValueError, match="needs an ExplorerController"):
        build_widget(object())


# ------------------------------------------------------------------------------------------- every optimiser
@pytest.mark.parametrize("name", available())
def test_every_optimizer_steps_in_the_explorer(rnn, tmp_path, name):
    ctl = make(rnn, tmp_path, name, compute_baseline=False)
    by_cost = spec(name).objective == "cost"
    assert ctl.state()["iteration"] == 0 and ctl.status().startswith("test 0")
    for i in range(1, 4):
        row = ctl.step()
        assert row is not None and row["iteration"] == i
        st = ctl.state()
        assert st["iteration"] == i == len(ctl.trajectory) == len(ctl.history)
        assert ctl.status().startswith(f"test {i}")
    assert st["n_untested"] == st["n_candidates"] - 3
    traj = ctl.trajectory
    assert list(traj.columns) == (COST_TRAJECTORY_COLUMNS if by_cost else TRAJECTORY_COLUMNS)
    assert traj["cumulative_cost"].is_monotonic_increasing and (traj["charged_cost"] >= 0).all()
    assert st["metric"] == ("cno" if by_cost else "accuracy_c")
    if by_cost:  # the budget, not `iterations`, is the stop rule; the thesis' limits by default
        assert st["max_tests"] is None and st["budget"] == pytest.approx(2.5) and "budget" in ctl.status()
        assert st["limits"]["min_accuracy"] == 0.85 and st["limits"]["max_time"] == 300.0
        assert st["limits"]["max_cost"] is None and st["beta_used"] is None and st["filter_used"] is None
        assert np.isnan(st["accuracy_c"])
        if st["incumbent"] is not None:
            assert np.isfinite(st["cno"]) and st["cno"] >= 1.0  # CNO: 1 is the optimum
    else:
        assert st["max_tests"] == 44 and ctl.status().startswith("test 3/44")
        assert st["incumbent"] is not None and np.isfinite(st["accuracy_c"])
    if spec(name).family != "model-based":  # (the model-based ones: test_top_candidates_have_cea_and_acquisition)
        top = ctl.top_candidates(3)
        assert top.empty and (name in top.attrs["note"] or "random search" in top.attrs["note"])


def test_beta_and_filter_only_for_model_based_optimizers(rnn, tmp_path):
    with pytest.raises(ValueError, match="'nephele' has no candidate filter; beta applies only to the model-based"):
        make(rnn, tmp_path, "nephele", beta=0.2)
    ctl = make(rnn, tmp_path, "trimtuner-dt", beta=0.2, filter="random")
    ctl.step()
    with pytest.raises(ValueError, match="'nephele' has no candidate filter; filter applies only"):
        ctl.configure(optimizer="nephele", filter="cea")
    with pytest.raises(ValueError, match="'random' has no candidate filter"):
        ctl.configure(optimizer="random", beta=0.5)
    with pytest.raises(ValueError, match="'nephele' cannot honour max_cost"):
        ctl.configure(optimizer="nephele", max_cost=0.01)
    assert ctl.settings["optimizer"] == "trimtuner-dt" and ctl.state()["iteration"] == 1  # refused: unchanged
    # switching drops what the new optimiser cannot use (the widget disables those controls)
    ctl.configure(optimizer="nephele")
    assert ctl.settings["beta"] is None and ctl.settings["filter"] is None and ctl.settings["max_cost"] is None
    assert ctl.step()["iteration"] == 1
    with pytest.raises(ValueError, match="has no candidate filter"):
        ctl.configure(beta=0.3)
    ctl.configure(optimizer="eic")  # back to an accuracy problem: the benchmark's cost limit again
    assert ctl.settings["max_cost"] == pytest.approx(0.02) and ctl.optimizer.beta == 0.1


def test_budgeted_optimizers_stop_when_the_budget_is_spent(rnn, tmp_path):
    from tt_workbook.runs.store import RunSpec, run_one

    ctl = make(rnn, tmp_path, "nephele", iterations=5, budget=1.2, min_accuracy=0.9, max_time=200.0)
    assert ctl.limits == {"max_cost": None, "budget": 1.2, "min_accuracy": 0.9, "max_time": 200.0}
    assert "until the $1.2 budget is spent" in ctl.status()
    traj = ctl.run()
    st = ctl.state()
    assert ctl.done and st["done"] and ctl.step() is None
    assert len(traj) > 5  # `iterations` is not their stop rule
    assert st["spent"] >= 1.2 and traj["budget_left"].iloc[-1] <= 0
    assert traj["cno"].dropna().ge(1.0).all()
    assert set(traj["phase"]) == {"init", "bo"}
    fig = ctl.figure(k=3)
    assert len(fig.axes) >= 4
    curves, note = ctl.baseline_curves()
    assert "cost-minimising random-search run computed now" in note and set(curves["optimizer"]) == {"random"}

    ctl.set_constraint(min_accuracy=0.85, keep_history=True)  # same tests, new bound
    assert len(ctl.trajectory) == len(traj) and ctl.limits["min_accuracy"] == 0.85

    run_one(RunSpec("rnn", "random", 1, iterations=None, objective="cost"), tmp_path)  # thesis defaults
    fresh = make(rnn, tmp_path, "lynceus")
    curves, note = fresh.baseline_curves()
    assert note.startswith("stored runs") and set(curves["optimizer"]) == {"random"}


def test_widget_disables_what_does_not_apply(rnn, tmp_path):
    ctl = make(rnn, tmp_path, "random", iterations=6, compute_baseline=False)
    ui = build_widget(ctl, k=3)
    c = ui.controls
    assert c["beta"].disabled and c["filter"].disabled and not c["max_cost"].disabled
    assert c["min_accuracy"].disabled and c["budget"].disabled
    c["optimizer"].value = "trimtuner-dt"
    assert not c["beta"].disabled and not c["filter"].disabled
    c["beta"].value = 0.2
    assert ctl.optimizer.beta == pytest.approx(0.2)
    c["optimizer"].value = "nephele"  # the stale beta is dropped, not passed to Nephele
    assert ctl.settings["optimizer"] == "nephele" and ctl.settings["beta"] is None
    assert c["beta"].disabled and c["filter"].disabled and c["max_cost"].disabled
    assert not c["min_accuracy"].disabled and not c["budget"].disabled
    assert c["min_accuracy"].value == pytest.approx(0.85) and c["budget"].value == pytest.approx(2.5)
    c["step"].click()
    assert ctl.state()["iteration"] == 1 and "test 1 (until the $2.5 budget is spent)" in ui.status.value
    c["min_accuracy"].value = 0.9  # a new run with the new bound
    assert ctl.limits["min_accuracy"] == pytest.approx(0.9) and ctl.state()["iteration"] == 0
    c["budget"].value = 1.5
    assert ctl.limits["budget"] == pytest.approx(1.5)


def test_limit_grid_known_values():
    from tt_workbook.apps.explorer.widget import limit_grid

    assert limit_grid(0.011, 0.031, keep=[0.02]) == [0.01, 0.0125, 0.015, 0.02, 0.025, 0.03, 0.04]
    assert limit_grid(150, 150) == [150.0]
    assert limit_grid(120, 700, keep=[333.0]) == [100.0, 125.0, 150.0, 200.0, 250.0, 300.0, 333.0, 400.0, 500.0,
                                                  600.0, 800.0]
    with pytest.raises(ValueError, match="0 < lo <= hi"):
        limit_grid(0.0, 1.0)


def test_limit_sliders_hold_the_kernels_limit_exactly(rnn, tmp_path):
    """A continuous slider snapped $0.02 to $0.0200628 in the browser and sent it back as a change; the
    limit sliders offer a list of exact values that includes the paper's limit and the current one."""
    ctl = make(rnn, tmp_path, "random", iterations=6, compute_baseline=False)
    ui = build_widget(ctl, k=3)
    c = ui.controls
    for _ in range(3):
        c["step"].click()
    limit = ctl.limits["max_cost"]
    assert limit == 0.02 and c["max_cost"].value == 0.02 and c["max_cost"].label == "$0.02"
    assert 0.02 in [v for _, v in c["max_cost"].options]
    assert ctl.state()["iteration"] == 3
    options = [v for _, v in c["max_cost"].options]
    nxt = options[options.index(0.02) + 1]  # a person's move to the next value: exactly that limit
    c["max_cost"].value = nxt
    assert ctl.state()["iteration"] == 0 and ctl.limits["max_cost"] == nxt == 0.025
    ctl.set_constraint(max_cost=0.0173)  # set from code, off the grid: it joins the options, shown exactly
    ui.refresh()
    assert c["max_cost"].value == 0.0173 and c["max_cost"].label == "$0.0173"
    # the time slider shows a value while no time bound is set; it is one of its options, exactly
    assert c["max_time"].value in [v for _, v in c["max_time"].options] and ctl.limits["max_time"] is None


def test_run_without_an_event_loop_finishes_and_progress_counts(rnn, tmp_path):
    ctl = make(rnn, tmp_path, "random", iterations=6, compute_baseline=False)
    ui = build_widget(ctl, k=3)
    c = ui.controls
    c["step"].click()
    assert (ui.progress.value, ui.progress.max) == (1, 6)
    c["run"].click()
    assert ctl.done and (ui.progress.value, ui.progress.max) == (6, 6) and c["run"].description == "Run"


def test_run_under_an_event_loop_can_be_stopped(rnn, tmp_path):
    """Under a kernel, Run is a task that yields between tests; Stop ends it after the current test."""
    import asyncio

    ctl = make(rnn, tmp_path, "random", iterations=40, compute_baseline=False)
    ui = build_widget(ctl, k=3)
    c = ui.controls

    async def scenario():
        c["run"].click()
        assert ui.running and c["run"].description == "Stop" and c["step"].disabled
        while ctl.state()["iteration"] < 3:
            await asyncio.sleep(0.01)
        c["run"].click()  # Stop
        while ui.running:
            await asyncio.sleep(0.01)

    asyncio.run(scenario())
    n = ctl.state()["iteration"]
    assert 3 <= n <= 4 and not ctl.done  # stopped after the test in progress
    assert c["run"].description == "Run" and not c["step"].disabled and ui.progress.value == n



def test_widget_messages_handled_on_two_threads_take_turns(rnn, tmp_path, monkeypatch):
    """ipykernel 7 handles a widget message on another thread while the previous one is still being
    handled. Seen in JupyterLab: a second choice made while the first was redrawing was lost. Here the
    first handler is held inside its redraw (while it sets the controls) and a second change arrives
    from another thread: both must be applied."""
    import threading
    import time

    import tt_workbook.apps.explorer.widget as widget_module

    ctl = make(rnn, tmp_path, "random", iterations=6, compute_baseline=False)
    ui = build_widget(ctl, k=3)
    c = ui.controls
    grid = widget_module.limit_grid
    slow = threading.Event()

    def slow_grid(*args, **kwargs):  # called while the controls are being set (the handlers are muted)
        if slow.is_set():
            time.sleep(0.4)
        return grid(*args, **kwargs)

    monkeypatch.setattr(widget_module, "limit_grid", slow_grid)
    slow.set()
    first = threading.Thread(target=lambda: setattr(c["optimizer"], "value", "eic"))
    first.start()
    time.sleep(0.15)
    second = threading.Thread(target=lambda: setattr(c["seed"], "value", 7))
    second.start()
    first.join()
    second.join()
    assert ctl.settings["optimizer"] == "eic" and ctl.settings["seed"] == 7
    assert c["optimizer"].value == "eic" and c["seed"].value == 7


def test_widget_says_what_it_is_doing_and_why_a_run_ended(rnn, tmp_path):
    """While a step computes the widget says 'computing test N…'; Stop says 'stopping after test N…'; a
    setting changed during a Run says that the run was stopped; the notice goes with the next action."""
    ctl = make(rnn, tmp_path, "trimtuner-dt", iterations=8)
    ui = build_widget(ctl, k=3)
    seen = []
    step = ctl.step
    ctl.step = lambda *a, **k: (seen.append(ui.activity.value), step(*a, **k))[1]
    ui.controls["step"].click()
    assert "computing test 1…" in seen[0] and ui.activity.value == ""  # shown during the step, cleared after
    ui._task = object()  # as if a Run were in progress
    ui._on_run()
    assert ui._stop and "stopping after test 2" in ui.activity.value
    ui.controls["seed"].value = 7  # a setting changed during the Run
    ui._task = None
    assert "The run was stopped: changing a setting starts a new run" in ui.status.value
    ui.controls["step"].click()
    assert "The run was stopped" not in ui.status.value and "test 1/8" in ui.status.value


def test_panel_titles_match_the_optimizer(rnn, tmp_path):
    from tt_workbook.apps.explorer.panels import candidates_title

    eic = make(rnn, tmp_path, "eic", iterations=8)
    eic.run(6)
    fig = eic.figure(k=4)
    titles = [ax.get_title() for ax in fig.axes]
    assert "Top 4 by CEA (Eq. 6), for comparison: eic filters with none" in titles
    assert "eic (own: no filter)" in fig._suptitle.get_text()
    rnd = make(rnn, tmp_path, "random", iterations=8)
    rnd.run(5)
    titles = [ax.get_title() for ax in rnd.figure(k=4).axes]
    assert "Incumbent per test: true values (no model predictions)" in titles
    assert candidates_title("random", "random", None, 4) in titles
    ui = build_widget(eic, k=3)
    assert "for comparison: eic filters with none" in ui.table.value


def test_step_disables_the_buttons_drops_clicks_and_says_the_first_step_compiles(rnn, tmp_path, monkeypatch):
    """While a Step computes, Step, Run and Reset are disabled and a click that still reaches the kernel
    (from another thread, as ipykernel 7 delivers it) is dropped: one click, one test. The first step of
    the process that fits models (TrimTuner's second test) says that it compiles the kernels."""
    import threading

    import tt_workbook.apps.explorer.controller as controller_module

    monkeypatch.setitem(controller_module._PROCESS, "models_fitted", False)  # as in a fresh kernel
    monkeypatch.setattr("tt_core.models.jit.AVAILABLE", True)
    ctl = make(rnn, tmp_path, "trimtuner-dt", iterations=8, compute_baseline=False)
    ui = build_widget(ctl, k=3)
    c = ui.controls
    seen = []
    step = ctl.step

    def watched_step():
        seen.append((c["step"].disabled, c["run"].disabled, c["reset"].disabled, ui.activity.value))
        second = threading.Thread(target=c["step"].click)  # a second click while this one computes
        second.start()
        second.join(timeout=5)
        assert not second.is_alive()  # dropped at once, not waiting for its turn
        return step()

    ctl.step = watched_step
    for _ in range(3):
        c["step"].click()
    assert ctl.state()["iteration"] == 3  # three clicks, three tests (the three clicks in between dropped)
    assert [s[:3] for s in seen] == [(True, True, True)] * 3
    note = "the first step compiles the kernels (about 20 s)"
    assert [note in s[3] for s in seen] == [False, True, False]  # test 2 is the first with models
    assert ["computing test %d…" % i in s[3] for i, s in zip((1, 2, 3), seen)] == [True] * 3
    assert (c["step"].disabled, c["run"].disabled, c["reset"].disabled) == (False, False, False)
    assert ui.activity.value == ""
    # random search has no models: no note, whatever the process has done
    monkeypatch.setitem(controller_module._PROCESS, "models_fitted", False)
    rnd = make(rnn, tmp_path, "random", iterations=8, compute_baseline=False)
    assert [rnd.compiles_next for _ in range(3) if rnd.step()] == [False] * 3


def test_run_redraws_the_status_with_the_panels(rnn, tmp_path):
    """During Run the panels are drawn every 5 tests; the status line changes only with them, so the two
    always show the same test: with 12 tests, the status reads test 0, then 5, 10 and 12 (the end)."""
    import asyncio
    import re

    ctl = make(rnn, tmp_path, "random", iterations=12, compute_baseline=False)
    ui = build_widget(ctl, k=3, redraw_every=5)
    drawn = []
    figure = ctl.figure
    ctl.figure = lambda *a, **k: (drawn.append(ctl.state()["iteration"]), figure(*a, **k))[1]
    shown = [int(re.search(r"test (\d+)/12", ui.status.value).group(1))]
    pairs = []

    def on_status(change):
        n = int(re.search(r"test (\d+)/12", change["new"]).group(1))
        if n != shown[-1]:
            shown.append(n)
            pairs.append((n, drawn[-1]))

    ui.status.observe(on_status, names="value")

    async def scenario():
        ui.controls["run"].click()
        while ui.running:
            await asyncio.sleep(0.01)

    asyncio.run(scenario())
    assert ctl.done and shown == [0, 5, 10, 12]
    assert all(n == last for n, last in pairs)  # each status shows the test the panels were drawn at
    assert drawn[-1] == 12 and "test 12/12" in ui.status.value


def test_widget_panels_are_laptop_sized_with_text_of_10_pixels(rnn, tmp_path):
    """The widget's PNG is 840 x 420 pixels at 100 dpi and says its smallest text is 7.5 pt: shown at its
    own size, 7.5 * 100 / 72 = 10.4 pixels. Counted here independently over every text of the figure
    (tick labels, legends, candidate labels), with the notebook's own (larger) style applied."""
    import io

    from matplotlib.text import Text
    from PIL import Image

    from tt_workbook.apps.explorer.widget import SMALLEST_TEXT_KEY
    from tt_workbook.plotting.style import use_style

    use_style()
    ctl = make(rnn, tmp_path, "trimtuner-dt", iterations=8)
    ctl.run(6)
    ui = build_widget(ctl, k=6)
    png = Image.open(io.BytesIO(bytes(ui.plot.value)))
    assert png.size == (840, 420) and png.info["dpi"] == pytest.approx((100, 100), abs=0.01)
    assert float(png.text[SMALLEST_TEXT_KEY]) == 7.5
    assert ui.plot.layout.width == "840px"
    fig = ctl.figure(k=6, title=False)
    fig.canvas.draw()
    texts = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    assert len(texts) > 40 and min(t.get_fontsize() for t in texts) * 100 / 72 >= 10.4
    legends = [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    for leg in legends:  # beside or under their plotting areas, never over them
        box, ax = leg.get_window_extent(), leg.axes.get_window_extent()
        assert box.x0 >= ax.x1 - 1 or box.y1 <= ax.y0 + 1, leg.get_texts()[0].get_text()
    assert len(legends) == 3  # panels 1, 2 and 3
