"""tt spot: simulate --json with the documented keys, data list, one-line errors with exit code 2."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tt_core.cli import main

KEYS = {"cost", "charged", "refunded", "jct_s", "pcr", "steps_total", "steps_free", "top1", "top3", "approaches"}


def _json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_simulate_json_has_the_documented_keys_and_is_seeded(capsys):
    argv = ["spot", "simulate", "--workload", "rnn/t2.xlarge-x4", "--theta", "0.7", "--seed", "2", "--market-days", "20",
            "--json"]
    out = _json(capsys, argv)
    assert KEYS <= set(out) and out["synthetic_prices"] is True and out["billing"] == "paper"
    assert [r["approach"] for r in out["approaches"]] == ["single-cheapest", "single-fastest", "spottune-1", "spottune-0.7"]
    assert out["cost"] == out["approaches"][-1]["cost"] and out["charged"] == out["cost"]
    assert out["pcr"] == pytest.approx(3600 / (out["jct_s"] * out["cost"]))
    base = out["approaches"][0]
    assert base["refunded"] == 0 and base["steps_free"] == 0 and base["steps_total"] > out["steps_total"]
    assert _json(capsys, argv) == out


def test_simulate_a_users_job_csv(capsys, tmp_path):
    rows = ["setting,step,metric,seconds"]
    for s in range(4):
        for k in range(1, 31):
            rows.append(f"s{s},{k},{1 / (0.1 * k + 1) + 0.1 * s:.6f},120")
    path = tmp_path / "mine.csv"
    path.write_text("\n".join(rows) + "\n")
    out = _json(capsys, ["spot", "simulate", "--workload", str(path), "--market-days", "12", "--json"])
    assert out["workload"] == "mine" and out["approaches"][0]["steps_total"] == 120
    assert out["approaches"][0]["top1"] and out["approaches"][0]["jct_s"] == pytest.approx(60 + 30 * 120 + 100 / 80.6775, rel=1e-3)
    path.write_text("setting,step,metric,seconds\ns0,1,0.5,120\ns0,2,abc,120\n")
    assert main(["spot", "simulate", "--workload", str(path)]) == 2
    assert "line 3, column 'metric': 'abc'" in capsys.readouterr().err


def test_data_list(capsys):
    out = _json(capsys, ["spot", "data", "list", "--json"])
    assert "sklearn/mlp" in out["workloads"] and "cnn/t2.small-x8" in out["workloads"]
    assert out["data"][0]["status"].startswith(("found", "missing"))


@pytest.mark.parametrize("argv, message", [
    (["spot", "simulate", "--workload", "cnn/t2.nano-x1"], r"unknown job set\(s\) \['cnn/t2.nano-x1'\]"),
    (["spot", "simulate", "--workload", "vgg16"], "unknown workload 'vgg16'"),
    (["spot", "simulate", "--workload", "rnn/t2.xlarge-x4", "--k", "13"], "k=13 is larger than the job set"),
    (["spot", "simulate", "--workload", "rnn/t2.xlarge-x4", "--prices", "nope.csv"], "price trace 'nope.csv': no such file"),
    (["spot", "simulate", "--workload", "rnn/t2.xlarge-x4", "--market-days", "9"], "leaves no time to simulate"),
])
def test_bad_inputs_are_one_line_with_exit_code_2(capsys, argv, message):
    import re

    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("tt: error: ") and re.search(message, err) and "Traceback" not in err
    assert err.count("\n") == 1


@pytest.mark.parametrize("argv", [["spot", "simulate", "--workload", "x", "--theta", "1.5"],
                                  ["spot", "simulate", "--workload", "x", "--theta", "0"],
                                  ["spot", "simulate", "--workload", "x", "--billing", "aws-2030"]])
def test_argument_errors_exit_2(capsys, argv):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("tt: error: ") and err.count("\n") == 1
