"""Values computed once per distinct input within one BO iteration.

* :class:`RowMemo`: acquisition values per candidate. A filter that maximises the acquisition itself
  (DIRECT, CMA-ES; TrimTuner paper Sec. IV-B) evaluates it on the candidates it visits, and the optimiser
  then evaluates it again on the candidates the filter kept
  (:meth:`tt_core.optimizers.model_based.ModelBasedOptimizer._select`). The acquisition is a fixed
  function of a candidate during one iteration (models, representers and EPMGP fixed), so the memo
  remembers each candidate's value and computes only the rows it has not seen, in one batch. It changes
  no value: a row's value does not depend on the other rows of its batch.
* :class:`FantasyMemo`: the fantasies of a lookahead (:mod:`tt_core.acquisitions.lookahead`) and their
  predictions. A path speculates the loss and the cost of a test at every pair of Gauss-Hermite nodes,
  but the speculated loss does not depend on the cost node, so the loss model was refit on the same
  data at each of the ``N`` cost nodes (and predicted on the same candidates), and again along the next
  steps whenever the paths below those nodes chose the same pair. A fantasy is a deterministic function
  of its parent model and the speculated points (a tree ensemble restarts its seed on every fit), so the
  memo returns the model fitted the first time; no value changes.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

__all__ = ["RowMemo", "FantasyMemo"]


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


def _exact_key(a) -> tuple:
    """The exact identity of an array's values: shape and float64 bytes (``-0.0`` and ``0.0`` differ)."""
    a = np.ascontiguousarray(np.asarray(a, dtype=float))
    return a.shape, a.tobytes()


class FantasyMemo:
    """Fantasies of models, and their predictions, each fitted or computed once per distinct input.

    Wrap the models a lookahead starts from with :meth:`wrap`; the wrapped model's ``fantasize`` and
    ``predict`` return what the model's own would, the second time from memory. A fantasy is keyed by its
    parent (a wrapped model) and the exact bytes of the speculated inputs and targets; a prediction by its
    model and the exact bytes of the inputs. Use one memo per selection step (the models change with every
    observation); it holds every model it fitted until it is dropped.

    Attributes
    ----------
    n_fits, n_reused : int
        Fantasies fitted, and fantasies answered from memory.
    n_predicted, n_predictions_reused : int
        Predictions computed, and answered from memory.
    """

    def __init__(self):
        self._models: dict[tuple, MemoModel] = {}
        self._roots = 0
        self.n_fits = self.n_reused = self.n_predicted = self.n_predictions_reused = 0

    def wrap(self, model) -> "MemoModel":
        """``model`` (anything with ``fantasize(X_new, y_new)`` and ``predict(X, return_std)``) behind the memo."""
        self._roots += 1
        return MemoModel(model, self, ("root", self._roots))

    def fantasize(self, parent: "MemoModel", X_new, y_new) -> "MemoModel":
        X_new = np.ascontiguousarray(np.asarray(X_new, dtype=float))
        y_new = np.ascontiguousarray(np.asarray(y_new, dtype=float))
        key = (parent.key, _exact_key(X_new), _exact_key(y_new))
        child = self._models.get(key)
        if child is None:
            child = MemoModel(parent.model.fantasize(X_new, y_new), self, key)
            self._models[key] = child
            self.n_fits += 1
        else:
            self.n_reused += 1
        return child


class MemoModel:
    """A model seen through a :class:`FantasyMemo` (made by :meth:`FantasyMemo.wrap` and its fantasies).

    Attributes
    ----------
    model
        The wrapped model.
    key : tuple
        Its identity in the memo: the root's number, or the parent's key and the speculated points.
    """

    def __init__(self, model, memo: FantasyMemo, key: tuple):
        self.model = model
        self.memo = memo
        self.key = key
        self._predictions: dict[tuple, object] = {}

    def fantasize(self, X_new, y_new) -> "MemoModel":
        """The wrapped model's ``fantasize(X_new, y_new)``, wrapped; fitted once per distinct input."""
        return self.memo.fantasize(self, X_new, y_new)

    def predict(self, X, return_std: bool = False):
        """The wrapped model's ``predict(X, return_std)``, computed once per distinct ``X``.

        The arrays returned are read-only (they are handed out again).
        """
        X = np.ascontiguousarray(np.asarray(X, dtype=float))
        key = (_exact_key(X), bool(return_std))
        out = self._predictions.get(key)
        if out is None:
            out = self.model.predict(X, return_std=bool(return_std))
            for a in (out if isinstance(out, tuple) else (out,)):
                a.setflags(write=False)
            self._predictions[key] = out
            self.memo.n_predicted += 1
        else:
            self.memo.n_predictions_reused += 1
        return out
