"""Spot price traces: the user's file of the public 2017 market, resampling, and a seeded synthetic market.

A :class:`PriceTrace` holds one price (USD per hour) per instance type per minute, from a start time.
Prices are piecewise constant within a minute; all times of the simulation are seconds since the
trace's start.

Sources
-------
* :func:`load_trace` reads the public "AWS Spot Pricing Market" data set (B. Visser, Kaggle; the paper's
  ref. [25]), region file ``us-east-1.csv``: headerless CSV ``Timestamp, InstanceType,
  OperatingSystem, AvailabilityZone, SpotPrice``, 2017-04-26 to 2017-05-08. Its license is not stated,
  so the workbook neither ships nor downloads it: the user supplies it (an explicit path, or the file
  ``us-east-1.csv`` in ``$TT_DATA_DIR``, the ``data/`` cache or ``../shared/data``, searched as for the
  benchmarks by :func:`tt_core.data.benchmarks.search_dirs`). Its size is checked against the published
  one (a warning, since a user may pass a filtered copy).
* :func:`synthetic_market` generates a seeded "2017-style" market: per type a base fraction of the
  on-demand price with a tight band of frequent small changes around it, and random spikes above the
  on-demand price with a per-type rate, height and duration (:class:`MarketParams`). Everything it
  feeds is labelled *synthetic* (``PriceTrace.synthetic``). :func:`fit_market_params` estimates these
  parameters from a trace (e.g. the real file) so that a user can compare.

Resampling (:func:`resample`)
-----------------------------
The raw records are sparse and irregular (a record when the price changes). The paper "interpolates
values between records" to a 1-minute grid. Two methods are offered:

* ``"ffill"`` (**default**): the price of a minute is the last record at or before the minute's start.
  This is the market's own semantics: a spot price holds until the next price is published.
* ``"interpolate"``: linear in time between records (the paper's wording). It invents intermediate
  prices, smooths spikes and moves bid crossings earlier than they happened; offered to reproduce the
  paper's preprocessing and measure what it changes.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from tt_core.spot.catalogue import CATALOGUE, SpotError, check_types, instance
from tt_core.spot.streams import spot_rng
from tt_core.data.io import shown

#: The public file of the paper's trace (not shipped, not downloaded: its license is not stated).
TRACE_FILE = "us-east-1.csv"
TRACE_COLUMNS = ["timestamp", "instance_type", "os", "zone", "price"]
#: Size of the published file in bytes; its sha256 is known only from one third-party copy.
TRACE_SIZE = 242_883_743
TRACE_SHA256_PREFIX, TRACE_SHA256_SUFFIX = "6c2b86e6", "af95"
#: Start of the paper's trace period (the Kaggle data set, us-east-1).
TRACE_START = pd.Timestamp("2017-04-26 00:00:00", tz="UTC")
TRACE_DAYS = 13
RESAMPLING = ("ffill", "interpolate")
DEFAULT_RESAMPLING = "ffill"
#: The plausible range of a spot price, USD per hour: above 0, at most ``MAX_PRICE``. Bids (and so 2017's
#: prices) were limited by default to four times the on-demand price from December 2013 (AWS EC2 User Guide,
#: "Spot Instance Limits"; raised on request), and the dearest on-demand price of the 2017 snapshot
#: (ec2instances.info 0.0.2) is 47.258 USD/h (x1.32xlarge, SQL Server, sa-east-1); since 2017 a spot price
#: stays below the on-demand one. 1000 USD/h lies five times above four times that price (189 USD/h) and far
#: below what overflows a cost: a record above it is a typo or another unit (e.g. cents).
MAX_PRICE = 1000.0
#: Amazon EC2's spot instances were launched on 14 December 2009: no spot price is older.
SPOT_SINCE = pd.Timestamp("2009-12-14", tz="UTC")
#: The longest time span (days) of a price file. The simulation builds a 1-minute grid from the first record
#: to the last (16 bytes per minute and type: a year of six types is 51 MB); it needs the predictor's
#: training days, a submission offset and the jobs' hours, and the published formats hold 13 days (the
#: 2017 trace) or one month per file. A file spanning more is refused (cut it to the months you simulate).
MAX_TRACE_DAYS = 366
#: The names of the synthetic markets :func:`market` generates (anything else is a price file, or ``"real"``).
SYNTHETIC = ("synthetic", "synthetic-today", "synthetic-persistent")
#: The longest synthetic market (days) ``synthetic_market`` generates (``--market-days``).
MAX_MARKET_DAYS = 3650


@dataclass(frozen=True)
class PriceTrace:
    """Minute-by-minute spot prices of several instance types.

    Attributes
    ----------
    start : pandas.Timestamp
        Time (UTC) of minute 0.
    prices : dict of str to numpy.ndarray
        USD per hour, one value per minute, every array the same length.
    source : str
        ``"synthetic (seed 1)"`` or the file it was read from.
    synthetic : bool
    resampling : str
        How the raw records were put on the grid (``"ffill"``, ``"interpolate"``, or ``"generated"``).
    """

    start: pd.Timestamp
    prices: dict
    source: str = "in-memory"
    synthetic: bool = False
    resampling: str = "generated"
    _cum: dict = field(default_factory=dict, repr=False, compare=False)
    _n: int = field(default=0, repr=False, compare=False)

    def __post_init__(self):
        lengths = {len(v) for v in self.prices.values()}
        if len(lengths) != 1:
            raise SpotError(f"price trace: every type needs the same number of minutes, got {sorted(lengths)}")
        for name, p in self.prices.items():
            p = np.asarray(p, dtype=float)
            if not np.isfinite(p).all() or (p <= 0).any():
                raise SpotError(f"price trace: type {shown(name)} has a missing, infinite or non-positive price")
            if (p > MAX_PRICE).any():
                raise SpotError(f"price trace: type {shown(name)} has a price of {float(p.max()):g} USD per hour, "
                                f"outside the plausible range (0, {MAX_PRICE:g}] (MAX_PRICE)")
            self.prices[name] = p
            self._cum[name] = np.concatenate([[0.0], np.cumsum(p) / 60.0])  # USD from minute 0 to minute m
        object.__setattr__(self, "_n", len(next(iter(self.prices.values()))))

    # -- size and labels ---------------------------------------------------------------------------
    @property
    def types(self) -> list[str]:
        return list(self.prices)

    @property
    def n_minutes(self) -> int:
        return self._n

    @property
    def duration_s(self) -> float:
        return 60.0 * self.n_minutes

    @property
    def label(self) -> str:
        if not self.synthetic:
            return f"AWS spot trace ({self.source})"
        src = str(self.source)                       # "synthetic <style>-style (seed n)"
        style = src.split(" ")[1] if src.startswith("synthetic ") and src.split(" ")[1].endswith("-style") else "2017-style"
        return f"synthetic {style} market"

    def times(self) -> pd.DatetimeIndex:
        return pd.date_range(self.start, periods=self.n_minutes, freq="min")

    def frame(self) -> pd.DataFrame:
        """The prices as a table (one column per type, a UTC minute index)."""
        return pd.DataFrame(self.prices, index=self.times())

    def series(self, name: str) -> np.ndarray:
        if name not in self.prices:
            raise SpotError(f"the price trace has no type {shown(name)}; it has {self.types}")
        return self.prices[name]

    def subset(self, names) -> "PriceTrace":
        names = check_types(names)
        return PriceTrace(self.start, {n: self.series(n).copy() for n in names}, self.source, self.synthetic,
                          self.resampling)

    # -- queries -----------------------------------------------------------------------------------
    def _minute(self, t: float) -> int:
        m = int(np.floor(t / 60.0 + 1e-9))
        if m < 0 or m >= self.n_minutes:
            raise SpotError(f"time {t / 3600:.2f} h lies outside the price trace (0 to {self.duration_s / 3600:.1f} h, "
                            f"{self.source}); use a longer trace, start earlier or shorten the jobs")
        return m

    def price_at(self, name: str, t: float) -> float:
        """USD per hour in effect at second ``t``."""
        return float(self.series(name)[self._minute(t)])

    def cost(self, name: str, t0: float, t1: float) -> float:
        """USD of running one instance from second ``t0`` to ``t1``, charged per second at the market price."""
        if t1 < t0:
            raise SpotError(f"cost over a negative interval ({t0} s to {t1} s)")
        return self._cum_at(name, t1) - self._cum_at(name, t0)

    def _cum_at(self, name: str, t: float) -> float:
        p, cum = self.series(name), self._cum[name]
        if t >= self.duration_s - 1e-9:
            if t > self.duration_s + 1e-6:
                self._minute(t)  # raises with the trace's extent
            return float(cum[-1])
        m = self._minute(t)
        return float(cum[m] + p[m] * (t - 60.0 * m) / 3600.0)

    def mean_price(self, name: str, t0: float, t1: float) -> float:
        """Time-average price (USD per hour) over ``[t0, t1)``."""
        if t1 <= t0:
            return self.price_at(name, t0)
        return self.cost(name, t0, t1) * 3600.0 / (t1 - t0)

    def first_above(self, name: str, bid: float, t0: float, t1: float | None = None) -> float | None:
        """The first time in ``[t0, t1)`` at which the price exceeds ``bid`` (the start of that minute,
        or ``t0`` itself when the price at ``t0`` already does); None if it never does."""
        p = self.series(name)
        m0 = self._minute(t0)
        m1 = self.n_minutes if t1 is None else min(self.n_minutes, int(np.ceil(t1 / 60.0 - 1e-9)))
        above = np.flatnonzero(p[m0:m1] > bid)
        if not len(above):
            return None
        return max(t0, 60.0 * (m0 + int(above[0])))


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
        Same seed, same prices (each type has its own stream, :func:`tt_core.spot.streams.spot_rng`
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


# ------------------------------------------------------------------------------------------------
# The user's trace file
# ------------------------------------------------------------------------------------------------
def locate_trace(path: str | os.PathLike | None = None) -> Path:
    """The path of the 2017 trace: ``path`` itself, else ``us-east-1.csv`` in the benchmark search folders
    (``$TT_DATA_DIR``, the ``data/`` cache, ``../shared/data``), each also under ``spot/``. A SpotError
    says where it looked and how to get the file."""
    from tt_core.data.benchmarks import search_dirs

    if path is not None:
        p = Path(path).expanduser()
        if not p.is_file():
            from tt_core.data.io import why_not_a_file

            raise SpotError(f"price trace {shown(str(path))} {why_not_a_file(p)} (give the path of the AWS Spot Pricing "
                            f"Market file {TRACE_FILE}, or 'synthetic')")
        return p
    tried = []
    for label, d in search_dirs():
        base = d.parent if label == "shared" else d
        for c in (base / TRACE_FILE, base / "spot" / TRACE_FILE):
            tried.append(str(c))
            if c.is_file():
                return c
    raise SpotError(
        f"the 2017 spot price trace ({TRACE_FILE}) was not found in {', '.join(tried)}; it is the Kaggle data set "
        "'AWS Spot Pricing Market' (noqcks), whose license is unstated, so the workbook does not download it: "
        "put it in one of those folders (or point TT_DATA_DIR at it), or use the synthetic market")


def trace_available() -> Path | None:
    """The trace's path if the user has supplied it, else None."""
    try:
        return locate_trace()
    except SpotError:
        return None


def _check_file(path: Path) -> None:
    """Size against the published file; if the size matches, the sha256 against the one third-party checksum
    known (its first and last hex digits only): a warning either way, never an error."""
    size = path.stat().st_size
    if size != TRACE_SIZE:
        warnings.warn(f"{path} has {size} bytes, the published {TRACE_FILE} has {TRACE_SIZE}: a filtered or different "
                      "copy (results will not be the paper's trace)", stacklevel=3)
        return
    from tt_core.data.benchmarks import sha256_of

    digest = sha256_of(path)
    if not (digest.startswith(TRACE_SHA256_PREFIX) and digest.endswith(TRACE_SHA256_SUFFIX)):
        warnings.warn(f"{path}: sha256 {digest[:8]}...{digest[-4:]} differs from the one known copy's "
                      f"({TRACE_SHA256_PREFIX}...{TRACE_SHA256_SUFFIX}, unconfirmed)", stacklevel=3)


def read_records(path: str | os.PathLike, types=None, os_name: str = "Linux/UNIX", zone: str | None = None,
                 chunksize: int = 500_000) -> pd.DataFrame:
    """The raw records of ``types`` (default: Table III's) for one operating system and one zone.

    ``zone=None`` keeps, per type, the availability zone with the most records (reported in the
    ``zone`` column). Malformed rows raise a SpotError naming the line (as a text editor counts it, blank
    lines included); prices outside (0, :data:`MAX_PRICE`], times before :data:`SPOT_SINCE` and files
    spanning more than :data:`MAX_TRACE_DAYS` are refused.
    """
    path = Path(path)
    types = check_types(types or list(CATALOGUE))
    with open(path, "rb") as fh:
        head = fh.read(65536)
    if b"\x00" in head:
        raise SpotError(f"{path}: not a text CSV file (it contains NUL bytes: a compressed file? unpack it first)")
    first = head.split(b"\n", 1)[0].decode("utf-8", "replace")
    if "price" in first.lower() or "timestamp" in first.lower():
        raise SpotError(f"{path}, line 1: a header row ({first[:60]!r}); the AWS Spot Pricing Market files are "
                        "headerless: Timestamp, InstanceType, OperatingSystem, AvailabilityZone, SpotPrice")
    _check_file(path)
    keep = []
    span = SpanCheck(path)
    layout = "a record has 5 (Timestamp, InstanceType, OperatingSystem, AvailabilityZone, SpotPrice)"
    for chunk in price_chunks(path, TRACE_COLUMNS, ",", chunksize, layout):
        ts = _validate_chunk(chunk, path)
        span.check(ts, chunk["line"].to_numpy(), "column 1 (Timestamp)")
        sel = (chunk["instance_type"].isin(types) & (chunk["os"] == os_name)).to_numpy()
        if zone is not None:
            sel &= (chunk["zone"] == zone).to_numpy()
        keep.append(chunk[sel].drop(columns="line").assign(timestamp=ts[sel]))
    df = pd.concat(keep, ignore_index=True) if keep else pd.DataFrame(columns=TRACE_COLUMNS)
    if df.empty:
        raise SpotError(f"{path}: no records of {types} for {shown(os_name)}" + (f" in zone {shown(zone)}" if zone else ""))
    df["timestamp"] = pd.to_datetime(df["timestamp"], utc=True)
    df["price"] = df["price"].astype(float)
    if zone is None:  # per type, the zone with the most records
        best = df.groupby(["instance_type", "zone"]).size().reset_index(name="n")
        best = best.sort_values(["instance_type", "n", "zone"], ascending=[True, False, True])
        chosen = best.drop_duplicates("instance_type")[["instance_type", "zone"]]
        df = df.merge(chosen, on=["instance_type", "zone"])
    missing = [t for t in types if t not in set(df["instance_type"])]
    if missing:
        raise SpotError(f"{path}: no records for type(s) {missing} ({os_name})")
    return df.sort_values(["instance_type", "timestamp"]).reset_index(drop=True)


def price_chunks(path: Path, columns: list[str], sep: str, chunksize: int, layout: str):
    """The lines of a headerless price file (the 2017 CSV, or a post-2017 history with ``sep="\\t"``) as text
    in chunks, each row with its ``line`` as a text editor counts it: blank lines are counted (and skipped)
    and quotes are plain characters (neither format quotes a field; a quote is refused with its line instead
    of joining lines). ``layout`` ends a message about the number of fields (``"a record has 5 (...)"``)."""
    import csv
    import re

    line0 = 1
    try:
        reader = pd.read_csv(path, sep=sep, header=None, names=columns, dtype=str, chunksize=chunksize,
                             keep_default_na=False, skipinitialspace=sep == ",", skip_blank_lines=False,
                             quoting=csv.QUOTE_NONE, engine="c")
        for chunk in reader:
            lines = np.arange(line0, line0 + len(chunk))
            line0 += len(chunk)
            text = chunk.apply(lambda c: c.str.strip())
            blank = (text == "").all(axis=1).to_numpy()
            chunk = chunk[~blank].assign(line=lines[~blank])
            quoted = chunk[columns].apply(lambda c: c.str.contains('"', regex=False)).to_numpy()
            if quoted.any():
                i, j = np.argwhere(quoted)[0]
                raise SpotError(f"{path}, line {chunk['line'].iloc[i]}, field {j + 1}: a quote character in "
                                f"{shown(chunk[columns[j]].iloc[i])}; the format has no quoted fields (remove the quotes)")
            if len(chunk):
                yield chunk
    except pd.errors.ParserError as exc:
        m = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", str(exc))
        if m:
            raise SpotError(f"{path}, line {m.group(2)}: {m.group(3)} fields where {layout}") from None
        raise SpotError(f"{path}: not a readable {'CSV' if sep == ',' else 'tab-separated'} file "
                        f"({str(exc).splitlines()[0]})") from None
    except UnicodeDecodeError as exc:
        raise SpotError(f"{path}: not UTF-8 text ({exc.reason} near line {line0}); save it as UTF-8") from None


def check_prices(price: pd.Series, lines: np.ndarray, path: Path, where: str) -> np.ndarray:
    """The prices of a chunk as floats, each a number in (0, :data:`MAX_PRICE`] USD per hour, else a SpotError
    naming the file, the line, ``where`` (``"column 5 (SpotPrice)"``), the value and the range."""
    values = pd.to_numeric(price, errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(values) | (values <= 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise SpotError(f"{path}, line {lines[i]}, {where}: {shown(price.iloc[i])} is not a positive number of USD "
                        "per hour")
    high = values > MAX_PRICE
    if high.any():
        i = int(np.flatnonzero(high)[0])
        raise SpotError(f"{path}, line {lines[i]}, {where}: {price.iloc[i].strip()} USD per hour is outside the "
                        f"plausible range of a spot price (0, {MAX_PRICE:g}] (MAX_PRICE; a typo or another unit?)")
    return values


class SpanCheck:
    """The times of a price file, chunk by chunk: none before :data:`SPOT_SINCE`, and the file's span (earliest
    to latest, in any order) at most :data:`MAX_TRACE_DAYS`, else a SpotError naming the line that breaks the
    bound. Checked while reading, so no grid is ever built over an implausible span."""

    def __init__(self, path: Path):
        self.path, self.lo, self.hi = path, None, None

    def check(self, ts: np.ndarray, lines: np.ndarray, where: str) -> None:
        ns = np.asarray(ts, dtype="datetime64[ns]").astype(np.int64)
        early = np.flatnonzero(ns < SPOT_SINCE.value)
        if len(early):
            i = int(early[0])
            raise SpotError(f"{self.path}, line {lines[i]}, {where}: {pd.Timestamp(ns[i], tz='UTC'):%Y-%m-%d %H:%M:%S} "
                            f"is before EC2 spot instances existed ({SPOT_SINCE:%Y-%m-%d}, SPOT_SINCE): a typo in "
                            "the date?")
        lo = np.minimum.accumulate(ns if self.lo is None else np.r_[self.lo, ns])[-len(ns):]
        hi = np.maximum.accumulate(ns if self.hi is None else np.r_[self.hi, ns])[-len(ns):]
        bound = MAX_TRACE_DAYS * 86_400 * 10**9
        over = np.flatnonzero(hi - lo > bound)
        if len(over):
            i = int(over[0])
            raise SpotError(f"{self.path}, line {lines[i]}, {where}: {pd.Timestamp(ns[i], tz='UTC'):%Y-%m-%d %H:%M:%S} "
                            f"makes the file span {(hi[i] - lo[i]) / 86_400e9:.0f} days, more than the "
                            f"{MAX_TRACE_DAYS} days a price file may span (MAX_TRACE_DAYS); give the months you "
                            "simulate (or fix the date)")
        self.lo, self.hi = lo[-1], hi[-1]


def _validate_chunk(chunk: pd.DataFrame, path: Path) -> np.ndarray:
    """Every row has a timestamp, a type and a plausible price (SpotError with the file line); returns the
    times (UTC, ``datetime64[ns]``)."""
    lines = chunk["line"].to_numpy()
    for col in TRACE_COLUMNS:
        empty = chunk[col].str.strip() == ""
        if empty.any():
            i = int(np.flatnonzero(empty.to_numpy())[0])
            raise SpotError(f"{path}, line {lines[i]}: empty {col} (a record is Timestamp, InstanceType, "
                            "OperatingSystem, AvailabilityZone, SpotPrice)")
    check_prices(chunk["price"], lines, path, "column 5 (SpotPrice)")
    ts = pd.to_datetime(chunk["timestamp"], utc=True, errors="coerce", format="ISO8601")
    if ts.isna().any():
        i = int(np.flatnonzero(ts.isna().to_numpy())[0])
        raise SpotError(f"{path}, line {lines[i]}, column 1 (Timestamp): {shown(chunk['timestamp'].iloc[i])} is not an "
                        "ISO date and time like the rest of the format (e.g. 2017-04-26 00:00:00+00:00)")
    return ts.dt.tz_convert(None).to_numpy()


def resample(records: pd.DataFrame, method: str = DEFAULT_RESAMPLING, start: pd.Timestamp | None = None,
             end: pd.Timestamp | None = None) -> dict[str, np.ndarray]:
    """Put sparse records (columns ``timestamp, instance_type, price``) on a 1-minute grid.

    ``"ffill"``: a minute's price is the last record at or before its start; ``"interpolate"``: linear in
    time between records. Before a type's first record its first price is used (backfill). The grid runs
    from ``start`` (default: the earliest record, floored to the minute) to ``end`` (exclusive; default:
    the latest record, floored, plus one minute).
    """
    if method not in RESAMPLING:
        raise SpotError(f"unknown resampling {shown(method)}; known: {list(RESAMPLING)} (default {shown(DEFAULT_RESAMPLING)})")
    ts = pd.to_datetime(records["timestamp"], utc=True)
    start = (ts.min().floor("min") if start is None else pd.Timestamp(start))
    end = (ts.max().floor("min") + pd.Timedelta(minutes=1) if end is None else pd.Timestamp(end))
    grid = (pd.date_range(start, end, freq="min", inclusive="left") - start).total_seconds().to_numpy()
    out = {}
    for name, g in records.assign(_t=(ts - start).dt.total_seconds()).groupby("instance_type", sort=False):
        t = g["_t"].to_numpy(float)
        p = g["price"].to_numpy(float)
        order = np.argsort(t, kind="stable")
        t, p = t[order], p[order]
        if method == "ffill":
            idx = np.searchsorted(t, grid, side="right") - 1
            out[name] = p[np.maximum(idx, 0)]
        else:
            # several records at one instant: keep the last, as ffill does
            last = np.r_[t[1:] != t[:-1], True]
            out[name] = np.interp(grid, t[last], p[last])
    return out


def load_trace(path: str | os.PathLike | None = None, types=None, resampling: str = DEFAULT_RESAMPLING,
               zone: str | None = None, os_name: str = "Linux/UNIX") -> PriceTrace:
    """Read the user's 2017 trace (see :func:`locate_trace`) and resample it to a 1-minute grid."""
    p = locate_trace(path)
    types = check_types(types or list(CATALOGUE))
    records = read_records(p, types, os_name=os_name, zone=zone)
    prices = resample(records, resampling)
    start = pd.to_datetime(records["timestamp"], utc=True).min().floor("min")
    zones = records.groupby("instance_type")["zone"].first().to_dict()
    where = ", ".join(f"{t} {zones[t]}" for t in types)
    return PriceTrace(start, {t: prices[t] for t in types}, f"{p} ({where}; {resampling})", False, resampling)


def market(prices: str | os.PathLike = "synthetic", seed: int = 1, types=None, days: float = TRACE_DAYS,
           resampling: str = DEFAULT_RESAMPLING) -> PriceTrace:
    """``"synthetic"`` (seeded, ``days`` long), ``"synthetic-today"``, ``"synthetic-persistent"`` (with memory,
    :func:`persistent_prices`), ``"real"`` (the located trace) or a path: the 2017 trace's CSV, or a post-2017
    history (``.tsv``, :mod:`tt_core.spot.history`)."""
    if not str(prices).strip():
        raise SpotError(f"the price source is empty; give one of {list(SYNTHETIC)}, 'real' or the path of a price file")
    if str(prices) == "synthetic":
        return synthetic_market(seed, types, days=days)
    if str(prices) == "synthetic-today":
        return synthetic_market(seed, types, days=days, style="today")
    if str(prices) == "synthetic-persistent":
        return synthetic_market(seed, types, days=days, style="persistent")
    if str(prices) != "real":
        from tt_core.spot import history as H

        if H.is_history_file(prices):       # a post-2017 history (aws-spot-price-history format)
            return H.load_history(prices, types, resampling)
    return load_trace(None if str(prices) == "real" else prices, types, resampling)
