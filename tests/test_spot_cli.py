"""tt spot: simulate --json with the documented keys, data list, one-line errors with exit code 2."""

from __future__ import annotations

import json

import pytest

from tt_workbook.cli import main

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


#: Flat prices (USD/h) per type, and step times 240 s / vCPUs, so that the provisioner's first estimate of
#: the step times (from the vCPUs) is exact: step cost price x 240 / vCPUs is lowest on m4.2xlarge (0.015
#: USD/h per vCPU; r4.large 0.02, r4.xlarge and r4.2xlarge 0.025, r3.xlarge and m4.4xlarge 0.03).
FLAT = {"r4.large": (0.04, 2), "r3.xlarge": (0.12, 4), "r4.xlarge": (0.10, 4), "m4.2xlarge": (0.12, 8),
        "r4.2xlarge": (0.20, 8), "m4.4xlarge": (0.48, 16)}


def test_simulate_on_a_hand_made_flat_price_file(capsys, tmp_path):
    """End to end: ``--prices`` a headerless trace file (two records per type, three days), a job CSV with
    every type's step time; the charges are computed by hand (per second at the flat price, never revoked)."""
    trace = tmp_path / "flat.csv"
    trace.write_text("".join(f"2017-04-{d} 00:00:00+00:00,{t},Linux/UNIX,us-east-1a,{p}\n"
                             for d in (26, 29) for t, (p, _) in FLAT.items()))
    rows = ["setting,step,metric," + ",".join(f"seconds_{t}" for t in FLAT)]
    rows += [f"s{s},{k},{1 / k + 0.1 * s:.6f}," + ",".join(str(240 // v) for _, v in FLAT.values())
             for s in range(4) for k in range(1, 31)]
    jobs = tmp_path / "jobs.csv"
    jobs.write_text("\n".join(rows) + "\n")
    out = _json(capsys, ["spot", "simulate", "--workload", str(jobs), "--prices", str(trace), "--predictor", "empirical",
                         "--fit-days", "1", "--theta", "1", "--json"])
    assert out["synthetic_prices"] is False and "flat.csv" in out["prices"]
    by = {r["approach"]: r for r in out["approaches"]}
    # checkpoint of 100 MB: 62.83 + (134.22 - 62.83) * log2(vCPUs) / 4 MB/s (the paper's two speeds)
    ckpt = {2: 100 / 80.6775, 8: 100 / 116.3725, 16: 100 / 134.22}
    cheap = 4 * 0.04 * (60 + 30 * 120 + ckpt[2]) / 3600          # 4 jobs, start-up, 30 steps, final checkpoint
    fast = 4 * 0.48 * (60 + 30 * 15 + ckpt[16]) / 3600
    spot = 4 * 0.12 * (60 + 30 * 30 + ckpt[8]) / 3600            # every job on m4.2xlarge, one deployment
    assert by["single-cheapest"]["cost"] == pytest.approx(cheap, rel=1e-9)      # 0.16272
    assert by["single-fastest"]["cost"] == pytest.approx(fast, rel=1e-9)        # 0.27240
    assert by["spottune-1"]["cost"] == pytest.approx(spot, rel=1e-9)            # 0.12811
    assert by["spottune-1"]["jct_s"] == pytest.approx(60 + 900 + ckpt[8], rel=1e-9)
    assert all(r["refunded"] == 0 and r["steps_free"] == 0 for r in out["approaches"])     # flat: never revoked


def test_data_list(capsys):
    out = _json(capsys, ["spot", "data", "list", "--json"])
    assert "sklearn/mlp" in out["workloads"] and "cnn/t2.small-x8" in out["workloads"]
    assert out["data"][0]["status"].startswith(("found", "missing"))


@pytest.mark.parametrize("argv, message", [
    (["spot", "simulate", "--workload", "cnn/t2.nano-x1"], r"unknown job set\(s\) \['cnn/t2.nano-x1'\]"),
    (["spot", "simulate", "--workload", "vgg16"], "unknown workload 'vgg16'"),
    (["spot", "simulate", "--workload", "rnn/t2.xlarge-x4", "--k", "13"], "k=13 is larger than the job set"),
    (["spot", "simulate", "--workload", "rnn/t2.xlarge-x4", "--prices", "nope.csv"], "price trace 'nope.csv' does not exist"),
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


@pytest.mark.parametrize("argv, words", [
    (["spot", "sensitivity", "--bids", "-0.1"], "relative margin >= 0"),
    (["spot", "sensitivity", "--bids", "cheap"], "relative margin >= 0"),
    (["spot", "sensitivity", "--fractions", "1.5"], "(0, 1]"),
    (["spot", "sensitivity", "--fractions", "0"], "positive"),
    (["spot", "sensitivity", "--startups", "-5"], ">= 0"),
    (["spot", "sensitivity", "--model-mb", "big"], ">= 0"),
    (["spot", "simulate", "--workload", "rnn/t2.xlarge-x4", "--parallel-fraction", "1.2"], "(0, 1]"),
    (["spot", "simulate", "--workload", "rnn/t2.xlarge-x4", "--predictor", "oracle"], "invalid choice"),
])
def test_bad_spot_settings_are_one_line_exit_2(capsys, argv, words):
    try:
        rc = main(argv)
    except SystemExit as exc:      # argparse's own errors exit from the parser
        rc = exc.code
    assert rc == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("tt: error:") and "\n" not in err and words in err and "Traceback" not in err
