"""The tt command line: JSON outputs with the documented keys, exit codes, one-line errors."""

import json

import pytest

from tt_core.data.benchmarks import load_benchmark
from tt_workbook.cli import main


def _json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("name", ["cnn", "rnn"])
def test_feasibility_json_matches_the_data(capsys, name):
    out = _json(capsys, ["feasibility", "--benchmark", name, "--json"])
    keys = {"benchmark", "max_cost", "n_configs", "feasible", "feasible_pct", "best_accuracy", "high_accuracy",
            "high_accuracy_pct"}
    assert keys <= set(out)
    full = load_benchmark(name).full_size()
    feas = full[full.cost <= out["max_cost"]]
    assert out["feasible"] == len(feas) and out["best_accuracy"] == feas.accuracy.max()
    assert out["high_accuracy"] == int((feas.accuracy >= 0.95 * feas.accuracy.max()).sum())
    assert out["feasible_pct"] == pytest.approx(100 * len(feas) / len(full))


def test_subsampling_gain_json(capsys):
    out = _json(capsys, ["subsampling-gain", "--benchmark", "rnn", "--min-accuracy", "0.85", "--max-time", "300", "--json"])
    t = load_benchmark("rnn").table
    ok = t[(t.accuracy >= 0.85) & (t.training_time <= 300)]
    best, best_full = ok.cost.min(), ok[ok["size"] == 60000].cost.min()
    assert out["feasible_all_sizes"] == len(ok) and out["optimum_size"] == int(ok.loc[ok.cost.idxmin(), "size"])
    assert out["cost_reduction"] == pytest.approx((best_full - best) / best_full)
    out = _json(capsys, ["subsampling-gain", "--benchmark", "rnn", "--min-accuracy", "0.999", "--json"])
    assert out["cost_reduction"] is None


def test_optimize_json_records(capsys):
    out = _json(capsys, ["optimize", "--benchmark", "rnn", "--optimizer", "random", "--seed", "1", "--iterations", "5", "--json"])
    assert len(out) == 5
    assert {"iteration", "size", "cumulative_cost", "incumbent_accuracy", "incumbent_cost", "accuracy_c", "overhead_s"} <= set(out[0])


@pytest.mark.parametrize("argv, message", [
    (["optimize", "--benchmark", "rnn", "--optimizer", "nope", "--seed", "1"], "unknown optimizer 'nope'; known optimizers"),
    (["feasibility", "--benchmark", "vgg"], "unknown benchmark|neither a registered benchmark"),
    (["subsampling-gain", "--benchmark", "mlp"], "data not public"),
])
def test_errors_are_one_line_with_exit_code_2(capsys, argv, message):
    import re

    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("tt: error: ") and re.search(message, err) and "Traceback" not in err


def test_argument_range_errors(capsys):
    with pytest.raises(SystemExit) as info:
        main(["feasibility", "--benchmark", "cnn", "--max-cost", "-1"])
    assert info.value.code == 2 and "--max-cost must be a positive number" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["optimize", "--benchmark", "rnn", "--optimizer", "random", "--seed", "1", "--beta", "2"])
    assert "--beta is a fraction in (0, 1]" in capsys.readouterr().err


def test_data_list_shows_mlp_not_public(capsys):
    out = _json(capsys, ["data", "list", "--json"])
    by_name = {r["benchmark"]: r for r in out}
    assert by_name["mlp"]["status"] == "data not public" and by_name["cnn"]["note"] == "sha256 ok"


# ------------------------------------------------------------------------------------------------
# Every registered optimiser through the front door (tt optimize --json, tt runs)
# ------------------------------------------------------------------------------------------------
from tt_core.optimizers import available  # noqa: E402

BUDGETED_NAMES = {"nephele", "lynceus", "cherrypick"}
#: Tests per run in these front-door checks: 6, or two more than a longer initial design (Fabulinus:
#: 9 random configurations at 4 sub-sampled sizes = 36 tests, thesis §7.2).
ITERATIONS = {"fabulinus": 38}


def _rnn_lookup():
    t = load_benchmark("rnn").table
    return {(int(c), int(s)): (float(a), float(co), float(ti))
            for c, s, a, co, ti in zip(t["config_id"], t["size"], t["accuracy"], t["cost"], t["training_time"])}


@pytest.mark.slow
@pytest.mark.parametrize("name", available())
def test_every_optimizer_runs_through_tt_optimize_json(capsys, name):
    """Each name of available() runs through `tt optimize --json`; its records agree with the measurements."""
    n = ITERATIONS.get(name, 6)
    out = _json(capsys, ["optimize", "--benchmark", "rnn", "--optimizer", name, "--seed", "1", "--iterations", str(n),
                         "--json"])
    assert [r["iteration"] for r in out] == list(range(1, n + 1))
    lookup = _rnn_lookup()
    t = load_benchmark("rnn").table
    if name in BUDGETED_NAMES:  # cost minimisers: CNO = incumbent cost / cheapest point with A >= 0.85, T <= 300 s
        feas = t[(t["accuracy"] >= 0.85) & (t["training_time"] <= 300)]
        best = float(feas["cost"].min())
    for r in out:
        acc, cost, _ = lookup[(r["config_id"], r["size"])]
        assert r["accuracy"] == pytest.approx(acc) and r["cost"] == pytest.approx(cost)
        if name in BUDGETED_NAMES:
            assert set(r) >= {"cno", "cno_space"} and "accuracy_c" not in r
            if r["incumbent"] >= 0:
                inc_cost = lookup[(r["incumbent"], r["incumbent_size"])][1]
                assert r["cno"] == pytest.approx(inc_cost / best)
                # the incumbent is an observed test meeting both limits
                seen = {(q["config_id"], q["size"]) for q in out[: r["iteration"]]}
                assert (r["incumbent"], r["incumbent_size"]) in seen
                acc_i, _, time_i = lookup[(r["incumbent"], r["incumbent_size"])]
                assert acc_i >= 0.85 and time_i <= 300
        else:
            assert "accuracy_c" in r and r["incumbent_size"] in (-1, 60000)
    # a budgeted run charges each test in full: the cumulative cost is the sum of the measured costs
    if name in BUDGETED_NAMES:
        assert out[-1]["cumulative_cost"] == pytest.approx(sum(r["cost"] for r in out))


@pytest.mark.slow
def test_every_optimizer_runs_through_tt_runs(tmp_path, capsys):
    names = available()
    short = [n for n in names if n not in ITERATIONS]
    for group, n in [(short, 5)] + [([name], it) for name, it in ITERATIONS.items()]:
        code = main(["runs", "--benchmarks", "rnn", "--optimizers", *group, "--seeds", "1", "--iterations", str(n),
                     "--runs-dir", str(tmp_path), "--json"])
        assert code == 0
    from tt_workbook import runs as ex

    stored = sorted(p.parent.name for p in tmp_path.glob("rnn/*/seed1.parquet"))
    assert len(stored) == len(names)
    for p in tmp_path.glob("rnn/*/seed1.parquet"):
        traj, meta = ex.read_run(p)
        name = meta["spec"]["optimizer"]
        assert name in names and len(traj) == ITERATIONS.get(name, 5) and meta["code"] == ex.code_hash()


@pytest.mark.parametrize("argv, message", [
    (["--optimizer", "nephele", "--max-cost", "0.1"], "'nephele' cannot honour max_cost"),
    (["--optimizer", "lynceus", "--beta", "0.2"], "'lynceus' has no candidate filter"),
    (["--optimizer", "random", "--filter", "cea"], "'random' has no candidate filter"),
    (["--optimizer", "cherrypick", "--horizon", "1"], "'cherrypick' has no option horizon"),
    (["--optimizer", "eic", "--initial-budget", "1"], "'eic' has no option initial_budget"),
    (["--optimizer", "eic", "--iterations", "100000"], "exceeds the 288 candidate tests"),
    (["--optimizer", "trimtuner-dt", "--objective", "cost"], "optimises 'accuracy', not 'cost'"),
    (["--optimizer", "bogus"], "known optimizers: ['cherrypick', 'ei', 'eic', 'eic-usd', 'fabolas', 'fabulinus', 'lynceus'"),
])
def test_a_limit_a_method_cannot_honour_is_one_line_and_exit_2(capsys, argv, message):
    code = main(["optimize", "--benchmark", "rnn", "--seed", "1", *argv])
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_make_optimizer_passes_the_limits_it_is_given():
    """The issue's case: nephele with A_min 0.95 and T_max 100 s must not fall back to 0.85 / 300 s."""
    from tt_core.optimizers import make_optimizer

    opt = make_optimizer("nephele", load_benchmark("rnn"), seed=1, min_accuracy=0.95, max_time=100, budget=3.0,
                         initial_budget=0.5)
    assert opt.min_accuracy == 0.95 and opt.max_time == 100 and opt.budget == 3.0 and opt.initial_budget == 0.5
    lim = {(c.quantity, c.lower, c.upper) for c in opt.constraints}
    assert lim == {("accuracy", 0.95, None), ("time", None, 100)}


def test_runs_profile_is_narrowed_by_the_given_flags_not_silently_ignored(tmp_path, capsys):
    """`tt runs --profile paper --benchmarks rnn --seeds 1` once ran the whole paper grid (80 runs of 100
    tests): the flags were dropped. Narrowed, the report lists exactly the one run asked for (not computed:
    --report); a seed the profile does not run is one line and exit code 2."""
    code = main(["runs", "--profile", "paper", "--study", "fabulinus", "--benchmarks", "rnn", "--optimizers", "eic",
                 "--seeds", "3", "--runs-dir", str(tmp_path), "--report", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["runs"] + out["missing"] == 1
    from tt_workbook import runs as ex
    from tt_workbook.cli.runs import narrow_specs
    import argparse

    args = argparse.Namespace(benchmarks=["rnn"], optimizers=["eic", "ei"], seeds=[2, 3], profile="paper",
                              study="fabulinus")
    specs = narrow_specs(ex.fabulinus_specs("paper"), args)
    assert sorted((s.benchmark, s.optimizer, s.seed) for s in specs) == [
        ("rnn", "ei", 2), ("rnn", "ei", 3), ("rnn", "eic", 2), ("rnn", "eic", 3)]
    code = main(["runs", "--profile", "paper", "--study", "fabulinus", "--seeds", "11", "--runs-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and "--seeds 11: not in profile 'paper'" in err and "1 2 3 4 5 6 7 8 9 10" in err
    assert len(err.strip().splitlines()) == 1 and not list(tmp_path.iterdir())
