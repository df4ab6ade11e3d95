"""RevPred and Tributary's predictor (tt_core.spot.revpred): the data set against hand-computed windows and
labels, a planted rule learned well above chance, same seed same weights, the weight cache, and a clear
error for a trace too short for one window."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

torch = pytest.importorskip("torch", reason="the nn extra (torch==2.13.0) is not installed")

from tt_core.cli import main  # noqa: E402
from tt_core.spot import market, revocation as R, revpred as RP  # noqa: E402
from tt_core.spot.catalogue import SpotError  # noqa: E402
from tt_core.spot.market import PriceTrace  # noqa: E402

TINY = RP.NetSettings(hidden=4, epochs=1, batch_size=64, stride=10, seed=3)


def jump_trace(n=400):
    """Price 1.0 with one jump to 1.5 at minutes 130..134 (USD/h)."""
    p = np.ones(n)
    p[130:135] = 1.5
    return PriceTrace(market.TRACE_START, {"r4.large": p})


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
    tr = PriceTrace(market.TRACE_START, {"r4.large": p})
    Z, stats = RP.input_table(tr, "r4.large", 400)
    assert stats["scale"] == pytest.approx(2.0)                       # mean of 200 x 1 and 200 x 3
    # price / 2 is 0.5 or 1.5 in the fit period: mean 1, sd 0.5 -> standardised -1 and +1
    assert Z[0, 0] == pytest.approx(-1.0) and Z[399, 0] == pytest.approx(1.0)
    assert Z[450, 0] == pytest.approx((10 / 2 - 1) / 0.5)             # after the fit period: same transformation
    assert stats["mu"][0] == pytest.approx(1.0) and stats["sd"][0] == pytest.approx(0.5)


def test_a_trace_too_short_for_one_window_gets_one_clear_line():
    tr = PriceTrace(market.TRACE_START, {"r4.large": np.ones(100)})
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
    # a file at the expected path that describes something else is never used
    path = next(iter(sorted(tmp_path.glob("revpred-r4.large-seed3-*.pt"))))
    blob = torch.load(path, weights_only=True)
    blob["meta"] = {**blob["meta"], "trace_sha256": "0" * 64}
    for f in tmp_path.glob("revpred-r4.large-seed3-*.pt"):
        torch.save(blob, f)
    with pytest.warns(UserWarning, match="trained with other"):
        assert RP.RevPredPredictor(TINY, cache_dir=tmp_path).fit(tr).fit_info["r4.large"]["cached"] is False
    for f in tmp_path.glob("revpred-r4.large-seed3-*.pt"):
        f.write_bytes(b"not a torch file")
    with pytest.warns(UserWarning, match="unreadable"):
        assert RP.RevPredPredictor(TINY, cache_dir=tmp_path).fit(tr).fit_info["r4.large"]["cached"] is False


def test_lstm_predictors_follow_the_interface_and_plug_into_the_provisioner():
    from tt_core.spot.provisioner import Provisioner

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
    return PriceTrace(market.TRACE_START, {"r4.large": np.round(p, 4)})


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
