"""GP with an ARD Matern-5/2 kernel and point-estimate hyperparameters (EIc / EIc-USD baselines).

The TrimTuner paper's baselines (CherryPick's EIc and Lynceus' EIc/USD) use "GPs as base models"
(Sec. IV) at full size only. This surrogate is a plain GP on the configuration encoding: kernel
``c * Matern52_ARD(x, x') + noise``, targets standardised, hyperparameters by maximising the log
marginal likelihood (type-II maximum likelihood) with a few seeded restarts, computed with
CPU-independent arithmetic (:mod:`tt_core.models.portable`).

Deviation: FABOLAS-style MCMC marginalisation (:mod:`tt_core.models.fabolas_gp`) is not used here; it
would multiply the baselines' cost per iteration by ~50 without changing what EIc measures. The size
column ``s~`` of the input is ignored (these baselines only test at s = 1).
"""

from __future__ import annotations

import numpy as np
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import ConstantKernel, Matern, WhiteKernel

from tt_core.models.base import JointPosterior, check_X, check_y
from tt_core.models.portable import JITTER

#: Initial values and bounds of the hyperparameters (signal variance, length-scales, noise variance).
_CONSTANT_INIT, _CONSTANT_BOUNDS = 1.0, (1e-3, 1e3)
_LENGTH_INIT, _LENGTH_BOUNDS = 0.5, (1e-2, 1e2)
_NOISE_INIT, _NOISE_BOUNDS = 1e-3, (1e-8, 1e0)


#: Per kernel class: its constructor's argument names and its ``hyperparameter_*`` attribute names.
_INTROSPECTED: dict = {}


class _Introspected:
    """scikit-learn's kernels with their class-level introspection done once per class.

    A kernel's ``get_params`` reads its constructor's signature and its ``hyperparameters`` scan
    ``dir(self)`` on every call, and the likelihood optimiser reads both several times per likelihood
    evaluation: 80% of a fit's time went there. Both are properties of the class, so they are looked
    up once; the values and every computation stay scikit-learn's own (identical results).
    """

    @classmethod
    def _introspected(cls) -> tuple[tuple[str, ...], tuple[str, ...]]:
        names = _INTROSPECTED.get(cls)
        if names is None:
            from inspect import signature

            args = tuple(p.name for p in signature(cls.__init__).parameters.values()
                         if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL) and p.name != "self")
            hyper = tuple(a for a in dir(cls) if a.startswith("hyperparameter_"))
            names = _INTROSPECTED[cls] = (args, hyper)
        return names

    def get_params(self, deep=True):
        return {arg: getattr(self, arg) for arg in self._introspected()[0]}

    @property
    def hyperparameters(self):
        return [getattr(self, attr) for attr in self._introspected()[1]]


class _ConstantKernel(_Introspected, ConstantKernel):
    pass


class _Matern(_Introspected, Matern):
    pass


class _WhiteKernel(_Introspected, WhiteKernel):
    pass


class MaternGP:
    """GP surrogate ``fit``/``predict(return_std=True)`` with ML-II hyperparameters.

    Parameters
    ----------
    n_restarts : int
        Extra optimiser restarts of the marginal likelihood (seeded).
    use_size : bool
        Whether to include the size column ``s~`` as an input dimension (default False).
    seed : int or None
    """

    def __init__(self, n_restarts: int = 2, use_size: bool = False, seed: int | None = None):
        self.n_restarts = n_restarts
        self.use_size = use_size
        self.seed = seed

    def _inputs(self, X) -> np.ndarray:
        X = check_X(X)
        return X if self.use_size else X[:, :-1]

    def fit(self, X, y, kernel=None) -> "MaternGP":
        """Fit on inputs ``X`` (n, d+1) and targets ``y`` (n,); ``kernel`` fixes the hyperparameters.

        The hyperparameters maximise the log marginal likelihood of the standardised targets from the
        kernel's initial values and ``n_restarts`` starts drawn uniformly in the log bounds (seeded), as
        scikit-learn's optimiser does, but with :func:`tt_core.models.portable.minimize_box`: an L-BFGS on
        a likelihood computed without BLAS, so the same data give the same hyperparameters to the bit on any
        CPU (scikit-learn's L-BFGS-B, through BLAS, stopped at CPU-dependent points of flat likelihoods).
        Predictions then use scikit-learn's regressor with these hyperparameters fixed.
        """
        import warnings

        Xi = self._inputs(X)
        y = check_y(y, len(Xi))
        self.X_, self.y_ = np.asarray(X, float), y
        if kernel is None:
            kernel = self._fitted_kernel(Xi, y)
        self.gp_ = GaussianProcessRegressor(kernel=kernel, normalize_y=True, optimizer=None, alpha=JITTER)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.gp_.fit(Xi, y)
        return self

    def _fitted_kernel(self, Xi: np.ndarray, y: np.ndarray):
        """The kernel with the ML-II hyperparameters (see :meth:`fit`)."""
        from tt_core.models import portable

        n = len(y)
        mean = 0.0
        for v in y:
            mean += float(v)
        mean /= n
        var = 0.0
        for v in y:
            var += (float(v) - mean) ** 2
        std = np.sqrt(var / n)
        ys = (y - mean) / (std if std > 0 else 1.0)  # element-wise: the same bits everywhere
        d = Xi.shape[1]
        bounds = np.array([[portable.log(lo), portable.log(hi)] for lo, hi in
                           [_CONSTANT_BOUNDS] + [_LENGTH_BOUNDS] * d + [_NOISE_BOUNDS]])
        init = np.array([portable.log(_CONSTANT_INIT)] + [portable.log(_LENGTH_INIT)] * d + [portable.log(_NOISE_INIT)])
        rng = np.random.RandomState(0 if self.seed is None else self.seed)
        starts = [init] + [rng.uniform(bounds[:, 0], bounds[:, 1]) for _ in range(self.n_restarts)]
        best = None
        for start in starts:
            theta, nll, _ = portable.minimize_box(start, bounds, Xi, ys)
            if best is None or nll < best[1]:
                best = (theta, nll)
        c, *length, noise = (portable.exp(t) for t in best[0])
        return (_ConstantKernel(c, _CONSTANT_BOUNDS) * _Matern(np.array(length), _LENGTH_BOUNDS, nu=2.5)
                + _WhiteKernel(noise, _NOISE_BOUNDS))

    def predict(self, X, return_std: bool = False):
        if not hasattr(self, "gp_"):
            raise ValueError("MaternGP is not fitted; call fit(X, y) first")
        mean, std = self.gp_.predict(self._inputs(X), return_std=True)
        std = np.sqrt(np.maximum(std**2 - self._noise_var(), 1e-12))  # latent std (noise removed)
        return (mean, std) if return_std else mean

    def _noise_var(self) -> float:
        k = self.gp_.kernel_
        return float(k.k2.noise_level) * float(self.gp_._y_train_std) ** 2 if hasattr(k, "k2") else 0.0

    def joint_posteriors(self, Z, X) -> list[JointPosterior]:
        Zi, Xi = self._inputs(Z), self._inputs(X)
        both = np.vstack([Zi, Xi])
        mean, cov = self.gp_.predict(both, return_cov=True)
        noise = self._noise_var()
        cov = cov - noise * np.eye(len(both))
        n = len(Zi)
        return [JointPosterior(mean[:n], cov[:n, :n], cov[:n, n:], mean[n:], np.maximum(np.diag(cov)[n:], 1e-12), noise)]

    def fantasize(self, X_new, y_new) -> "MaternGP":
        X_new = check_X(X_new)
        y_new = np.atleast_1d(np.asarray(y_new, float))
        clone = MaternGP(self.n_restarts, self.use_size, self.seed)
        return clone.fit(np.vstack([self.X_, X_new]), np.concatenate([self.y_, y_new]), kernel=self.gp_.kernel_)
