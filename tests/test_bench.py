"""Tests of the recommendation-cost harness (tt_workbook.bench, ``tt bench recommend``)."""

from __future__ import annotations


import numpy as np
import pandas as pd
import pytest

from tt_workbook.studies.filters_beta import analysis as study
from tt_workbook import bench as B
from tt_workbook.studies.filters_beta import specs as studies

SETTINGS = ["trimtuner-dt", "trimtuner-dt:random:20%", "random"]


@pytest.fixture(scope="module")
def measured(rnn, tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "bench.csv"
    df = B.bench_recommend(SETTINGS, n_obs=(6,), repeats=2, seeds=(1,), benchmark=rnn, out=out)
    return df, out


def test_rows_for_every_setting_with_positive_times(measured):
    df, _ = measured
    assert sorted(df["setting"].unique()) == sorted(B.Setting.parse(s).label for s in SETTINGS)
    assert len(df) == len(SETTINGS) * 2  # one n_obs, one seed, two repeats
    assert (df["total_s"] > 0).all() and (df["suggest_s"] > 0).all() and (df["cpu_s"] >= 0).all()
    parts = df[["refit_s", "acq_setup_s", "filter_s", "acq_eval_s"]].sum(axis=1)
    assert np.all(parts <= df["total_s"] + 1e-6)
    dt = df[df["setting"] == "trimtuner-dt"].iloc[0]
    assert dt["filter"] == "cea" and dt["beta"] == pytest.approx(0.1)  # the optimiser's default, resolved
    assert dt["n_evaluated"] == int(np.ceil(0.1 * dt["n_candidates"]))
    # the information gain is computed for exactly the kept candidates; the exact argmax fantasises
    # (Eq. 5's constraint factor) at least the winner and at most every kept candidate
    assert dt["n_info_rows"] == dt["n_evaluated"] and 1 <= dt["n_fantasised"] <= dt["n_evaluated"]
    assert (df.loc[df["setting"] == "random", ["n_info_rows", "n_fantasised"]] == -1).all().all()
    rnd = df[df["setting"] == "trimtuner-dt:random:20%"].iloc[0]
    assert rnd["filter"] == "random" and rnd["n_evaluated"] == int(np.ceil(0.2 * rnd["n_candidates"]))
    assert (df["n_obs"] == 6).all() and set(df["repeat"]) == {0, 1}


def test_machine_info_recorded(measured):
    df, _ = measured
    info = B.machine_info()
    for key in ("cpu_model", "n_cores", "n_cores_usable", "blas", "numpy"):
        assert key in info and key in df.columns
    assert info["n_cores"] >= 1 and isinstance(info["cpu_model"], str) and info["cpu_model"]
    assert (df["n_cores"] == info["n_cores"]).all()
    # the values, from other sources than the code's: the package metadata, the interpreter, /proc/cpuinfo
    import sys
    from importlib.metadata import version
    from pathlib import Path

    assert (info["numpy"], info["scipy"]) == (version("numpy"), version("scipy"))
    assert info["python"] == ".".join(map(str, sys.version_info[:3]))
    assert 1 <= info["n_cores_usable"] <= info["n_cores"]
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        names = [ln.split(":", 1)[1].strip() for ln in cpuinfo.read_text().splitlines() if ln.startswith("model name")]
        if names:
            assert info["cpu_model"] == names[0]


def test_csv_round_trip_and_resume(measured, rnn):
    df, out = measured
    back = B.read_bench_csv(out)
    assert list(back.columns) == list(df.columns)
    pd.testing.assert_frame_equal(back[B.KEY_COLUMNS + B.TIME_COLUMNS].reset_index(drop=True),
                                  df[B.KEY_COLUMNS + B.TIME_COLUMNS].reset_index(drop=True), check_dtype=False)
    again = B.bench_recommend(SETTINGS[:1], n_obs=(6,), repeats=2, seeds=(1,), benchmark=rnn, out=out, resume=True)
    pd.testing.assert_frame_equal(again[B.TIME_COLUMNS], back[B.TIME_COLUMNS])  # nothing re-measured
    s = B.summarize(back)
    assert list(s["setting"]) == list(dict.fromkeys(back["setting"]))
    row = s.iloc[0]
    assert row["min"] <= row["q25"] <= row["median"] <= row["q75"] <= row["max"]
    assert row["iqr"] == pytest.approx(row["q75"] - row["q25"]) and row["n"] == 2
    assert len(B.summarize(back, by=("benchmark", "setting", "n_obs"))) == len(SETTINGS)


def test_same_observations_for_every_setting_of_a_seed(rnn):
    a = B._make(B.Setting.parse("trimtuner-dt"), rnn, 3)
    b = B._make(B.Setting.parse("trimtuner-gp:none"), rnn, 3)
    pa, pb = B.replay_pairs(a, 12, 3), B.replay_pairs(b, 12, 3)
    assert pa == pb and len(set(pa)) == 12
    assert pa[:4] == [tuple(map(int, p)) for p in a.initial_pairs]
    assert B.replay_pairs(a, 12, 4) != pa


@pytest.mark.parametrize("text, expected", [
    ("trimtuner-dt", B.Setting("trimtuner-dt", None, 0.1)),
    ("trimtuner-gp:cea:10%", B.Setting("trimtuner-gp", "cea", 0.1)),
    ("trimtuner-dt:cea:0.2", B.Setting("trimtuner-dt", "cea", 0.2)),
    ("trimtuner-dt:none", B.Setting("trimtuner-dt", "none", 1.0)),
    ("fabolas:default:1%", B.Setting("fabolas", None, 0.01)),
])
def test_parse_settings(text, expected):
    assert B.Setting.parse(text) == expected
    assert B.Setting.parse(expected.label) == expected


def test_groups():
    t3 = B.parse_settings(["table3"])
    assert [s.optimizer for s in t3] == ["trimtuner-gp", "trimtuner-dt", "fabolas", "eic", "eic-usd"]
    t4 = B.parse_settings(["table4", "trimtuner-dt", "table3"])
    assert len(t4) == 14 + 3  # duplicates removed (CEA 10% is the TrimTuner default, shared with Table III)
    assert {s.filter for s in t4} == {"none", "cea", "direct", "cmaes", "random", None}


@pytest.mark.parametrize("text, match", [
    ("nosuch", r"unknown optimizer 'nosuch'; known optimizers: \[.*trimtuner-dt.*\]"),
    ("trimtuner-dt:nosuch", r"unknown filter 'nosuch'; known filters: \['cea', 'cmaes', 'cmaes-raw', 'direct', 'direct-raw', 'none', 'random'\]"),
    ("trimtuner-dt:cea:abc", "fraction"),
    ("trimtuner-dt:cea:0", r"beta must be a fraction in \(0, 1\]"),
    ("trimtuner-dt:cea:150%", r"beta must be a fraction in \(0, 1\]"),
    ("a:b:c:d", "OPTIMIZER"),
    ("", "OPTIMIZER"),
])
def test_bad_settings_give_clear_errors(text, match):
    with pytest.raises(ValueError, match=match):
        B.parse_settings([text])


def test_bad_arguments(rnn):
    with pytest.raises(ValueError, match="initial design"):
        B.measure_recommendation("trimtuner-dt", rnn, n_obs=2)
    with pytest.raises(ValueError, match="policy"):
        B.measure_recommendation("trimtuner-dt", rnn, n_obs=6, policy="greedy")
    with pytest.raises(ValueError, match="repeats"):
        B.bench_recommend(["trimtuner-dt"], n_obs=(6,), repeats=0, benchmark=rnn)
    with pytest.raises(ValueError, match="n_obs must be integers"):
        B.bench_recommend(["trimtuner-dt"], n_obs=(6.5,), benchmark=rnn)
    with pytest.raises(FileNotFoundError, match="tt bench recommend"):
        B.read_bench_csv("/nonexistent/bench.csv")


def test_a_discarded_warmup_comes_before_the_timed_repeats(rnn, monkeypatch):
    """One untimed fit on n_obs - 1 observations, then ``warmup`` untimed recommendations (refit + suggest),
    then the timed repeats: counted by the refits the optimiser is asked for."""
    opt = B._make(B.Setting.parse("trimtuner-dt"), rnn, 1)
    cls, calls = type(opt), []
    original = cls.refit
    monkeypatch.setattr(cls, "refit", lambda self, *a, **k: calls.append(1) or original(self, *a, **k))
    rows = B.measure_recommendation("trimtuner-dt", rnn, n_obs=6, seed=1, repeats=2, warmup=2)
    assert len(calls) == 1 + 2 + 2 and [r["warmup"] for r in rows] == [2, 2] and [r["repeat"] for r in rows] == [0, 1]
    calls.clear()
    B.measure_recommendation("trimtuner-dt", rnn, n_obs=6, seed=1, repeats=1, warmup=0)
    assert len(calls) == 1 + 0 + 1
    with pytest.raises(ValueError, match="warmup"):
        B.measure_recommendation("trimtuner-dt", rnn, n_obs=6, warmup=-1)


def test_resume_measures_again_the_rows_made_without_a_warmup(measured, rnn, tmp_path):
    df, _ = measured
    old = df.drop(columns="warmup")  # as written before warm-ups existed
    out = tmp_path / "old.csv"
    B.write_bench_csv(old, out)
    again = B.bench_recommend(SETTINGS[:1], n_obs=(6,), repeats=2, seeds=(1,), benchmark=rnn, out=out, resume=True)
    # the one setting asked for is measured anew (with its warm-up); the other old rows are dropped, not reused
    assert len(again) == 2 and (again["warmup"] == 1).all() and set(again["setting"]) == {"trimtuner-dt"}
    kept = B.bench_recommend(SETTINGS[:1], n_obs=(6,), repeats=2, seeds=(1,), benchmark=rnn, out=out, resume=True)
    pd.testing.assert_frame_equal(kept[B.TIME_COLUMNS], again[B.TIME_COLUMNS])  # now reused


def test_own_policy(rnn):
    rows = B.measure_recommendation("trimtuner-dt:cea:5%", rnn, n_obs=6, seed=2, policy="own")
    assert len(rows) == 1 and rows[0]["total_s"] > 0 and rows[0]["n_candidates"] == 1440 - 6


def test_own_policy_states_are_those_of_a_run_of_the_replay_driver(rnn):
    """The benchmark replays through the one driver: after its own 6 tests, the first timed suggestion (no
    warm-up) is the 7th test of ``run_optimization`` with the same setting and seed. (A repeat refits again
    and draws the trees' seeds anew from the run's stream, so later repeats time the same state with other
    trees, as a run would at its next refit.)"""
    from tt_core.replay.driver import run_optimization

    traj = run_optimization(rnn, "trimtuner-dt", seed=2, iterations=7, beta=0.05, filter="cea")
    rows = B.measure_recommendation("trimtuner-dt:cea:5%", rnn, n_obs=6, seed=2, repeats=2, policy="own", warmup=0)
    seventh = (int(traj["config_id"].iloc[6]), int(traj["size"].iloc[6]))
    assert (rows[0]["suggested_config"], rows[0]["suggested_size"]) == seventh
    assert [r["repeat"] for r in rows] == [0, 1] and len({r["n_candidates"] for r in rows}) == 1  # one state


def test_a_replay_step_can_leave_the_refit_to_later(rnn):
    """``Replay.step(pair, refit=False)`` records the test and fits nothing; one ``refit()`` then gives the
    models a run that refits at every test has (the same next suggestion)."""
    from tt_core.replay.driver import Replay

    lazy, eager = (Replay.from_benchmark(rnn, "trimtuner-dt", seed=4) for _ in range(2))
    pairs = [tuple(map(int, p)) for p in lazy.optimizer.initial_pairs]
    for pair in pairs:
        row = lazy.step(pair, refit=False)
        assert (row["config_id"], row["size"]) == pair
        eager.step(pair)
    assert not lazy.optimizer.models and np.isnan(lazy.optimizer.refit_s)  # nothing fitted yet
    assert set(eager.optimizer.models) and eager.optimizer.refit_s >= 0
    lazy.optimizer.refit()
    assert lazy.optimizer.n_observations == eager.optimizer.n_observations == len(pairs)
    assert lazy.optimizer.suggest() == eager.optimizer.suggest()


def test_cli(tmp_path, capsys):
    from tt_workbook.cli import build_parser

    parser = build_parser()
    out = tmp_path / "b.csv"
    args = parser.parse_args(["bench", "recommend", "--settings", "trimtuner-dt:cea:5%", "random", "--n-obs", "5",
                              "--seeds", "1", "--repeats", "1", "--out", str(out), "--quick"])
    assert args.func(args) == 0
    text = capsys.readouterr().out
    assert "machine:" in text and "median" in text and "iqr" in text and "trimtuner-dt:cea:5%" in text
    assert "CPU seconds" in text and "wall seconds" in text and "load average" in text and "1 discarded warm-up" in text
    df = B.read_bench_csv(out)
    assert len(df) == 2 and set(df["n_obs"]) == {5}
    args = parser.parse_args(["bench", "recommend", "--settings", "nosuch"])
    with pytest.raises(ValueError, match="known optimizers"):
        args.func(args)


def test_study_specs():
    specs = studies.filter_study_specs("trimtuner-dt", [1, 2])
    assert len(specs) == 8
    cea = [s for s in specs if s.filter is None]
    assert len(cea) == 2 and all(s.variant == "trimtuner-dt" for s in cea)  # shares Fig. 1's runs
    assert {s.variant for s in specs} == {"trimtuner-dt", "trimtuner-dt-direct", "trimtuner-dt-cmaes",
                                          "trimtuner-dt-random"}
    beta = studies.beta_study_specs("trimtuner-dt", [1], ("rnn", "cnn"))
    assert {s.variant for s in beta} == {"trimtuner-dt-b0.01", "trimtuner-dt", "trimtuner-dt-b0.2",
                                         "trimtuner-dt-b0.5", "trimtuner-dt-none"}
    runs = pd.DataFrame({"filter": [None, "direct", "none", None], "beta": [0.1, 0.1, 0.1, 0.2]})
    assert list(study.label_runs(runs, "filter")["variant"]) == ["CEA", "DIRECT", "no filter", "CEA"]
    assert list(study.label_runs(runs, "beta")["variant"]) == ["beta 10%", "beta 10%", "no filter", "beta 20%"]
    with pytest.raises(ValueError, match="unknown filter"):
        studies.filter_study_specs("trimtuner-dt", [1], filters=("cea", "nosuch"))
