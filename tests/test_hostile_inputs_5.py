"""Hostile and careless inputs, round 3, SpotTune's side (issue 34): price traces and histories with implausible
dates, spans and prices, blank lines, quotes and mixed timestamps; options that do not apply or are empty; job-set
CSVs outside their ranges; archives of many tiny members.

Each case ends in one line ``tt: error: ...`` naming the file and line (as a text editor counts them) or the
option, the bound and the fix, with exit code 2, or in the correct result computed by hand."""

from __future__ import annotations

import io
import tarfile
import zipfile

import numpy as np
import pandas as pd
import pytest

from conftest import assert_one_line_error, tt_cli
from tt_spotsim import market as M, traces as T
from tt_spotsim.catalogue import CATALOGUE, SpotError

TYPES = list(CATALOGUE)
SIMULATE = ("spot", "simulate", "--workload", "cnn/t2.small-x8", "--seed", "1")


def _kaggle(path, extra=(), blank_after: int | None = None):
    """A 2017-format trace: every type at 0.03 USD/h at 2017-04-26 00:00 (lines 1-6), then ``extra`` lines;
    ``blank_after`` puts two blank lines after that line."""
    rows = [f"2017-04-26 00:00:00+00:00,{t},Linux/UNIX,us-east-1a,0.03" for t in TYPES] + list(extra)
    if blank_after is not None:
        rows[blank_after:blank_after] = ["", "   "]
    path.write_text("\n".join(rows) + "\n")
    return path


def _history(path, months: int, extra=(), start="2023-01-01"):
    """A post-2017 history: every type re-stated at 00:00 UTC on the 1st of ``months`` months, then ``extra``."""
    lines = [f"use1-az4\t{t}\tLinux/UNIX\t0.040000\t{m:%Y-%m-%d}T00:00:00+00:00"
             for m in pd.date_range(start, periods=months, freq="MS") for t in TYPES]
    path.write_text("\n".join(lines + list(extra)) + "\n")
    return path


# ======================================================================== implausible dates and spans
def test_a_trace_timestamp_in_1677_is_refused_at_its_line(tmp_path, capsys):
    """Once a 1-minute grid over 340 years (killed for memory); now the line, the value and the bound."""
    p = _kaggle(tmp_path / "old.csv", ["1677-09-22 00:00:00+00:00,r4.large,Linux/UNIX,us-east-1a,0.04"])
    code, err = tt_cli(capsys, *SIMULATE, "--prices", str(p))
    assert_one_line_error(code, err, f"{p}, line 7, column 1 (Timestamp): 1677-09-22 00:00:00",
                          "before EC2 spot instances existed (2009-12-14, SPOT_SINCE)")


def test_a_twenty_year_history_is_refused_at_the_line_that_passes_the_bound(tmp_path, capsys):
    """94 KB, 240 monthly re-statements: once a 20-year grid (1.34 GB RSS). Month 13 (2024-01-01, line 12 x 6 + 1
    = 73) is 365 days after the first line, month 14 (line 79) 396 days: the first beyond MAX_TRACE_DAYS."""
    p = _history(tmp_path / "h20.tsv", 240)
    code, err = tt_cli(capsys, *SIMULATE, "--prices", str(p), "--billing", "aws-today")
    assert_one_line_error(code, err, f"{p}, line 79, field 5 (time): 2024-02-01 00:00:00",
                          "span 396 days, more than the 366 days a price file may span (MAX_TRACE_DAYS)",
                          "give the months you simulate")
    assert (pd.Timestamp("2024-01-01") - pd.Timestamp("2023-01-01")).days == 365 <= T.MAX_TRACE_DAYS
    trace = M.market(_history(tmp_path / "h13.tsv", 13), resampling="ffill")   # 365 days: within the bound
    assert trace.n_minutes == 365 * 1440 + 1 and np.all(trace.series("m4.4xlarge") == 0.04)


def test_an_unsorted_trace_span_is_judged_from_its_earliest_and_latest_lines(tmp_path):
    """The 2017 format has no order: a line a year before the first, then one after it, passes the bound."""
    p = _kaggle(tmp_path / "span.csv", ["2016-06-01 00:00:00+00:00,r4.large,Linux/UNIX,us-east-1a,0.03",
                                        "2017-05-01 00:00:00+00:00,r4.large,Linux/UNIX,us-east-1a,0.03",
                                        "2017-06-05 00:00:00+00:00,r4.large,Linux/UNIX,us-east-1a,0.03"])
    with pytest.warns(UserWarning), pytest.raises(SpotError, match=r"span\.csv, line 9, .*2017-06-05 00:00:00 makes "
                                                                   r"the file span 369 days"):
        T.load_trace(p, types=["r4.large"])


# ======================================================================== prices
@pytest.mark.parametrize("value", ["1e308", "1e300", "1000.5"])
def test_an_implausible_price_is_refused_with_file_line_value_and_range(tmp_path, capsys, value):
    """1e308 USD/h once gave a cost of $0.00 with overflow warnings, 1e300 a cost of 7.3e299."""
    p = _kaggle(tmp_path / "big.csv", [f"2017-05-08 00:00:00+00:00,r4.large,Linux/UNIX,us-east-1a,{value}"])
    code, err = tt_cli(capsys, *SIMULATE, "--prices", str(p))
    assert_one_line_error(code, err, f"{p}, line 7, column 5 (SpotPrice): {value} USD per hour is outside the "
                          "plausible range of a spot price (0, 1000] (MAX_PRICE")
    h = _history(tmp_path / "big.tsv", 2, [f"use1-az4\tr4.large\tLinux/UNIX\t{value}\t2023-02-02T00:00:00+00:00"])
    code, err = tt_cli(capsys, *SIMULATE, "--prices", str(h), "--billing", "aws-today")
    assert_one_line_error(code, err, f"{h}, line 13, field 4 (price): {value} USD per hour is outside", "MAX_PRICE")


def test_the_top_of_the_price_range_is_accepted_and_a_trace_above_it_refused(tmp_path):
    p = _kaggle(tmp_path / "top.csv", ["2017-04-26 00:01:00+00:00,r4.large,Linux/UNIX,us-east-1a,1000"])
    with pytest.warns(UserWarning):
        trace = T.load_trace(p, types=["r4.large"])
    assert trace.series("r4.large").tolist() == [0.03, 1000.0]
    assert trace.cost("r4.large", 0.0, 120.0) == pytest.approx((0.03 + 1000.0) / 60)
    with pytest.raises(SpotError, match=r"price of 1001 USD per hour, outside the plausible range \(0, 1000\]"):
        T.PriceTrace(T.TRACE_START, {"r4.large": np.array([0.03, 1001.0])})


# ======================================================================== line numbers, quotes, timestamps
def test_trace_lines_count_blank_lines(tmp_path, capsys):
    """Two blank lines after line 2: the bad price on the 7th record is on line 9."""
    p = _kaggle(tmp_path / "blank.csv", ["2017-04-26 00:05:00+00:00,r4.large,Linux/UNIX,us-east-1a,abc"],
                blank_after=2)
    code, err = tt_cli(capsys, *SIMULATE, "--prices", str(p))
    assert_one_line_error(code, err, f"{p}, line 9, column 5 (SpotPrice): 'abc' is not a positive number")


def test_history_lines_count_blank_lines(tmp_path, capsys):
    h = _history(tmp_path / "blank.tsv", 2, ["", "", "use1-az4\tr4.large\tLinux/UNIX\t-0.04\t2023-02-02T00:00:00+00:00"])
    code, err = tt_cli(capsys, *SIMULATE, "--prices", str(h), "--billing", "aws-today")
    assert_one_line_error(code, err, f"{h}, line 15, field 4 (price): '-0.04'")


def test_a_quote_in_a_history_names_its_line(tmp_path, capsys):
    """Once "row 2" (pandas' count of rows from 0) for the quote on line 3, and lines joined up to the next quote."""
    h = tmp_path / "q.tsv"
    h.write_text("use1-az4\tr4.large\tLinux/UNIX\t0.040000\t2023-01-01T00:00:00+00:00\n"
                 "use1-az4\tr4.large\tLinux/UNIX\t0.040000\t2023-01-01T00:01:00+00:00\n"
                 'use1-az4\t"r4.large\tLinux/UNIX\t0.040000\t2023-01-01T00:02:00+00:00\n'
                 "use1-az4\tr4.large\tLinux/UNIX\t0.040000\t2023-01-01T00:03:00+00:00\n")
    code, err = tt_cli(capsys, *SIMULATE, "--prices", str(h), "--billing", "aws-today")
    assert_one_line_error(code, err, f"{h}, line 3, field 2: a quote character", "no quoted fields")


def test_a_quote_in_a_trace_names_its_line(tmp_path, capsys):
    p = _kaggle(tmp_path / "q.csv", ['2017-04-27 00:00:00+00:00,"r4.large,Linux/UNIX,us-east-1a,0.05'])
    code, err = tt_cli(capsys, *SIMULATE, "--prices", str(p))
    assert_one_line_error(code, err, f"{p}, line 7, field 2: a quote character")


def test_mixed_timestamps_iso_ones_are_read_and_another_format_named_at_its_line(tmp_path, capsys):
    """ISO 8601 spellings of one format mix (read by hand below); a US date was a 5-line pandas message."""
    p = _kaggle(tmp_path / "iso.csv", ["2017-04-26T00:02:00Z,r4.large,Linux/UNIX,us-east-1a,0.04",
                                       "2017-04-26 01:03:30+01:00,r4.large,Linux/UNIX,us-east-1a,0.05"])
    with pytest.warns(UserWarning):
        trace = T.load_trace(p, types=["r4.large"])
    # 00:00 0.03, 00:02 0.04, 00:03:30 UTC 0.05 (01:03:30 at +01:00): minutes 0-3 by the last price at their start
    assert trace.series("r4.large").tolist() == [0.03, 0.03, 0.04, 0.04]
    bad = _kaggle(tmp_path / "us.csv", ["2017-04-26T00:02:00Z,r4.large,Linux/UNIX,us-east-1a,0.04",
                                        "04/28/2017 01:00,r4.large,Linux/UNIX,us-east-1a,0.05"])
    code, err = tt_cli(capsys, *SIMULATE, "--prices", str(bad))
    assert_one_line_error(code, err, f"{bad}, line 8, column 1 (Timestamp): '04/28/2017 01:00' is not an ISO date")


# ======================================================================== options
@pytest.mark.parametrize("argv, needles", [
    ((*SIMULATE, "--resampling", "interpolate"), ["--resampling interpolate applies to a price file",
                                                  "leave --resampling out"]),
    (("spot", "predictors", "--resampling", "ffill"), ["--resampling ffill applies to a price file"]),
    ((*SIMULATE, "--market-days", "1e-5"), ["--market-days must lie between one minute", "3650 days (MAX_MARKET_DAYS)"]),
    ((*SIMULATE, "--market-days", "5000"), ["--market-days must lie between", "got '5000'"]),
    ((*SIMULATE, "--prices", ""), ["--prices is empty; give a value, e.g. --prices synthetic"]),
    (("spot", "simulate", "--workload", ""), ["--workload is empty; give a value, e.g. --workload cnn/t2.small-x8"]),
    (("spot", "predictors", "--prices", " "), ["--prices is empty"]),
    (("spot", "sensitivity", "--prices", ""), ["--prices is empty"]),
])
def test_spot_options_that_do_not_apply_out_of_range_or_empty(argv, needles, capsys):
    code, err = tt_cli(capsys, *argv)
    assert_one_line_error(code, err, *needles)


def test_market_days_with_a_price_file_is_refused(tmp_path, capsys):
    p = _kaggle(tmp_path / "t.csv")
    code, err = tt_cli(capsys, *SIMULATE, "--prices", str(p), "--market-days", "20")
    assert_one_line_error(code, err, "--market-days 20 sets the length of a synthetic market", "leave --market-days out")


def test_the_library_names_an_empty_price_source_and_a_too_short_market():
    with pytest.raises(SpotError, match="the price source is empty"):
        M.market("")
    with pytest.raises(SpotError, match=r"a synthetic market lasts from one minute to 3650 days"):
        M.synthetic_market(1, days=1e-5)             # once an IndexError on a market of zero minutes


# ======================================================================== job-set CSVs
def _jobs(path, rows, blank_after: int | None = None):
    lines = ["setting,step,metric,seconds"] + rows
    if blank_after is not None:
        lines[blank_after:blank_after] = ["", " "]
    path.write_text("\n".join(lines) + "\n")
    return path


GOOD = [f"{s},{k},{1 / k:.3f},30" for s in "abc" for k in range(1, 4)]


@pytest.mark.parametrize("row, needles", [
    ("c,4,0.25,1e308", ["column 'seconds': 1e+308 is outside the plausible range [1e-06, 604800] s of seconds per step"]),
    ("c,4,1e200,30", ["column 'metric': 1e+200 is outside the plausible range [0, 1e+100]"]),
    ("c,100001,0.2,30", ["column 'step': 100001 is outside the plausible range [1, 100000] of a step number"]),
    ("c,4.5,0.2,30", ["column 'step': 4.5 is outside"]),
])
def test_a_job_set_csv_outside_its_ranges_names_line_and_range(tmp_path, capsys, row, needles):
    """Blank lines after line 3: the bad row (the 11th of the file's rows) is on line 13."""
    p = _jobs(tmp_path / "jobs.csv", GOOD + [row], blank_after=3)
    code, err = tt_cli(capsys, "spot", "simulate", "--workload", str(p), "--seed", "1")
    assert_one_line_error(code, err, f"{p}, line 13, ", "JOB_CSV_RANGES", *needles)


def test_a_job_set_csv_with_a_quoted_setting_over_two_lines_counts_lines(tmp_path):
    from tt_core.data.io import csv_row_lines
    from tt_spotsim.workloads import read_job_csv

    p = tmp_path / "q.csv"
    p.write_text('setting,step,metric,seconds\n\n"a\nlr=0.1",1,1.0,30\n"a\nlr=0.1",2,-1,30\n')
    assert csv_row_lines(p) == [3, 5]
    with pytest.raises(SpotError, match=r"q\.csv, line 5, column 'metric': -1"):
        read_job_csv(p)


# ======================================================================== archives of many tiny members
def test_a_checkpoint_of_many_tiny_members_is_refused_from_its_directory(tmp_path):
    """100,000 empty members took 7 s of CPU to check and load; past MAX_MEMBERS it is refused on its directory."""
    from tt_workbook.runs import checkpoint as C

    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.zeros(0, np.uint8))
    path = tmp_path / "many.npz"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        for i in range(C.MAX_MEMBERS + 1):
            z.writestr(f"a{i}.npy", buf.getvalue())
    with pytest.raises(C.CheckpointError, match=f"it holds {C.MAX_MEMBERS + 1} members, more than the "
                                                f"{C.MAX_MEMBERS} arrays a checkpoint may hold"):
        C.read(path)


def test_an_authors_archive_of_many_tiny_members_is_refused(tmp_path):
    from tt_workbook.authors import fetch as A

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as t:
        for i in range(A.MAX_MEMBERS + 1):
            info = tarfile.TarInfo(f"top/f{i}")
            t.addfile(info, io.BytesIO(b""))
    with pytest.raises(A.AuthorsError, match=f"refused, it holds more than {A.MAX_MEMBERS} members"):
        A._members(buf.getvalue(), "file:///many.tar.gz")



# ======================================================================== benchmark CSVs: the editor's line
# Every file below is written byte for byte; the comment beside each line is its number as an editor shows it.
# Before, the loader named row i as line i + 2 (blank lines and lines inside a quoted field not counted).
_HEADER = "lr,size,accuracy,cost"
_BENCH_CASES = {
    "two blank lines before the bad row": (
        [_HEADER,                  # 1
         "",                       # 2
         "",                       # 3
         "0.1,10,0.8,1.0",         # 4
         "0.1,20,1.8,1.0",         # 5  accuracy 1.8 (the case: was named line 3)
         "0.2,10,0.8,1.0",         # 6
         "0.2,20,0.8,1.0"],        # 7
        "\n", "5,", ["column 'accuracy': accuracy 1.8 must lie in [0, 1]"]),
    "a quoted field over two lines": (
        [_HEADER + ",note",        # 1
         '0.1,10,0.8,1.0,"two',    # 2
         'lines"',                 # 3  (the same row)
         "0.1,20,0.8,-1,x",        # 4  cost -1 (was named line 3)
         "0.2,10,0.8,1.0,x",       # 5
         "0.2,20,0.8,1.0,x"],      # 6
        "\n", "4,", ["column 'cost': -1 must be > 0"]),
    "CRLF line endings and blank lines": (
        [_HEADER,                  # 1
         "",                       # 2
         "0.1,10,0.8,1.0",         # 3
         "",                       # 4
         "0.1,20,0.8,1.0",         # 5
         "0.2,10,abc,1.0",         # 6  not a number (was named line 4)
         "0.2,20,0.8,1.0"],        # 7
        "\r\n", "6,", ["column 'accuracy': 'abc' is not a finite number"]),
    "blank and whitespace-only lines before the header": (
        ["",                       # 1
         "   ",                    # 2
         _HEADER,                  # 3
         "0.1,10,0.8,1.0",         # 4
         "0.1,20,0.8,1e12"],       # 5  cost outside its range (was named line 3)
        "\n", "5,", ["column 'cost': 1e12 is outside the plausible range [1e-12, 1e+09]"]),
    "a row of too many fields after a quoted field over two lines": (
        [_HEADER + ",note",        # 1
         '0.1,10,0.8,1.0,"two',    # 2
         'lines"',                 # 3
         "0.1,20,0.8,1.0,x,y"],    # 4  six fields (pandas' line 3)
        "\n", "4:", ["6 fields where the header has 5"]),
    "an unclosed quote after a quoted field over three lines": (
        [_HEADER + ",note",        # 1
         '0.1,10,0.8,1.0,"a',      # 2
         "b",                      # 3
         'c"',                     # 4
         "",                       # 5
         '0.1,20,0.8,1.0,"x',      # 6  the quote never closes (pandas' row 4 gave line 5)
         "0.2,10,0.8,1.0,y"],      # 7
        "\n", "6:", ["a quoted field is never closed"]),
    "a duplicate row across blank lines and CRLF": (
        [_HEADER,                  # 1
         "",                       # 2
         "0.1,10,0.8,1.0",         # 3
         "0.1,20,0.8,1.0",         # 4
         "",                       # 5
         "",                       # 6
         "0.1,10,0.7,2.0"],        # 7  same configuration and size as line 3
        "\r\n", None, ["duplicate (configuration, size) rows at lines [3, 7]"]),
}


@pytest.mark.parametrize("case", list(_BENCH_CASES))
def test_a_benchmark_csv_names_the_editors_line(tmp_path, capsys, case):
    lines, newline, line, needles = _BENCH_CASES[case]
    p = tmp_path / "bench.csv"
    p.write_bytes((newline.join(lines) + newline).encode())
    code, err = tt_cli(capsys, "optimize", "--benchmark", str(p), "--optimizer", "random", "--seed", "1",
                       "--iterations", "2")
    where = f"{p}, line {line} " if line is not None else f"{p}: "  # line: its number and what follows
    assert_one_line_error(code, err, where, *needles)


def test_a_trimtuner_curve_names_the_editors_line(tmp_path, capsys):
    """The TrimTuner format: a bad learning curve on line 5, after a blank line and a row whose curve is quoted over
    two lines (the loader named it line 3)."""
    head = "n_workers,learning_rate,batch_size,synchronism,training_time,acc,vm_flavor,training_set_size," \
           "intermediate_acc_values"
    row = "8,0.001,256,async,10.0,0.9,t2.small,{size},{curve}"
    text = "\n".join([head,                                            # 1
                      row.format(size=1000, curve='"0.1 0.2'),          # 2
                      '0.3"',                                           # 3  (the same row)
                      "",                                               # 4
                      row.format(size=60000, curve="0.1 oops")]) + "\n"  # 5
    p = tmp_path / "tt.csv"
    p.write_text(text)
    code, err = tt_cli(capsys, "optimize", "--benchmark", str(p), "--optimizer", "random", "--seed", "1",
                       "--iterations", "2")
    assert_one_line_error(code, err, f"{p}, line 5, column 'intermediate_acc_values': '0.1 oops' is not a "
                          "space-separated list of numbers")


def test_csv_row_lines_skips_blank_lines_before_the_header(tmp_path):
    from tt_core.data.io import csv_row_lines

    p = tmp_path / "h.csv"
    p.write_bytes(b"\r\n \r\na,b\r\n1,2\r\n\r\n\"3\r\n4\",5\r\n6,7\r\n")  # header on line 3; rows on 4, 6 (to 7), 8
    assert csv_row_lines(p) == [4, 6, 8]
    assert len(pd.read_csv(p)) == 3


def test_optimize_refuses_beta_with_no_filter(capsys):
    """``--filter none`` keeps every candidate, so a ``--beta`` beside it would be silently ignored: refused."""
    from tt_workbook.cli import main

    code = main(["optimize", "--benchmark", "rnn", "--optimizer", "trimtuner-dt", "--filter", "none", "--beta", "0.2",
                 "--seed", "1", "--iterations", "5"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert "--beta does not apply with --filter none" in err[0] and "leave --beta out" in err[0]
