"""The random numbers of emcee's stretch move, drawn as emcee draws them.

emcee 3's :class:`emcee.EnsembleSampler` with its default move (the stretch move of Goodman & Weare 2010,
a = 2) draws per step one uniform (choosing the move), a shuffle of the walkers' half labels, and per half the
stretch factors, the partner indices and one uniform per walker for the acceptance, all from a
:class:`numpy.random.RandomState`. None of them depends on the walkers' positions, so a compiled chain
(:func:`tt_core.models.fabolas_gp._stretch_chain_kernel`) can take them drawn beforehand.
:func:`stretch_draws` draws them in emcee's order, either through RandomState's calls or, compiled, from the
generator's MT19937 state by a replica of RandomState's arithmetic (Matsumoto & Nishimura 1998; numpy's
``random_sample`` 53-bit doubles and masked rejection for bounded integers): the same numbers and the same
final state (tests/test_compiled_kernels.py checks both against RandomState and the whole chain against emcee).
"""

from __future__ import annotations

import numpy as np

from tt_core.models.jit import njit

__all__ = ["stretch_draws"]


def _mt_next(key, pos):  # pragma: no cover - compiled
    """Next 32-bit output of the Mersenne twister MT19937 in state ``(key, pos[0])`` (numpy's legacy
    RandomState generator): regenerate the 624 words when they are used up, then temper one."""
    if pos[0] >= 624:
        for i in range(624):
            y = (key[i] & np.uint32(0x80000000)) | (key[(i + 1) % 624] & np.uint32(0x7FFFFFFF))
            v = key[(i + 397) % 624] ^ (y >> np.uint32(1))
            if y & np.uint32(1):
                v ^= np.uint32(0x9908B0DF)
            key[i] = v
        pos[0] = 0
    y = key[pos[0]]
    pos[0] += 1
    y ^= y >> np.uint32(11)
    y ^= (y << np.uint32(7)) & np.uint32(0x9D2C5680)
    y ^= (y << np.uint32(15)) & np.uint32(0xEFC60000)
    y ^= y >> np.uint32(18)
    return y


def _mt_double(key, pos):  # pragma: no cover - compiled
    """RandomState.random_sample(): 53 random bits from two outputs."""
    a = _mt_next(key, pos) >> np.uint32(5)
    b = _mt_next(key, pos) >> np.uint32(6)
    return (a * 67108864.0 + b) / 9007199254740992.0


def _mt_bounded(key, pos, high):  # pragma: no cover - compiled
    """An integer in [0, high] as RandomState draws it below 2^32: the output masked to the smallest
    all-ones mask covering ``high``, rejected while above it (no draw when high = 0)."""
    if high == 0:
        return 0
    mask = np.uint32(high)
    mask |= mask >> np.uint32(1)
    mask |= mask >> np.uint32(2)
    mask |= mask >> np.uint32(4)
    mask |= mask >> np.uint32(8)
    mask |= mask >> np.uint32(16)
    while True:
        v = _mt_next(key, pos) & mask
        if v <= np.uint32(high):
            return np.int64(v)


def _stretch_draws_kernel(key, pos, inds, zu, rint, acc_u):  # pragma: no cover - compiled
    """The random numbers of :meth:`tt_core.models.fabolas_gp.FabolasGP._stretch_chain`, drawn from the MT19937 state as the
    RandomState calls listed there would draw them (same outputs, same final state)."""
    n_steps, W = inds.shape
    n0 = (W + 1) // 2
    n1 = W // 2
    for t in range(n_steps):
        _mt_double(key, pos)  # emcee's choice of its move
        for j in range(W):
            inds[t, j] = j % 2
        for i in range(W - 1, 0, -1):  # RandomState.shuffle: Fisher-Yates from the end
            j = _mt_bounded(key, pos, i)
            tmp = inds[t, i]
            inds[t, i] = inds[t, j]
            inds[t, j] = tmp
        for split in range(2):
            ns = n0 if split == 0 else n1
            nc = W - ns
            for a in range(ns):
                zu[t, split, a] = _mt_double(key, pos)
            for a in range(ns):
                rint[t, split, a] = _mt_bounded(key, pos, nc - 1)
            for a in range(ns):
                acc_u[t, split, a] = _mt_double(key, pos)


_mt_next = njit(_mt_next) or _mt_next
_mt_double = njit(_mt_double) or _mt_double
_mt_bounded = njit(_mt_bounded) or _mt_bounded
_DRAWS_KERNEL = njit(_stretch_draws_kernel)


def stretch_draws(rs, inds, zu, rint, acc_u, compiled=True):
    """Fill the chain's random numbers (``inds`` must hold the labels ``arange(W) % 2``) from ``rs``
    in emcee's order. ``compiled``: the same draws made by :func:`_stretch_draws_kernel` from the
    generator's MT19937 state (RandomState's per-call overhead was ~50 us per step), and ``rs``
    left in the state these calls leave it in."""
    n_steps, W = inds.shape
    state = rs.get_state()
    if compiled and _DRAWS_KERNEL is not None and state[0] == "MT19937" and W < 2**31:
        key = np.array(state[1], dtype=np.uint32)
        pos = np.array([state[2]], dtype=np.int64)
        _DRAWS_KERNEL(key, pos, inds, zu, rint, acc_u)
        rs.set_state(("MT19937", key, int(pos[0]), state[3], state[4]))
        return
    n0, n1 = (W + 1) // 2, W // 2  # walkers labelled 0 and 1 (a shuffle keeps the counts)
    uniform, shuffle, integers = rs.random_sample, rs.shuffle, rs.randint
    for t in range(n_steps):
        uniform()  # emcee chooses its (only) move with a uniform draw
        shuffle(inds[t])
        zu[t, 0, :n0] = uniform(n0)
        rint[t, 0, :n0] = integers(n1, size=n0)
        acc_u[t, 0, :n0] = uniform(n0)
        zu[t, 1, :n1] = uniform(n1)
        rint[t, 1, :n1] = integers(n0, size=n1)
        acc_u[t, 1, :n1] = uniform(n1)
