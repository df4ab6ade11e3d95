"""Revocation probability: will an instance of type *i* with maximum price *b* be revoked within an hour of *t*?

The paper's RevPred (§III-B) answers with an LSTM over the past 59 minutes; this module defines the
interface every predictor follows, so that RevPred and Tributary's predictor (the LSTMs of
:mod:`tt_spotsim.revpred`) plug in without change, and provides three predictors:

* :class:`EmpiricalPredictor`: the fraction of past windows in which the price rose above the bid within
  an hour (the bid taken relative to the price at the window's start);
* :class:`LogisticPredictor`: logistic regression on the paper's six engineered features (current
  price, mean price of the past hour, number of price changes in the past hour, time since the current
  price was set, workday flag, hour of day) plus the maximum price, trained with class weights and
  calibrated by Eq. 3; the paper's "Logistic Regression" of Fig. 10;
* :class:`HazardPredictor`: today's capacity-driven interruptions (``1 - exp(-lambda * 1 h)``).

Interface
---------
``predictor.fit(trace, until=None) -> predictor`` learns from the trace's minutes before ``until``
(seconds; default: all); ``predictor.probability(name, bid, t) -> float`` is the probability that the
price exceeds ``bid`` within the hour after second ``t`` (using the trace up to ``t`` only).

The label
---------
At minute *m* with maximum price *b*: revoked within the hour if ``max(price[m+1 .. m+59]) > b`` (the
price of minute *m* is known; the following 59 minute prices lie within the hour). This is the event
:meth:`~tt_spotsim.traces.PriceTrace.first_above` finds in ``[t, t + 3600)``.

Reconstructions (the paper's Eq. 3 and Alg. 2 were lost in extraction)
---------------------------------------------------------------------
* **Class weights** (§III-B, "we assign ... as the positive and negative class weights"): with ``P`` and
  ``N`` the fractions of positive and negative training samples, positives get weight ``N`` and negatives
  ``P`` (the balanced weighting the text describes).
* **Eq. 3** (reconstructed): a model trained with those weights estimates the posterior of a *balanced*
  training set, ``o``; the revocation probability is that output corrected back to the true class prior,
  ``p = o P / (o P + (1 - o) N)``  (:func:`calibrate`). At ``o = 1/2`` it gives ``P``, the base rate.
* **Tributary's maximum price** (§III-B, from Tributary [1]): the present price plus a delta drawn
  uniformly from ``[0.00001, 0.2]`` USD per hour (:func:`random_bids`, :data:`TRIBUTARY_DELTA`); RevPred
  draws its inference maximum prices the same way.
* **Alg. 2** (reconstructed, :func:`algorithm2_margins`): the training maximum price at minute *m* is the
  current price plus the average variation of the price over the previous hour with the smallest 20 %
  and the largest 20 % of the variations removed. The variations are the absolute changes between
  consecutive price records (the non-zero minute-to-minute changes); an hour without a change uses one
  price tick ($0.0001).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from typing import Protocol, runtime_checkable

import numpy as np
import pandas as pd

from tt_spotsim.catalogue import SpotError
from tt_spotsim.streams import spot_rng
from tt_core.data.io import shown

WINDOW = 60  # minutes: the hour of the label and of the features
TICK = 1e-4
#: Tributary's maximum price: present price + a delta uniform in this range (USD per hour, §III-B).
TRIBUTARY_DELTA = (0.00001, 0.2)
FEATURES = ("price", "mean_price_hour", "changes_hour", "minutes_since_change", "workday", "hour_of_day")


@runtime_checkable
class RevocationPredictor(Protocol):
    """What the provisioner needs from a predictor (see the module docstring)."""

    name: str

    def fit(self, trace, until: float | None = None) -> "RevocationPredictor": ...

    def probability(self, name: str, bid: float, t: float) -> float: ...


# ------------------------------------------------------------------------------------------------
# Helpers on one type's minute prices
# ------------------------------------------------------------------------------------------------
def forward_max(prices: np.ndarray, window: int = WINDOW) -> np.ndarray:
    """``max(prices[m+1 .. m+window-1])`` for every minute (NaN where the hour runs past the end)."""
    p = np.asarray(prices, float)
    n = len(p)
    out = np.full(n, np.nan)
    if n < window:
        return out
    from numpy.lib.stride_tricks import sliding_window_view

    w = sliding_window_view(p[1:], window - 1).max(axis=1)   # w[m] = max p[m+1 .. m+window-1]
    out[: len(w)] = w
    out[n - window + 1:] = np.nan
    return out


def revoked_within_hour(prices: np.ndarray, bids: np.ndarray) -> np.ndarray:
    """The label at every minute for per-minute maximum prices ``bids`` (NaN past the end)."""
    fm = forward_max(prices)
    out = np.where(np.isnan(fm), np.nan, (fm > np.asarray(bids, float)).astype(float))
    return out


def features(trace, name: str) -> pd.DataFrame:
    """The paper's six engineered features at every minute of one type (minutes since the trace start
    index the rows). The past hour is the current minute and the 59 before it (fewer at the start)."""
    p = trace.series(name)
    n = len(p)
    cum = np.concatenate([[0.0], np.cumsum(p)])
    idx = np.arange(n)
    lo = np.maximum(0, idx - (WINDOW - 1))
    mean_hour = (cum[idx + 1] - cum[lo]) / (idx + 1 - lo)
    change = np.concatenate([[False], p[1:] != p[:-1]])
    ccum = np.concatenate([[0], np.cumsum(change)])
    changes_hour = ccum[idx + 1] - ccum[lo + 1]          # changes at minutes lo+1 .. m
    last = np.maximum.accumulate(np.where(change, idx, 0))
    stamps = trace.times()
    return pd.DataFrame({
        "price": p, "mean_price_hour": mean_hour, "changes_hour": changes_hour.astype(float),
        "minutes_since_change": (idx - last).astype(float),
        "workday": (stamps.day_of_week < 5).astype(float), "hour_of_day": stamps.hour.astype(float),
    })


def price_changes(prices: np.ndarray) -> tuple[list, list]:
    """``(where, sizes)``: the minute indices ``k`` with a price change between minute ``k`` and ``k + 1``
    and the absolute sizes of those changes (plain lists: the windows are a handful of changes)."""
    d = np.abs(np.diff(np.asarray(prices, float)))
    where = np.flatnonzero(d > 0)
    return where.tolist(), d[where].tolist()


def trimmed_margin(where: list, sizes: list, minute: int, trim: float = 0.2) -> float:
    """Alg. 2 at one minute from :func:`price_changes`: the trimmed mean of the changes in the past hour."""
    a, b = bisect_left(where, minute - WINDOW), bisect_left(where, minute)   # changes landing in m-59 .. m
    if a == b:
        return TICK
    v = sorted(sizes[a:b])
    k = int(math.floor(trim * len(v)))
    kept = v[k: len(v) - k] if len(v) - 2 * k > 0 else v
    return max(TICK, sum(kept) / len(kept))


def algorithm2_margins(prices: np.ndarray, minutes: np.ndarray, trim: float = 0.2) -> np.ndarray:
    """Alg. 2 (reconstructed): the training bid margin (USD/h) at each of ``minutes``: the trimmed mean of
    the absolute price changes in the previous hour (one tick if there was none)."""
    where, sizes = price_changes(prices)
    return np.array([trimmed_margin(where, sizes, int(m), trim) for m in np.asarray(minutes, int)])


def random_bids(prices, rng: np.random.Generator, delta=TRIBUTARY_DELTA) -> np.ndarray:
    """Tributary's maximum prices (§III-B): each price plus a delta drawn uniformly from ``delta`` (USD/h)."""
    lo, hi = float(delta[0]), float(delta[1])
    if not (0 <= lo <= hi and np.isfinite(hi)):
        raise SpotError(f"the maximum-price delta range must be 0 <= low <= high, got {shown(tuple(delta))}")
    p = np.asarray(prices, float)
    return p + rng.uniform(lo, hi, p.shape)


def calibrate(output, positive_fraction: float):
    """Eq. 3 (reconstructed): undo balanced class weights, ``p = o P / (o P + (1 - o) N)``."""
    o = np.clip(np.asarray(output, float), 0.0, 1.0)
    P = float(positive_fraction)
    N = 1.0 - P
    den = o * P + (1 - o) * N
    return np.where(den > 0, o * P / np.where(den > 0, den, 1.0), P)


def minute_of(trace, t: float) -> int:
    """The minute of the trace holding time ``t`` (seconds from its start); a SpotError outside the trace."""
    m = int(math.floor(t / 60.0 + 1e-9))
    if not 0 <= m < trace.n_minutes:
        raise SpotError(f"time {t / 3600:.2f} h lies outside the price trace (0 to {trace.duration_s / 3600:.1f} h)")
    return m


def _fit_minutes(trace, until: float | None, stride: int = 1, history: int = 0) -> np.ndarray:
    end = trace.n_minutes if until is None else min(trace.n_minutes, int(until // 60))
    last = end - WINDOW  # the label needs the hour after the minute, inside the fit period
    if last <= history:
        raise SpotError(f"too little price history to fit a revocation predictor ({end} minutes before 'until'; "
                        f"need more than {history + WINDOW})")
    return np.arange(history, last, stride)


# ------------------------------------------------------------------------------------------------
# Predictors
# ------------------------------------------------------------------------------------------------
class EmpiricalPredictor:
    """Fraction of past windows in which the price rose above the bid within an hour.

    A window starts at every fitted minute ``s``; its bid is placed at the same *relative* margin above
    that minute's price as the query's bid above the price at ``t``:
    ``P = #{s : max(price[s+1..s+59]) / price[s] - 1 > bid / price(t) - 1} / #windows``.
    """

    name = "empirical"

    def __init__(self):
        self.trace = None
        self._rises: dict[str, np.ndarray] = {}

    def fit(self, trace, until: float | None = None) -> "EmpiricalPredictor":
        self.trace = trace
        minutes = _fit_minutes(trace, until)
        for name in trace.types:
            p = trace.series(name)
            rise = forward_max(p)[minutes] / p[minutes] - 1.0
            self._rises[name] = np.sort(rise)
        return self

    def probability(self, name: str, bid: float, t: float) -> float:
        if self.trace is None:
            raise SpotError("fit the predictor on a price trace first (predictor.fit(trace))")
        if name not in self._rises:
            raise SpotError(f"the predictor was fitted without type {shown(name)}; fitted: {list(self._rises)}")
        margin = bid / self.trace.price_at(name, t) - 1.0
        r = self._rises[name]
        return float(1.0 - np.searchsorted(r, margin, side="right") / len(r))


class LogisticPredictor:
    """Logistic regression on the six features and the maximum price, one model per type (§III-B, Fig. 10).

    Training samples: every ``stride``-th minute of the fit period with at least an hour of history; the
    maximum price is the price plus the Alg. 2 margin; the label as in the module docstring. Inputs are
    the six features, the relative margin ``bid / price - 1``, prices in units of the type's mean price;
    standardised; class weights and Eq. 3 calibration as reconstructed above.

    Same fit on any CPU: the fitted coefficients and intercept are rounded to float32 (the lbfgs fit's last
    bits depend on the BLAS kernels: up to 4e-13 relative apart between OpenBLAS' Prescott and Haswell
    kernels) and the output's dot product is summed exactly (``math.fsum``), not in BLAS' order.
    """

    name = "logistic"

    def __init__(self, stride: int = 5, C: float = 1.0):
        self.stride, self.C = int(stride), float(C)
        self.trace = None
        self._models: dict[str, tuple] = {}
        self._feats: dict[str, np.ndarray] = {}

    def _inputs(self, name: str, minutes: np.ndarray, bids: np.ndarray) -> np.ndarray:
        F = self._feats[name][minutes]
        price = F[:, 0]
        return np.column_stack([F, np.asarray(bids, float) / price - 1.0])

    def fit(self, trace, until: float | None = None) -> "LogisticPredictor":
        from sklearn.linear_model import LogisticRegression

        self.trace = trace
        minutes = _fit_minutes(trace, until, self.stride, history=WINDOW - 1)
        for name in trace.types:
            p = trace.series(name)
            scale = float(p[: minutes[-1] + 1].mean())
            F = features(trace, name).to_numpy(float, copy=True)
            F[:, 0] /= scale
            F[:, 1] /= scale
            self._feats[name] = F
            bids = p[minutes] + algorithm2_margins(p, minutes)
            y = (forward_max(p)[minutes] > bids).astype(float)
            X = self._inputs(name, minutes, bids / scale)
            P = float(y.mean())
            if P in (0.0, 1.0):   # one class only: the empirical rate is the best answer
                self._models[name] = ("constant", P)
                continue
            mu, sd = X.mean(axis=0), X.std(axis=0)
            sd[sd == 0] = 1.0
            model = LogisticRegression(C=self.C, class_weight={1: 1 - P, 0: P}, max_iter=1000)
            model.fit((X - mu) / sd, y.astype(int))
            # rounded to float32: the fit's last bits depend on the CPU's BLAS kernels (measured: up to 4e-13
            # relative apart under OpenBLAS' Prescott and Haswell kernels), the rounding removes them
            coef = model.coef_[0].astype(np.float32).astype(float)
            self._models[name] = ("logistic", P, mu, sd, coef, float(np.float32(model.intercept_[0])), scale)
        return self

    def raw_output(self, name: str, bid: float, t: float) -> float:
        """The model's output ``o`` before Eq. 3 (a balanced-weight posterior)."""
        m = self._model(name)
        if m[0] == "constant":
            return 0.5
        _, P, mu, sd, coef, b0, scale = m
        f = self._feats[name][minute_of(self.trace, t)]
        x = np.append(f, bid / scale / f[0] - 1.0)
        z = math.fsum((((x - mu) / sd) * coef).tolist()) + b0     # exactly rounded: no BLAS summation order
        return 1.0 / (1.0 + math.exp(-z)) if z > -700 else 0.0

    def _model(self, name):
        if self.trace is None:
            raise SpotError("fit the predictor on a price trace first (predictor.fit(trace))")
        if name not in self._models:
            raise SpotError(f"the predictor was fitted without type {shown(name)}; fitted: {list(self._models)}")
        return self._models[name]

    def probability(self, name: str, bid: float, t: float) -> float:
        m = self._model(name)
        if m[0] == "constant":
            return m[1]
        o, P = self.raw_output(name, bid, t), m[1]      # Eq. 3 (calibrate), on scalars
        den = o * P + (1 - o) * (1 - P)
        return o * P / den if den > 0 else P


class HazardPredictor:
    """Capacity-driven interruptions at a constant rate (``aws-today``): ``1 - exp(-lambda * 1 h)``."""

    name = "hazard"

    def __init__(self, hazard_per_hour: dict):
        self.hazard = dict(hazard_per_hour)
        self.trace = None

    def fit(self, trace, until: float | None = None) -> "HazardPredictor":
        self.trace = trace
        return self

    def probability(self, name: str, bid: float, t: float) -> float:
        return float(1.0 - math.exp(-self.hazard.get(name, 0.0)))


PREDICTORS = {"empirical": EmpiricalPredictor, "logistic": LogisticPredictor}


def make_predictor(name: str) -> RevocationPredictor:
    """A fresh predictor by name (``empirical``, ``logistic``)."""
    try:
        return PREDICTORS[name]()
    except KeyError:
        raise SpotError(f"unknown revocation predictor {shown(name)}; known: {list(PREDICTORS)}") from None


def evaluate(predictor, trace, start: float, end: float, stride: int = 15, threshold: float = 0.5,
             bids: str = "algorithm2", seed: int = 0, delta=TRIBUTARY_DELTA) -> pd.DataFrame:
    """Accuracy and F1 of ``predictor`` on the minutes of ``[start, end)`` (the paper's Fig. 10 protocol:
    train before, test after); one row per type.

    ``bids``: the maximum prices of the test samples, ``"algorithm2"`` (price + Alg. 2 margin) or
    ``"random"`` (price + a delta uniform in ``delta``, drawn from the ``"test-bids"`` stream of
    :func:`tt_spotsim.streams.spot_rng` for the i-th type: RevPred's and Tributary's inference rule). A
    predictor with a batch method ``probabilities(name, bids, minutes)`` is queried once per type; otherwise
    sample by sample."""
    if bids not in ("algorithm2", "random"):
        raise SpotError(f"bids must be 'algorithm2' or 'random', got {shown(bids)}")
    rows = []
    lo, hi = int(start // 60), min(trace.n_minutes - WINDOW, int(end // 60))
    minutes = np.arange(lo, hi, stride)
    if not len(minutes):
        raise SpotError(f"no test minute between {start / 3600:.1f} h and {end / 3600:.1f} h with an hour after it "
                        f"in the trace ({trace.duration_s / 3600:.1f} h)")
    batch = getattr(predictor, "probabilities", None)
    for i, name in enumerate(trace.types):
        p = trace.series(name)
        if bids == "algorithm2":
            b = p[minutes] + algorithm2_margins(p, minutes)
        else:
            b = random_bids(p[minutes], spot_rng(seed, "test-bids", i), delta)
        y = forward_max(p)[minutes] > b
        if batch is not None:
            prob = np.asarray(batch(name, b, minutes), float)
        else:
            prob = np.array([predictor.probability(name, x, 60.0 * m) for m, x in zip(minutes, b)])
        pred = prob >= threshold
        tp, fp, fn = int((pred & y).sum()), int((pred & ~y).sum()), int((~pred & y).sum())
        f1 = 2 * tp / (2 * tp + fp + fn) if (2 * tp + fp + fn) else float("nan")
        rows.append({"type": name, "predictor": predictor.name, "bids": bids, "samples": len(y),
                     "positive_rate": float(y.mean()), "accuracy": float((pred == y).mean()), "f1": f1,
                     "mean_probability": float(prob.mean())})
    return pd.DataFrame(rows)
