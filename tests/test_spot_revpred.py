"""RevPred and Tributary's predictor (tt_spotsim.revpred): the data set against hand-computed windows and
labels, a planted rule learned well above chance, same seed same weights, the weight cache, and a clear
error for a trace too short for one window."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

torch = pytest.importorskip("torch", reason="the nn extra (torch==2.13.0) is not installed")

from tt_workbook.cli import main  # noqa: E402
from tt_spotsim import market, traces, revocation as R, revpred as RP  # noqa: E402
from tt_spotsim.catalogue import SpotError  # noqa: E402
from tt_spotsim.traces import PriceTrace  # noqa: E402

TINY = RP.NetSettings(hidden=4, epochs=1, batch_size=64, stride=10, seed=3)


def jump_trace(n=400):
    """Price 1.0 with one jump to 1.5 at minutes 130..134 (USD/h)."""
    p = np.ones(n)
    p[130:135] = 1.5
    return PriceTrace(traces.TRACE_START, {"r4.large": p})


def test_labels_and_maximum_prices_on_a_hand_trace():
    tr = jump_trace()
    d = RP.training_set(tr, "r4.large", 400, "algorithm2")
    assert d["minutes"][0] == 59 and d["minutes"][-1] == 400 - 60 - 1       # 59 minutes of history, the label's hour after
    lab = dict(zip(d["minutes"], d["labels"]))
    bid = dict(zip(d["minutes"], d["bids"]))
    # no change in the hour before minute 100 -> Alg. 2 margin one tick; 1.5 > 1.0001 lies in minutes 101..159
    assert bid[100] == pytest.approx(1.0001) and lab[100] == 1
    assert lab[70] == 0 and lab[71] == 1          # minute 70 sees 71..129; minute 71 sees 72..130 (the jump)
    assert lab[134] == 0 and lab[129] == 1        # after the jump has started, its later minutes are inside
    # minute 150: the changes in the past hour are +0.5 (at 130) and -0.5 (at 135): trimmed mean 0.5
    assert bid[150] == pytest.approx(1.5) and lab[150] == 0
    # Tributary's random delta: above the jump -> never revoked; below it -> as Alg. 2 far from the jump
    high = RP.training_set(tr, "r4.large", 400, "random", rng=np.random.default_rng(0), delta=(0.6, 0.7))
    delta = high["bids"] - tr.series("r4.large")[high["minutes"]]
    assert high["P"] == 0.0 and np.all((delta >= 0.6) & (delta <= 0.7))
    low = RP.training_set(tr, "r4.large", 400, "random", rng=np.random.default_rng(0), delta=(0.1, 0.2))
    assert low["labels"].sum() == 59 and dict(zip(low["minutes"], low["labels"]))[71] == 1   # minutes 71..129
    with pytest.raises(SpotError, match="delta range"):
        R.random_bids(np.ones(3), np.random.default_rng(0), (0.2, 0.1))


def test_windows_hold_the_past_59_minutes_and_the_present():
    Z = np.arange(300, dtype=np.float32)[:, None] * np.ones((1, 6), np.float32)   # row m holds m in every feature
    Zpad = RP._padded(Z)
    minutes, margins = np.array([59, 200]), np.array([0.25, 0.5])
    hist, pres = RP.windows("revpred", Zpad, minutes, margins)
    assert hist.shape == (2, 59, 6) and pres.shape == (2, 7)
    np.testing.assert_array_equal(hist[1, :, 0], np.arange(141, 200))              # minutes 141..199
    np.testing.assert_array_equal(pres[1], [200] * 6 + [0.5])                      # present features + margin
    seq, none = RP.windows("tributary", Zpad, minutes, margins)
    assert none is None and seq.shape == (2, 60, 7)
    np.testing.assert_array_equal(seq[0, :, 0], np.arange(0, 60))                # minutes 0..59
    assert np.all(seq[0, :, 6] == 0.25)                                            # the margin on every record
    h0, _ = RP.windows("revpred", Zpad, np.array([2]), np.array([0.0]))            # the first hour: minute 0 repeated
    np.testing.assert_array_equal(h0[0, :, 0], [0] * 57 + [0, 1])


def test_input_table_scales_prices_by_the_fit_period_mean():
    p = np.r_[np.ones(200), 3 * np.ones(200), 10 * np.ones(100)]     # fit period: the first 400 minutes
    tr = PriceTrace(traces.TRACE_START, {"r4.large": p})
    Z, stats = RP.input_table(tr, "r4.large", 400)
    assert stats["scale"] == pytest.approx(2.0)                       # mean of 200 x 1 and 200 x 3
    # price / 2 is 0.5 or 1.5 in the fit period: mean 1, sd 0.5 -> standardised -1 and +1
    assert Z[0, 0] == pytest.approx(-1.0) and Z[399, 0] == pytest.approx(1.0)
    assert Z[450, 0] == pytest.approx((10 / 2 - 1) / 0.5)             # after the fit period: same transformation
    assert stats["mu"][0] == pytest.approx(1.0) and stats["sd"][0] == pytest.approx(0.5)


def test_a_trace_too_short_for_one_window_gets_one_clear_line():
    tr = PriceTrace(traces.TRACE_START, {"r4.large": np.ones(100)})
    for kind in RP.KINDS:
        with pytest.raises(SpotError) as exc:
            RP.LSTMPredictor(kind, TINY, cache=False).fit(tr)
        msg = str(exc.value)
        assert "100 minutes" in msg and "59 minutes of history" in msg and "at least 120" in msg
        assert "\n" not in msg
    with pytest.raises(SpotError, match="the fit period has 90 minutes"):
        RP.LSTMPredictor("revpred", TINY, cache=False).fit(jump_trace(), until=90 * 60)


def test_cli_too_short_trace_exits_2_without_traceback(tmp_path, capsys):
    stamps = pd.date_range("2017-04-26", periods=90, freq="min", tz="UTC")
    rows = [f"{t:%Y-%m-%d %H:%M:%S}+00:00,{name},Linux/UNIX,us-east-1a,{0.03 + 0.001 * (i % 3):.4f}"
            for i, t in enumerate(stamps) for name in ("r4.large", "r3.xlarge", "r4.xlarge", "m4.2xlarge",
                                                       "r4.2xlarge", "m4.4xlarge")]
    path = tmp_path / "short.csv"
    path.write_text("\n".join(rows) + "\n")
    assert main(["spot", "predictors", "--prices", str(path), "--predictors", "revpred"]) == 2
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.startswith("tt: error:")]
    assert len(lines) == 1 and "90 minutes" in lines[0] and "history" in lines[0]
    assert "Traceback" not in err


def _state(pred, name):
    return {k: v.clone() for k, v in pred._models[name]["model"].state_dict().items()}


def test_same_seed_same_weights_other_seed_other_weights():
    tr = market.synthetic_market(2, types=["r4.large"], days=1)
    for kind in RP.KINDS:
        a = _state(RP.LSTMPredictor(kind, TINY, cache=False).fit(tr), "r4.large")
        b = _state(RP.LSTMPredictor(kind, TINY, cache=False).fit(tr), "r4.large")
        c = _state(RP.LSTMPredictor(kind, RP.NetSettings(**{**TINY.__dict__, "seed": 4}), cache=False).fit(tr), "r4.large")
        assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
        assert any(not torch.equal(a[k], c[k]) for k in a)


def test_weight_cache_is_reused_only_when_it_matches(tmp_path):
    tr = market.synthetic_market(2, types=["r4.large"], days=1)
    first = RP.RevPredPredictor(TINY, cache_dir=tmp_path).fit(tr)
    info = first.fit_info["r4.large"]
    assert info["cached"] is False and list(tmp_path.glob("revpred-r4.large-seed3-*.pt"))
    again = RP.RevPredPredictor(TINY, cache_dir=tmp_path).fit(tr)
    assert again.fit_info["r4.large"]["cached"] is True
    t = 20 * 3600.0
    assert again.probability("r4.large", 0.03, t) == first.probability("r4.large", 0.03, t)
    # another trace (one price changed) or other settings: another file, trained anew
    p = tr.series("r4.large").copy()
    p[10] *= 1.01
    other = PriceTrace(tr.start, {"r4.large": p})
    assert RP.RevPredPredictor(TINY, cache_dir=tmp_path).fit(other).fit_info["r4.large"]["cached"] is False
    wider = RP.NetSettings(**{**TINY.__dict__, "hidden": 5})
    assert RP.RevPredPredictor(wider, cache_dir=tmp_path).fit(tr).fit_info["r4.large"]["cached"] is False
    # a file at the expected path that describes something else is never used: set aside, trained again
    path = RP.RevPredPredictor(TINY, cache_dir=tmp_path).fit(tr).fit_info["r4.large"]["path"]
    side = Path(path + ".entry.json")
    meta = json.loads(side.read_text())
    side.write_text(json.dumps({**meta, "data": {"trace_sha256": "0" * 64}}))
    with pytest.warns(UserWarning, match="other data.*moved to .*pt.mismatch"):
        assert RP.RevPredPredictor(TINY, cache_dir=tmp_path).fit(tr).fit_info["r4.large"]["cached"] is False
    assert Path(path + ".mismatch").is_file()
    blob = torch.load(path, weights_only=True)           # edited weights (same description): their checksum differs
    blob["state"] = {k: v + 1 for k, v in blob["state"].items()}
    torch.save(blob, path)
    with pytest.warns(UserWarning, match="checksum.*moved to .*pt.corrupt"):
        assert RP.RevPredPredictor(TINY, cache_dir=tmp_path).fit(tr).fit_info["r4.large"]["cached"] is False
    Path(path).write_bytes(b"not a torch file")          # with a sidecar forged to match: unreadable, set aside
    side.write_text(json.dumps({**json.loads(side.read_text()),
                                "content_sha256": hashlib.sha256(b"not a torch file").hexdigest()}))
    with pytest.warns(UserWarning, match="unreadable cached weights"):
        assert RP.RevPredPredictor(TINY, cache_dir=tmp_path).fit(tr).fit_info["r4.large"]["cached"] is False
    again = RP.RevPredPredictor(TINY, cache_dir=tmp_path).fit(tr)
    assert again.fit_info["r4.large"]["cached"] is True and again.probability("r4.large", 0.03, t) == first.probability("r4.large", 0.03, t)


def test_lstm_predictors_follow_the_interface_and_plug_into_the_provisioner():
    from tt_spotsim.provisioner import Provisioner

    tr = market.synthetic_market(2, types=["r4.large", "r3.xlarge"], days=1)
    for kind in RP.KINDS:
        pred = RP.make_predictor(kind, TINY)
        assert isinstance(pred, R.RevocationPredictor) and pred.name == kind
        pred.cache = False
        pred.fit(tr, until=18 * 3600)
        t = 20 * 3600.0
        p = pred.probability("r4.large", tr.price_at("r4.large", t) + 0.01, t)
        assert 0.0 <= p <= 1.0
        batch = pred.probabilities("r4.large", np.array([tr.price_at("r4.large", t) + 0.01]), np.array([1200]))
        assert batch[0] == pytest.approx(p)
        choice = Provisioner(tr, pred).choose(0, t)
        assert choice.type in tr.types and 0 <= choice.table["r3.xlarge"]["p_revoke"] <= 1
    with pytest.raises(SpotError, match=r"known: \['empirical', 'logistic', 'revpred', 'tributary'\]"):
        RP.make_predictor("lstm")


def burst_trace(days=6, seed=0):
    """A planted rule: the price is flat except for bursts of one-tick changes (every minute for 50
    minutes) at random times; 5 minutes after each burst the price spikes above any Alg. 2 bid. So a
    revocation within the hour follows a burst, and a burst announces one."""
    rng = np.random.default_rng(seed)
    n = int(days * 1440)
    p = np.full(n, 0.05)
    t = int(rng.integers(60, 120))
    while t + 70 < n:
        p[t:t + 50] += 0.0001 * (np.arange(50) % 2)
        p[t + 55:t + 60] = 0.5
        t += 60 + int(rng.integers(30, 120))
    return PriceTrace(traces.TRACE_START, {"r4.large": np.round(p, 4)})


@pytest.mark.parametrize("kind", [pytest.param("revpred"), pytest.param("tributary", marks=pytest.mark.slow)])
def test_the_model_learns_a_planted_rule(kind):
    tr = burst_trace()
    settings = RP.NetSettings(hidden=8, epochs=8, batch_size=64, lr=1e-2, stride=2, seed=1, max_price="algorithm2")
    pred = RP.LSTMPredictor(kind, settings, cache=False).fit(tr, until=4 * 86400)
    ev = R.evaluate(pred, tr, 4 * 86400, 6 * 86400, stride=3, bids="algorithm2").iloc[0]
    chance = max(ev["positive_rate"], 1 - ev["positive_rate"])
    assert 0.3 < ev["positive_rate"] < 0.7                 # a balanced problem: chance is about 50-70 %
    assert ev["accuracy"] > chance + 0.15 and ev["f1"] > 0.8


def test_cli_predictors_json(tmp_path, capsys, monkeypatch):
    import json

    monkeypatch.setattr(RP, "cache_root", lambda: tmp_path)
    argv = ["spot", "predictors", "--types", "r4.large", "--epochs", "1", "--fit-days", "2", "--test-days", "1",
            "--predictors", "revpred", "logistic", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["synthetic_prices"] is True and out["bids"] == "random"
    assert [(r["type"], r["predictor"]) for r in out["scores"]] == [("r4.large", "revpred"), ("r4.large", "logistic")]
    assert all(0 <= r["accuracy"] <= 1 for r in out["scores"]) and out["fits"][0]["cached"] is False
    assert list(tmp_path.glob("revpred-r4.large-*.pt"))
    assert main(argv) == 0 and json.loads(capsys.readouterr().out)["fits"][0]["cached"] is True


@pytest.mark.slow
def test_bench_revpred_reports_cpu_per_1000_windows(capsys):
    assert main(["bench", "revpred", "--type", "r3.xlarge"]) == 0
    out = capsys.readouterr().out
    assert "per 1000 windows per epoch" in out and "revpred" in out and "tributary" in out


# ------------------------------------------------------------------------------------------------
# Fig. 10's split on a real trace, Eq. 3 and the class weights of the LSTMs, n/a F1, --delta
# ------------------------------------------------------------------------------------------------
def spiky(n, period=300, base=0.1):
    """Price ``base`` with a spike to 2 x base for 10 minutes every ``period`` minutes."""
    p = np.full(n, base)
    for s in range(100, n, period):
        p[s:s + 10] = 2 * base
    return p


SPLIT_CFG = {"fit_days": 9.0, "test_days": 3.0, "test_stride": 1, "seed": 1, "delta": [0.00001, 0.2],
             "label_deltas": [[0.00001, 0.2]]}


def test_a_real_trace_is_split_at_the_papers_dates():
    from tt_workbook.studies.spottune import revpred_study as RS

    # 2017-04-26 12:00 to 2017-05-08 02:00 UTC: 11 days 14 h = 16680 minutes
    start = pd.Timestamp("2017-04-26 12:00", tz="UTC")
    tr = PriceTrace(start, {"r4.large": spiky(16680)}, "hand.csv", False, "ffill")
    fit_end, test_end = RS.fig10_split(tr, SPLIT_CFG)
    # train until 05-05 00:00: 8 days 12 h = 12240 minutes; test until 05-08 00:00: 11 days 12 h = 16560 minutes
    assert fit_end == 12240 * 60 and test_end == 16560 * 60            # not 9 and 12 days from the first record
    # training samples: minutes 59 .. 12240 - 60 - 1 (59 of history, the label's hour inside the fit period)
    rates = RS.label_rates(tr, SPLIT_CFG)
    assert set(rates["samples"]) == {12240 - 60 - 59}
    preds = RS.fig10_predictors(tr, SPLIT_CFG, names=("logistic",))
    scores = RS.fig10_scores(tr, preds, SPLIT_CFG, bids=("algorithm2",))
    assert scores["samples"].tolist() == [3 * 1440]                   # every minute of 05-05, 05-06 and 05-07
    # a synthetic trace with the same start keeps "the first fit_days, the next test_days"
    syn = PriceTrace(start, {"r4.large": spiky(16680)}, "synthetic", True)
    assert RS.fig10_split(syn, SPLIT_CFG) == (9 * 86400, 12 * 86400)
    # a file from 2017-04-25 12:00 loses its first 720 minutes (training starts on 04-26)
    early = PriceTrace(start - pd.Timedelta(days=1), {"r4.large": spiky(16680 + 1440)}, "hand.csv", False)
    cut = RS.fig10_trace(early)
    assert cut.start == pd.Timestamp("2017-04-26 00:00", tz="UTC") and cut.n_minutes == 16680 + 1440 - 720
    assert RS.fig10_split(cut, SPLIT_CFG) == (9 * 86400, 12 * 86400)
    # files that miss the dates: one line naming them
    late = PriceTrace(pd.Timestamp("2017-04-27 00:00", tz="UTC"), {"r4.large": spiky(16000)}, "hand.csv", False)
    short = PriceTrace(start, {"r4.large": spiky(16500)}, "hand.csv", False)   # ends 05-07 23:00
    for bad in (late, short):
        with pytest.raises(SpotError) as exc:
            RS.fig10_trace(bad)
        msg = str(exc.value)
        assert "\n" not in msg and "2017-04-26 to 2017-05-04" in msg and "2017-05-05 to 2017-05-07" in msg


def _sparse_csv(path, start, end):
    """A headerless AWS-style file: each of the six types at 0.1 with 10-minute spikes to 0.2 every 5 h."""
    rows = []
    t = start
    while t < end:
        for name in ("r4.large", "r3.xlarge", "r4.xlarge", "m4.2xlarge", "r4.2xlarge", "m4.4xlarge"):
            rows.append(f"{t:%Y-%m-%d %H:%M:%S}+00:00,{name},Linux/UNIX,us-east-1a,0.1000")
            rows.append(f"{t + pd.Timedelta(minutes=100):%Y-%m-%d %H:%M:%S}+00:00,{name},Linux/UNIX,us-east-1a,0.2000")
            rows.append(f"{t + pd.Timedelta(minutes=110):%Y-%m-%d %H:%M:%S}+00:00,{name},Linux/UNIX,us-east-1a,0.1000")
        t += pd.Timedelta(minutes=300)
    for name in ("r4.large", "r3.xlarge", "r4.xlarge", "m4.2xlarge", "r4.2xlarge", "m4.4xlarge"):
        rows.append(f"{end:%Y-%m-%d %H:%M:%S}+00:00,{name},Linux/UNIX,us-east-1a,0.1000")
    path.write_text("\n".join(rows) + "\n")


def test_cli_predictors_on_a_real_file_use_the_papers_dates(tmp_path, capsys):
    import json

    path = tmp_path / "hand.csv"
    # records from 2017-04-26 12:00 to 2017-05-08 01:59: 16680 minutes
    _sparse_csv(path, pd.Timestamp("2017-04-26 12:00", tz="UTC"), pd.Timestamp("2017-05-08 01:59", tz="UTC"))
    argv = ["spot", "predictors", "--prices", str(path), "--predictors", "logistic", "--types", "r4.large"]
    assert main(argv + ["--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["synthetic_prices"] is False
    assert out["fit_minutes"] == 12240 and out["test_minutes"] == 4320
    assert [r["samples"] for r in out["scores"]] == [4320 // 5]       # the quick profile tests every 5th minute
    assert main(argv + ["--fit-days", "2"]) == 2
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("tt: error:")]
    assert len(err) == 1 and "--fit-days" in err[0] and "2017-05-05 to 2017-05-07" in err[0]


def test_lstm_probabilities_are_eq3_on_the_raw_outputs(monkeypatch):
    tr = market.synthetic_market(2, types=["r4.large"], days=1)
    minutes = np.arange(1100, 1300, 7)
    bids = tr.series("r4.large")[minutes] + 0.01
    for kind in RP.KINDS:
        pred = RP.LSTMPredictor(kind, TINY, cache=False).fit(tr, until=18 * 3600)
        o = pred.raw_outputs("r4.large", bids, minutes)
        P = pred.fit_info["r4.large"]["P"]
        assert 0 < P < 1 and pred._models["r4.large"]["model"] is not None
        # Eq. 3 (reconstructed) written out: p = o P / (o P + (1 - o)(1 - P))
        expected = o * P / (o * P + (1.0 - o) * (1.0 - P))
        np.testing.assert_allclose(pred.probabilities("r4.large", bids, minutes), expected, rtol=1e-12)
        # by hand: P = 0.2; o = 0.5 -> 0.1 / (0.1 + 0.4) = 0.2; o = 0.8 -> 0.16 / (0.16 + 0.16) = 0.5;
        # o = 0.1 -> 0.02 / (0.02 + 0.72) = 1/37
        pred._models["r4.large"]["P"] = 0.2
        monkeypatch.setattr(pred, "raw_outputs", lambda name, b, m: np.array([0.5, 0.8, 0.1]))
        np.testing.assert_allclose(pred.probabilities("r4.large", np.ones(3), np.array([100, 200, 300])),
                                   [0.2, 0.5, 1 / 37], rtol=1e-12)


def test_class_weights_are_n_for_positives_and_p_for_negatives():
    # 1 positive in 5: P = 0.2, N = 0.8 -> the positive weighs 0.8, each negative 0.2
    np.testing.assert_allclose(RP.class_weights([1, 0, 0, 0, 0]), [0.8, 0.2, 0.2, 0.2, 0.2], rtol=1e-6)
    y = np.array([1, 0, 0, 0], np.float32)                 # P = 0.25, N = 0.75
    rng = np.random.default_rng(0)
    X = (rng.normal(size=(4, 59, 6)).astype(np.float32), rng.normal(size=(4, 7)).astype(np.float32))
    st = RP.NetSettings(hidden=3, epochs=1, batch_size=8, seed=5)
    _, info = RP.train_network("revpred", X, y, st)
    assert info["weight_positive"] == pytest.approx(0.75) and info["weight_negative"] == pytest.approx(0.25)
    # one epoch of one batch: the reported loss is the weighted cross-entropy of the initial network,
    # sum(w * bce) / sum(w) with w = (0.75, 0.25, 0.25, 0.25)
    torch.manual_seed(5)
    net = RP.build_network("revpred", 3)
    with torch.no_grad():
        z = net(torch.from_numpy(X[0]), torch.from_numpy(X[1])).numpy().astype(float)
    s = 1 / (1 + np.exp(-z))
    bce = -(y * np.log(s) + (1 - y) * np.log(1 - s))
    w = np.array([0.75, 0.25, 0.25, 0.25])
    assert info["loss"] == pytest.approx(float((w * bce).sum() / w.sum()), rel=1e-5)


def test_fig10_shows_an_undefined_f1_as_na_not_zero():
    import matplotlib

    matplotlib.use("Agg")
    from tt_workbook.studies.spottune import figures as F

    rows = [{"type": t, "predictor": p, "bids": "random", "accuracy": 0.9,
             "f1": float("nan") if (t, p) == ("r3.xlarge", "tributary") else 0.6}
            for t in ("r4.large", "r3.xlarge") for p in ("revpred", "tributary", "logistic")]
    fig = F.fig10(pd.DataFrame(rows), synthetic=True)
    acc, f1 = fig.axes[:2]
    assert len(acc.patches) == 6 and len(f1.patches) == 5          # no bar for the undefined F1
    # 3 predictors: width 0.8 / 3, tributary in the middle -> its bar of the 2nd type is centred at x = 1
    centres = sorted(round(b.get_x() + b.get_width() / 2, 6) for b in f1.patches)
    assert 1.0 not in centres and centres == sorted(round(j + k * 0.8 / 3, 6) for j in (0, 1) for k in (-1, 0, 1)
                                                    if (j, k) != (1, 0))
    na = [t for t in f1.texts if t.get_text() == "n/a"]
    assert len(na) == 1 and na[0].get_position()[0] == pytest.approx(1.0)
    assert not [t for t in acc.texts if t.get_text() == "n/a"]
    assert any("n/a" in t.get_text() for t in fig.texts)
    import matplotlib.pyplot as plt
    plt.close(fig)


@pytest.mark.parametrize("lo,hi", [("0", "0.2"), ("-0.1", "0.2"), ("0.2", "0.1"), ("0.1", "0.1"), ("0.1", "inf")])
def test_cli_delta_rejects_a_bad_range_in_one_line(lo, hi, capsys):
    assert main(["spot", "predictors", "--delta", lo, hi, "--predictors", "logistic"]) == 2
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("tt: error:") and "--delta" in lines[0] and "0 < LO < HI" in lines[0]
    assert "Traceback" not in err


def test_cli_delta_sets_tributarys_training_range(tmp_path, capsys, monkeypatch):
    import json

    monkeypatch.setattr(RP, "cache_root", lambda: tmp_path)
    argv = ["spot", "predictors", "--types", "r4.large", "--epochs", "1", "--fit-days", "2", "--test-days", "1",
            "--predictors", "tributary", "--delta", "0.001", "0.002", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["train_delta"] == [0.001, 0.002] and out["test_delta"] == [0.00001, 0.2]
    blob = torch.load(next(tmp_path.glob("tributary-r4.large-*.pt")), weights_only=True)
    assert blob["meta"]["settings"]["delta"] == [0.001, 0.002] and blob["meta"]["max_price"] == "random"
    with pytest.raises(SystemExit) as exc:                 # argparse: not a number
        main(["spot", "predictors", "--delta", "x", "0.2"])
    assert exc.value.code == 2
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "--delta" in lines[0]


def test_a_repeated_single_query_is_answered_without_the_network(monkeypatch):
    """Tributary's LSTM (RevPred: the next test): the provisioner's repeated query (same type, minute and maximum price) gives the network's own answer
    without calling it again; another price, minute or a refit asks the network."""
    tr = market.synthetic_market(2, types=["r4.large"], days=1)
    pred = RP.TributaryPredictor(TINY, cache=False).fit(tr, until=18 * 3600)
    t, bid = 20 * 3600.0 + 30.0, tr.price_at("r4.large", 20 * 3600.0) + 0.01
    direct = float(pred.probabilities("r4.large", np.array([bid]), np.array([1200]))[0])
    calls = []
    real = RP.LSTMPredictor.raw_outputs
    monkeypatch.setattr(RP.LSTMPredictor, "raw_outputs", lambda self, *a: calls.append(a) or real(self, *a))
    assert pred.probability("r4.large", bid, t) == direct
    assert pred.probability("r4.large", bid, t + 20.0) == direct           # the same minute
    assert len(calls) == 1
    pred.probability("r4.large", bid + 0.001, t)
    pred.probability("r4.large", bid, t + 60.0)
    assert len(calls) == 3
    pred.fit(market.synthetic_market(4, types=["r4.large"], days=1), until=18 * 3600)   # another trace: asked anew
    fresh = float(pred.probabilities("r4.large", np.array([bid]), np.array([1200]))[0])
    assert pred.probability("r4.large", bid, t) == fresh != direct


def test_revpred_single_queries_reuse_the_history_encoding():
    """RevPred's single query in two steps (the history's LSTM encoding kept per type and minute, the fully
    connected part per maximum price) gives exactly the one-pass forward of probabilities(); the LSTM runs
    once for several maximum prices at one minute."""
    tr = market.synthetic_market(2, types=["r4.large"], days=1)
    pred = RP.RevPredPredictor(TINY, cache=False).fit(tr, until=18 * 3600)
    t = 20 * 3600.0
    p0 = tr.price_at("r4.large", t)
    bids = [p0 + d for d in (0.001, 0.01, 0.05)]
    direct = pred.probabilities("r4.large", np.array(bids), np.array([1200] * 3))
    import torch

    calls = []
    real = torch.nn.LSTM.forward
    torch.nn.LSTM.forward = lambda self, *a, **k: calls.append(1) or real(self, *a, **k)
    try:
        single = [pred.probability("r4.large", b, t) for b in bids]
    finally:
        torch.nn.LSTM.forward = real
    assert single == [float(x) for x in direct]
    assert len(calls) == 1
