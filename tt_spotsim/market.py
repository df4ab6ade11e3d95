"""The spot market a simulation runs on: a seeded synthetic market, or a price file.

:func:`market` turns a price source into a :class:`tt_spotsim.traces.PriceTrace`: a synthetic market by
name, ``"real"`` (the user's 2017 trace, :func:`tt_spotsim.traces.load_trace`) or a path (the 2017 trace's
CSV, or a post-2017 history, :mod:`tt_spotsim.history`).

:func:`synthetic_market` generates a seeded "2017-style" market: per type a base fraction of the
on-demand price with a tight band of frequent small changes around it, and random spikes above the
on-demand price with a per-type rate, height and duration (:class:`MarketParams`). Everything it
feeds is labelled *synthetic* (``PriceTrace.synthetic``). :func:`fit_market_params` estimates these
parameters from a trace (e.g. the real file) so that a user can compare.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
import pandas as pd

from tt_core.data.io import shown
from tt_spotsim import history as H
from tt_spotsim.catalogue import CATALOGUE, SpotError, check_types, instance
from tt_spotsim.streams import spot_rng
from tt_spotsim.traces import DEFAULT_RESAMPLING, TRACE_DAYS, TRACE_START, PriceTrace, load_trace

#: The names of the synthetic markets :func:`market` generates (anything else is a price file, or ``"real"``).
SYNTHETIC = ("synthetic", "synthetic-today", "synthetic-persistent")
#: The longest synthetic market (days) ``synthetic_market`` generates (``--market-days``).
MAX_MARKET_DAYS = 3650


# ------------------------------------------------------------------------------------------------
# The synthetic market
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MarketParams:
    """Parameters of one type's synthetic market.

    Attributes
    ----------
    base_fraction : float
        Median spot price as a fraction of the on-demand price.
    band : float
        Relative standard deviation of the calm-market price levels around the base (clipped at 2.5 sd).
    changes_per_hour : float
        Rate of price changes in the calm market (a Poisson process).
    spikes_per_day : float
        Rate of spikes above the on-demand price.
    spike_height : float
        Mean spike price as a multiple of the on-demand price (> 1).
    spike_minutes : float
        Mean spike duration (exponential).
    """

    base_fraction: float
    band: float
    changes_per_hour: float
    spikes_per_day: float
    spike_height: float
    spike_minutes: float

    def __post_init__(self):
        checks = {"base_fraction": (0, 1), "band": (0, 0.5), "changes_per_hour": (0, 60), "spikes_per_day": (0, 100),
                  "spike_height": (1, 100), "spike_minutes": (1, 10_000)}
        for name, (lo, hi) in checks.items():
            v = getattr(self, name)
            if not (np.isfinite(v) and lo <= v <= hi):
                raise SpotError(f"market parameter {name}={shown(v)} outside [{lo}, {hi}]")


#: Parameters of the synthetic 2017-style market, per type. Chosen by hand (not fitted: the trace is not
#: available here) to resemble 2017 us-east-1 markets as the SpotTune and Tributary papers describe them:
#: spot at 20-30% of on-demand (the paper's "70%-80% discount"), prices changing every few minutes in a
#: tight band, and occasional spikes above the on-demand price; r3 (the older generation) more volatile.
#: Fit them to the real file with :func:`fit_market_params`.
DEFAULT_PARAMS: dict[str, MarketParams] = {
    "r4.large": MarketParams(0.20, 0.05, 6.0, 0.5, 1.5, 30.0),
    "r3.xlarge": MarketParams(0.30, 0.15, 8.0, 1.5, 2.0, 45.0),
    "r4.xlarge": MarketParams(0.20, 0.05, 6.0, 0.5, 1.5, 30.0),
    "m4.2xlarge": MarketParams(0.25, 0.08, 6.0, 1.0, 1.5, 30.0),
    "r4.2xlarge": MarketParams(0.20, 0.06, 5.0, 0.7, 1.5, 30.0),
    "m4.4xlarge": MarketParams(0.22, 0.08, 6.0, 1.0, 1.5, 40.0),
}
#: A market in today's style (since late 2017: no bidding, prices move slowly, no spikes).
TODAY_PARAMS = MarketParams(0.30, 0.03, 1.0 / 24.0, 0.0, 1.5, 30.0)
#: Price tick (USD per hour), as AWS published spot prices.
TICK = 1e-4


def synthetic_prices(name: str, n_minutes: int, params: MarketParams, rng: np.random.Generator,
                     on_demand: float) -> np.ndarray:
    """One type's minute prices (USD per hour) from :class:`MarketParams`."""
    base = params.base_fraction * on_demand
    change = rng.random(n_minutes) < params.changes_per_hour / 60.0
    change[0] = True
    levels = base * (1.0 + params.band * np.clip(rng.standard_normal(int(change.sum())), -2.5, 2.5))
    prices = levels[np.cumsum(change) - 1]
    n_spikes = rng.poisson(params.spikes_per_day * n_minutes / 1440.0)
    starts = rng.integers(0, n_minutes, n_spikes)
    lengths = np.maximum(1, np.round(rng.exponential(params.spike_minutes, n_spikes))).astype(int)
    heights = on_demand * (1.0 + (params.spike_height - 1.0) * rng.exponential(1.0, n_spikes))
    for s, n, h in zip(starts, lengths, heights):
        prices[s:s + n] = np.maximum(prices[s:s + n], h)
    return np.maximum(TICK, np.round(prices / TICK) * TICK)


#: The persistent market's regimes (assumptions, not fitted: the 2017 trace is not available here, and no
#: published statistic of it gives regime lengths; see :func:`market_parameters`): a calm
#: regime and a volatile one, switching as a Markov chain with these mean dwell times (hours); in the
#: volatile regime prices change ``VOLATILE_CHANGES`` times as often with ``VOLATILE_BAND`` times the
#: spread, and spikes arrive ``VOLATILE_SPIKES`` times as often as in the calm one (``CALM_SPIKES``): with
#: the dwell times below the long-run spike rate stays close to :class:`MarketParams`' (0.83 x 0.2 + 0.17 x 5
#: = 1.0). Levels revert to the base price (AR(1) with ``REVERSION`` per change) instead of being drawn
#: afresh, so the past hour tells where the price is heading.
#: Which parameters have a published source (:func:`market_parameters`): the SpotTune paper gives only the
#: price level (spot "usually 70%-80% lower than the on-demand", §I and §II-A), that markets of different
#: types are "barely correlated" (§II-A) and the trace period (§IV-D's 04/26-05/04 and 05/05-05/07 from the
#: 13-day Kaggle trace); its Fig. 1 (prices over eleven days) has no numbers in the text. Everything else is an
#: assumption, chosen by hand before any comparison.
CALM_HOURS, VOLATILE_HOURS = 20.0, 4.0
VOLATILE_CHANGES, VOLATILE_BAND, VOLATILE_SPIKES, CALM_SPIKES = 4.0, 3.0, 5.0, 0.2
REVERSION = 0.9

_CITED_LEVEL = "cited: SpotTune §I and §II-A, spot 'usually 70%-80% lower than the on-demand' (fraction 0.2-0.3)"


def market_parameters() -> pd.DataFrame:
    """Every parameter of the synthetic markets (memoryless and persistent) with its value and its source:
    ``cited`` (with where) or ``assumption``."""
    lo = min(p.base_fraction for p in DEFAULT_PARAMS.values())
    hi = max(p.base_fraction for p in DEFAULT_PARAMS.values())

    def span(attr):
        vals = sorted({getattr(p, attr) for p in DEFAULT_PARAMS.values()})
        return f"{vals[0]:g}" if len(vals) == 1 else f"{vals[0]:g}-{vals[-1]:g}"

    rows = [
        ("base_fraction (median spot / on-demand)", f"{lo:g}-{hi:g} by type", "both", _CITED_LEVEL),
        ("types independent (one stream per type)", "yes", "both",
         "cited: SpotTune §II-A, 'price fluctuations among different markets are barely correlated'"),
        ("market length", f"{TRACE_DAYS} days from {TRACE_START:%Y-%m-%d}", "both",
         "cited: the paper's trace (Kaggle 'AWS Spot Pricing Market', 2017-04-26 to 05-08; §IV-D's split)"),
        ("band (relative sd of calm price levels)", span("band"), "both", "assumption"),
        ("changes_per_hour (calm)", span("changes_per_hour"), "both",
         "assumption (the trace's published size, about 3.72 million rows over 68 types, 5 zones and 13 days, "
         "does not say how many rows are price changes)"),
        ("spikes_per_day (long-run)", span("spikes_per_day"), "both", "assumption"),
        ("spike_height (mean, x on-demand)", span("spike_height"), "both", "assumption"),
        ("spike_minutes (mean duration)", span("spike_minutes"), "both", "assumption"),
        ("CALM_HOURS (mean dwell, calm regime)", f"{CALM_HOURS:g} h", "persistent", "assumption"),
        ("VOLATILE_HOURS (mean dwell, volatile regime)", f"{VOLATILE_HOURS:g} h", "persistent", "assumption"),
        ("VOLATILE_CHANGES (x calm change rate)", f"{VOLATILE_CHANGES:g}", "persistent", "assumption"),
        ("VOLATILE_BAND (x calm band)", f"{VOLATILE_BAND:g}", "persistent", "assumption"),
        ("VOLATILE_SPIKES / CALM_SPIKES (x long-run spike rate)", f"{VOLATILE_SPIKES:g} / {CALM_SPIKES:g}",
         "persistent", "assumption (chosen so that the long-run spike rate stays the memoryless market's)"),
        ("REVERSION (AR(1) coefficient per price change)", f"{REVERSION:g}", "persistent", "assumption"),
        ("price tick", f"{TICK:g} USD/h", "both", "assumption"),
    ]
    return pd.DataFrame(rows, columns=["parameter", "value", "market", "source"])


def persistent_prices(name: str, n_minutes: int, params: MarketParams, rng: np.random.Generator,
                      on_demand: float) -> np.ndarray:
    """One type's minute prices from :class:`MarketParams` with memory: regime switching (calm / volatile),
    spikes clustered in the volatile regime, and mean-reverting levels (constants above)."""
    # regimes: a two-state Markov chain, drawn as alternating exponential dwell times
    regime = np.zeros(n_minutes, bool)
    t, volatile = 0, bool(rng.random() < VOLATILE_HOURS / (CALM_HOURS + VOLATILE_HOURS))
    while t < n_minutes:
        d = max(1, int(round(rng.exponential(60.0 * (VOLATILE_HOURS if volatile else CALM_HOURS)))))
        regime[t:t + d] = volatile
        t, volatile = t + d, not volatile
    base = params.base_fraction * on_demand
    rate = params.changes_per_hour / 60.0 * np.where(regime, VOLATILE_CHANGES, 1.0)
    change = rng.random(n_minutes) < np.minimum(rate, 1.0)
    change[0] = True
    where = np.flatnonzero(change)
    eps = np.clip(rng.standard_normal(len(where)), -2.5, 2.5) * params.band * np.where(regime[where], VOLATILE_BAND, 1.0)
    levels = np.empty(len(where))
    x = 0.0
    for i, e in enumerate(eps):                  # deviation from the base, relative, AR(1)
        x = REVERSION * x + e
        levels[i] = base * (1.0 + float(np.clip(x, -0.8, 3.0)))
    prices = levels[np.cumsum(change) - 1]
    spike_rate = params.spikes_per_day / 1440.0 * np.where(regime, VOLATILE_SPIKES, CALM_SPIKES)
    starts = np.flatnonzero(rng.random(n_minutes) < spike_rate)
    lengths = np.maximum(1, np.round(rng.exponential(params.spike_minutes, len(starts)))).astype(int)
    heights = on_demand * (1.0 + (params.spike_height - 1.0) * rng.exponential(1.0, len(starts)))
    for s0, n, h in zip(starts, lengths, heights):
        prices[s0:s0 + n] = np.maximum(prices[s0:s0 + n], h)
    return np.maximum(TICK, np.round(prices / TICK) * TICK)


def synthetic_market(seed: int, types=None, days: float = TRACE_DAYS, start: pd.Timestamp = TRACE_START,
                     params: dict | None = None, style: str = "2017") -> PriceTrace:
    """A seeded synthetic market of ``days`` days (default: the paper's trace period, from 2017-04-26).

    Parameters
    ----------
    seed : int
        Same seed, same prices (each type has its own stream, :func:`tt_spotsim.streams.spot_rng`
        ``"prices"``).
    types : list of str, optional
        Default: the six types of Table III.
    params : dict of str to MarketParams, optional
        Per-type parameters (default :data:`DEFAULT_PARAMS`, or :data:`TODAY_PARAMS` for ``style="today"``).
    style : {"2017", "today", "persistent"}
        ``persistent``: the 2017 parameters with memory (:func:`persistent_prices`).
    """
    if style not in ("2017", "today", "persistent"):
        raise SpotError(f"unknown market style {shown(style)}; known styles: ['2017', 'today', 'persistent']")
    types = check_types(types or list(CATALOGUE))
    n = int(round(days * 1440)) if isinstance(days, (int, float, np.integer, np.floating)) and np.isfinite(days) else 0
    if not (0 < days <= MAX_MARKET_DAYS) or n < 1:
        raise SpotError(f"a synthetic market lasts from one minute to {MAX_MARKET_DAYS} days (MAX_MARKET_DAYS), got "
                        f"{shown(days)} days")
    table = dict(params or {})
    out = {}
    for name in types:
        p = table.get(name) or (TODAY_PARAMS if style == "today" else DEFAULT_PARAMS[name])
        gen = persistent_prices if style == "persistent" else synthetic_prices
        out[name] = gen(name, n, p, spot_rng(seed, "prices", name), instance(name).on_demand)
    return PriceTrace(pd.Timestamp(start), out, f"synthetic {style}-style (seed {seed})", True, "generated")


def fit_market_params(trace: PriceTrace, name: str) -> MarketParams:
    """Estimate one type's :class:`MarketParams` from a trace (moment estimates).

    Spikes are the runs of minutes above the on-demand price; the calm market is the rest. The base
    fraction is the calm median over the on-demand price; the band is the standard deviation of the
    calm price levels relative to that median; the change rate is the number of calm price changes per
    calm hour.
    """
    p = trace.series(name)
    od = instance(name).on_demand
    spike = p > od
    calm = p[~spike]
    if len(calm) < 2:
        raise SpotError(f"{name}: the trace is above the on-demand price almost all the time; nothing to fit")
    median = float(np.median(calm))
    changed = np.flatnonzero(np.diff(p) != 0) + 1
    calm_changes = changed[~spike[changed] & ~spike[changed - 1]]
    levels = p[np.concatenate([[0], calm_changes])]
    levels = levels[levels <= od]
    edges = np.diff(np.concatenate([[0], spike.astype(int), [0]]))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    days = len(p) / 1440.0
    height = float(np.mean([p[s:e].max() for s, e in zip(starts, ends)]) / od) if len(starts) else 1.5
    return MarketParams(
        base_fraction=min(1.0, median / od),
        band=float(min(0.5, np.std(levels) / median)) if len(levels) > 1 else 0.0,
        changes_per_hour=min(60.0, len(calm_changes) / (len(calm) / 60.0)),
        spikes_per_day=min(100.0, len(starts) / days),
        spike_height=max(1.0, min(100.0, height)),
        spike_minutes=max(1.0, float(np.mean(ends - starts))) if len(starts) else 30.0,
    )


def market(prices: str | os.PathLike = "synthetic", seed: int = 1, types=None, days: float = TRACE_DAYS,
           resampling: str = DEFAULT_RESAMPLING) -> PriceTrace:
    """``"synthetic"`` (seeded, ``days`` long), ``"synthetic-today"``, ``"synthetic-persistent"`` (with memory,
    :func:`persistent_prices`), ``"real"`` (the located trace) or a path: the 2017 trace's CSV, or a post-2017
    history (``.tsv``, :mod:`tt_spotsim.history`)."""
    if not str(prices).strip():
        raise SpotError(f"the price source is empty; give one of {list(SYNTHETIC)}, 'real' or the path of a price file")
    if str(prices) == "synthetic":
        return synthetic_market(seed, types, days=days)
    if str(prices) == "synthetic-today":
        return synthetic_market(seed, types, days=days, style="today")
    if str(prices) == "synthetic-persistent":
        return synthetic_market(seed, types, days=days, style="persistent")
    if str(prices) != "real":
        if H.is_history_file(prices):       # a post-2017 history (aws-spot-price-history format)
            return H.load_history(prices, types, resampling)
    return load_trace(None if str(prices) == "real" else prices, types, resampling)
