"""SpotTune's grids in the run store: a second call reads the stored simulations back (nothing simulated),
an edited price file or another setting is simulated again as another entry, a damaged file is set aside; what is read
back equals the grid simulated without the store."""

from __future__ import annotations

import os

import pandas as pd
import pytest

from tt_workbook.runs.study_tables import TableSpec, ensure_table, table_status
from tt_spotsim import catalogue, simulator as S, workloads as W
from tt_workbook.studies.spottune import grids as G

TYPES = list(catalogue.CATALOGUE)
#: the hand-made price file is not the published one (the loader says so)
pytestmark = pytest.mark.filterwarnings("ignore:.*the published us-east-1.csv:UserWarning")


def write_prices(path, bump: float = 0.0):
    """Three days of hourly prices for every type, in the public trace's format (``bump`` added to one hour)."""
    rows = []
    for h in range(72):
        for i, t in enumerate(TYPES):
            price = 0.03 * (i + 1) * (1.0 + 0.2 * ((h * (i + 3)) % 5) / 5) + (bump if (h, i) == (40, 0) else 0.0)
            rows.append(f"2017-04-26 {h % 24:02d}:00:00+00:00,{t},Linux/UNIX,us-east-1a,{price:.4f}"
                        .replace("2017-04-26", f"2017-04-{26 + h // 24}"))
    path.write_text("\n".join(rows) + "\n")
    return path


def hand_job_set():
    k = pd.Series(range(1, 31), dtype=float).to_numpy()
    curves = [1 / (0.1 * k + 1) + c for c in (0.3, 0.1, 0.2, 0.4)]
    return W.job_set("hand", curves, {t: 20.0 * (1 + i % 3) for i, t in enumerate(TYPES)})


SETTINGS = S.Settings(predictor="empirical", fit_days=1.0, offset_hours=2.0)


def grid(prices, runs_dir, settings=SETTINGS, seeds=(1, 2)):
    return G.simulate_grid([hand_job_set()], list(seeds), S.FIG7_APPROACHES, settings, market_days=3.0, prices=str(prices),
                           runs_dir=runs_dir)


def test_a_stored_grid_is_read_back_and_equals_the_simulated_one(tmp_path, monkeypatch):
    prices = write_prices(tmp_path / "prices.csv")
    plain = grid(prices, None)
    assert len(plain) == 8 and set(plain["seed"]) == {1, 2}
    first = grid(prices, tmp_path / "runs")
    pd.testing.assert_frame_equal(first, plain)
    files = sorted((tmp_path / "runs" / "tables" / "spot-grid").glob("table-*.parquet"))
    assert len(files) == 2                                   # one entry per seed

    def no_simulation(*a, **k):
        raise AssertionError("a stored seed was simulated again")

    monkeypatch.setattr(S, "compare", no_simulation)
    again = grid(prices, tmp_path / "runs")
    pd.testing.assert_frame_equal(again, plain)


def test_an_edited_price_file_or_setting_is_simulated_again(tmp_path, monkeypatch):
    prices = write_prices(tmp_path / "prices.csv")
    runs = tmp_path / "runs"
    grid(prices, runs, seeds=(1,))
    folder = runs / "tables" / "spot-grid"
    (stored,) = folder.glob("table-*.parquet")
    simulated = []
    compare = S.compare
    monkeypatch.setattr(S, "compare", lambda *a, **k: simulated.append(1) or compare(*a, **k))

    grid(prices, runs, seeds=(1,))
    assert simulated == []                                   # the same file: read back
    write_prices(prices, bump=0.5)                           # one hour of r4.large's price changed
    os.utime(prices, ns=(stored.stat().st_mtime_ns + 10**9,) * 2)
    after = grid(prices, runs, seeds=(1,))
    assert simulated == [1]                                  # simulated again, as another entry beside the first
    assert len(list(folder.glob("table-*.parquet"))) == 2 and stored.exists()
    assert not list(folder.glob("*.mismatch*"))
    pd.testing.assert_frame_equal(after, grid(prices, None, seeds=(1,)))

    k2 = S.with_settings(SETTINGS, k=2)
    other = grid(prices, runs, settings=k2, seeds=(1,))
    assert len(simulated) == 3                               # (the plain grid above, then this one)
    assert len(list(folder.glob("table-*.parquet"))) == 3    # another setting: another entry
    pd.testing.assert_frame_equal(other, grid(prices, None, settings=k2, seeds=(1,)))


def test_table_entries_follow_the_run_stores_rules(tmp_path):
    calls = []

    def compute():
        calls.append(1)
        return pd.DataFrame({"x": [1.5, 2.5], "name": ["a", "b"], "ok": [True, False]})

    spec = TableSpec("demo", {"n": 2}, {"sha256": "abc"})
    assert table_status(spec, tmp_path) == "missing"
    t1, what1 = ensure_table(spec, compute, tmp_path)
    t2, what2 = ensure_table(spec, compute, tmp_path)
    assert (what1, what2, len(calls)) == ("computed", "reused", 1) and t1.equals(t2)
    assert table_status(spec, tmp_path) == "valid"
    # other data: another file, nothing set aside
    other = TableSpec("demo", {"n": 2}, {"sha256": "xyz"})
    assert other.path(tmp_path) != spec.path(tmp_path) and table_status(other, tmp_path) == "missing"
    # a file holding a table of other data than its name stands for (copied over it): set aside, recomputed
    other.path(tmp_path).write_bytes(spec.path(tmp_path).read_bytes())
    assert table_status(other, tmp_path) == "mismatch"
    with pytest.warns(UserWarning, match="made from other data than its name stands for"):
        ensure_table(other, compute, tmp_path)
    assert len(calls) == 2
    other.path(tmp_path).unlink()                            # (only the set-aside copy kept, for the listing below)
    # damaged bytes: corrupt, set aside, recomputed
    path = spec.path(tmp_path)
    path.write_bytes(b"not parquet")
    assert table_status(spec, tmp_path) == "corrupt"
    with pytest.warns(UserWarning, match="moved to"):
        t3, what3 = ensure_table(spec, compute, tmp_path)
    assert what3 == "computed" and t3.equals(t1) and len(calls) == 3
    assert sorted(p.name for p in path.parent.iterdir() if not p.name.endswith(".lock")) == sorted([
        path.name, path.name + ".corrupt", other.path(tmp_path).name + ".mismatch"])


def test_the_overhead_study_is_stored_per_model_size_and_seed(tmp_path, monkeypatch):
    from tt_workbook.runs.profiles import settings
    from tt_workbook.studies.spottune import overhead as OH

    cfg = settings("quick", "spottune", smoke=True)
    plain = OH.overhead_study(cfg, [1], model_mb=(100.0, 1024.0))
    stored = OH.overhead_study(cfg, [1], model_mb=(100.0, 1024.0), runs_dir=tmp_path)
    pd.testing.assert_frame_equal(stored, plain)
    assert len(list((tmp_path / "tables" / "spot-overhead").glob("table-*.parquet"))) == 2
    monkeypatch.setattr(S, "simulate", lambda *a, **k: pytest.fail("a stored overhead cell was simulated again"))
    pd.testing.assert_frame_equal(OH.overhead_study(cfg, [1], model_mb=(100.0, 1024.0), runs_dir=tmp_path), plain)
