"""SpotTune's provisioner (§III-A, Eqs. 1-2, Alg. 1): deploy a job on the type with the lowest expected step cost.

Reconstructions (the equations were lost in extraction; the text gives their parts)
-----------------------------------------------------------------------------------
* **Eq. 1**, expected cost of the next hour on type *i*: ``E[C_i] = (1 - p_i) * P_i x 1 h``, with ``p_i``
  the revocation probability within the hour (RevPred's output) and ``P_i`` the average price of the
  last hour: an instance revoked within its first hour is refunded, so it costs nothing with
  probability ``p_i`` (:func:`expected_hour_cost`).
* **Eq. 2**, step cost of job *j* on type *i*: ``c_ij = E[C_i] / 3600 s x T_ij`` with ``T_ij`` the seconds
  per step of job *j* on type *i* (:func:`step_cost`); ``getBestInst`` returns ``argmin_i c_ij``
  (:meth:`Provisioner.choose`).
* ``T`` "is initiated according to the number of CPU cores of each instance" and "updated in an online
  manner according to the latest runs" (Alg. 1, line 36): :class:`SpeedTable` keeps each job's observed
  seconds per step per type; an unobserved type is estimated from the job's observed types by
  scaling with the vCPU ratio (before any observation: ``1 / vCPUs``, which fixes the argmin).
* The maximum price (bid) is not given for SpotTune's own instances; the paper's strategy is the
  "aggressive bidding" of §II-A ("just a little higher than the current spot market price"). The default
  here bids the current price plus the Alg. 2 margin (the trimmed mean price variation of the past
  hour, the same margin RevPred is trained on); ``bid="tributary"`` draws the margin uniformly from
  [0.00001, 0.2] USD as Tributary and RevPred's inference do; a number bids that relative margin.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tt_spotsim.catalogue import SpotError, check_types, instance
from tt_spotsim.revocation import TRIBUTARY_DELTA, price_changes, trimmed_margin
from tt_core.data.io import shown

TRIBUTARY_MARGIN = TRIBUTARY_DELTA   # USD per hour, the same range as the predictors' (revocation.py)


def expected_hour_cost(p_revoke, mean_price):
    """Eq. 1 (reconstructed): ``(1 - p) * P`` USD for the next hour."""
    return (1.0 - np.asarray(p_revoke, float)) * np.asarray(mean_price, float)


def step_cost(hour_cost, seconds_per_step):
    """Eq. 2 (reconstructed): ``E[C] / 3600 * T`` USD per step."""
    return np.asarray(hour_cost, float) / 3600.0 * np.asarray(seconds_per_step, float)


class SpeedTable:
    """Seconds per step per (job, type), initialised from vCPUs and updated online (Alg. 1, line 36)."""

    def __init__(self, types):
        self.types = check_types(types)
        self.vcpus = {t: instance(t).vcpus for t in self.types}
        self.observed: dict[tuple, float] = {}

    def update(self, job, name: str, seconds_per_step: float) -> None:
        if not (np.isfinite(seconds_per_step) and seconds_per_step > 0):
            raise SpotError(f"observed seconds per step must be positive, got {shown(seconds_per_step)}")
        self.observed[(job, name)] = float(seconds_per_step)

    def estimate(self, job, name: str) -> float:
        if (job, name) in self.observed:
            return self.observed[(job, name)]
        work = [s * self.vcpus[t] for (j, t), s in self.observed.items() if j == job]   # vCPU-seconds per step
        base = float(np.mean(work)) if work else 1.0
        return base / self.vcpus[name]


@dataclass(frozen=True)
class Choice:
    """One provisioning decision: the chosen type, its bid, and every type's terms of Eqs. 1-2."""

    type: str
    bid: float
    table: dict   # type -> {"p_revoke", "mean_price", "hour_cost", "seconds_per_step", "step_cost", "bid"}


class Provisioner:
    """Choose the type of the next deployment of a job (``getBestInst``).

    Parameters
    ----------
    trace : PriceTrace
    predictor : RevocationPredictor, fitted on ``trace``
    types : list of str
    bid : "algorithm2", "tributary" or float
        How the maximum price is set (module docstring).
    rng : numpy.random.Generator, optional
        For ``bid="tributary"``.
    """

    def __init__(self, trace, predictor, types=None, bid="algorithm2", rng: np.random.Generator | None = None):
        self.trace = trace
        self.predictor = predictor
        self.types = check_types(types or trace.types)
        if not (bid in ("algorithm2", "tributary") or (isinstance(bid, (int, float)) and bid >= 0)):
            raise SpotError(f"bid must be 'algorithm2', 'tributary' or a relative margin >= 0, got {shown(bid)}")
        self.bid_policy = bid
        self.rng = rng if rng is not None else np.random.default_rng(0)
        self.speeds = SpeedTable(self.types)
        self._changes = {}

    def bid(self, name: str, t: float) -> float:
        price = self.trace.price_at(name, t)
        if self.bid_policy == "algorithm2":
            if name not in self._changes:
                self._changes[name] = price_changes(self.trace.series(name))
            return price + trimmed_margin(*self._changes[name], int(t // 60))
        if self.bid_policy == "tributary":
            return price + float(self.rng.uniform(*TRIBUTARY_MARGIN))
        return price * (1.0 + float(self.bid_policy))

    def choose(self, job, t: float) -> Choice:
        table = {}
        for name in self.types:
            b = self.bid(name, t)
            p = float(self.predictor.probability(name, b, t))
            mean = self.trace.mean_price(name, max(0.0, t - 3600.0), t)
            hc = float(expected_hour_cost(p, mean))
            sps = self.speeds.estimate(job, name)
            table[name] = {"bid": b, "p_revoke": p, "mean_price": mean, "hour_cost": hc, "seconds_per_step": sps,
                           "step_cost": float(step_cost(hc, sps))}
        best = min(self.types, key=lambda n: (table[n]["step_cost"], self.types.index(n)))
        return Choice(best, table[best]["bid"], table)
