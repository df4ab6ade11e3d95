"""Ties broken at random, with a generator derived from the run's seed.

Tree ensembles predict piecewise-constant values, so candidates often share exactly the same CEA
(TrimTuner paper Eq. 6), the same acquisition value or the same predicted accuracy; right after the
initial design (one configuration at four sizes) *every* configuration ties, because the trees can
split only on the size. Taking the lowest row index then made configuration 0 TrimTuner-DT's first BO
test in 8 of 10 RNN runs. Here a tie is resolved uniformly at random:

* :func:`argmax_random_ties`: one of the indices whose value ties with the maximum;
* :func:`order_random_ties`: a descending order in which every group of tied values is shuffled (so the
  top ``k`` of a filter are a uniform choice among tied candidates at the cut).

Values tie when they differ by at most ``rtol`` (relative, default 1e-12) from the best (or from the
first value of their group): equal predictions computed through different BLAS paths can differ in the
last bits. With ``rng=None`` both functions behave as before (``numpy.argmax``; a stable sort).

:func:`tie_rng` derives the generator from the run's seed, the purpose and the number of observations,
so a decision does not depend on how often it is asked for (the incumbent is read after every test and
by the explorer at will), and a run resumed from a checkpoint breaks its ties as an uninterrupted one.
"""

from __future__ import annotations

import math

import numpy as np
from tt_core.data.io import shown

__all__ = ["TIE_RTOL", "tie_rng", "argmax_random_ties", "order_random_ties", "tied_with_best"]

#: Relative difference under which two values count as tied.
TIE_RTOL = 1e-12
_PURPOSES = {"filter": 1, "acquisition": 2, "incumbent": 3}


def tie_rng(seed: int, purpose: str, step: int) -> np.random.Generator:
    """The generator that breaks ties for ``purpose`` (``filter``, ``acquisition``, ``incumbent``) at ``step``.

    ``numpy.random.default_rng([seed, purpose code, step])``: independent of the run's other random
    draws (which therefore do not move), the same for the same seed and step.
    """
    if purpose not in _PURPOSES:
        raise ValueError(f"unknown tie-breaking purpose {shown(purpose)}; known: {sorted(_PURPOSES)}")
    return np.random.default_rng([int(seed), _PURPOSES[purpose], int(step)])


def _tol(v: float, rtol: float) -> float:
    return rtol * abs(v) if math.isfinite(v) else 0.0


def tied_with_best(values, rtol: float = TIE_RTOL) -> np.ndarray:
    """Indices of the values that tie with the maximum (NaN never ties; all ``-inf``: all tie)."""
    v = np.asarray(values, dtype=float).ravel()
    if v.size == 0:
        raise ValueError("no values to choose from")
    ok = ~np.isnan(v)
    if not ok.any():
        raise ValueError("every value is NaN; nothing to choose")
    best = np.max(v[ok])
    return np.flatnonzero(ok & (v >= best - _tol(best, rtol)))


def argmax_random_ties(values, rng: np.random.Generator | None = None, rtol: float = TIE_RTOL) -> int:
    """Index of the maximum; among tied maxima a uniform choice with ``rng`` (None: ``numpy.argmax``,
    the first exact maximum, as before)."""
    if rng is None:
        v = np.asarray(values, dtype=float).ravel()
        if v.size == 0:
            raise ValueError("no values to choose from")
        return int(np.argmax(v))
    top = tied_with_best(values, rtol)
    return int(top[0]) if top.size == 1 else int(top[rng.integers(top.size)])


def order_random_ties(scores, rng: np.random.Generator | None = None, rtol: float = TIE_RTOL) -> np.ndarray:
    """Indices by decreasing score; each run of tied scores in a random order (None: lowest index first).

    A group starts at the highest remaining score and holds every following score within ``rtol`` of it.
    """
    s = np.asarray(scores, dtype=float).ravel()
    order = np.argsort(-s, kind="stable")
    if rng is None or s.size < 2:
        return order
    out = order.copy()
    start = 0
    rtol = float(rtol)  # as it met a float64 score before
    sorted_s = s[order].tolist()  # Python floats: the same doubles and comparisons, without numpy's per-scalar cost
    while start < s.size:
        head = sorted_s[start]
        if math.isnan(head):
            break  # NaNs sort last and stay in index order
        end = start + 1
        tol = _tol(head, rtol)
        while end < s.size and not math.isnan(sorted_s[end]) and sorted_s[end] >= head - tol:
            end += 1
        if end - start > 1:
            out[start:end] = order[start:end][rng.permutation(end - start)]
        start = end
    return out
