"""Post-2017 price histories (tt_spotsim.history): the aws-spot-price-history format as user files."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from conftest import assert_one_line_error, tt_cli
from tt_spotsim import history as H, market as M
from tt_spotsim.catalogue import SpotError

#: Flat prices (USD/h) and vCPUs per type; step times 240 s / vCPUs (as test_spot_cli's flat trace).
FLAT = {"r4.large": (0.04, 2), "r3.xlarge": (0.12, 4), "r4.xlarge": (0.10, 4), "m4.2xlarge": (0.12, 8),
        "r4.2xlarge": (0.20, 8), "m4.4xlarge": (0.48, 16)}


def _line(zone, t, price, when):
    return f"{zone}\t{t}\tLinux/UNIX\t{price:.6f}\t{when}\n"


def history(tmp_path, name="2023.tsv", months=("2023-02-01",), extra=""):
    """Four days from 2023-01-30: every type's price at the start, re-stated at each month start, one more
    line at the end; a second zone for r4.large with fewer lines; a Windows line (another system)."""
    lines = [_line("use1-az4", t, p, "2023-01-30T00:00:00+00:00") for t, (p, _) in FLAT.items()]
    lines.append(_line("use1-az6", "r4.large", 0.5, "2023-01-30T00:00:00+00:00"))
    lines.append("use1-az4\tr4.large\tWindows\t0.900000\t2023-01-30T00:00:00+00:00\n")
    lines.append(_line("use1-az4", "r4.large", 0.05, "2023-01-31T12:00:30+00:00"))
    for m in months:
        lines += [_line("use1-az4", t, (0.05 if t == "r4.large" else p), f"{m}T00:00:00+00:00")
                  for t, (p, _) in FLAT.items()]
    lines += [_line("use1-az4", t, (0.05 if t == "r4.large" else p), "2023-02-03T00:00:00+00:00") for t, (p, _) in FLAT.items()]
    path = tmp_path / name
    path.write_text("".join(lines) + extra)
    return path


def test_history_is_read_on_a_minute_grid_by_hand(tmp_path):
    path = history(tmp_path)
    assert H.is_history_file(path) and not H.is_history_file(tmp_path / "x.csv")
    trace = M.market(path)
    assert not trace.synthetic and H.HISTORY_SOURCE in trace.source and "r4.large use1-az4" in trace.source
    assert trace.start == pd.Timestamp("2023-01-30", tz="UTC")
    assert trace.n_minutes == 4 * 1440 + 1                       # to the last line's minute, inclusive
    p = trace.series("r4.large")
    change = 1440 + 12 * 60                                       # 2023-01-31 12:00:30: the minute after holds it
    assert np.all(p[:change + 1] == 0.04) and np.all(p[change + 1:] == 0.05)     # ffill: the 12:00 minute keeps 0.04
    assert np.all(trace.series("m4.4xlarge") == 0.48)


@pytest.mark.parametrize("case, needles", [
    ("gap", ["a gap", "2023-02-01 00:00 UTC", "a monthly file is missing"]),
    ("negative", ["line 3, field 4 (price): '-0.04'", "positive number"]),
    ("unsorted", ["line 4: time 2023-01-29T23:00:00+00:00 is earlier than the line before", "time order"]),
    ("columns", ["line 1: 6 tab-separated field(s) where a line has 5", "unknown columns"]),
    ("header", ["line 1: a header row or unknown columns"]),
    ("compressed", ["ZStandard-compressed", "zstd -d"]),
    ("billing", ["--billing aws-today"]),
])
def test_bad_histories_give_one_line_and_exit_2(tmp_path, capsys, case, needles):
    jobs = tmp_path / "jobs.csv"
    jobs.write_text("setting,step,metric,seconds\n" + "".join(f"s0,{k},{1 / k:.4f},60\n" for k in range(1, 11)))
    billing = "aws-today"
    if case == "gap":
        path = history(tmp_path, months=())            # January, then 2023-02-03 without the February re-statement
    elif case == "billing":
        path, billing = history(tmp_path), "paper"
    else:
        good = history(tmp_path).read_text().splitlines(keepends=True)
        if case == "negative":
            good[2] = good[2].replace("0.100000", "-0.04")
        elif case == "unsorted":
            good[3] = good[3].replace("2023-01-30T00:00:00", "2023-01-29T23:00:00")
        elif case == "columns":
            good = [ln.rstrip("\n") + "\textra\n" for ln in good]
        elif case == "header":
            good.insert(0, "AvailabilityZoneId\tInstanceType\tProductDescription\tSpotPrice\tTimestamp\n")
        path = tmp_path / ("2023-02.tsv.zst" if case == "compressed" else "bad.tsv")
        path.write_bytes(b"\x28\xb5\x2f\xfd" + b"\x00" * 20 if case == "compressed" else "".join(good).encode())
    code, err = tt_cli(capsys, "spot", "simulate", "--workload", str(jobs), "--prices", str(path), "--billing", billing,
                       "--predictor", "empirical", "--fit-days", "1")
    assert_one_line_error(code, err, *needles)


def test_missing_types_and_files_are_named(tmp_path):
    path = tmp_path / "few.tsv"
    path.write_text(_line("use1-az4", "r4.large", 0.04, "2023-01-30T00:00:00+00:00"))
    with pytest.raises(SpotError, match=r"no lines for type\(s\) \['r3.xlarge'"):
        H.read_history(path)
    assert len(H.read_history(path, types=["r4.large"])) == 1
    with pytest.raises(SpotError, match=r"price history '.*nowhere.tsv' does not exist"):
        H.read_history(tmp_path / "nowhere.tsv")


def test_simulate_on_a_history_with_todays_rules_by_hand(tmp_path, capsys):
    """Baselines on a flat-priced history: per-second charges computed by hand (r4.large at 0.04 USD/h until
    2023-01-31 12:00, 0.05 after; the run starts at the submission time the simulator draws)."""
    path = history(tmp_path)
    rows = ["setting,step,metric," + ",".join(f"seconds_{t}" for t in FLAT)]
    rows += [f"s{s},{k},{1 / k + 0.1 * s:.6f}," + ",".join(str(240 // v) for _, v in FLAT.values())
             for s in range(4) for k in range(1, 11)]
    jobs = tmp_path / "jobs.csv"
    jobs.write_text("\n".join(rows) + "\n")
    from tt_workbook.cli import main

    code = main(["spot", "simulate", "--workload", str(jobs), "--prices", str(path), "--billing", "aws-today",
                 "--predictor", "empirical", "--fit-days", "1", "--theta", "1", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["billing"] == "aws-today" and out["synthetic_prices"] is False
    by = {r["approach"]: r for r in out["approaches"]}
    ckpt16 = 100 / 134.22                                  # final checkpoint of 100 MB on 16 vCPUs
    fast = 4 * 0.48 * (60 + 10 * 15 + ckpt16) / 3600       # 4 jobs, start-up, 10 steps of 15 s
    assert by["single-fastest"]["cost"] == pytest.approx(fast, rel=1e-9)
    assert by["single-fastest"]["refunded"] == 0
