"""SpotTune data layer: Table III, billing rules (hand-computed bills), price traces and their resampling."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tt_spotsim import catalogue, market, traces, rules
from tt_spotsim.catalogue import SpotError
from tt_spotsim.traces import PriceTrace


def trace(**prices) -> PriceTrace:
    """A hand-made trace: keyword = type, value = per-minute prices."""
    return PriceTrace(traces.TRACE_START, {k.replace("_", "."): np.asarray(v, float) for k, v in prices.items()})


#: The paper's Table III (§IV-A), typed here from the paper's text, row by row, independently of the catalogue.
PAPER_TABLE_III = [
    ("r4.large", 2, 15.25, 0.133),
    ("r3.xlarge", 4, 30, 0.33),
    ("r4.xlarge", 4, 30.5, 0.266),
    ("m4.2xlarge", 8, 32, 0.4),
    ("r4.2xlarge", 8, 61, 0.532),
    ("m4.4xlarge", 16, 64, 0.8),
]


def test_reference_table_is_the_2017_data_set():
    ref = catalogue.EC2INSTANCES_INFO_2017
    assert set(ref) == set(catalogue.CATALOGUE)
    # the one type where the paper's printed Table III and the 2017 data set differ (memory GiB, USD/h)
    assert ref["r3.xlarge"][1:3] == (30.5, 0.333) and PAPER_TABLE_III[1][2:] == (30, 0.33)
    # the catalogue's snapshot fields and ECU are the reference table's
    for name, (cpus, mem, price, ecu) in ref.items():
        t = catalogue.CATALOGUE[name]
        assert (t.vcpus, t.memory_gib_snapshot, t.on_demand_snapshot, t.ecu) == (cpus, mem, price, ecu)
    assert (catalogue.reference_table()["source"] == catalogue.EC2INSTANCES_INFO_SOURCE).all()


def test_reference_table_against_the_package_if_installed():
    """With ``ec2instances.info==0.0.2`` installed, its data literal (parsed, never imported or executed)
    must give the typed values."""
    import ast
    import importlib.util

    spec = importlib.util.find_spec("ec2instances.info") if importlib.util.find_spec("ec2instances") else None
    if spec is None or not spec.origin:
        pytest.skip("ec2instances.info 0.0.2 is not installed (an optional reference: pip install ec2instances.info==0.0.2)")
    tree = ast.parse(open(spec.origin, encoding="utf-8").read())
    data = next(ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign)
                and getattr(n.targets[0], "id", "") == "ec2")
    got = {d["instance_type"]: (d["vCPU"], d["memory"], float(d["pricing"]["us-east-1"]["linux"]["ondemand"]), d["ECU"])
           for d in data if d["instance_type"] in catalogue.EC2INSTANCES_INFO_2017}
    assert got == catalogue.EC2INSTANCES_INFO_2017


def test_table3_is_the_papers_table_exactly():
    t = catalogue.table3()
    assert list(t.columns) == ["Instance Type", "CPUs", "Memory(GB)", "On-demand Price(USD/hr)"]
    assert [tuple(r) for r in t.itertuples(index=False)] == PAPER_TABLE_III      # order, names and every cell
    assert catalogue.TABLE_III == PAPER_TABLE_III


def test_unknown_instance_type_lists_the_known_ones():
    with pytest.raises(SpotError, match=r"unknown instance type 'p3.2xlarge'; known types: \['r4.large'"):
        catalogue.instance("p3.2xlarge")


def test_paper_rule_revoked_within_first_hour_is_free_and_user_release_is_charged():
    tr = trace(r4_large=[0.12] * 30 + [0.24] * 100)
    b = rules.bill(tr, "r4.large", 0.0, 59 * 60.0, revoked=True, rule="paper")
    assert b.charged == 0.0 and b.refunded == pytest.approx(30 * 0.12 / 60 + 29 * 0.24 / 60)
    b = rules.bill(tr, "r4.large", 0.0, 61 * 60.0, revoked=False, rule="paper")
    assert b.charged == pytest.approx(30 * 0.12 / 60 + 31 * 0.24 / 60) and b.refunded == 0.0   # 0.184 USD
    assert b.charged == pytest.approx(0.184)
    b = rules.bill(tr, "r4.large", 0.0, 61 * 60.0, revoked=True, rule="paper")   # revoked after the first hour
    assert b.charged == pytest.approx(0.184) and b.refunded == 0.0
    b = rules.bill(tr, "r4.large", 90.0, 150.0, revoked=False)    # per second inside one minute
    assert b.charged == pytest.approx(60 * 0.12 / 3600)


def test_hourly_2017_rule_on_a_hand_made_trace():
    tr = trace(r4_large=[0.1] * 60 + [0.3] * 60 + [0.2] * 60)
    # launched at minute 10: instance-hours start at minutes 10 (0.1), 70 (0.3), 130 (0.2)
    b = rules.bill(tr, "r4.large", 600.0, 130 * 60.0, revoked=False, rule="aws-2017")
    assert b.charged == pytest.approx(0.4)
    b = rules.bill(tr, "r4.large", 600.0, 131 * 60.0, revoked=False, rule="aws-2017")
    assert b.charged == pytest.approx(0.6)
    b = rules.bill(tr, "r4.large", 600.0, 131 * 60.0, revoked=True, rule="aws-2017")
    assert (b.charged, b.refunded) == pytest.approx((0.4, 0.2))
    b = rules.bill(tr, "r4.large", 600.0, 50 * 60.0, revoked=True, rule="aws-2017")
    assert b.charged == 0.0 and b.refunded == pytest.approx(0.1)
    assert b.usage == pytest.approx(b.charged + b.refunded)


def test_today_rule_and_unknown_rules():
    r = rules.rules("aws-today")
    assert r.revocation == "hazard" and r.billing == "per-second"
    # 5 % a month: 1 - exp(-h * 720) = 0.05
    assert 1 - np.exp(-r.hazard("r4.large") * 720) == pytest.approx(0.05)
    with pytest.raises(SpotError, match=r"unknown billing rules 'aws-2030'; known: \['paper', 'aws-2017', 'aws-today'\]"):
        rules.rules("aws-2030")
    with pytest.raises(SpotError, match="billing='daily'"):
        rules.Rules("x", "daily", "price", "first-hour")


def test_first_crossing_of_the_bid_and_trace_queries():
    tr = trace(r4_large=[0.10] * 37 + [0.50] * 3 + [0.10] * 100)
    assert tr.first_above("r4.large", 0.2, 0.0) == 37 * 60
    assert tr.first_above("r4.large", 0.2, 38 * 60 + 5) == 38 * 60 + 5       # already above at launch
    assert tr.first_above("r4.large", 0.2, 41 * 60) is None
    assert tr.first_above("r4.large", 0.6, 0.0) is None
    assert tr.mean_price("r4.large", 0.0, 40 * 60) == pytest.approx((37 * 0.1 + 3 * 0.5) / 40)
    with pytest.raises(SpotError, match="outside the price trace"):
        tr.price_at("r4.large", 200 * 60)
    with pytest.raises(SpotError, match="has no type 'm4.4xlarge'"):
        tr.series("m4.4xlarge")


def test_resampling_ffill_and_interpolate():
    t0 = pd.Timestamp("2017-04-26 00:00:00", tz="UTC")
    rec = pd.DataFrame({"timestamp": [t0 + pd.Timedelta(seconds=30), t0 + pd.Timedelta(seconds=130)],
                        "instance_type": ["r4.large"] * 2, "price": [1.0, 2.0]})
    ff = traces.resample(rec, "ffill", start=t0, end=t0 + pd.Timedelta(minutes=4))["r4.large"]
    np.testing.assert_allclose(ff, [1.0, 1.0, 1.0, 2.0])
    li = traces.resample(rec, "interpolate", start=t0, end=t0 + pd.Timedelta(minutes=4))["r4.large"]
    np.testing.assert_allclose(li, [1.0, 1.3, 1.9, 2.0])
    with pytest.raises(SpotError, match="unknown resampling 'cubic'"):
        traces.resample(rec, "cubic")


def _write_trace(path, rows):
    path.write_text("\n".join(rows) + "\n")
    return path


def test_loader_reads_the_kaggle_format(tmp_path):
    rows = ["2017-04-26 00:00:30+00:00,r4.large,Linux/UNIX,us-east-1a,0.0300",
            "2017-04-26 00:00:40+00:00,r4.large,Windows,us-east-1a,0.0900",
            "2017-04-26 00:00:10+00:00,r4.large,Linux/UNIX,us-east-1b,0.0500",
            "2017-04-26 00:02:10+00:00,r4.large,Linux/UNIX,us-east-1a,0.0400",
            "2017-04-26 00:03:10+00:00,m4.4xlarge,Linux/UNIX,us-east-1c,0.1500"]
    p = _write_trace(tmp_path / "us-east-1.csv", rows)
    with pytest.warns(UserWarning, match="filtered or different copy"):
        tr = traces.load_trace(p, types=["r4.large", "m4.4xlarge"])
    assert not tr.synthetic and tr.n_minutes == 4 and "us-east-1a" in tr.source   # 1a has the most r4 rows
    np.testing.assert_allclose(tr.series("r4.large"), [0.03, 0.03, 0.03, 0.04])
    np.testing.assert_allclose(tr.series("m4.4xlarge"), [0.15] * 4)


@pytest.mark.parametrize("row, message", [
    ("2017-04-26 00:00:30+00:00,r4.large,Linux/UNIX,us-east-1a,abc", r"line 2, column 5 \(SpotPrice\): 'abc'"),
    ("2017-04-26 00:00:30+00:00,r4.large,Linux/UNIX,us-east-1a,-1", r"line 2, column 5 .* not a positive number"),
    ("yesterday,r4.large,Linux/UNIX,us-east-1a,0.1", r"line 2, column 1 \(Timestamp\): 'yesterday'"),
    ("2017-04-26 00:00:30+00:00,r4.large,Linux/UNIX,us-east-1a,0.1,9", r"line 2: 6 fields where a record has 5"),
])
def test_loader_names_the_malformed_line(tmp_path, row, message):
    p = _write_trace(tmp_path / "t.csv", ["2017-04-26 00:00:00+00:00,r4.large,Linux/UNIX,us-east-1a,0.03", row])
    with pytest.warns(UserWarning), pytest.raises(SpotError, match=message):
        traces.load_trace(p, types=["r4.large"])


def test_loader_refuses_a_header_and_reports_missing_types(tmp_path):
    p = _write_trace(tmp_path / "h.csv", ["Timestamp,InstanceType,OS,AZ,SpotPrice",
                                          "2017-04-26 00:00:00+00:00,r4.large,Linux/UNIX,us-east-1a,0.03"])
    with pytest.raises(SpotError, match="line 1: a header row"):
        traces.load_trace(p, types=["r4.large"])
    p = _write_trace(tmp_path / "m.csv", ["2017-04-26 00:00:00+00:00,r4.large,Linux/UNIX,us-east-1a,0.03"])
    with pytest.warns(UserWarning), pytest.raises(SpotError, match=r"no records for type\(s\) \['m4.4xlarge'\]"):
        traces.load_trace(p, types=["r4.large", "m4.4xlarge"])
    with pytest.raises(SpotError, match="does not exist"):
        traces.load_trace(tmp_path / "nope.csv")


def test_missing_trace_says_where_it_looked(monkeypatch, tmp_path):
    monkeypatch.setenv("TT_DATA_DIR", str(tmp_path))
    if traces.trace_available() is None:
        with pytest.raises(SpotError, match="was not found in .*license is unstated"):
            traces.locate_trace()
    (tmp_path / "spot").mkdir()
    _write_trace(tmp_path / "spot" / "us-east-1.csv", ["2017-04-26 00:00:00+00:00,r4.large,Linux/UNIX,us-east-1a,0.03"])
    assert traces.locate_trace() == tmp_path / "spot" / "us-east-1.csv"


def test_synthetic_market_is_seeded_and_labelled():
    a = market.synthetic_market(1, days=2)
    b = market.synthetic_market(1, types=["m4.4xlarge"], days=2)
    c = market.synthetic_market(2, days=2)
    assert a.synthetic and "synthetic" in a.label and a.types == list(catalogue.CATALOGUE)
    np.testing.assert_array_equal(a.series("m4.4xlarge"), b.series("m4.4xlarge"))   # a type's own stream
    assert not np.array_equal(a.series("r4.large"), c.series("r4.large"))
    today = market.synthetic_market(1, days=2, style="today")
    assert (np.diff(today.series("r4.large")) != 0).sum() < 10 and today.series("r4.large").max() < 0.133


def test_fit_market_params_recovers_the_generators_parameters():
    """Monte Carlo: 120 days of one type; the moment estimates land near the true parameters."""
    true = market.MarketParams(0.2, 0.05, 6.0, 1.0, 1.5, 30.0)
    p = market.synthetic_prices("r4.large", 120 * 1440, true, np.random.default_rng(7), 0.133)
    fit = market.fit_market_params(trace(r4_large=p), "r4.large")
    assert fit.base_fraction == pytest.approx(0.2, rel=0.02)
    assert fit.band == pytest.approx(0.05, rel=0.1)
    assert fit.changes_per_hour == pytest.approx(6.0, rel=0.1)
    assert fit.spikes_per_day == pytest.approx(1.0, rel=0.3)
    assert fit.spike_height == pytest.approx(1.5, rel=0.15)
    assert fit.spike_minutes == pytest.approx(30.0, rel=0.3)


def test_a_file_of_the_published_size_is_checked_against_the_known_checksum(tmp_path, monkeypatch):
    p = _write_trace(tmp_path / "us-east-1.csv", ["2017-04-26 00:00:00+00:00,r4.large,Linux/UNIX,us-east-1a,0.03"])
    monkeypatch.setattr(traces, "TRACE_SIZE", p.stat().st_size)
    with pytest.warns(UserWarning, match=r"sha256 .* differs from the one known copy's \(6c2b86e6...af95"):
        traces.load_trace(p, types=["r4.large"])


def test_persistent_market_long_run_rates_follow_the_regime_chain():
    """Stationary share of the volatile regime = 4 / (20 + 4) h; prices then change 1 x (calm) or 4 x
    (volatile) as often, so the long-run change rate is (20 x 1 + 4 x 4) / 24 = 1.5 x the parameter's, and
    spikes arrive (20 x 0.2 + 4 x 5) / 24 = 1.0 x as often (Monte Carlo over 400 days)."""
    p = market.DEFAULT_PARAMS["r4.large"]
    od = catalogue.instance("r4.large").on_demand
    x = market.persistent_prices("r4.large", 400 * 1440, p, np.random.default_rng(3), od)
    changes_per_hour = float((np.diff(x) != 0).mean() * 60)
    share = (market.CALM_HOURS * 1 + market.VOLATILE_HOURS * market.VOLATILE_CHANGES) / (market.CALM_HOURS
                                                                                        + market.VOLATILE_HOURS)
    assert share == pytest.approx(1.5)
    # spikes add changes at their edges (about 2 x 0.5 a day = 0.04 an hour); the chain's own rate is 9 an hour
    assert changes_per_hour == pytest.approx(p.changes_per_hour * share, rel=0.08)
    starts = np.flatnonzero((x[1:] >= od) & (x[:-1] < od))
    assert len(starts) / 400 == pytest.approx(p.spikes_per_day * 1.0, rel=0.25)
    assert x.min() > 0 and np.all(np.round(x / market.TICK) * market.TICK == pytest.approx(x))
    a = market.market("synthetic-persistent", seed=2, days=1.0)
    assert a.synthetic and "persistent" in a.label
    assert np.array_equal(a.series("r4.large"), market.market("synthetic-persistent", seed=2, days=1.0).series("r4.large"))


def test_the_past_hour_helps_on_the_persistent_market_only():
    """A logistic regression with the past hour's features against one on the present minute only (log loss,
    Alg. 2 maximum prices, fit 9 days, test 3): on the persistent market the history helps; on the memoryless
    one (levels drawn afresh, spikes at random) it does not (it only adds noise)."""
    from tt_workbook.studies.spottune import revpred_study as RS

    gain = {style: float(np.mean([RS.history_value(market.synthetic_market(s, days=12.1, style=style))["gain"].mean()
                                  for s in (1, 2, 3)])) for style in ("2017", "persistent")}
    assert gain["persistent"] > 0.005 and gain["2017"] < 0.002
    assert gain["persistent"] - gain["2017"] > 0.01


def test_market_parameters_say_which_are_cited():
    table = market.market_parameters()
    cited = table[table["source"].str.startswith("cited")]
    assert set(cited["parameter"].str.split(" ").str[0]) == {"base_fraction", "types", "market"}
    assert (table["source"].str.startswith(("cited: ", "assumption"))).all()
    # the cited price level: spot 70%-80% below on-demand (SpotTune §I, §II-A), i.e. a fraction in [0.2, 0.3]
    assert all(0.2 <= p.base_fraction <= 0.3 for p in market.DEFAULT_PARAMS.values())
    # every constant of the persistent market is in the table, with its value
    text = " ".join(table["parameter"] + " " + table["value"])
    for name in ("CALM_HOURS", "VOLATILE_HOURS", "VOLATILE_CHANGES", "VOLATILE_BAND", "VOLATILE_SPIKES", "CALM_SPIKES",
                 "REVERSION"):
        assert name in text and f"{getattr(market, name):g}" in text


def test_catalogue_combines_the_paper_and_the_snapshot_without_retyping():
    """Table III and the snapshot are typed once each; the catalogue joins them (values as typed before the join)."""
    c = catalogue.CATALOGUE
    assert list(c) == [r[0] for r in PAPER_TABLE_III]
    assert c["r3.xlarge"] == catalogue.InstanceType("r3.xlarge", 4, 30.0, 0.33, 13.0, 30.5, 0.333)
    assert c["m4.4xlarge"] == catalogue.InstanceType("m4.4xlarge", 16, 64.0, 0.8, 53.5, 64.0, 0.8)
    assert [t.ecu for t in c.values()] == [7.0, 13.0, 13.5, 26.0, 27.0, 53.5]
