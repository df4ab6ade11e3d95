"""Ask/tell optimisers and the replay loop: determinism, initial designs, accounting, errors, quality."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from tt_workbook import runs as ex
from tt_core.data.benchmarks import benchmark_from_table, load_benchmark
from tt_core.replay.driver import run_optimization
from tt_core.data.objectives import CallableObjective
from tt_core.optimizers import available, make_optimizer

VOLATILE = ["overhead_s", "cumulative_wall"]


@pytest.mark.parametrize("name", ["trimtuner-dt", "eic-usd", "random"])
def test_same_seed_same_trajectory(rnn, name):
    a = run_optimization(rnn, name, seed=7, iterations=8)
    b = run_optimization(rnn, name, seed=7, iterations=8)
    pd.testing.assert_frame_equal(a.drop(columns=VOLATILE), b.drop(columns=VOLATILE))
    c = run_optimization(rnn, name, seed=8, iterations=8)
    assert not a["config_id"].equals(c["config_id"])


def test_a_run_pins_blas_to_one_thread_and_restores_it(rnn):
    """Replay.run limits BLAS to one thread while it steps (blas_threads=1 by default) and restores the limit."""
    from threadpoolctl import threadpool_info, threadpool_limits

    from tt_core.data.objectives import ReplayObjective
    from tt_core.replay.driver import Replay

    def blas_threads():
        return sorted({p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"})

    if not blas_threads():
        pytest.skip("no BLAS library found by threadpoolctl")
    seen = []
    table = ReplayObjective(rnn)

    def measure(cid, size):
        seen.append(blas_threads())
        return table(cid, size)

    with threadpool_limits(limits=2, user_api="blas"):
        before = blas_threads()
        Replay.from_benchmark(rnn, "random", seed=1, measure=measure).run(5)
        assert seen and all(s == [1] for s in seen)
        assert blas_threads() == before
        seen.clear()
        Replay.from_benchmark(rnn, "random", seed=1, measure=measure).run(5, blas_threads=None)
        assert all(s == before for s in seen)
    with pytest.raises(ValueError, match="blas_threads"):
        Replay.from_benchmark(rnn, "random", seed=1).run(5, blas_threads=0)


@pytest.mark.slow
def test_trimtuner_gp_resumed_from_a_checkpoint_continues_the_same_mcmc_chain(rnn):
    """A checkpoint (the data-only state of the Replay) taken mid-run continues the GP's MCMC chain
    exactly: the resumed run's tests, incumbents and final hyperparameter samples equal those of an
    uninterrupted run."""
    from tt_workbook.runs import checkpoint
    from tt_core.replay.driver import Replay

    whole = Replay.from_benchmark(rnn, "trimtuner-gp", seed=5)
    ref = whole.run(9)
    part = Replay.from_benchmark(rnn, "trimtuner-gp", seed=5)
    part.run(6)
    resumed = checkpoint.roundtrip(part, Replay.from_benchmark(rnn, "trimtuner-gp", seed=5))
    out = resumed.run(9)
    cols = ["config_id", "size", "incumbent", "accuracy_c"]
    pd.testing.assert_frame_equal(out[cols], ref[cols])
    for kind in ("loss", "cost"):
        np.testing.assert_array_equal(resumed.optimizer.models[kind].samples_, whole.optimizer.models[kind].samples_)
        assert resumed.optimizer.models[kind].n_steps_ == whole.optimizer.models[kind].n_steps_


def test_initial_designs(rnn):
    tt = run_optimization(rnn, "trimtuner-dt", seed=3, iterations=6)
    init = tt[tt["phase"] == "init"]
    assert init["size"].tolist() == [1000, 6000, 15000, 30000] and init["config_id"].nunique() == 1
    # one training run snapshotted at each size: the initial design costs the 30000-image run
    assert init["charged_cost"].sum() == pytest.approx(init["cost"].max())
    eic = run_optimization(rnn, "eic", seed=3, iterations=5)
    init = eic[eic["phase"] == "init"]
    assert len(init) == 4 and init["config_id"].nunique() == 4 and (init["size"] == 60000).all()
    assert (eic["charged_cost"] == eic["cost"]).all()


def test_every_test_is_new_and_incumbents_are_full_size_configs(rnn):
    tr = run_optimization(rnn, "trimtuner-dt", seed=1, iterations=12)
    assert not tr.duplicated(["config_id", "size"]).any()
    assert tr["incumbent"].between(0, rnn.n_configs - 1).all()
    np.testing.assert_allclose(tr["cumulative_cost"], tr["charged_cost"].cumsum())
    full = rnn.full_size().set_index("config_id")
    np.testing.assert_allclose(tr["incumbent_accuracy"], full.loc[tr["incumbent"], "accuracy"].to_numpy())


def test_ask_tell_on_a_users_own_job():
    """The same optimiser runs on a callable objective over a generic benchmark description."""
    rows = [{"lr": lr, "depth": d, "size": s, "accuracy": 0.0, "cost": 1.0}
            for lr, d, s in itertools.product([0.001, 0.01, 0.1], [2, 4, 8], [100, 400, 1600])]
    space_bench = benchmark_from_table(pd.DataFrame(rows), ["lr", "depth"], max_cost=0.5)

    def job(config, size):  # a deterministic stand-in for training
        acc = 0.9 - abs(np.log10(config["lr"]) + 2) * 0.1 - 0.1 * (1600 / size - 1) / 15
        return {"accuracy": acc, "cost": config["depth"] * size / 16000, "time": size / 100}

    opt = make_optimizer("trimtuner-dt", space_bench, seed=0, max_cost=0.5)
    obj = CallableObjective(job, space_bench.configs())
    for _ in range(10):
        cid, size = opt.suggest()
        m = obj(cid, size)
        opt.observe(cid, size, m.accuracy, m.cost, m.time)
    assert len(opt.history) == 10 and opt.pool.n_untested == 27 - 10
    inc = opt.incumbent()
    assert inc.config_id in set(space_bench.configs()["config_id"]) and inc.size == 1600  # a full-size recommendation


def test_clear_errors(rnn):
    with pytest.raises(ValueError, match=r"unknown optimizer 'bogus'; known optimizers: \['cherrypick', 'ei', 'eic'"):
        run_optimization(rnn, "bogus", seed=1)
    with pytest.raises(ValueError, match=r"iterations=3 is smaller than the initial design .* \(4 tests\)"):
        run_optimization(rnn, "trimtuner-dt", seed=1, iterations=3)
    single = benchmark_from_table(
        pd.DataFrame({"lr": [0.1, 0.01], "size": [100, 100], "accuracy": [0.5, 0.6], "cost": [1.0, 2.0]}),
        ["lr"], max_cost=1.5)
    with pytest.raises(ValueError, match="tests sub-sampled sizes, but the benchmark has only size 100"):
        run_optimization(single, "trimtuner-dt", seed=1)
    with pytest.raises(ValueError, match=r"beta must be a fraction in \(0, 1\]"):
        run_optimization(rnn, "trimtuner-dt", seed=1, beta=1.5)
    assert set(available()) >= {"trimtuner-dt", "trimtuner-gp", "fabolas", "eic", "eic-usd", "random"}


def test_runner_stores_atomically_resumes_and_keeps_metadata(tmp_path):
    specs = ex.grid(["rnn"], ["random", "eic-usd"], [1, 2], iterations=6)
    paths = ex.run_grid(specs, tmp_path, n_jobs=1, progress=False)
    assert all(p.is_file() for p in paths) and len(set(paths)) == 4
    assert not list(tmp_path.rglob(".*"))  # no temporary files left behind
    traj, meta = ex.read_run(paths[0])
    assert meta["spec"]["optimizer"] == "random" and meta["spec"]["seed"] == 1 and "numpy" in meta["versions"]
    assert meta["code"] == ex.code_hash()
    assert len(traj) == 6 and (traj["variant"] == "random-it6").all()
    mtimes = [p.stat().st_mtime_ns for p in paths]
    paths[1].unlink()  # an interrupted grid: one run missing
    ex.run_grid(specs, tmp_path, n_jobs=1, progress=False)
    assert [p.stat().st_mtime_ns for i, p in enumerate(paths) if i != 1] == [m for i, m in enumerate(mtimes) if i != 1]
    assert paths[1].is_file()
    loaded = ex.load_runs(specs, tmp_path)
    assert len(loaded) == 24 and set(loaded["seed"]) == {1, 2}
    with pytest.raises(ValueError, match=r"unknown backend 'mpi'; known: \['loky', 'sequential', 'dask'\]"):
        ex.run_grid(specs, tmp_path, backend="mpi")
    with pytest.raises(ValueError, match="unknown profile 'huge'"):
        ex.profile_specs("huge")


def test_wall_time_report_splits_the_stored_run_seconds_by_optimizer(tmp_path, capsys):
    import json

    from tt_workbook.cli import main

    argv = ["runs", "--benchmarks", "rnn", "--optimizers", "random", "eic-usd", "--seeds", "1", "2",
            "--iterations", "6", "--runs-dir", str(tmp_path)]
    assert main(argv) == 0
    assert "4 runs stored, 0 missing" in capsys.readouterr().out
    specs = ex.grid(["rnn"], ["random", "eic-usd"], [1, 2], iterations=6)
    walls = {s: ex.read_run(s.path(tmp_path))[1]["wall_s"] for s in specs}
    table, totals = ex.wall_time_report(specs, tmp_path)
    assert list(table.index) == ["random-it6", "eic-usd-it6"] and (table["runs"] == 2).all()
    for opt in ("random", "eic-usd"):
        expected = sum(w for s, w in walls.items() if s.optimizer == opt)
        assert table.loc[f"{opt}-it6", "total_s"] == pytest.approx(expected)
        assert table.loc[f"{opt}-it6", "rnn_s"] == pytest.approx(expected)
    assert table["share"].sum() == pytest.approx(1.0)
    assert ((table["recommend_share"] >= 0) & (table["recommend_share"] <= 1)).all()
    assert set(totals) == {"runs", "missing", "run_s", "span_s"} and (totals["runs"], totals["missing"]) == (4, 0)
    assert totals["run_s"] == pytest.approx(sum(walls.values()))
    assert totals["span_s"] >= max(walls.values()) - 1.0  # finish times are stored to the second

    specs[0].path(tmp_path).unlink()  # report only: nothing is run, the gap is counted
    assert main(argv + ["--report", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["runs"], out["missing"]) == (3, 1) and not specs[0].path(tmp_path).exists()
    assert {r["optimizer"]: r["runs"] for r in out["optimizers"]} == {"random-it6": 1, "eic-usd-it6": 2}

    pd.DataFrame({"overhead_s": [0.1]}).to_parquet(specs[0].path(tmp_path))  # not written by the runner
    with pytest.raises(ValueError, match="cannot be trusted \\(corrupt\\)"):  # no tt_run metadata
        ex.wall_time_report(specs, tmp_path)
    assert ex.format_wall_time_report(*ex.wall_time_report(specs, tmp_path / "empty")) == "no stored runs (4 missing)"


def test_parallel_backends_give_the_same_results(tmp_path):
    pytest.importorskip("dask.distributed")
    specs = ex.grid(["rnn"], ["random", "eic-usd"], [3], iterations=6)
    ex.run_grid(specs, tmp_path / "seq", backend="sequential", progress=False)
    ex.run_grid(specs, tmp_path / "loky", n_jobs=2, backend="loky", progress=False)
    ex.run_grid(specs, tmp_path / "dask", n_jobs=2, backend="dask", progress=False)  # a local Dask cluster
    ref = ex.load_runs(specs, tmp_path / "seq").drop(columns=VOLATILE)
    for other in ("loky", "dask"):
        pd.testing.assert_frame_equal(ref, ex.load_runs(specs, tmp_path / other).drop(columns=VOLATILE))


@pytest.mark.slow
def test_trimtuner_dt_reaches_good_feasible_configs_cheaper_than_eic(tmp_path):
    """Issue check on the real data (3 seeds, both networks, 44 iterations)."""
    from tt_workbook.studies.fig1_fig2.trajectories import time_to_target

    specs = ex.grid(["cnn", "rnn"], ["trimtuner-dt", "eic"], [1, 2, 3])
    runs = ex.ensure_runs(specs, tmp_path, n_jobs=2, progress=False)
    benches = {b: load_benchmark(b) for b in ("cnn", "rnn")}
    ttt = time_to_target(runs, benches, fraction=0.9)
    dt = ttt[ttt["optimizer"] == "trimtuner-dt"]
    assert dt["reached"].sum() >= 4, dt  # "in most seeds" (of 6 runs)
    total = runs.sort_values("iteration").groupby(["benchmark", "optimizer", "seed"]).tail(1)
    med = total.groupby("optimizer")["cumulative_cost"].median()
    assert med["trimtuner-dt"] < med["eic"], med


def test_one_test_initial_design_falls_back_to_random_until_models_exist():
    rows = [{"lr": lr, "size": s, "accuracy": 0.5 + lr, "cost": lr * s / 100}
            for lr in (0.1, 0.2, 0.3, 0.4) for s in (100, 1000)]
    bench = benchmark_from_table(pd.DataFrame(rows), ["lr"], max_cost=1.0)
    tr = run_optimization(bench, "trimtuner-dt", seed=2, iterations=5)
    assert len(tr) == 5 and tr["phase"].tolist()[0] == "init" and not tr.duplicated(["config_id", "size"]).any()


def test_the_wall_time_table_has_columns_named_for_people():
    """`tt runs`' closing table: words, not field names, and the numbers as the hand-made table holds them."""
    table = pd.DataFrame({"runs": [2], "rnn_s": [10.0], "total_s": [10.0], "mean_run_s": [5.0], "max_run_s": [6.0],
                          "share": [1.0], "recommend_share": [0.25]}, index=pd.Index(["eic"], name="optimizer"))
    text = ex.format_wall_time_report(table, {"runs": 2, "missing": 0, "run_s": 10.0, "span_s": 6.0})
    header = text.splitlines()[0]
    assert "recommending" in header and "longest run s" in header and "rnn s" in header
    assert not any(w in header for w in ("recommend_share", "rnn_s", "mean_run_s"))
    assert text.splitlines()[2].split()[-2:] == ["100.0%", "25%"]
