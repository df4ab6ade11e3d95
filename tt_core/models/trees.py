"""Bagged ensemble of extra-trees: TrimTuner's decision-tree surrogate (paper Sec. III-A).

"We circumvent this problem by using an ensemble of DTs and injecting diversity among the various
learners by generating their data-sets drawing with replacement from the same data-set. We then
estimate the probability distribution for a prediction as a Gaussian with mean and standard deviation
derived from the predictions of the ensemble." (paper Sec. III-A)

Model
-----
``n_members`` members (default 10); member ``m`` is fit on a bootstrap sample (``n`` draws with
replacement) of the ``n`` observations. A member is the average of ``n_estimators`` randomised trees
(:class:`sklearn.tree.ExtraTreeRegressor`, Geurts et al. 2006) fit on the member's bootstrap sample,
i.e. an :class:`sklearn.ensemble.ExtraTreesRegressor` with ``bootstrap=False``, built tree by tree to
avoid the forest's per-call dispatch overhead. The default ``n_estimators=1`` (one extra-tree per
member) is the paper's "ensemble of DTs" and what the original code does (bagging of 10 extra-trees);
``n_estimators > 1`` makes every member a small forest, which averages out the trees' split randomness
so that the spread reflects the bootstrap (data) uncertainty more than the tree randomisation.
With ``P[m, i]`` the prediction of member ``m`` at input ``i``:

* predictive mean ``mu_i = mean_m P[m, i]``; std ``max(std_m P[m, i], min_std)`` (population std,
  ``ddof=0``, floored at ``min_std`` so that a unanimous ensemble still gives a proper Gaussian);
* joint posterior over representers ``Z`` and candidates ``X`` (for entropy search, TrimTuner paper
  Sec. III-A): the members' empirical mean and covariance ``Cov = D^T D / M`` (``D = P - mean``) plus
  ``jitter * I`` (default ``min_std**2``) so that ``cov_zz`` is positive definite although its rank is at most
  ``M - 1``; ``noise_var = 0`` (the ensemble has no separate noise model);
* fantasy: a new ensemble with the same seed refit on the data plus the extra point(s)
  (:meth:`ExtraTreesEnsemble.fantasize` == ``fit`` on the augmented data).

Determinism: the fit is a deterministic function of ``(seed, X, y)``. The seed is resolved once at
construction (an int or a ``SeedSequence`` is used as given; a ``Generator`` is drawn from once;
``None`` draws fresh OS entropy once), and every :meth:`fit` restarts from it. Consequently all
fantasies with the same number of points use the same bootstrap indices and tree seeds, so acquisition
values of different candidates are compared under common random numbers.

Speed (2 cores, sklearn 1.9, 44 points): fitting 10 members x 1 tree takes ~2 ms (x 5 trees ~10 ms);
predicting 1440 points ~1 ms (~4 ms). Fantasies dominate TrimTuner's constraint factor (two refits per
candidate), hence the single-tree default. Most of a small tree's fit is scikit-learn's per-call
overhead, so :meth:`ExtraTreesEnsemble.fit` skips the parameter validation (done once at construction)
and hands each tree a ``RandomState`` restored to the state of ``RandomState(seed)`` instead of the seed
(identical trees, about half the time). The bootstrap indices and tree seeds of a fit depend on the seed and
the number of points only, so they are drawn once per process (``_draws``).

Deviations from the original TrimTuner implementation
-----------------------------------------------------
* The original tree-ensemble "fantasy" never refits (its ``train()`` only stores X), so the constraint
  term of TrimTuner's acquisition was inert in the DT variant; here a fantasy always refits.
* The original returns the members' standard deviation where its callers expect a variance, replaces
  non-finite values by 0.1 and has no floor; here ``predict`` returns the std (floored at ``min_std``).
* The original's covariance between a candidate and the representers is the off-diagonal of a diagonal
  matrix, i.e. zero. Here ``joint_posteriors`` returns the members' empirical covariance, this project's
  way to run entropy search on the tree ensemble (TrimTuner paper Sec. III-A, DT variant).
"""

from __future__ import annotations

import threading

import numpy as np
import sklearn
from sklearn.tree import ExtraTreeRegressor

from tt_core.models.base import JointPosterior, check_X, check_y
from tt_core.data.io import shown

__all__ = ["ExtraTreesEnsemble"]


def _resolve_seed(seed) -> np.random.SeedSequence:
    """A SeedSequence that reproduces the same random stream on every fit."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, np.random.Generator):
        return np.random.SeedSequence(int(seed.integers(0, 2**63 - 1)))
    if seed is None:
        return np.random.SeedSequence()
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        if seed < 0:
            raise ValueError(f"seed must be a non-negative int, a numpy Generator or None, got {seed}")
        return np.random.SeedSequence(int(seed))
    raise ValueError(f"seed must be a non-negative int, a numpy Generator, a SeedSequence or None, got {shown(seed)}")


#: State of a fresh ``RandomState(seed)`` per tree seed, shared by every ensemble of the process: an
#: optimiser builds new ensembles with the same seeds at every step (the state depends on the seed only).
_RS_STATES: dict[int, tuple] = {}

#: scikit-learn's bound of a tree splitter's seed (``RAND_R_MAX`` in ``sklearn/tree/_utils.pxd``).
_RAND_R_MAX = 2147483647
#: ``RandomState(seed).randint(0, _RAND_R_MAX)`` per tree seed (see :class:`_FirstDraw`).
_FIRST_DRAWS: dict[int, int] = {}
#: Whether :class:`_FirstDraw` gives this process' scikit-learn the trees of ``RandomState(seed)``
#: (``None``: not checked yet; see :func:`_first_draw_ok`).
_FIRST_DRAW_OK: list = [None]
#: One :class:`_FirstDraw` and one spare ``RandomState`` per thread (creating either seeds a Mersenne
#: twister: more than a small tree's fit); both are re-stated before every tree.
_PER_THREAD = threading.local()


def _thread_states() -> tuple:
    states = getattr(_PER_THREAD, "states", None)
    if states is None:
        states = _PER_THREAD.states = (_FirstDraw(), np.random.RandomState(0))
    return states


class _FirstDraw(np.random.RandomState):
    """The ``random_state`` of one tree fit: answers the one draw the fit makes with the number a fresh
    ``RandomState(seed)`` would give, without putting a Mersenne twister in that seed's state.

    An extra-tree regressor reads one number from its ``random_state``: its splitter's seed,
    ``randint(0, RAND_R_MAX)``; every later random choice comes from scikit-learn's own generator seeded
    with it. Putting a shared ``RandomState`` in the state of ``RandomState(seed)`` before every tree
    (624 words) took about a fifth of a small tree's fit. This object answers that draw from a cache of
    first draws per seed. Anything else asked of it (another method, another range, a second draw) is
    recorded in ``misused``, and :func:`_first_draw_ok` checks once per process, on trees fitted both
    ways, that the installed scikit-learn gives the same trees; if not, the shared state is used.
    """

    def __init__(self):
        super().__init__(0)
        self.value = None
        self.misused = False

    def randint(self, low, high=None, size=None, dtype=int):
        if self.value is None or low != 0 or high != _RAND_R_MAX or size is not None or dtype is not int:
            self.misused = True
            return super().randint(low, high, size, dtype)
        value, self.value = self.value, None
        return value

    def __getattribute__(self, name):
        if name not in ("randint", "value", "misused", "__class__", "__dict__") and not name.startswith("__"):
            object.__setattr__(self, "misused", True)
        return super().__getattribute__(name)


def _first_draw(seed: int) -> int:
    value = _FIRST_DRAWS.get(seed)
    if value is None:
        value = int(np.random.RandomState(seed).randint(0, _RAND_R_MAX))
        if len(_FIRST_DRAWS) > 65536:
            _FIRST_DRAWS.clear()
        _FIRST_DRAWS[seed] = value
    return value


#: The bootstrap draws of a fit per (seed, number of points, members, trees per member): see :func:`_draws`.
_DRAWS: dict[tuple, list] = {}


def _draws(seed_seq: np.random.SeedSequence, n: int, n_members: int, n_estimators: int) -> list:
    """Per member, the bootstrap indices (``n`` draws with replacement) and the tree seeds of a fit on ``n`` points.

    They depend on the seed and ``n`` only (every fit restarts the seed's stream), so every fantasy of a model
    with the same number of points draws the same ones: they are drawn once per process (``numpy``'s
    ``Generator.integers`` costs more per call than a small tree's bootstrap). The indices are read-only.
    """
    entropy = seed_seq.entropy
    entropy = int(entropy) if np.ndim(entropy) == 0 else tuple(int(e) for e in entropy)
    key = (entropy, tuple(int(k) for k in seed_seq.spawn_key), int(seed_seq.pool_size), n, n_members, n_estimators)
    draws = _DRAWS.get(key)
    if draws is None:
        rng = np.random.default_rng(seed_seq)
        draws = []
        for _ in range(n_members):
            idx = rng.integers(0, n, size=n)  # bootstrap: n draws with replacement
            seeds = rng.integers(0, 2**31 - 1, size=n_estimators)
            idx.setflags(write=False)
            draws.append((idx, [int(s) for s in seeds]))
        if len(_DRAWS) > 4096:
            _DRAWS.clear()
        _DRAWS[key] = draws
    return draws


def _same_tree(a, b) -> bool:
    ta, tb = a.tree_, b.tree_
    return (ta.node_count == tb.node_count and np.array_equal(ta.feature, tb.feature)
            and np.array_equal(ta.threshold, tb.threshold) and np.array_equal(ta.value, tb.value))


def _first_draw_ok(**tree_kwargs) -> bool:
    """Whether trees fitted with :class:`_FirstDraw` equal those fitted with ``RandomState(seed)`` here (checked
    once per process on 8 seeds of a small random regression, every draw accounted for)."""
    if _FIRST_DRAW_OK[0] is None:
        rng = np.random.default_rng(12345)
        X = np.ascontiguousarray(rng.uniform(size=(30, 4)), dtype=np.float32)
        y = rng.normal(size=30)
        ok = True
        fd = _FirstDraw()
        for seed in range(8):
            ref = ExtraTreeRegressor(random_state=np.random.RandomState(seed), **tree_kwargs).fit(X, y)
            fd.value = _first_draw(seed)
            fd.misused = False
            new = ExtraTreeRegressor(random_state=fd, **tree_kwargs).fit(X, y)
            ok = ok and not fd.misused and fd.value is None and _same_tree(ref, new)
        _FIRST_DRAW_OK[0] = ok
    return _FIRST_DRAW_OK[0]


def _mean_rows(P: np.ndarray) -> np.ndarray:
    """Mean over axis 0, summed row by row in a fixed order.

    ``P.mean(axis=0)`` may sum a column in a different order depending on the number of columns (numpy
    uses pairwise summation along contiguous memory), so the same point predicted alone or in a batch
    could differ in the last bit - and a tree refit on a fantasy target one ulp away can split
    differently. The fixed order makes predictions independent of the batch they are computed in.
    """
    acc = P[0].astype(float, copy=True)
    for row in P[1:]:
        acc += row
    return acc / P.shape[0]


class ExtraTreesEnsemble:
    """Bootstrap ensemble of extra-trees forests with Gaussian predictions (paper Sec. III-A).

    Parameters
    ----------
    n_members : int, default 10
        Number of bagged members (at least 2, for a spread).
    min_std : float, default 1e-3
        Floor of the predictive standard deviation (in target units).
    seed : int, numpy.random.Generator, numpy.random.SeedSequence or None
        Seed of the bootstrap draws and tree randomisation (resolved once at construction).
    n_estimators : int, default 1
        Trees per member (a member is the mean of its trees; 1 = the paper's ensemble of single trees).
    jitter : float or None
        Diagonal added to the empirical covariance in :meth:`joint_posteriors`; default ``min_std**2``.
    **extra_trees_kwargs
        Passed to every :class:`sklearn.tree.ExtraTreeRegressor` (e.g. ``min_samples_leaf``,
        ``max_features``, ``max_depth``); ``random_state`` is set by the ensemble.

    Attributes
    ----------
    X_, y_ : ndarray
        Training data of the last fit.
    n_features_in_ : int
        Number of input columns ``d + 1``.
    """

    def __init__(self, n_members: int = 10, min_std: float = 1e-3, seed=None, n_estimators: int = 1,
                 jitter: float | None = None, **extra_trees_kwargs):
        if not isinstance(n_members, (int, np.integer)) or isinstance(n_members, bool) or n_members < 2:
            raise ValueError(f"n_members must be an int >= 2 (the spread needs two members), got {shown(n_members)}")
        if not isinstance(n_estimators, (int, np.integer)) or isinstance(n_estimators, bool) or n_estimators < 1:
            raise ValueError(f"n_estimators must be an int >= 1 (trees per member), got {shown(n_estimators)}")
        if not (np.isfinite(min_std) and min_std >= 0):
            raise ValueError(f"min_std must be a finite number >= 0, got {shown(min_std)}")
        if jitter is not None and not (np.isfinite(jitter) and jitter >= 0):
            raise ValueError(f"jitter must be a finite number >= 0 or None, got {shown(jitter)}")
        if "random_state" in extra_trees_kwargs:
            raise ValueError("do not pass random_state; the ensemble seeds its trees from `seed`")
        try:
            ExtraTreeRegressor(**extra_trees_kwargs)
        except TypeError as exc:
            valid = sorted(ExtraTreeRegressor().get_params())
            raise ValueError(f"invalid ExtraTreeRegressor argument ({exc}); valid ones: {valid}") from None
        self.n_members = int(n_members)
        self.min_std = float(min_std)
        self.seed = seed
        self.n_estimators = int(n_estimators)
        self.jitter = None if jitter is None else float(jitter)
        self.extra_trees_kwargs = dict(extra_trees_kwargs)
        self._seed_seq = _resolve_seed(seed)
        self._trees: list[ExtraTreeRegressor] | None = None

    # ------------------------------------------------------------------ fitting
    def _clone(self) -> "ExtraTreesEnsemble":
        new = ExtraTreesEnsemble(self.n_members, self.min_std, self._seed_seq, self.n_estimators, self.jitter,
                                 **self.extra_trees_kwargs)
        return new

    def _random_state(self, seed: int, rs: np.random.RandomState) -> np.random.RandomState:
        """``rs`` put in the state of a fresh ``RandomState(seed)`` (the state is cached: creating a
        RandomState costs more than fitting a small tree)."""
        state = _RS_STATES.get(seed)
        if state is None:
            state = np.random.RandomState(seed).get_state()
            if len(_RS_STATES) > 4096:
                _RS_STATES.clear()
            _RS_STATES[seed] = state
        rs.set_state(state)
        return rs

    def fit(self, X, y) -> "ExtraTreesEnsemble":
        """Fit every member on its own bootstrap sample of ``(X, y)``.

        Parameters
        ----------
        X : array-like of shape (n, d + 1)
        y : array-like of shape (n,)

        Returns
        -------
        self
        """
        X = check_X(X)
        y = check_y(y, X.shape[0])
        n = X.shape[0]
        if n == 0:
            raise ValueError("cannot fit on zero observations; pass at least one (X, y) pair")
        X32 = np.ascontiguousarray(X, dtype=np.float32)
        trees = []
        # Speed (a fantasy refits every member): the parameters were validated at construction, and
        # each tree gets a RandomState in the state of RandomState(seed) (the same random stream as
        # random_state=seed, without re-seeding the Mersenne twister each time).
        # (or, where _first_draw_ok, a _FirstDraw answering the fit's one draw from a cache: no state to set)
        first, shared_rs = _thread_states()  # re-stated before every tree; only read during its fit
        first.value, first.misused = None, False
        if not _first_draw_ok(**self.extra_trees_kwargs):
            first = None
        with sklearn.config_context(skip_parameter_validation=True):
            for idx, seeds in _draws(self._seed_seq, n, self.n_members, self.n_estimators):  # same on every fit
                Xb, yb = np.ascontiguousarray(X32[idx]), np.ascontiguousarray(y[idx])
                for s in seeds:
                    if first is not None:
                        first.value = _first_draw(int(s))
                        rs = first
                    else:
                        rs = self._random_state(int(s), shared_rs)
                    tree = ExtraTreeRegressor(random_state=rs, **self.extra_trees_kwargs)
                    tree.fit(Xb, yb, check_input=False)  # inputs prepared above (float32, C order)
                    if first is not None and (first.misused or first.value is not None):
                        # a draw the shortcut did not answer: this tree again from the seed's state, and the
                        # shortcut off for the rest of the process
                        _FIRST_DRAW_OK[0], first = False, None
                        tree = ExtraTreeRegressor(random_state=self._random_state(int(s), shared_rs),
                                                  **self.extra_trees_kwargs)
                        tree.fit(Xb, yb, check_input=False)
                    trees.append(tree)
        self._trees = trees
        self.X_, self.y_ = X.copy(), y.copy()
        self.n_features_in_ = X.shape[1]
        return self

    def _check_fitted(self) -> None:
        if self._trees is None:
            raise ValueError("this ExtraTreesEnsemble is not fitted yet; call fit(X, y) first")

    # ------------------------------------------------------------------ prediction
    def predict_members(self, X) -> np.ndarray:
        """Predictions of every member.

        Parameters
        ----------
        X : array-like of shape (n, d + 1)

        Returns
        -------
        ndarray of shape (n_members, n)
        """
        self._check_fitted()
        X = check_X(X, self.n_features_in_)
        X32 = np.ascontiguousarray(X, dtype=np.float32)
        P = np.empty((len(self._trees), X.shape[0]))
        for k, tree in enumerate(self._trees):
            # what tree.predict(X32, check_input=False) returns for a fitted single-output regressor,
            # without its per-call fitted-state and estimator-type checks (most of its time on small inputs)
            P[k] = tree.tree_.predict(X32)[:, 0]
        P = P.reshape(self.n_members, self.n_estimators, -1)
        if self.n_estimators == 1:
            return P[:, 0, :]
        return np.stack([_mean_rows(Pm) for Pm in P])

    def predict(self, X, return_std: bool = False):
        """Ensemble mean (and floored std across members).

        Parameters
        ----------
        X : array-like of shape (n, d + 1)
        return_std : bool, default False

        Returns
        -------
        mean : ndarray of shape (n,)
        std : ndarray of shape (n,), only if ``return_std``
            ``max(std_m P[m], min_std)`` (``ddof=0``).
        """
        P = self.predict_members(X)
        mean = _mean_rows(P)
        if not return_std:
            return mean
        return mean, np.maximum(np.sqrt(_mean_rows((P - mean) ** 2)), self.min_std)

    def joint_posteriors(self, Z, X) -> list[JointPosterior]:
        """Empirical joint Gaussian of the members' predictions over ``Z`` and ``X`` (one sample).

        Parameters
        ----------
        Z : array-like of shape (N, d + 1)
            Representer points (normally at ``s~ = 1``).
        X : array-like of shape (C, d + 1)
            Candidates.

        Returns
        -------
        list with one JointPosterior
            ``mean_*`` the member mean; ``cov_zz = D_z^T D_z / M + jitter I``,
            ``cov_zx = D_z^T D_x / M``, ``var_x = mean_m D_x^2 + jitter``, ``noise_var = 0``.
        """
        self._check_fitted()
        Z = check_X(Z, self.n_features_in_, name="Z")
        X = check_X(X, self.n_features_in_, name="X")
        N = Z.shape[0]
        P = self.predict_members(np.vstack([Z, X]))
        mean = _mean_rows(P)
        D = P - mean
        Dz, Dx = D[:, :N], D[:, N:]
        M = P.shape[0]
        jitter = self.min_std**2 if self.jitter is None else self.jitter
        cov_zz = Dz.T @ Dz / M + jitter * np.eye(N)
        cov_zx = Dz.T @ Dx / M
        var_x = (Dx**2).mean(axis=0) + jitter
        return [JointPosterior(mean_z=mean[:N], cov_zz=cov_zz, cov_zx=cov_zx, mean_x=mean[N:], var_x=var_x,
                               noise_var=0.0)]

    def fantasize(self, X_new, y_new) -> "ExtraTreesEnsemble":
        """A new ensemble refit on the training data plus ``(X_new, y_new)``; ``self`` is untouched.

        Same seed as ``self``, so the result equals
        ``ExtraTreesEnsemble(seed=...).fit(vstack([X_, X_new]), hstack([y_, y_new]))``.

        Parameters
        ----------
        X_new : array-like of shape (k, d + 1)
        y_new : array-like of shape (k,)

        Returns
        -------
        ExtraTreesEnsemble
        """
        self._check_fitted()
        X_new = check_X(X_new, self.n_features_in_, name="X_new")
        y_new = check_y(y_new, X_new.shape[0], name="y_new")
        return self._clone().fit(np.vstack([self.X_, X_new]), np.concatenate([self.y_, y_new]))

    def __repr__(self) -> str:
        return (f"ExtraTreesEnsemble(n_members={self.n_members}, n_estimators={self.n_estimators}, "
                f"min_std={self.min_std}, seed={shown(self.seed)})")
