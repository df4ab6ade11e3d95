"""Data layer: loading, validation messages, cost model, lookup order, fetch."""

from __future__ import annotations

import hashlib
import itertools
import os

import numpy as np
import pandas as pd
import pytest

from tt_core.data import benchmarks as bm
from tt_core.data.benchmarks import BenchmarkError, benchmark_from_table, load_benchmark
from tt_core.data.cost_model import AWS_T2_PRICES, CostModel

HEADER = bm.TRIMTUNER_COLUMNS


def _row(vm="t2.small", n=8, lr="0.001", bs=16, sync="async", size=1000, acc=0.5, t=60.0, curve="0.1 0.2"):
    values = {c: "x" for c in HEADER}
    values.update({
        "n_workers": str(n), "learning_rate": lr, "batch_size": str(bs), "synchronism": sync,
        "training_time": str(t), "acc": str(acc), "vm_flavor": vm, "training_set_size": str(size),
        "n_ps": "1", "intermediate_acc_values": curve, "iterations_counted": "3", "total_iterations": "3",
    })
    return values


def _tiny_rows():
    rows = []
    for (vm, n), size in itertools.product([("t2.small", 8), ("t2.2xlarge", 2)], [1000, 60000]):
        rows.append(_row(vm=vm, n=n, size=size, acc=0.3 if size == 1000 else 0.9, t=size / 100))
    return rows


def _write(tmp_path, rows, name="tiny.csv", header=HEADER):
    path = tmp_path / name
    pd.DataFrame(rows, columns=header).to_csv(path, index=False)
    return path


def test_tiny_trimtuner_file_loads_with_known_costs(tmp_path):
    b = load_benchmark(_write(tmp_path, _tiny_rows()))
    assert b.sizes == (1000, 60000) and b.n_configs == 2
    assert list(b.table.columns[:7]) == ["config_id", "vm_flavor", "n_workers", "learning_rate", "batch_size", "sync", "n_ps"]
    row = b.lookup(b.table.query("vm_flavor == 't2.small'").config_id.iloc[0], 60000)
    # authors' formula by hand: ((8 + 1) * 0.023 / 60 + 0.3712 / 60) * (600 / 60)
    assert row.cost == pytest.approx(((9 * 0.023) / 60 + 0.3712 / 60) * 10.0, rel=1e-12)
    assert row.s == 1.0 and b.full_size().s.eq(1.0).all()
    np.testing.assert_allclose(row.curve, [0.1, 0.2])


@pytest.mark.parametrize(
    "mutate, expected",
    [
        (lambda r: r[1].update(acc="abc"), r"line 3, column 'acc': 'abc' is not a finite number"),
        (lambda r: r[2].update(training_time=""), r"line 4, column 'training_time': empty value"),
        (lambda r: r[0].update(acc="nan"), r"line 2, column 'acc': 'nan' is not a finite number"),
        (lambda r: r[3].update(vm_flavor="m5.large"), r"line 5, column 'vm_flavor': unknown VM flavour 'm5.large'"),
        (lambda r: r[1].update(synchronism="semi"), r"line 3, column 'synchronism'"),
        (lambda r: r[0].update(acc="87"), r"line 2, column 'acc': accuracy 87 must lie in \[0, 1\]"),
        (lambda r: r[2].update(n_workers="2.5"), r"line 4, column 'n_workers': 2.5 must be a whole number"),
        (lambda r: r[3].update(intermediate_acc_values="0.1 zz"), r"line 5, column 'intermediate_acc_values'"),
    ],
)
def test_malformed_cells_name_line_and_column(tmp_path, mutate, expected):
    rows = _tiny_rows()
    mutate(rows)
    with pytest.raises(BenchmarkError, match=expected) as info:
        load_benchmark(_write(tmp_path, rows))
    assert "tiny.csv" in str(info.value)


def test_missing_and_unknown_columns(tmp_path):
    header = [c for c in HEADER if c != "acc"]
    rows = [{k: v for k, v in r.items() if k != "acc"} for r in _tiny_rows()]
    with pytest.raises(BenchmarkError, match=r"missing column\(s\) \['acc'\]"):
        load_benchmark(_write(tmp_path, rows, header=header))
    rows = [dict(r, gpu="none") for r in _tiny_rows()]
    path = _write(tmp_path, rows, header=HEADER + ["gpu"])
    with pytest.raises(BenchmarkError, match=r"unknown column\(s\) \['gpu'\].*extra_columns='ignore'"):
        load_benchmark(path)
    assert load_benchmark(path, extra_columns="ignore").n_configs == 2


def test_duplicate_rows_name_both_lines(tmp_path):
    rows = _tiny_rows()
    rows.append(dict(rows[1]))
    with pytest.raises(BenchmarkError, match=r"duplicate \(configuration, size\) rows at lines \[3, 6\]"):
        load_benchmark(_write(tmp_path, rows))


def test_configuration_missing_a_size(tmp_path):
    rows = _tiny_rows()[:-1]
    with pytest.raises(BenchmarkError, match=r"lacks size\(s\) \[60000\]"):
        load_benchmark(_write(tmp_path, rows))


def test_empty_files(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(BenchmarkError, match="the file is empty"):
        load_benchmark(empty)
    header_only = tmp_path / "header.csv"
    header_only.write_text(",".join(HEADER) + "\n")
    with pytest.raises(BenchmarkError, match="header but no data rows"):
        load_benchmark(header_only)


def test_unknown_benchmark_and_unknown_format(tmp_path):
    with pytest.raises(BenchmarkError, match=r"neither a registered benchmark \(\['cnn', 'mlp', 'rnn'\]\)"):
        load_benchmark("vgg")
    odd = tmp_path / "odd.csv"
    odd.write_text("a,b\n1,2\n")
    with pytest.raises(BenchmarkError, match="matches no known format"):
        load_benchmark(odd)


def test_mlp_is_listed_as_not_public():
    with pytest.raises(BenchmarkError, match="data not public"):
        load_benchmark("mlp")
    listing = bm.list_benchmarks().set_index("benchmark")
    assert listing.loc["mlp", "status"] == "data not public"


def test_generic_format_round_trip(tmp_path):
    rows = [
        {"optimizer": opt, "lr": lr, "size": size, "accuracy": 0.5 + lr * size / 1e4, "time": size / 10.0}
        for opt, lr, size in itertools.product(["adam", "sgd"], [0.1, 0.01], [100, 1000])
    ]
    path = tmp_path / "mine.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    b = load_benchmark(path, max_time=50.0)
    assert b.config_columns == ("optimizer", "lr") and b.sizes == (100, 1000) and b.n_configs == 4
    # no cost column: cost = time at the stated default price, 1 USD per hour (issue 37)
    assert b.max_time == 50.0 and b.cost_from_time == 1.0 and (b.table.cost == b.table.training_time / 3600).all()
    merged = b.table.merge(pd.DataFrame(rows), on=["optimizer", "lr", "size"], suffixes=("", "_in"))
    np.testing.assert_allclose(merged.accuracy, merged.accuracy_in)
    np.testing.assert_allclose(merged.training_time, merged.time)
    b2 = benchmark_from_table(pd.DataFrame(rows), ["optimizer", "lr"])
    pd.testing.assert_frame_equal(b.table, b2.table)


def test_generic_format_errors(tmp_path):
    path = tmp_path / "bad.csv"
    pd.DataFrame({"lr": [0.1], "size": [10], "accuracy": [0.5]}).to_csv(path, index=False)
    with pytest.raises(BenchmarkError, match="needs a 'cost' and/or a 'time' column"):
        load_benchmark(path)
    with pytest.raises(BenchmarkError, match=r"configuration column\(s\) \['depth'\] not in the header"):
        benchmark_from_table(pd.DataFrame({"lr": [0.1], "size": [10], "accuracy": [0.5], "cost": [1.0]}), ["depth"])


def test_cost_model_custom_prices_and_errors():
    cm = CostModel(prices={"a": 1.0, "b": 2.0}, ps_flavor="b")
    # 3 workers + 1 ps at price 1.0, plus the ps machine at 2.0, for 1800 s = 0.5 h
    assert cm.cost(["a"], [3], [1800.0])[0] == pytest.approx((4 * 1.0 + 2.0) * 0.5)
    assert CostModel(prices={"a": 1.0}, ps_flavor=None, bill_ps_as_worker=False).cost(["a"], [3], [3600])[0] == 3.0
    with pytest.raises(ValueError, match=r"unknown VM flavour\(s\) \['z'\]"):
        cm.cost(["z"], [1], [1.0])
    with pytest.raises(ValueError, match="has no price"):
        CostModel(prices={"a": 1.0}, ps_flavor="t2.2xlarge")
    with pytest.raises(ValueError, match="finite number >= 0"):
        CostModel(prices={"a": -1.0}, ps_flavor=None)


def test_real_data_costs_follow_the_authors_formula():
    for name in ("cnn", "rnn"):
        b = load_benchmark(name)
        t = b.table
        assert len(t) == 1440 and b.n_configs == 288 and b.sizes == (1000, 6000, 15000, 30000, 60000)
        price = t.vm_flavor.map(AWS_T2_PRICES)
        expected = ((t.n_workers + t.n_ps) * price / 60 + 0.3712 / 60) * (t.training_time / 60)
        np.testing.assert_allclose(t.cost, expected, rtol=1e-12)
        assert t.groupby("config_id").size().eq(5).all()
        assert t.accuracy.between(0, 1).all()


def test_lookup_order_env_then_cache_then_shared(tmp_path, monkeypatch):
    found, _ = bm.locate("cnn")  # wherever it is on this machine: copied into a shared folder of the test's own
    shared = tmp_path / "shared"
    (shared / "trimtuner").mkdir(parents=True)
    shared_path = shared / "trimtuner" / "cnn.csv"
    shared_path.write_bytes(found.read_bytes())
    monkeypatch.setattr(bm, "shared_data_dir", lambda: shared)
    monkeypatch.setattr(bm, "cache_dir", lambda: tmp_path / "cache")
    monkeypatch.delenv("TT_DATA_DIR", raising=False)
    assert bm.locate("cnn") == (shared_path, "shared")
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "cnn.csv").write_bytes(shared_path.read_bytes())
    assert bm.locate("cnn") == (tmp_path / "cache" / "cnn.csv", "cache")
    env = tmp_path / "env"
    env.mkdir()
    (env / "cnn.csv").write_bytes(shared_path.read_bytes())
    monkeypatch.setenv("TT_DATA_DIR", str(env))
    assert bm.locate("cnn") == (env / "cnn.csv", "TT_DATA_DIR")


def test_missing_file_message_says_how_to_get_it(tmp_path, monkeypatch):
    monkeypatch.setattr(bm, "search_dirs", lambda: [("cache", tmp_path)])
    with pytest.raises(BenchmarkError, match=r"tt data fetch rnn"):
        bm.locate("rnn")


class _FakeResponse:
    headers = {}

    def __init__(self, payload):
        self.payload = payload

    def read(self, n=-1):
        n = len(self.payload) if n < 0 else n
        out, self.payload = self.payload[:n], self.payload[n:]
        return out

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_fetch_verifies_checksum_and_writes_atomically(tmp_path, monkeypatch):
    good = bm.locate("rnn")[0].read_bytes()
    monkeypatch.setattr(bm.urllib.request, "urlopen", lambda url, timeout: _FakeResponse(good[:-10]))
    with pytest.raises(BenchmarkError, match="the file was not saved"):
        bm.fetch("rnn", dest=tmp_path)
    assert list(tmp_path.iterdir()) == []  # nothing half-written
    monkeypatch.setattr(bm.urllib.request, "urlopen", lambda url, timeout: _FakeResponse(good))
    path = bm.fetch("rnn", dest=tmp_path)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == bm.REGISTRY["rnn"].sha256
    assert sorted(os.listdir(tmp_path)) == ["rnn.csv"]


def test_fetch_offline_says_where_to_put_files(tmp_path, monkeypatch):
    def offline(url, timeout):
        raise bm.urllib.error.URLError("no network")

    monkeypatch.setattr(bm.urllib.request, "urlopen", offline)
    with pytest.raises(BenchmarkError, match=r"Offline\? To get the data by hand, put cnn.csv .* into .* TT_DATA_DIR"):
        bm.fetch("cnn", dest=tmp_path)
