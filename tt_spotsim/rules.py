"""Billing and revocation rules of spot instances, as data, and the bill of one instance.

Three presets (:data:`RULES`); a user builds others with :class:`Rules` (billing and revocation are
chosen separately, because the paper's combination never existed at one time):

``paper``
    The paper's model (§II-A): charged per second at the market price; revoked when the market price
    rises above the user's maximum price, after a 120 s notice; an instance the provider revokes within
    its first hour is not charged at all (full refund).
``aws-2017``
    The rule of the paper's trace period (until 2017-10-02): each started instance-hour is charged at the
    market price at the start of that hour; price-driven revocation with a 120 s notice; when the provider
    revokes, the partial hour in progress is not charged (so a revocation within the first hour is free),
    when the user terminates, every started hour is charged.
``aws-today``
    Since late 2017: per-second charging at the (slowly moving) market price; no bidding: interruptions are
    driven by capacity, modelled as a Poisson process with a per-type hazard rate; 120 s notice; an
    instance interrupted by the provider within its first hour is still not charged (Linux).

Known answers (tests): under ``paper`` an instance revoked after 59 minutes costs nothing; one released
by the user after 61 minutes costs 61 minutes at the market prices.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from tt_spotsim.catalogue import CATALOGUE, SpotError
from tt_core.data.io import shown

BILLING = ("per-second", "hourly")
REVOCATION = ("price", "hazard")
REFUND = ("first-hour", "partial-hour")


def hazard_from_monthly(fraction: float) -> float:
    """Hazard rate per hour of a Poisson process that interrupts ``fraction`` of instances within 30 days."""
    if not 0 <= fraction < 1:
        raise SpotError(f"monthly interruption fraction must lie in [0, 1), got {shown(fraction)}")
    return -math.log1p(-fraction) / (30 * 24)


#: Today's interruption rates: AWS' Spot Instance Advisor publishes only bands of the monthly frequency of
#: interruption (<5 %, 5-10 %, ...); this workbook assumes the upper end of the lowest band, 5 % a month,
#: for every type (an assumption, not a measurement; pass your own).
TODAY_HAZARD = {name: hazard_from_monthly(0.05) for name in CATALOGUE}


@dataclass(frozen=True)
class Rules:
    """How spot instances are charged and revoked.

    Attributes
    ----------
    name : str
    billing : {"per-second", "hourly"}
        ``hourly``: each started instance-hour at the price at its start.
    revocation : {"price", "hazard"}
        ``price``: when the market price exceeds the maximum price; ``hazard``: capacity interruptions at
        ``hazard_per_hour`` (the maximum price is then irrelevant).
    refund : {"first-hour", "partial-hour"}
        What the provider does not charge when *it* revokes: the whole instance if within its first hour,
        or the partial hour in progress.
    notice_s : float
        Seconds between the revocation notice and the revocation (AWS: 120).
    hazard_per_hour : dict of str to float
        Interruption rate per hour per type (``revocation="hazard"``).
    """

    name: str
    billing: str
    revocation: str
    refund: str
    notice_s: float = 120.0
    hazard_per_hour: dict = field(default_factory=dict)
    description: str = ""

    def __post_init__(self):
        for attr, allowed in (("billing", BILLING), ("revocation", REVOCATION), ("refund", REFUND)):
            if getattr(self, attr) not in allowed:
                raise SpotError(f"rules {shown(self.name)}: {attr}={shown(getattr(self, attr))}; allowed: {list(allowed)}")
        if not (0 <= self.notice_s <= 3600):
            raise SpotError(f"rules {shown(self.name)}: notice_s must lie in [0, 3600], got {shown(self.notice_s)}")

    def hazard(self, name: str) -> float:
        return float(self.hazard_per_hour.get(name, 0.0))


RULES: dict[str, Rules] = {
    "paper": Rules("paper", "per-second", "price", "first-hour",
                   description="per-second at the market price; price-driven revocation; first hour free if revoked"),
    "aws-2017": Rules("aws-2017", "hourly", "price", "partial-hour",
                      description="hourly at the start-of-hour price; price-driven revocation; the provider's "
                                  "partial hour free"),
    "aws-today": Rules("aws-today", "per-second", "hazard", "first-hour", hazard_per_hour=dict(TODAY_HAZARD),
                       description="per-second; capacity interruptions (5 %/month assumed); first hour free if "
                                   "interrupted"),
}


def rules(name_or_rules) -> Rules:
    """A preset by name (``paper``, ``aws-2017``, ``aws-today``) or a :class:`Rules` itself."""
    if isinstance(name_or_rules, Rules):
        return name_or_rules
    try:
        return RULES[str(name_or_rules)]
    except KeyError:
        raise SpotError(f"unknown billing rules {shown(name_or_rules)}; known: {list(RULES)}") from None


@dataclass(frozen=True)
class Bill:
    """What one instance cost: ``usage`` (what its running time is worth under the billing rule) splits
    into ``charged`` and ``refunded`` (``charged + refunded == usage``)."""

    usage: float
    charged: float
    refunded: float

    @property
    def free(self) -> bool:
        return self.charged == 0.0 and self.usage > 0.0


def bill(trace, name: str, launch: float, end: float, revoked: bool, rule="paper") -> Bill:
    """The bill of one instance of type ``name`` run from second ``launch`` to ``end``.

    Parameters
    ----------
    trace : PriceTrace
    revoked : bool
        True if the provider ended it (revocation), False if the user did.
    rule : str or Rules
    """
    r = rules(rule)
    if end < launch:
        raise SpotError(f"an instance cannot end ({end} s) before it starts ({launch} s)")
    duration = end - launch
    if r.billing == "per-second":
        usage = trace.cost(name, launch, end)
        if not revoked:
            return Bill(usage, usage, 0.0)
        if r.refund == "first-hour":
            return Bill(usage, 0.0, usage) if duration < 3600.0 else Bill(usage, usage, 0.0)
        # partial-hour refund under per-second billing: the seconds since the last full instance-hour
        full = launch + 3600.0 * math.floor(duration / 3600.0)
        refunded = trace.cost(name, full, end)
        return Bill(usage, usage - refunded, refunded)
    # hourly: every started instance-hour at the price at its start
    hours = max(1, math.ceil(duration / 3600.0 - 1e-9)) if duration > 0 else 0
    prices = [trace.price_at(name, launch + 3600.0 * h) for h in range(hours)]
    usage = float(sum(prices))
    if not revoked:
        return Bill(usage, usage, 0.0)
    if r.refund == "first-hour":
        return Bill(usage, 0.0, usage) if duration < 3600.0 else Bill(usage, usage, 0.0)
    refunded = prices[-1] if prices else 0.0  # the partial hour in progress
    return Bill(usage, usage - refunded, refunded)
