"""Numbers as ``tt optimize`` prints them (issue 35, item 9): micro-dollar costs with their significant digits
(once ``$0.0000``), whole-number columns of a user's CSV as whole numbers (once ``80.0``)."""

from __future__ import annotations

import re

import pandas as pd

from tt_workbook.cli import main
from tt_workbook.cli.optimize import readable
from tt_workbook.runs.summaries import money, plain


def _micro_csv(tmp_path) -> str:
    """A user's benchmark whose tests cost a few micro-dollars, with whole-number configuration columns."""
    rows = ["workers,batch,lr,size,accuracy,cost,time"]
    k = 0
    for w in (1, 2, 4, 8):
        for b in (16, 80, 256):
            for lr in (0.001, 0.01):
                for size in (100, 1000):
                    k += 1
                    rows.append(f"{w},{b},{lr},{size},{0.5 + 0.01 * k:.4f},{1e-6 + 1e-7 * k:.9f},{1 + k % 7}")
    p = tmp_path / "micro.csv"
    p.write_text("\n".join(rows) + "\n")
    return str(p)


def test_money_and_plain_keep_significant_digits():
    assert [money(v) for v in (4.2e-06, 3.85e-06, 0.0064, 0.1322, 25.43, 0)] == [
        "$0.0000042", "$0.00000385", "$0.0064", "$0.1322", "$25.4300", "$0"]
    assert [plain(v) for v in (80.0, 1.5e-09, -2.5e-05, float("inf"))] == ["80", "0.0000000015", "-0.000025", "n/a"]
    assert money(-2.5e-05) == "-$0.000025"


def test_readable_trajectory_columns():
    t = pd.DataFrame({"config_id": [3.0, 4.0], "incumbent": [float("nan"), 4.0], "cumulative_cost": [4.2e-06, 0.25],
                      "accuracy": [0.5, 0.75]})
    out = readable(t).to_string(index=False)
    assert "4.0" not in out and "3.0" not in out and "<NA>" in out
    assert "0.0000042" in out and "0.2500" in out and "0.75" in out


def test_optimize_on_a_micro_dollar_csv_prints_costs_and_whole_numbers(tmp_path, capsys):
    path = _micro_csv(tmp_path)
    assert main(["optimize", "--benchmark", path, "--optimizer", "random", "--seed", "1", "--iterations", "6",
                 "--max-cost", "0.000005"]) == 0
    out = capsys.readouterr().out
    sentence = out.strip().splitlines()[-1]
    assert "$0.0000 " not in sentence and "$0.0000." not in sentence and "e-0" not in out
    spent = re.search(r"6 tests for \$(0\.0000\d+)\. ", sentence)
    assert spent and float(spent.group(1)) > 0
    assert re.search(r"configuration \d+ \(workers=\d+, batch=\d+, lr=0\.0\d+\)", sentence), sentence
    assert "the cost limit $0.000005" in sentence and re.search(r"cost \$0\.00000\d+, ", sentence)
    table = out.split("\n\n")[0].splitlines()
    assert all(".0 " not in ln.split("  ", 1)[0] for ln in table[1:])
    cols = table[0].split()
    for ln in table[1:]:
        cells = dict(zip(cols, ln.split()))
        assert re.fullmatch(r"\d+", cells["config_id"]) and re.fullmatch(r"\d+", cells["size"])
        assert re.fullmatch(r"0\.00000\d+|0\.0000\d+", cells["cumulative_cost"]), cells
