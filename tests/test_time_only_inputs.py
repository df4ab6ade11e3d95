"""Inputs as they come: a generic file with training times but no cost column works for every optimiser (its
cost is the time at a stated price), and measured times under a millisecond are accepted (issue 37, item 3)."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import pytest

from conftest import assert_one_line_error, tt_cli
from tt_workbook.cli import main
from tt_core.data.benchmarks import TIME_PRICE_PER_HOUR, BenchmarkError, load_benchmark
from tt_core.replay.driver import run_optimization


def _table() -> pd.DataFrame:
    """12 configurations x 3 sizes; times of a few milliseconds, deterministic."""
    rng = np.random.default_rng(0)
    rows = []
    for d, lr, size in itertools.product([1, 2, 3, 4], [0.1, 0.01, 0.001], [100, 400, 1600]):
        acc = 0.5 + 0.1 * d * np.log10(size) / 4 - abs(np.log10(lr) + 2) / 10
        rows.append({"depth": d, "lr": lr, "size": size, "accuracy": round(acc, 4),
                     "time": round(size * d / 1000 * (1 + 0.1 * rng.random()), 5)})
    return pd.DataFrame(rows)


@pytest.fixture
def time_only(tmp_path):
    path = tmp_path / "times.csv"
    _table().to_csv(path, index=False)
    return path


def test_a_time_only_file_is_priced_at_the_stated_price(time_only):
    b = load_benchmark(time_only)
    t = b.table
    # 1 USD per hour: the cost of a 3.6 s run is one thousandth of a dollar
    np.testing.assert_array_equal(t["cost"], t["training_time"] * (1.0 / 3600.0))
    assert TIME_PRICE_PER_HOUR == 1.0 and b.cost_from_time == 1.0 and not b.price_stated
    assert "cost = training time x 1 USD per hour" in b.cost_note
    b2 = load_benchmark(time_only, price_per_hour=0.0464)
    row = b2.table.iloc[0]
    assert row["cost"] == pytest.approx(row["training_time"] * 0.0464 / 3600, rel=1e-15) and b2.price_stated


def test_a_price_for_a_file_with_costs_or_an_implausible_price_is_refused(tmp_path, time_only):
    with_cost = tmp_path / "costs.csv"
    _table().assign(cost=0.01).to_csv(with_cost, index=False)
    with pytest.raises(BenchmarkError, match="price_per_hour 2 given for a file with a cost column"):
        load_benchmark(with_cost, price_per_hour=2)
    for bad in (0, -1, float("nan"), "1", True, 1e9):
        with pytest.raises(BenchmarkError, match=r"price_per_hour must be a number of USD per hour"):
            load_benchmark(time_only, price_per_hour=bad)
    assert load_benchmark(with_cost).cost_from_time is None


@pytest.mark.slow
@pytest.mark.parametrize("optimizer", ["trimtuner-dt", "fabolas"])
def test_cost_aware_optimisers_run_on_a_time_only_file_and_the_price_moves_no_decision(time_only, tmp_path,
                                                                                       optimizer):
    # before: "every observation needs a positive cost to model it" after the first test. The same
    # measurements with an explicit cost column at another price (2 USD/h) must give the same tests and
    # recommendations: a common price scales every cost alike (a second, independent path to the answer)
    priced = tmp_path / "priced.csv"
    _table().assign(cost=lambda d: d["time"] * 2.0 / 3600).to_csv(priced, index=False)
    a = run_optimization(load_benchmark(time_only), optimizer, seed=1, iterations=8, max_time=4.0)
    b = run_optimization(load_benchmark(priced), optimizer, seed=1, iterations=8, max_time=4.0)
    assert len(a) == 8 and a["size"].lt(1600).any()  # it went past the initial design, sub-sampling
    cols = ["config_id", "size", "incumbent", "incumbent_size"]
    pd.testing.assert_frame_equal(a[cols], b[cols])
    np.testing.assert_allclose(a["cost"] * 2.0, b["cost"], rtol=1e-12)


def test_the_cli_states_where_the_costs_come_from(time_only, capsys):
    assert main(["optimize", "--benchmark", str(time_only), "--optimizer", "random", "--seed", "1",
                 "--iterations", "4", "--max-time", "4"]) == 0
    assert "no cost column; cost = training time x 1 USD per hour" in capsys.readouterr().out


def test_a_cost_limit_needs_a_stated_price(time_only, capsys):
    assert_one_line_error(*tt_cli(capsys, "optimize", "--benchmark", str(time_only), "--optimizer", "random",
                                  "--seed", "1", "--iterations", "2", "--max-cost", "0.001"),
                          "--max-cost 0.001", "has no cost column", "1 USD per hour, a default price",
                          "price_per_hour")
    # with the price stated the limit is in USD: 0.5 USD/h x 3.6 s = 0.0005 USD
    traj = run_optimization(load_benchmark(time_only, price_per_hour=0.5), "random", seed=1, iterations=12,
                            max_cost=0.0005)
    t = load_benchmark(time_only, price_per_hour=0.5).full_size()
    best = t.loc[t["training_time"] <= 3.6, "accuracy"].max()  # the affordable optimum: time <= 3.6 s
    assert traj["accuracy_c"].iloc[-1] == best


@pytest.mark.parametrize("seconds, ok", [(5.8e-5, True), (1e-6, True), (9e-7, False)])
def test_times_under_a_millisecond_are_measurements(tmp_path, capsys, seconds, ok):
    path = tmp_path / "fast.csv"
    path.write_text(f"lr,size,accuracy,time\n0.1,10,0.5,{seconds}\n0.2,10,0.6,0.002\n")
    if ok:
        assert load_benchmark(path).table["training_time"].min() == seconds
        return
    assert_one_line_error(*tt_cli(capsys, "feasibility", "--benchmark", str(path), "--max-cost", "1"), f"{path}, line 2, column 'time'", "outside the plausible range [1e-06",
                          "another unit")


def test_json_costs_of_a_time_only_file(time_only, capsys):
    assert main(["optimize", "--benchmark", str(time_only), "--optimizer", "random", "--seed", "1",
                 "--iterations", "4", "--max-time", "4", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert all(r["cost"] == pytest.approx(r["time"] / 3600, rel=1e-12) for r in rows)
