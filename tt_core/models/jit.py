"""Optional compilation of the small-matrix kernels with numba.

The hot loops of a recommendation (EPMGP's site updates, entropy search's values) run over many tiny
arrays, where numpy's per-call overhead and its passes over memory dominate the arithmetic. When numba
is installed, :func:`njit` compiles such a kernel; otherwise (or with ``TT_NO_JIT=1`` in the
environment) the caller keeps its numpy implementation, which gives the same results to rounding.

Compiled code is cached on disk by numba (``cache=True``): next to the source when that folder is
writable, else in numba's user-wide cache folder (``NUMBA_CACHE_DIR`` chooses another). Where no
folder is writable (a read-only checkout and home), the kernels are compiled at the first call of
each process and not cached.
"""

from __future__ import annotations

import os

__all__ = ["AVAILABLE", "njit", "scipy_function"]


def _numba():
    if os.environ.get("TT_NO_JIT", "").strip() not in ("", "0"):
        return None
    try:
        import numba
    except Exception:  # numba missing or broken: the numpy implementations are used
        return None
    return numba


_NUMBA = _numba()
#: True when numba is importable (and not disabled with ``TT_NO_JIT=1``).
AVAILABLE = _NUMBA is not None


def njit(fn):
    """``numba.njit`` with IEEE arithmetic (no fastmath), numpy's float error model and a disk cache
    when a cache folder is writable; ``None`` when numba is unavailable."""
    if _NUMBA is None:
        return None
    try:
        return _NUMBA.njit(cache=True, error_model="numpy", nogil=True)(fn)
    except RuntimeError:  # no writable cache locator: compile in memory only
        return _NUMBA.njit(cache=False, error_model="numpy", nogil=True)(fn)


def scipy_function(module: str, name: str, n_args: int = 1):
    """A scalar double function of ``scipy.special.cython_special`` (e.g. ``log_ndtr``) callable from
    compiled code: the same C routine as the scipy ufunc, so the same values to the bit."""
    import ctypes

    from numba.extending import get_cython_function_address

    addr = get_cython_function_address(module, name)
    proto = ctypes.CFUNCTYPE(ctypes.c_double, *([ctypes.c_double] * n_args))
    return proto(addr)
