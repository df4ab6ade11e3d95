"""Initial designs: what an optimiser tests before its models exist.

* :func:`subsampled_snapshot` -- one random configuration at the sub-sampled sizes closest to
  1/60, 1/10, 1/4 and 1/2 of the data (TrimTuner paper Sec. III; FABOLAS' design);
* :func:`subsampled_configs` -- ``n`` random configurations, each at every sub-sampled size (thesis
  §4.2 and §7.2: Fabulinus' initial models are built from configurations "randomly selected", 3% of the
  search space, "evaluated on all the possible subsampled dataset sizes");
* :func:`latin_hypercube_configs` -- ``n`` full-size configurations, each the nearest not-yet-chosen
  configuration to a point of a Latin hypercube in the encoded space (EIc, EIc/USD);
* :func:`level_coordinates` and :func:`nearest_untested` -- the thesis' "LHS(T)" on a discrete space
  (Alg. 2, lines 7-10): Latin-hypercube points in coordinates where every level of a dimension has an
  equal stratum, each mapped to the nearest untested candidate, repeated until the initial budget is
  spent (sample until budget).

Latin hypercubes come from :class:`scipy.stats.qmc.LatinHypercube`, seeded with the optimiser's
``numpy.random.Generator``.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import qmc

#: Fractions of the largest size tested by the sub-sampled initial design (paper Sec. III).
INIT_FRACTIONS = (1 / 60, 1 / 10, 1 / 4, 1 / 2)


def latin_hypercube(n: int, d: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` Latin-hypercube points in ``[0, 1)^d`` (one point in each of ``n`` strata per dimension)."""
    if n < 1 or d < 1:
        raise ValueError(f"a Latin hypercube needs n >= 1 points and d >= 1 dimensions, got n={n}, d={d}")
    return qmc.LatinHypercube(d=d, seed=rng).random(n)


def subsampled_snapshot(space, rng: np.random.Generator, fractions=INIT_FRACTIONS) -> list[tuple[int, int]]:
    """One random configuration at the sub-sampled sizes nearest (in log) to ``fractions`` of the data."""
    wanted = subsampled_sizes(space, fractions)
    cid = int(rng.choice(space.config_ids))
    return [(cid, int(s)) for s in wanted]


def subsampled_sizes(space, fractions=INIT_FRACTIONS) -> list[int]:
    """The sub-sampled sizes nearest (in log) to ``fractions`` of the largest size, ascending, distinct."""
    sub = [s for s in space.sizes if s < space.max_size]
    if not sub:
        raise ValueError(
            f"this optimiser tests sub-sampled sizes, but the benchmark has only size {space.max_size}; "
            "use a full-size optimiser (eic, eic-usd, random) or add smaller sizes"
        )
    return [int(s) for s in sorted({min(sub, key=lambda s: abs(np.log(s / (f * space.max_size)))) for f in fractions})]


def subsampled_configs(space, n: int, rng: np.random.Generator, fractions=INIT_FRACTIONS) -> list[tuple[int, int]]:
    """``n`` distinct uniformly random configurations, each at every sub-sampled size (thesis §4.2, §7.2).

    The configurations are those :func:`random_configs` draws with the same generator state, so a
    full-size optimiser seeded alike starts from the same configurations at full size. Pairs are ordered
    configuration by configuration, smallest size first.
    """
    sizes = subsampled_sizes(space, fractions)
    return [(cid, s) for cid, _ in random_configs(space, n, rng) for s in sizes]


def latin_hypercube_configs(space, n: int, rng: np.random.Generator) -> list[tuple[int, int]]:
    """``n`` full-size configurations nearest to Latin-hypercube points of the encoded space (at most all)."""
    U = latin_hypercube(min(n, space.n_configs), space.dim, rng)
    chosen: list[int] = []
    enc = space.encoded_configs
    for u in U:  # nearest not-yet-chosen configuration
        order = np.argsort(((enc - u) ** 2).sum(axis=1), kind="stable")
        cid = next(int(space.config_ids[j]) for j in order if int(space.config_ids[j]) not in chosen)
        chosen.append(cid)
    return [(c, space.max_size) for c in chosen]


def random_configs(space, n: int, rng: np.random.Generator) -> list[tuple[int, int]]:
    """``n`` distinct uniformly random full-size configurations."""
    ids = rng.choice(space.config_ids, size=min(n, space.n_configs), replace=False)
    return [(int(c), space.max_size) for c in ids]


def level_coordinates(X: np.ndarray) -> np.ndarray:
    """Each column's distinct values replaced by the centres of equal strata: level ``i`` of ``k`` -> ``(i + 0.5) / k``.

    A Latin-hypercube point mapped to the nearest candidate in these coordinates picks every level of a
    discrete dimension (e.g. each of the 5 training-set sizes) with equal probability, whatever the
    spacing of the levels in the encoded space.
    """
    out = np.empty_like(X, dtype=float)
    for j in range(X.shape[1]):
        levels, inverse = np.unique(X[:, j], return_inverse=True)
        out[:, j] = (inverse + 0.5) / len(levels)
    return out


def nearest_untested(point: np.ndarray, coords: np.ndarray, untested: np.ndarray, argmax) -> int:
    """Position of the untested candidate nearest to ``point`` (ties broken by ``argmax(values, candidates)``)."""
    cand = np.flatnonzero(untested)
    d2 = ((coords[cand] - point) ** 2).sum(axis=1)
    return int(cand[argmax(-d2, cand)])
