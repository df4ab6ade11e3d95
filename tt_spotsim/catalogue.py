"""SpotTune's instance pool (paper Table III), as data.

The six instance types of the paper's experiments with vCPUs, memory and the us-east-1 Linux
on-demand price. Values are those of the ``ec2instances.info`` 0.0.2 snapshot (MIT, built
2017-10-09), which agree with Table III except that the paper prints r3.xlarge as 30 GB and $0.33
(the snapshot: 30.5 GiB, $0.333). :data:`TABLE_III` keeps the paper's printed values (so that Table III
comes out exactly); :data:`CATALOGUE` carries both, plus the ECU rating (AWS' documented speed proxy,
used by the speed model where the paper's per-instance measurements, Fig. 6, are not published).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
from tt_core.data.io import shown


class SpotError(ValueError):
    """Bad input to the SpotTune simulation (the message names the problem and the fix)."""


@dataclass(frozen=True)
class InstanceType:
    """One instance type.

    Attributes
    ----------
    name : str
    vcpus : int
    memory_gb : float
        As printed in Table III.
    on_demand : float
        On-demand price in USD per hour, as printed in Table III.
    ecu : float
        EC2 compute units (ec2instances.info 0.0.2).
    memory_gib_snapshot, on_demand_snapshot : float
        The ec2instances.info 0.0.2 values (differ from the paper only for r3.xlarge).
    """

    name: str
    vcpus: int
    memory_gb: float
    on_demand: float
    ecu: float
    memory_gib_snapshot: float
    on_demand_snapshot: float

    @property
    def ecu_per_vcpu(self) -> float:
        return self.ecu / self.vcpus


#: The paper's Table III as printed (Instance Type, CPUs, Memory(GB), On-demand Price(USD/hr)).
TABLE_III = [
    ("r4.large", 2, 15.25, 0.133),
    ("r3.xlarge", 4, 30, 0.33),
    ("r4.xlarge", 4, 30.5, 0.266),
    ("m4.2xlarge", 8, 32, 0.4),
    ("r4.2xlarge", 8, 61, 0.532),
    ("m4.4xlarge", 16, 64, 0.8),
]

#: Where :data:`EC2INSTANCES_INFO_2017` comes from.
EC2INSTANCES_INFO_SOURCE = ("ec2instances.info 0.0.2 (PyPI, MIT, built 2017-10-09): the community data set of EC2 "
                            "instance types, us-east-1 Linux on-demand prices")
#: An independent source for Table III's inputs, typed from :data:`EC2INSTANCES_INFO_SOURCE` (its ``ec2`` list:
#: ``vCPU``, ``memory`` in GiB, ``ECU`` and ``pricing["us-east-1"]["linux"]["ondemand"]``): name ->
#: (vCPUs, memory GiB, on-demand USD/h, ECU). Table III rows are *input checks* against it (the paper's
#: printed inputs beside an independent record of the same quantities), not reproductions.
EC2INSTANCES_INFO_2017: dict[str, tuple[int, float, float, float]] = {
    "r4.large": (2, 15.25, 0.133, 7.0),
    "r3.xlarge": (4, 30.5, 0.333, 13.0),
    "r4.xlarge": (4, 30.5, 0.266, 13.5),
    "m4.2xlarge": (8, 32.0, 0.4, 26.0),
    "r4.2xlarge": (8, 61.0, 0.532, 27.0),
    "m4.4xlarge": (16, 64.0, 0.8, 53.5),
}

#: Table III in the paper's order (cheapest first): the paper's CPUs, memory and price (:data:`TABLE_III`), with
#: the ECU and the snapshot's memory and price from :data:`EC2INSTANCES_INFO_2017` (each typed once, there).
CATALOGUE: dict[str, InstanceType] = {
    name: InstanceType(name, cpus, float(mem), price, EC2INSTANCES_INFO_2017[name][3],
                       EC2INSTANCES_INFO_2017[name][1], EC2INSTANCES_INFO_2017[name][2])
    for name, cpus, mem, price in TABLE_III}

#: The baselines' instance types (paper §IV-A4).
CHEAPEST = "r4.large"
FASTEST = "m4.4xlarge"


def instance(name: str) -> InstanceType:
    """The catalogue entry of ``name``, or a :class:`SpotError` listing the known types."""
    try:
        return CATALOGUE[name]
    except KeyError:
        raise SpotError(f"unknown instance type {shown(name)}; known types: {list(CATALOGUE)}") from None


def check_types(names) -> list[str]:
    """``names`` as a list, each checked against the catalogue (a SpotError names the first unknown)."""
    names = [str(n) for n in names]
    if not names:
        raise SpotError(f"no instance types given; known types: {list(CATALOGUE)}")
    for n in names:
        instance(n)
    return names


def reference_table() -> pd.DataFrame:
    """:data:`EC2INSTANCES_INFO_2017` as a table (columns as Table III's, plus ECU and the source)."""
    return pd.DataFrame(
        [(n, c, m, p, e, EC2INSTANCES_INFO_SOURCE) for n, (c, m, p, e) in EC2INSTANCES_INFO_2017.items()],
        columns=["Instance Type", "CPUs", "Memory(GB)", "On-demand Price(USD/hr)", "ECU", "source"],
    )


def table3() -> pd.DataFrame:
    """Table III computed from :data:`CATALOGUE` (columns as the paper's)."""
    return pd.DataFrame(
        [(t.name, t.vcpus, t.memory_gb, t.on_demand) for t in CATALOGUE.values()],
        columns=["Instance Type", "CPUs", "Memory(GB)", "On-demand Price(USD/hr)"],
    )
