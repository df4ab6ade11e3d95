"""SpotTune's study tables keyed by content: job sets of one name built otherwise, or one price changed, are
other entries kept side by side (no ``.mismatch`` file), and a second computation in the same store
simulates nothing; a table of another results version is still set aside as ``.outdated``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tt_workbook.runs import study_tables as ST
from tt_spotsim import catalogue, simulator as S, workloads as W
from tt_workbook.studies.spottune import grids as G

TYPES = list(catalogue.CATALOGUE)
SETTINGS = S.Settings(predictor="empirical", fit_days=1.0, offset_hours=2.0)
#: the hand-made price file is not the published one (the loader says so)
pytestmark = pytest.mark.filterwarnings("ignore:.*the published us-east-1.csv:UserWarning")


def price_file(path, changed: float = 0.0):
    """Three days of hourly prices per type in the public trace's format; ``changed`` is added to the
    first type's price at hour 30 (one price of the file)."""
    lines = []
    for hour in range(72):
        day, hh = divmod(hour, 24)
        for i, t in enumerate(TYPES):
            price = 0.02 * (i + 2) * (1 + 0.1 * ((hour + 2 * i) % 4)) + (changed if (hour, i) == (30, 0) else 0.0)
            lines.append(f"2017-05-{10 + day:02d} {hh:02d}:00:00+00:00,{t},Linux/UNIX,us-east-1b,{price:.4f}")
    path.write_text("\n".join(lines) + "\n")
    return path


def jobs(step_s: float):
    """Job set ``same-name``: three curves, ``step_s`` seconds per step on every type."""
    k = np.arange(1.0, 25.0)
    return W.job_set("same-name", [1 / (0.2 * k + 1) + c for c in (0.2, 0.05, 0.3)], {t: step_s for t in TYPES})


@pytest.fixture
def counted(monkeypatch):
    """Counts of what the store did: ``simulated`` (one per job set and seed simulated) and the outcome of
    each table lookup (``computed`` / ``reused``)."""
    log = {"simulated": 0, "computed": 0, "reused": 0}
    compare, ensure = S.compare, G.ensure_table

    def counting_compare(*a, **k):
        log["simulated"] += 1
        return compare(*a, **k)

    def counting_ensure(*a, **k):
        table, what = ensure(*a, **k)
        log[what] += 1
        return table, what

    monkeypatch.setattr(S, "compare", counting_compare)
    monkeypatch.setattr(G, "ensure_table", counting_ensure)
    return log


def grid(job_set, prices, runs_dir, seeds=(1, 2)):
    return G.simulate_grid([job_set], list(seeds), S.FIG7_APPROACHES, SETTINGS, market_days=3.0, prices=str(prices),
                           runs_dir=runs_dir)


def set_aside_files(runs):
    return sorted(p.name for p in runs.rglob("*") if ".mismatch" in p.name or ".corrupt" in p.name
                  or ".outdated" in p.name)


def test_two_job_sets_of_one_name_are_two_entries_read_back_the_second_time(tmp_path, counted):
    prices, runs = price_file(tmp_path / "prices.csv"), tmp_path / "runs"
    fast, slow = jobs(20.0), jobs(45.0)
    assert fast.name == slow.name
    plain_fast, plain_slow = grid(fast, prices, None), grid(slow, prices, None)
    assert not plain_fast["jct_s"].equals(plain_slow["jct_s"])          # really two different tables
    counted.update(simulated=0)

    first = [grid(fast, prices, runs), grid(slow, prices, runs)]
    assert (counted["simulated"], counted["computed"], counted["reused"]) == (4, 4, 0)   # 2 job sets x 2 seeds
    files = sorted((runs / "tables" / "spot-grid").glob("table-*.parquet"))
    assert len(files) == 4 and set_aside_files(runs) == []
    stamps = {p: p.stat().st_mtime_ns for p in files}

    second = [grid(fast, prices, runs), grid(slow, prices, runs)]      # the same store again: nothing computed
    assert (counted["simulated"], counted["computed"], counted["reused"]) == (4, 4, 4)
    assert set_aside_files(runs) == [] and {p: p.stat().st_mtime_ns for p in files} == stamps
    for got, want in zip(first + second, [plain_fast, plain_slow] * 2):
        pd.testing.assert_frame_equal(got, want)


def test_one_changed_price_is_another_key_and_the_first_entry_stays(tmp_path, counted):
    runs = tmp_path / "runs"
    js = jobs(30.0)
    before = G.cached_market(str(price_file(tmp_path / "a.csv")), 1, 3.0)
    after = G.cached_market(str(price_file(tmp_path / "b.csv", changed=0.07)), 1, 3.0)
    spec = lambda trace: G.grid_table_spec([js], 1, S.FIG7_APPROACHES, SETTINGS, 3.0, "p.csv", trace)  # noqa: E731
    assert spec(before).settings == spec(after).settings and spec(before).key != spec(after).key

    prices = price_file(tmp_path / "prices.csv")
    grid(js, prices, runs, seeds=(1,))
    price_file(prices, changed=0.07)
    G._MARKETS.clear()                        # (the file's modification time may not have moved)
    grid(js, prices, runs, seeds=(1,))
    assert counted["computed"] == 2 and set_aside_files(runs) == []
    assert len(list((runs / "tables" / "spot-grid").glob("table-*.parquet"))) == 2
    price_file(prices)                        # the first prices again: read back
    G._MARKETS.clear()
    grid(js, prices, runs, seeds=(1,))
    assert (counted["computed"], counted["reused"]) == (2, 1)


def test_the_sensitivity_sweep_twice_in_one_store_computes_once(tmp_path, counted):
    from tt_workbook.runs.profiles import settings
    from tt_workbook.studies.spottune import sensitivity as SEN

    cfg = settings("quick", "spottune", smoke=True)             # one job set, one seed
    assert (cfg["parallel_fraction"], cfg["model_mb"], cfg["bid"]) == (0.9, 100.0, "algorithm2")
    kw = dict(bids=("algorithm2",), fractions=(0.5, 0.9), startups=(60.0,), model_sizes=(100.0, 1024.0),
              runs_dir=tmp_path)
    first = SEN.sensitivity(cfg, [1], **kw)
    # by hand: the job sets at (f, MB) = (0.9, 100), (0.5, 100), (0.9, 1024), all named alike; per job set
    # one table of the single-spot baselines and one of SpotTune: 6 tables, 6 files
    assert (counted["computed"], counted["reused"]) == (6, 0)
    assert len(list((tmp_path / "tables" / "spot-grid").glob("table-*.parquet"))) == 6
    simulated = counted["simulated"]
    again = SEN.sensitivity(cfg, [1], **kw)
    assert (counted["computed"], counted["reused"], counted["simulated"]) == (6, 6, simulated)
    assert set_aside_files(tmp_path) == []
    pd.testing.assert_frame_equal(again, first)


def test_the_key_does_not_depend_on_the_order_of_settings_or_data():
    a = ST.TableSpec("s", {"x": 1, "y": [1, 2]}, {"p": "aa", "q": "bb"})
    b = ST.TableSpec("s", {"y": [1, 2], "x": 1}, {"q": "bb", "p": "aa"})
    assert a.key == b.key
    assert len({a.key, ST.TableSpec("s", {"x": 1, "y": [2, 1]}, a.data).key,
                ST.TableSpec("s", a.settings, {"p": "aa", "q": "bc"}).key, ST.TableSpec("t", a.settings, a.data).key}) == 4


def test_a_table_of_another_results_version_is_still_set_aside_as_outdated(tmp_path, monkeypatch):
    spec = ST.TableSpec("demo", {"n": 1}, {"sha256": "abc"})
    calls = []

    def compute():
        calls.append(1)
        return pd.DataFrame({"x": [0.25, 0.5]})

    monkeypatch.setattr(ST, "RESULTS_VERSION", "an older one")  # what write_table records
    ST.ensure_table(spec, compute, tmp_path)
    monkeypatch.undo()
    assert ST.table_status(spec, tmp_path) == "outdated"
    with pytest.warns(UserWarning, match="moved to"):
        _, what = ST.ensure_table(spec, compute, tmp_path)
    assert what == "computed" and len(calls) == 2
    assert sorted(p.name for p in spec.path(tmp_path).parent.glob("table-*") if not p.name.endswith(".lock")) == [
        spec.path(tmp_path).name, spec.path(tmp_path).name + ".outdated"]
