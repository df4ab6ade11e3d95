"""SpotTune's random streams, one per named purpose.

Every random draw of the SpotTune simulation and of Fig. 10's predictors comes from
:func:`spot_rng`: ``numpy.random.default_rng([seed, *keys, code])``, the purpose's code last (as
:func:`tt_core.bo.ties.tie_rng` names the tie-breaking streams of the optimisers). A purpose's draws are
independent of the others', so adding draws for one purpose moves no other number; the same seed and
keys give the same stream.

The codes are the integers the modules used before the streams had names (small primes appended to
the seed), kept so that every stored number stays bitwise identical. Two purposes predate the codes and
have none: the synthetic market's prices (``[seed, crc32(type name)]``: a type's prices do not depend on
which other types are generated) and the random maximum prices of Fig. 10's test minutes (``[seed, i]``
for the i-th type). A text key enters the stream as the CRC-32 of its UTF-8 bytes.
"""

from __future__ import annotations

import zlib

import numpy as np

from tt_core.data.io import shown

#: purpose -> (code appended to the entropy, or None; what the stream draws).
PURPOSES = {
    "prices": (None, "a synthetic market's prices of one instance type (key: the type's name)"),
    "submission": (7, "the offset of a job set's submission after the predictor's training period"),
    "provisioner-bids": (11, "the provisioner's random maximum prices (Tributary's inference rule)"),
    "interruptions": (13, "capacity interruptions of one deployment phase (keys: job, phase)"),
    "lstm-batches": (17, "the order of an LSTM's training batches"),
    "lstm-training-bids": (23, "random training maximum prices of an LSTM (key: the type's index)"),
    "test-bids": (None, "random maximum prices of Fig. 10's test minutes (key: the type's index)"),
    "label-rates": (29, "random maximum prices of the label-rate table (key: the type's index)"),
    "staged-order": (2601, "the staged workload's train/validation split and row order (spot.staged)"),
}


def entropy(seed: int, purpose: str, *keys) -> list[int]:
    """The integers seeding the stream of ``purpose`` (see :func:`spot_rng`)."""
    if purpose not in PURPOSES:
        raise ValueError(f"unknown SpotTune random-stream purpose {shown(purpose)}; known: {sorted(PURPOSES)}")
    ints = [zlib.crc32(k.encode()) if isinstance(k, str) else int(k) for k in keys]
    code = PURPOSES[purpose][0]
    return [int(seed), *ints] + ([] if code is None else [code])


def spot_rng(seed: int, purpose: str, *keys) -> np.random.Generator:
    """The generator of ``purpose`` (a key of :data:`PURPOSES`) for ``seed`` and ``keys`` (integers, or texts
    hashed with CRC-32): ``numpy.random.default_rng([seed, *keys, code])``."""
    return np.random.default_rng(entropy(seed, purpose, *keys))
