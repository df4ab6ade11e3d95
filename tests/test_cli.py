"""The tt command line: JSON outputs with the documented keys, exit codes, one-line errors."""

import json

import pytest

from tt_core.data.benchmarks import load_benchmark
from tt_core.cli import main


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
