"""Acquisition values computed once per candidate within one BO iteration.

A filter that maximises the acquisition itself (DIRECT, CMA-ES; TrimTuner paper Sec. IV-B) evaluates it
on the candidates it visits, and the optimiser then evaluates it again on the candidates the filter
kept (:meth:`tt_core.optimizers.model_based.ModelBasedOptimizer._select`). The acquisition is a fixed
function of a candidate during one iteration (models, representers and EPMGP fixed), so
:class:`RowMemo` remembers each candidate's value and computes only the rows it has not seen, in
one batch. It changes no value: a row's value does not depend on the other rows of its batch.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

__all__ = ["RowMemo"]


class RowMemo:
    """``fn(X) -> (n,)`` with each distinct row of ``X`` computed once.

    Parameters
    ----------
    fn : callable
        Values of a batch of candidate rows, one per row.

    Attributes
    ----------
    n_computed : int
        Rows passed to ``fn`` so far (distinct rows, each once).
    """

    def __init__(self, fn: Callable[[np.ndarray], np.ndarray]):
        if not callable(fn):
            raise ValueError(f"RowMemo needs a callable X -> values, got {type(fn).__name__}")
        self.fn = fn
        self._values: dict[bytes, float] = {}
        self.n_computed = 0

    def __call__(self, X) -> np.ndarray:
        X = np.ascontiguousarray(np.asarray(X, dtype=float))
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D (candidates x encoded columns), got shape {X.shape}")
        keys = [row.tobytes() for row in X]
        new = {}
        for i, k in enumerate(keys):
            if k not in self._values and k not in new:
                new[k] = i
        if new:
            rows = list(new.values())
            vals = np.asarray(self.fn(X[rows]), dtype=float).ravel()
            if vals.shape != (len(rows),):
                raise ValueError(f"the acquisition returned shape {vals.shape} for {len(rows)} candidates")
            self._values.update(zip(new, vals.tolist()))
            self.n_computed += len(rows)
        return np.array([self._values[k] for k in keys], dtype=float)
