"""Candidate filters: which untested candidates the (expensive) acquisition is evaluated on.

TrimTuner evaluates its acquisition only on a subset D of the untested pairs (paper Alg. 1 line 12):
the ``beta`` fraction with the largest *constrained expected accuracy* (paper Eq. 6)::

    CEA(x, s) = A(x, s) * prod_q P(q(x, s) satisfied | S),   A(x, s) = 1 - exp(mu_loss(x, s))

where ``mu_loss`` is the loss model's mean of ``ln(1 - accuracy)`` (so ``A`` is the accuracy at the
median prediction) and the constraint probabilities are the log-normal ones of
:mod:`tt_core.bo.constraints`. Section IV-B of the paper compares CEA with random sampling and with two
black-box optimisers of the acquisition, DIRECT and CMA-ES, all at the same ``beta``.

Every filter keeps ``k = max(1, ceil(beta * n))`` of the ``n`` untested candidates and returns indices
into the untested candidate array (never a tested pair, never twice). Filters live in a registry
(:data:`FILTERS`, :func:`register_filter`); :func:`filter_candidates` is the entry point.

* ``"cea"``: top ``k`` by CEA (Eq. 6); tied scores (tree models tie often) are ordered at random with
  ``tie_rng`` (:mod:`tt_core.bo.ties`), or lowest index first without one.
* ``"random"``: ``k`` distinct candidates uniformly at random.
* ``"none"``: every candidate (``beta`` is validated but ignored).
* ``"direct"``: :func:`scipy.optimize.direct` (original, not locally biased, DIRECT) maximises the
  ``objective`` over the continuous relaxation ``[0, 1]^(d+1)`` of the encoded space; every point it
  proposes is snapped to the nearest (Euclidean, encoded space) untested candidate, where the objective
  is evaluated. It stops once ``k`` distinct candidates have been evaluated (the same budget of
  acquisition evaluations as the other filters), and returns them best first.
* ``"cmaes"``: the same with CMA-ES (:mod:`cma`, ``sigma0 = 0.3``, bounds ``[0, 1]``, whole populations
  snapped and evaluated as one batch), restarted from a random point whenever it stops before the budget
  is used.

* ``"direct-raw"`` / ``"cmaes-raw"`` (*as in the authors' code*, ``../shared/data/paper_figures/SOURCE.md``):
  DIRECT / CMA-ES maximise the ``objective`` over the continuous box of the **raw** parameters (number of
  workers 1..80, learning rate 1e-5..1e-3, batch size 16..256, categorical columns as their category
  index, training-set size in images), evaluated at the continuous points themselves (no snapping), with
  the same budget of ``k`` evaluations; the best point is then **rounded** to the grid: each column to
  its nearest value in raw units, the size to its nearest size in images, and a size at or above the
  second-largest size of the data to the full data set (on these data: every size above 22,500 images
  goes to the full set, as SOURCE.md reports of the authors' code). One candidate is returned (the
  nearest untested one, in the encoded space, to the rounded point). A raw box puts most of its volume
  at large sizes and large learning rates, which the encoded (log-scaled) box of ``"direct"`` does not.
  Reconstructed from that description (the authors' code is not copied); the evaluation budget is this
  workbook's choice.

``objective`` is the acquisition to maximise (a callable over a batch of encoded candidates); without
one the DIRECT / CMA-ES filters maximise CEA. If an optimiser ends before finding ``k`` distinct
candidates (DIRECT converged, or the proposal cap of ``50 k + 500`` snapped points was reached), the
set is topped up with untested candidates drawn uniformly at random (documented deviation: the original
returns whatever the optimiser visited).

Randomness comes only from ``rng`` (a ``numpy.random.Generator`` or an int seed; ``None`` draws fresh
entropy and is not reproducible). CMA-ES samples through that generator (``cma`` option ``randn``), so
numpy's global random state is neither used nor changed.

Deviations from the original TrimTuner implementation
-----------------------------------------------------
* Constraint probabilities in CEA use the exact log-normal form (the original used ``exp(mu)`` as a
  Normal mean with the log-space variance as standard deviation).
* The original never removed the initial-design points from the untested pool; here the filters only
  ever see (and return) untested candidates.
"""

from __future__ import annotations

import math
from typing import Callable, Iterable, Mapping

import numpy as np
from scipy.spatial import cKDTree

from tt_core.bo.constraints import LOSS, Constraint, check_constraints, check_models, predict_log, probability_of_constraints
from tt_core.bo.ties import order_random_ties
from tt_core.models.base import check_X
from tt_core.data.io import shown
from tt_core.data.validation import check_fraction

__all__ = [
    "FILTERS", "apply_filter", "cea_scores", "filter_candidates", "get_filter", "n_keep", "register_filter",
]

FilterFn = Callable[..., np.ndarray]


def n_keep(beta: float, n: int) -> int:
    """Number of candidates a filter keeps: ``max(1, ceil(beta * n))``, capped at ``n``.

    Raises
    ------
    ValueError
        If ``beta`` is not in (0, 1] or ``n < 1``.
    """
    beta = check_fraction("beta", beta, "(the paper uses 0.1)")
    if n < 1:
        raise ValueError("the candidate set is empty; there is nothing to filter (every pair has been tested?)")
    # guard against 0.1 * 1440 = 144.00000000000003 -> 145
    return int(min(n, max(1, math.ceil(beta * n - 1e-9))))


def cea_scores(models: Mapping[str, object], constraints: Iterable[Constraint], X) -> np.ndarray:
    """Constrained expected accuracy (paper Eq. 6).

    Parameters
    ----------
    models : mapping of str to Surrogate
        ``"loss"`` (model of ``ln(1 - accuracy)``) and one model per constrained quantity.
    constraints : iterable of Constraint
    X : array-like of shape (n, d + 1)
        Encoded candidates.

    Returns
    -------
    ndarray of shape (n,)
        ``(1 - exp(mu_loss)) * prod_q P(q satisfied)``.
    """
    constraints = check_constraints(constraints)
    check_models(models, constraints)
    X = check_X(X)
    preds = predict_log(models, X, dict.fromkeys([LOSS] + [c.model for c in constraints]))
    return -np.expm1(preds[LOSS][0]) * probability_of_constraints(preds, constraints)


def _as_rng(rng) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or (isinstance(rng, (int, np.integer)) and not isinstance(rng, bool) and rng >= 0):
        return np.random.default_rng(rng)
    raise ValueError(f"rng must be a numpy.random.Generator, a non-negative int seed or None, got {shown(rng)}")


# ---------------------------------------------------------------------------------------------- filters
def _filter_none(X, k, **_) -> np.ndarray:
    return np.arange(X.shape[0])


def _filter_random(X, k, *, rng, **_) -> np.ndarray:
    return np.sort(rng.choice(X.shape[0], size=k, replace=False))


def _filter_cea(X, k, *, models, constraints, tie_rng=None, **_) -> np.ndarray:
    if models is None:
        raise ValueError("filter 'cea' needs models={'loss': ..., <one per constrained quantity>}")
    scores = cea_scores(models, constraints, X)
    return order_random_ties(scores, tie_rng)[:k]


class _BudgetReached(Exception):
    pass


class _SnappedObjective:
    """Objective on the continuous relaxation: snap to the nearest candidate, evaluate each candidate once."""

    def __init__(self, X: np.ndarray, objective: Callable, budget: int, max_proposals: int):
        self.X = X
        self.tree = cKDTree(X)
        self.objective = objective
        self.budget = budget
        self.max_proposals = max_proposals
        self.proposals = 0
        self.values: dict[int, float] = {}  # insertion order = evaluation order

    def snap(self, U: np.ndarray) -> np.ndarray:
        U = np.clip(np.atleast_2d(U), 0.0, 1.0)
        return np.asarray(self.tree.query(U, k=1)[1], dtype=int).ravel()

    @property
    def done(self) -> bool:
        return len(self.values) >= self.budget or self.proposals >= self.max_proposals

    def evaluate(self, idx: np.ndarray) -> np.ndarray:
        """Values at candidate indices, evaluating unseen ones (in one batch) within the budget."""
        self.proposals += len(idx)
        new = [j for j in dict.fromkeys(int(i) for i in idx) if j not in self.values]
        new = new[: max(self.budget - len(self.values), 0)]
        if new:
            vals = np.asarray(self.objective(self.X[new]), dtype=float).ravel()
            if vals.shape != (len(new),):
                raise ValueError(f"objective must return one value per candidate row; got shape {vals.shape} "
                                 f"for {len(new)} rows")
            if np.any(np.isnan(vals)):
                raise ValueError("objective returned NaN; it must return finite values (or -inf)")
            self.values.update(zip(new, vals.tolist()))
        return np.array([self.values.get(int(i), -np.inf) for i in idx])

    def selection(self) -> np.ndarray:
        idx = np.fromiter(self.values, dtype=int, count=len(self.values))
        vals = np.array(list(self.values.values()))
        return idx[np.argsort(-vals, kind="stable")]


def _given_objective(objective, models, names: str):
    """``objective`` checked (None when CEA is to be used instead, which needs ``models``)."""
    if objective is not None:
        if not callable(objective):
            raise ValueError(f"objective must be a callable X -> values, got {type(objective).__name__}")
        return objective
    if models is None:
        raise ValueError(f"filters {names} need objective=<acquisition callable> or models (to use CEA)")
    return None


def _objective_or_cea(X, models, constraints, objective):
    given = _given_objective(objective, models, "'direct' and 'cmaes'")
    if given is not None:
        return given
    scores = cea_scores(models, constraints, X)  # cheap: compute once, look up by row
    lookup = {row.tobytes(): v for row, v in zip(np.ascontiguousarray(X), scores)}
    return lambda Xs: np.array([lookup[np.ascontiguousarray(r).tobytes()] for r in Xs])


def _top_up(selected: np.ndarray, n: int, k: int, rng: np.random.Generator) -> np.ndarray:
    if len(selected) >= k:
        return selected[:k]
    rest = np.setdiff1d(np.arange(n), selected)
    extra = rng.choice(rest, size=k - len(selected), replace=False)
    return np.concatenate([selected, np.sort(extra)]).astype(int)


def _filter_direct(X, k, *, models, constraints, objective, rng, **_) -> np.ndarray:
    from scipy.optimize import direct

    obj = _SnappedObjective(X, _objective_or_cea(X, models, constraints, objective), k, 50 * k + 500)

    def f(u):
        if obj.done:
            raise _BudgetReached
        value = obj.evaluate(obj.snap(u))[0]
        return -value if np.isfinite(value) else 1e300

    try:
        direct(f, [(0.0, 1.0)] * X.shape[1], maxfun=obj.max_proposals + 1, maxiter=100_000,
               locally_biased=False, vol_tol=0.0, len_tol=1e-12)
    except _BudgetReached:
        pass
    return _top_up(obj.selection(), X.shape[0], k, rng)


class _NumpyStableArgsort:
    """numpy as the ``cma`` package sees it, but with a stable ``argsort``.

    CMA-ES ranks a population by ``numpy.argsort`` (quicksort). numpy >= 2 sorts with SIMD code chosen by
    CPU (AVX-512, AVX2, none), which orders *equal* values differently; equal values are common here,
    because several sampled points snap to the same candidate. So the ranking, the weighted mean and the
    whole CMA-ES path depended on the CPU (FABOLAS' first BO test differed with numpy's SIMD switched off).
    A stable sort orders ties by position, everywhere; nothing else of cma's numpy changes."""

    def __init__(self, numpy_module):
        self._np = numpy_module

    def __getattr__(self, name):
        return getattr(self._np, name)

    def argsort(self, a, axis=-1, kind=None, order=None):
        return self._np.argsort(a, axis=axis, kind="stable", order=order)


def _cma():
    """The ``cma`` package, its ranking made CPU-independent (:class:`_NumpyStableArgsort`)."""
    import cma
    import cma.evolution_strategy as es_module

    if not isinstance(es_module.np, _NumpyStableArgsort):
        es_module.np = _NumpyStableArgsort(es_module.np)
    return cma


def _filter_cmaes(X, k, *, models, constraints, objective, rng, sigma0: float = 0.3, **_) -> np.ndarray:
    cma = _cma()

    dim = X.shape[1]
    if dim < 2:
        raise ValueError("filter 'cmaes' needs at least 2 encoded dimensions; use 'direct' or 'cea' instead")
    obj = _SnappedObjective(X, _objective_or_cea(X, models, constraints, objective), k, 50 * k + 500)

    def randn(*shape):
        return rng.standard_normal(shape)

    while not obj.done:
        opts = {"bounds": [0.0, 1.0], "seed": np.nan, "randn": randn, "verbose": -9, "verb_log": 0,
                "verb_disp": 0}
        es = cma.CMAEvolutionStrategy(rng.uniform(0.0, 1.0, dim), sigma0, opts)
        while not obj.done and not es.stop():
            sols = es.ask()
            vals = obj.evaluate(obj.snap(np.asarray(sols)))
            if obj.done:
                break
            es.tell(sols, [(-v if np.isfinite(v) else 1e300) for v in vals])
    return _top_up(obj.selection(), X.shape[0], k, rng)


# ------------------------------------------------------------------ the authors' raw-box variants
class _RawBox:
    """The continuous box of raw parameters of ``space`` (see the module docstring, ``"direct-raw"``):
    ``u`` in ``[0, 1]^(d+1)`` maps linearly onto the raw box; :meth:`encoded` gives model inputs and
    :meth:`rounded` the grid point (encoded) of a raw point."""

    def __init__(self, space):
        if space is None:
            raise ValueError("filters 'direct-raw' and 'cmaes-raw' need space=<ConfigSpace> (the raw parameter box)")
        self.space = space
        configs = space.configs
        self.lo, self.hi, self.grids = [], [], []
        for e in space.encodings:
            if e.kind == "categorical":
                k = len(e.categories)
                self.lo.append(0.0), self.hi.append(float(k - 1)), self.grids.append(np.arange(k, dtype=float))
            else:
                self.lo.append(float(e.low)), self.hi.append(float(e.high))
                self.grids.append(np.unique(configs[e.name].to_numpy(float)))
        self.sizes = np.asarray(space.sizes, dtype=float)
        self.lo.append(float(self.sizes[0])), self.hi.append(float(self.sizes[-1]))
        self.lo, self.hi = np.asarray(self.lo), np.asarray(self.hi)

    def raw(self, U) -> np.ndarray:
        return self.lo + np.clip(np.atleast_2d(U), 0.0, 1.0) * (self.hi - self.lo)

    def encoded(self, R) -> np.ndarray:
        R = np.atleast_2d(R)
        cols = []
        for j, e in enumerate(self.space.encodings):
            if e.kind == "categorical":
                k = len(e.categories)
                cols.append(R[:, j] / (k - 1) if k > 1 else np.zeros(len(R)))
            else:
                cols.append(e.encode(np.clip(R[:, j], e.low, e.high)))
        cols.append(self.space.size_to_s(np.clip(R[:, -1], self.sizes[0], self.sizes[-1])))
        return np.column_stack(cols)

    def rounded(self, r) -> np.ndarray:
        r = np.asarray(r, dtype=float).ravel().copy()
        for j, grid in enumerate(self.grids):
            r[j] = grid[np.argmin(np.abs(grid - r[j]))]
        size = self.sizes[np.argmin(np.abs(self.sizes - r[-1]))]
        if len(self.sizes) > 1 and size >= self.sizes[-2]:
            size = self.sizes[-1]
        r[-1] = size
        return self.encoded(r)[0]


class _RawObjective:
    """The objective at continuous raw points, within a budget of evaluations; remembers the best."""

    def __init__(self, box: _RawBox, objective: Callable, budget: int):
        self.box, self.objective, self.budget = box, objective, budget
        self.n, self.best_v, self.best_r = 0, -np.inf, None

    def __call__(self, U) -> np.ndarray:
        if self.n >= self.budget:
            raise _BudgetReached
        R = self.box.raw(U)[: self.budget - self.n]
        vals = np.asarray(self.objective(self.box.encoded(R)), dtype=float).ravel()
        if vals.shape != (len(R),) or np.any(np.isnan(vals)):
            raise ValueError("objective must return one finite value (or -inf) per row")
        self.n += len(R)
        i = int(np.argmax(vals))
        if self.best_r is None or vals[i] > self.best_v:
            self.best_v, self.best_r = float(vals[i]), R[i]
        return vals

    def selection(self, X: np.ndarray, rng) -> np.ndarray:
        if self.best_r is None:
            return np.array([int(rng.integers(X.shape[0]))])
        point = self.box.rounded(self.best_r)
        return np.array([int(cKDTree(X).query(point, k=1)[1])])


def _filter_direct_raw(X, k, *, models, constraints, objective, rng, space=None, **_) -> np.ndarray:
    from scipy.optimize import direct

    obj = _RawObjective(_RawBox(space), _objective_at_any_point(models, constraints, objective), k)

    def f(u):
        v = obj(u)[0]
        return -v if np.isfinite(v) else 1e300

    try:
        direct(f, [(0.0, 1.0)] * X.shape[1], maxfun=k + 1, maxiter=100_000, locally_biased=False,
               vol_tol=0.0, len_tol=1e-12)
    except _BudgetReached:
        pass
    return obj.selection(X, rng)


def _filter_cmaes_raw(X, k, *, models, constraints, objective, rng, space=None, sigma0: float = 0.3,
                      **_) -> np.ndarray:
    cma = _cma()

    dim = X.shape[1]
    obj = _RawObjective(_RawBox(space), _objective_at_any_point(models, constraints, objective), k)

    def randn(*shape):
        return rng.standard_normal(shape)

    try:
        while True:
            opts = {"bounds": [0.0, 1.0], "seed": np.nan, "randn": randn, "verbose": -9, "verb_log": 0,
                    "verb_disp": 0}
            es = cma.CMAEvolutionStrategy(rng.uniform(0.0, 1.0, dim), sigma0, opts)
            while not es.stop():
                sols = es.ask()
                vals = obj(np.asarray(sols))
                es.tell(sols[: len(vals)], [(-v if np.isfinite(v) else 1e300) for v in vals])
    except _BudgetReached:
        pass
    return obj.selection(X, rng)


def _objective_at_any_point(models, constraints, objective):
    given = _given_objective(objective, models, "'direct-raw' and 'cmaes-raw'")
    return given if given is not None else (lambda Xs: cea_scores(models, constraints, Xs))


#: Registry of filters by name. A filter is ``fn(X, k, *, models, constraints, objective, rng) -> indices``.
FILTERS: dict[str, FilterFn] = {
    "cea": _filter_cea,
    "random": _filter_random,
    "none": _filter_none,
    "direct": _filter_direct,
    "cmaes": _filter_cmaes,
    "direct-raw": _filter_direct_raw,
    "cmaes-raw": _filter_cmaes_raw,
}


def register_filter(name: str, fn: FilterFn, overwrite: bool = False) -> None:
    """Add a filter ``fn(X, k, *, models, constraints, objective, rng, **kw) -> indices`` to the registry."""
    if not isinstance(name, str) or not name:
        raise ValueError("filter name must be a non-empty string")
    if not callable(fn):
        raise ValueError(f"filter {shown(name)} must be callable")
    if name in FILTERS and not overwrite:
        raise ValueError(f"filter {shown(name)} is already registered; pass overwrite=True to replace it")
    FILTERS[name] = fn


def get_filter(name: str) -> FilterFn:
    """The filter registered under ``name``; unknown names raise ValueError listing the known ones."""
    try:
        return FILTERS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown filter {shown(name)}; known filters: {sorted(FILTERS)}") from None


def filter_candidates(name: str, X_untested, beta: float, *, models: Mapping[str, object] | None = None,
                      constraints: Iterable[Constraint] = (), objective: Callable | None = None,
                      rng=None, space=None, tie_rng: np.random.Generator | None = None) -> np.ndarray:
    """Select the candidates on which to evaluate the acquisition (paper Alg. 1 line 12).

    Parameters
    ----------
    name : str
        Filter name, one of :data:`FILTERS` (``"cea"``, ``"random"``, ``"none"``, ``"direct"``, ``"cmaes"``).
    X_untested : array-like of shape (n, d + 1)
        Encoded untested candidates (e.g. ``space.encode(*pool.untested())``).
    beta : float in (0, 1]
        Fraction to keep; ``max(1, ceil(beta * n))`` candidates are returned (all for ``"none"``).
    models : mapping of str to Surrogate, optional
        ``"loss"`` plus one model per constrained quantity; needed by ``"cea"`` (and by ``"direct"`` /
        ``"cmaes"`` without ``objective``).
    constraints : iterable of Constraint
    objective : callable, optional
        Acquisition maximised by ``"direct"`` / ``"cmaes"`` (``objective(X) -> (m,) values``).
    rng : numpy.random.Generator or int or None
        Randomness of ``"random"``, ``"cmaes"`` and of top-ups.
    space : ConfigSpace, optional
        Checked for consistency (``X_untested`` must have ``space.dim + 1`` columns); needed by
        ``"direct-raw"`` / ``"cmaes-raw"`` (the raw parameter box). The continuous relaxation of
        ``"direct"`` / ``"cmaes"`` is the box ``[0, 1]^(d+1)`` of the encoded candidates themselves.
    tie_rng : numpy.random.Generator, optional
        Breaks ties of ``"cea"`` at random (:func:`tt_core.bo.ties.tie_rng`); None: lowest index first.

    Returns
    -------
    ndarray of int
        Distinct indices into ``X_untested`` (best first for ``"cea"``, ``"direct"``, ``"cmaes"``).
    """
    fn = get_filter(name)
    if np.size(X_untested) == 0:
        raise ValueError("the candidate set is empty; there is nothing to filter (every pair has been tested?)")
    X = check_X(X_untested, None if space is None else space.dim + 1, name="X_untested")
    k = n_keep(beta, X.shape[0])
    constraints = check_constraints(constraints)
    if models is not None:
        check_models(models, constraints)
    extra = {} if tie_rng is None else {"tie_rng": tie_rng}
    if space is not None:
        extra["space"] = space
    idx = np.asarray(fn(X, k, models=models, constraints=constraints, objective=objective, rng=_as_rng(rng),
                        **extra), dtype=int).ravel()
    if idx.size == 0 or np.any(idx < 0) or np.any(idx >= X.shape[0]) or len(np.unique(idx)) != idx.size:
        raise ValueError(f"filter {shown(name)} returned invalid indices; it must return distinct rows of X_untested")
    return idx


#: Alias of :func:`filter_candidates`.
apply_filter = filter_candidates
