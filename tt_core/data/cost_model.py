"""Cloud cost model: hourly prices per VM flavour and parameter-server billing, as data.

The default reproduces the formula the TrimTuner authors used for their measurements
(the TrimTuner authors' public data set, github.com/pedrogbmendes/TrimTuner, dataset_NN_Tensorflow/; see data/README.md)::

    cost = ((n_workers + n_ps) * price(vm_flavor) / 60 + price(ps_flavor) / 60) * (training_time / 60)

i.e. the workers and the parameter servers are billed at the workers' hourly price, plus one extra
``ps_flavor`` machine (t2.2xlarge) for the parameter server. A user can plug in other prices (a
different region, spot prices, another provider) by building a :class:`CostModel` of their own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import numpy as np
from tt_core.data.io import shown

#: AWS on-demand hourly prices (USD) used by the TrimTuner authors.
AWS_T2_PRICES: dict[str, float] = {
    "t2.small": 0.023,
    "t2.medium": 0.0464,
    "t2.xlarge": 0.1856,
    "t2.2xlarge": 0.3712,
}


@dataclass(frozen=True)
class CostModel:
    """Hourly price table plus parameter-server billing.

    Parameters
    ----------
    prices : mapping of str to float
        Hourly price (USD) per VM flavour.
    ps_flavor : str or None
        Flavour billed once more for the parameter server (the authors' extra t2.2xlarge);
        ``None`` bills no extra machine.
    bill_ps_as_worker : bool
        Whether the ``n_ps`` parameter servers are billed at the workers' price (authors' formula).
    """

    prices: Mapping[str, float] = field(default_factory=lambda: dict(AWS_T2_PRICES))
    ps_flavor: str | None = "t2.2xlarge"
    bill_ps_as_worker: bool = True

    def __post_init__(self) -> None:
        if not self.prices:
            raise ValueError("CostModel needs at least one VM flavour price, e.g. {'t2.small': 0.023}")
        for name, price in self.prices.items():
            if not (isinstance(price, (int, float)) and np.isfinite(price) and price >= 0):
                raise ValueError(
                    f"price of VM flavour {shown(name)} must be a finite number >= 0 (USD per hour), got {shown(price)}"
                )
        if self.ps_flavor is not None and self.ps_flavor not in self.prices:
            raise ValueError(
                f"parameter-server flavour {shown(self.ps_flavor)} has no price; known flavours: "
                f"{sorted(self.prices)} (or pass ps_flavor=None)"
            )

    @property
    def flavors(self) -> list[str]:
        return sorted(self.prices)

    def hourly_rate(self, vm_flavor, n_workers, n_ps=1) -> np.ndarray:
        """USD per hour of a cluster (vectorised over arrays of equal length)."""
        vm = np.asarray(vm_flavor, dtype=object)
        unknown = sorted(set(np.atleast_1d(vm)) - set(self.prices))
        if unknown:
            raise ValueError(f"unknown VM flavour(s) {unknown}; the cost model knows {self.flavors}")
        price = np.vectorize(self.prices.__getitem__, otypes=[float])(vm)
        n_billed = np.asarray(n_workers, dtype=float) + (np.asarray(n_ps, float) if self.bill_ps_as_worker else 0.0)
        extra = self.prices[self.ps_flavor] if self.ps_flavor is not None else 0.0
        return n_billed * price + extra

    def cost(self, vm_flavor, n_workers, training_time, n_ps=1) -> np.ndarray:
        """Cost (USD) of a training run of ``training_time`` seconds."""
        return self.hourly_rate(vm_flavor, n_workers, n_ps) * np.asarray(training_time, float) / 3600.0


#: The authors' cost model (SOURCE.md).
DEFAULT_COST_MODEL = CostModel()
