"""Harness that runs the TrimTuner authors' public decision-tree code, unmodified, and records it.

This file is NOT imported by tt_core: :mod:`tt_workbook.authors.oracle` runs it as a script with the
pinned interpreter of ``.venv-authors`` (numpy < 2, scikit-learn < 1.4, emcee 3). It only uses the
standard library and what the authors' code itself needs. tt hands it a private copy of the authors'
files holding only the pinned ones (``--code``) and their pinned sha256 values (``--manifest``); before
anything of theirs is imported the harness checks the copy again (exactly the pinned files, each with
its sha256) and only then puts it on ``sys.path``; its own folder (tt_core's) is taken off ``sys.path``.
The files are never edited; every change below is made at run time, in this process, by wrapping a
function or method:

* ``george`` is replaced by an empty stand-in module (only their Gaussian-process variant uses it);
* every ``emcee.EnsembleSampler`` gets its private RandomState seeded from a counter (12345, 12346,
  ... one per sampler created); unseeded, it draws from OS entropy and two runs differ;
* ``--residue exact`` keeps RoBO's entropy search as it is; the other residue models replace, per
  estimator and BO step, the entropy-search value dH (which the authors' tree model makes the same for
  every candidate, see the notebook) by a number, without sampling representer points. numpy's global
  random stream is still consumed as the original consumes it: one ``uniform(Nb x D)`` draw per
  estimator per step;
* ``--beta`` other than 0.1 sets the CEA filter's kept fraction (the authors hard-code 10%).

Usage (from tt_core, not by hand)::

    python harness.py --code DIR --manifest pinned.json --csv FILE --net rnn --seed 1 --iterations 44 \
        --filter cea --beta 0.1 --residue empirical --dh-values FILE --out result.json

The JSON written to ``--out`` holds the tests, the incumbent after each BO test and, per BO step, the
number of kept candidates, the chosen index, whether all acquisition values were equal and each
estimator's (min, max) dH over the candidates.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib.util
import json
import os
import stat
import sys
import tempfile
import time
import types

# run as a script, Python put this file's folder (tt_workbook/authors) first on sys.path: nothing there is
# meant to be imported by the authors' code or the libraries, so it goes
_HERE = os.path.dirname(os.path.realpath(__file__))
sys.path[:] = [p for p in sys.path if os.path.realpath(p or os.curdir) != _HERE]

RESIDUES = ("exact", "zero", "pos", "neg", "empirical")
RESIDUE_STEP = 4.440892098500626e-16  # 2 ulp of 1.0: the smallest non-zero |dH| seen in exact runs
EMCEE_SEED0 = 12345


def _parse(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--code", required=True, help="folder holding TrimTuner-<commit>/ and RoBO-<commit>/")
    p.add_argument("--manifest", required=True, help="JSON {tree: {relative path: sha256}}: the pinned files")
    p.add_argument("--trimtuner", default="TrimTuner-a9dec1f")
    p.add_argument("--robo", default="RoBO-91366b1")
    p.add_argument("--csv", required=True, help="the benchmark's CSV in the authors' format")
    p.add_argument("--net", choices=("rnn", "cnn"), required=True)
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--iterations", type=int, default=44)
    p.add_argument("--n-init", type=int, default=4)
    p.add_argument("--filter", choices=("cea", "nofilter"), default="cea")
    p.add_argument("--beta", type=float, default=0.1)
    p.add_argument("--residue", choices=RESIDUES, default="empirical")
    p.add_argument("--dh-values", help="JSON list of observed dH values (residue 'empirical')")
    p.add_argument("--dh-seed", type=int, default=0, help="0: the reference runs' draws of empirical dH values")
    p.add_argument("--out", required=True)
    p.add_argument("--verbose", action="store_true", help="show the authors' own prints on stderr")
    p.add_argument("--plain-libraries", action="store_true",
                   help="without the speed-only shortcuts (tree predict, norm.cdf, forest cache): same results, slower")
    return p.parse_args(argv)


def _speedups(np) -> None:
    """Two shortcuts that compute the same numbers with less overhead (checked: same trajectories).

    * scikit-learn's tree ``predict`` validates its input on every call; their code calls it some
      200 000 times per run, one row at a time. For a finite 2-D float array of the fitted width the
      shortcut does what ``predict`` does after validation: cast to float32 and ask the fitted tree.
    * ``scipy.stats.norm(loc, scale)`` builds a new distribution object per call (most of its cost);
      their code uses it only as ``norm(loc, scale).cdf(x)``, which is ``norm.cdf(x, loc, scale)``.
    """
    import scipy.stats
    from sklearn.tree import _classes

    predict = _classes.BaseDecisionTree.predict

    def predict_validated_once(self, X, check_input=True):
        ok = self.__dict__.get("_tt_shortcut")
        if ok is None:  # a fitted single-output regression tree (decided once per tree)
            ok = self.__dict__["_tt_shortcut"] = (hasattr(self, "tree_") and getattr(self, "n_outputs_", 0) == 1
                                                  and not _classes.is_classifier(self))
        if (ok and check_input and type(X) is np.ndarray and X.ndim == 2 and X.dtype.kind == "f"
                and X.shape[1] == self.n_features_in_ and np.isfinite(X).all()):
            return self.tree_.predict(np.asarray(X, dtype=np.float32))[:, 0]
        return predict(self, X, check_input)

    _classes.BaseDecisionTree.predict = predict_validated_once

    from scipy.special import ndtr

    norm = scipy.stats.norm

    class FrozenNormal:
        __slots__ = ("args",)

        def __init__(self, *args):
            self.args = args

        def cdf(self, x):
            # norm.cdf(x, loc, scale) for a scalar x and float arrays loc, scale of one shape: the same
            # ndtr((x - loc) / scale) where scale > 0, NaN where not (scipy's "bad value")
            if len(self.args) == 2:
                loc, scale = self.args
                if (type(loc) is np.ndarray and type(scale) is np.ndarray and loc.dtype == np.float64
                        and scale.dtype == np.float64 and loc.shape == scale.shape and loc.ndim == 1
                        and np.ndim(x) == 0 and isinstance(x, (int, float)) and not isinstance(x, bool)):
                    if (scale > 0).all():  # no bad value: the same numbers without the cost of errstate
                        return ndtr((np.float64(x) - loc) / scale)
                    with np.errstate(divide="ignore", invalid="ignore"):
                        z = (np.float64(x) - loc) / scale
                    return np.where(scale > 0, ndtr(z), np.nan)
            return norm.cdf(x, *self.args)

    class NormalShortcut:
        def __call__(self, *args):
            return FrozenNormal(*args)

        def __getattr__(self, name):
            return getattr(norm, name)

    shortcut = NormalShortcut()
    for name in ("trimtuner.acquisition_functions.constrained_entropy_search", "trimtuner.maximizers.cea",
                 "trimtuner.trimtuner.incumbent_estimation"):  # sys.modules: the packages re-export functions
        assert sys.modules[name].norm is norm                 # under their modules' names
        sys.modules[name].norm = shortcut


def _cache_forest_predictions(np) -> None:
    """Their forest's ``predict`` is asked the same question many times per BO step (ten estimators hold
    the same forest; a fantasy never refits it): answer repeats from a cache keyed by the fit and the
    input bytes. Exact: the fitted trees are deterministic functions of the input; callers get copies."""
    import itertools

    forest = sys.modules["trimtuner.models.trimtuner_dt"].BaggingRegressor_
    train, predict = forest.train, forest.predict
    fits = itertools.count()
    cache: dict = {}

    def train_stamped(self, X, y, do_optimize=True):
        out = train(self, X, y, do_optimize)
        self._tt_fit = next(fits)
        for old in [k for k in cache if k < self._tt_fit - 1]:  # the objective's and the cost's latest fits stay
            del cache[old]
        return out

    def predict_cached(self, X_test, full_cov=False, **kwargs):
        fit = getattr(self, "_tt_fit", None)
        if fit is None or kwargs or type(X_test) is not np.ndarray:
            return predict(self, X_test, full_cov, **kwargs)
        key = (bool(full_cov), X_test.shape, X_test.dtype.str, X_test.tobytes())
        hit = cache.setdefault(fit, {}).get(key)
        if hit is None:
            hit = cache[fit][key] = predict(self, X_test, full_cov)
        return hit[0].copy(), hit[1].copy()

    forest.train = train_stamped
    forest.predict = predict_cached
    _prefetch_cea_rows(np, forest, predict, cache)


#: How many rows of each prefetched batch are checked, bit for bit, against their own forest's answer.
PREFETCH_CHECKS = 8


def _prefetch_cea_rows(np, forest, predict, cache) -> None:
    """Their CEA filter asks both forests about every untested (configuration, size), one row at a time, in
    every BO step: most of a run's time. Before it starts, ask each forest's trees about all those rows at
    once (a tree's answer for a row does not depend on the batch) and put each row's (mean, std) in the
    forest cache under the exact key the row-at-a-time call will use, so their loop runs as written and finds
    its answers there.

    The ensemble's mean and std over the trees are taken per row with numpy on a contiguous (rows, trees)
    array: the same reduction over a contiguous axis of the trees' length as theirs on a (trees, 1) array.
    As a guard, :data:`PREFETCH_CHECKS` rows of every batch are recomputed by their own ``predict`` and
    compared bit for bit; one difference switches the prefetch off for the rest of the run (the run is then
    as without it, only slower) and the result says so (``prefetch``)."""
    cea_mod = sys.modules["trimtuner.maximizers.cea"]
    maximize, transform = cea_mod.CEA.maximize, cea_mod.transform
    state = _PREFETCH

    def batch(f, rows):
        mu = np.ascontiguousarray(np.stack([tree.predict_mean(rows) for tree in f.models.estimators_], axis=1))
        m, v_ = np.mean(mu, axis=1), np.std(mu, axis=1)
        v = np.where(np.isfinite(v_) & (v_ >= 0), v_, 1e-1)
        return m, v

    def maximize_prefetched(self, X, y, c, unexplored_set):
        if state["on"] and len(unexplored_set):
            rows = np.zeros((len(unexplored_set), 6))
            sizes: dict = {}
            for i, config in enumerate(unexplored_set):   # each row as their loop builds its (1, 6) query
                rows[i, 0:5] = config[0:5]
                s = config[5]
                rows[i, 5] = sizes[s] if s in sizes else sizes.setdefault(s, transform(s, 1000, 60000))
            for model in (self.objective_func.model, self.objective_func.cost_model):
                f = getattr(model, "forest", None)
                fit = getattr(f, "_tt_fit", None)
                if fit is None or len(getattr(getattr(f, "models", None), "estimators_", ())) != f.n_estimators:
                    continue
                m, v = batch(f, rows)
                picks = np.unique(np.linspace(0, len(rows) - 1, PREFETCH_CHECKS).astype(int))
                for i in picks:
                    m1, v1 = predict(f, rows[i:i + 1].copy(), False)
                    if m1.tobytes() != m[i:i + 1].tobytes() or v1.tobytes() != v[i:i + 1].tobytes():
                        state.update(on=False, off_reason=f"row {i}: batch differs from their predict")
                        return maximize(self, X, y, c, unexplored_set)
                entries = cache.setdefault(fit, {})
                for i in range(len(rows)):
                    q = rows[i:i + 1]
                    entries.setdefault((False, q.shape, q.dtype.str, q.tobytes()), (m[i:i + 1].copy(), v[i:i + 1].copy()))
                state["batches"] += 1
        return maximize(self, X, y, c, unexplored_set)

    cea_mod.CEA.maximize = maximize_prefetched


_PREFETCH = {"on": True, "batches": 0, "off_reason": None}


def check_pinned(folder: str, pinned: dict) -> list:
    """What in ``folder`` is not exactly the ``pinned`` files ({relative path: sha256}): files that differ, are
    missing or are not regular files, and anything not pinned (``__pycache__`` aside), as messages."""
    problems, seen = [], set()
    for dirpath, dirs, names in os.walk(folder, followlinks=False):
        dirs[:] = [d for d in dirs if d != "__pycache__" or os.path.islink(os.path.join(dirpath, d))]
        for n in names + [d for d in dirs if os.path.islink(os.path.join(dirpath, d))]:
            path = os.path.join(dirpath, n)
            rel = os.path.relpath(path, folder).replace(os.sep, "/")
            if rel not in pinned:
                problems.append(f"{rel} is not pinned")
            elif not stat.S_ISREG(os.lstat(path).st_mode):
                problems.append(f"{rel} is not a regular file")
                seen.add(rel)
            else:
                seen.add(rel)
                with open(path, "rb") as fh:
                    if hashlib.sha256(fh.read()).hexdigest() != pinned[rel]:
                        problems.append(f"{rel} differs from the pinned sha256")
    problems += [f"{rel} is missing" for rel in sorted(set(pinned) - seen)]
    return problems


def run(args) -> dict:
    code = os.path.abspath(args.code)
    tt_dir = os.path.join(code, args.trimtuner)
    robo_dir = os.path.join(code, args.robo)
    with open(args.manifest) as fh:
        manifest = json.load(fh)
    for name, d in ((args.trimtuner, tt_dir), (args.robo, robo_dir)):
        if not os.path.isdir(d):
            raise SystemExit(f"authors' code folder missing: {d}")
        if name not in manifest:
            raise SystemExit(f"the manifest {args.manifest} pins no tree {name}")
        problems = check_pinned(d, manifest[name])
        if problems:  # nothing of theirs was imported: refuse before it is on sys.path
            raise SystemExit(f"refused to run {d}: " + "; ".join(problems[:6]))
    sys.path[:0] = [tt_dir, robo_dir]   # only the pinned files, checked above

    import numpy as np

    # george: imported at the top of trimtuner.py and RoBO's GP models; the DT variant never calls it
    george = types.ModuleType("george")
    george.kernels = types.ModuleType("george.kernels")
    george.GP = None
    sys.modules["george"] = george
    sys.modules["george.kernels"] = george.kernels

    # emcee: seed each sampler's private RandomState from a counter
    import emcee

    counter = {"next": EMCEE_SEED0}
    sampler_init = emcee.EnsembleSampler.__init__

    def seeded_init(self, *a, **kw):
        sampler_init(self, *a, **kw)
        self._random = np.random.RandomState(counter["next"])
        counter["next"] += 1

    emcee.EnsembleSampler.__init__ = seeded_init

    # the authors' modules, from their folders
    from robo.acquisition_functions import information_gain as ig_mod
    import trimtuner.trimtuner.trimtuner  # noqa: F401  (the package re-exports the function under this name)
    tt_mod = sys.modules["trimtuner.trimtuner.trimtuner"]
    from trimtuner.acquisition_functions import marginalization as marg_mod
    from trimtuner.maximizers import cea as cea_mod

    if not args.plain_libraries:
        _speedups(np)
        _cache_forest_predictions(np)

    spec = importlib.util.spec_from_file_location("authors_run_trimtuner", os.path.join(tt_dir, "tests", "run_trimtuner.py"))
    runner = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(runner)

    record = {"tests": [], "incumbents": [], "steps": []}
    dh_log: list[tuple[int, float]] = []   # (id of estimator, dH) since the last acquisition call

    # dH: exact (recorded) or a residue model
    IG = ig_mod.InformationGain
    if args.residue == "exact":
        dh_exact = IG._dh_fun

        def dh_recorded(self, x):
            v = dh_exact(self, x)
            dh_log.append((id(self), float(v)))
            return v

        IG._dh_fun = dh_recorded
    else:
        if args.residue == "empirical":
            with open(args.dh_values) as fh:
                observed = np.asarray(json.load(fh), dtype=float)
            # the reference runs' stream: default_rng(1000 + seed); another dh_seed, another stream
            dh_rng = np.random.default_rng(1000 + args.seed if args.dh_seed == 0 else (1000 + args.seed, args.dh_seed))
        constant = {"zero": 0.0, "pos": RESIDUE_STEP, "neg": -RESIDUE_STEP}.get(args.residue)

        def update_residue(self, model):
            self.model = model
            self.sn2 = self.model.get_noise()
            # the original's only use of numpy's global stream here: the representer start points
            is_env = getattr(self, "is_env", np.zeros(self.D))
            lower, upper = self.lower[is_env == 0], self.upper[is_env == 0]
            np.random.uniform(low=lower, high=upper, size=(self.Nb, lower.shape[0]))
            self.lmb = np.zeros((self.Nb, 1))
            self._tt_dh = float(dh_rng.choice(observed)) if constant is None else constant

        def dh_residue(self, x):
            dh_log.append((id(self), self._tt_dh))
            return self._tt_dh

        IG.update = update_residue
        IG._dh_fun = dh_residue

    # the filter's kept fraction
    if args.filter == "cea" and args.beta != 0.1:
        cea_init = cea_mod.CEA.__init__

        def cea_init_beta(self, objective_function, lower, upper, per, constraints):
            cea_init(self, objective_function, lower, upper, args.beta, constraints)

        cea_mod.CEA.__init__ = cea_init_beta

    # each BO step: kept candidates, chosen index, dH per estimator
    marg_compute = marg_mod.MarginalizationGPMCMC.compute

    def compute_recorded(self, X_test):
        dh_log.clear()
        values = marg_compute(self, X_test)
        per_est = []
        for est in self.estimators:
            v = [d for i, d in dh_log if i == id(est)]
            per_est.append([min(v), max(v)] if v else None)
        record["steps"].append({"n_kept": int(X_test.shape[0]), "argmax": int(np.argmax(values)),
                                "all_equal": bool(np.all(values == values[0])),
                                "dh_minmax_per_estimator": per_est})
        if args.verbose:
            print(f"[harness] step {len(record['steps'])}: {X_test.shape[0]} kept, argmax {int(np.argmax(values))}",
                  file=sys.stderr)
        return values

    marg_mod.MarginalizationGPMCMC.compute = compute_recorded

    # each test
    objective = runner.objective_function

    def objective_recorded(x, s):
        loss, cost, runtime = objective(x, s)
        record["tests"].append({"x": [float(v) for v in x[:5]], "size": int(s), "acc": float(1 - loss),
                                "cost": float(cost)})
        return loss, cost, runtime

    runner.objective_function = objective_recorded

    # the incumbent after each BO test (trimtuner() calls its module's incumbent_estimation_cea)
    inc_fn = tt_mod.incumbent_estimation_cea

    def incumbent_recorded(model_objective, model_cost, X, constraint):
        inc, acc, cost = inc_fn(model_objective, model_cost, X, constraint)
        record["incumbents"].append({"after_test": len(record["tests"]), "x": [float(v) for v in inc[:5]],
                                     "pred_acc": float(acc), "pred_cost": float(cost)})
        return inc, acc, cost

    tt_mod.incumbent_estimation_cea = incumbent_recorded

    # their script reads files/<net>.csv and writes runLogs/ in the working directory: a scratch one
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="tt-authors-") as work:
        os.mkdir(os.path.join(work, "files"))
        os.symlink(os.path.abspath(args.csv), os.path.join(work, "files", f"{args.net}.csv"))
        cwd = os.getcwd()
        os.chdir(work)
        try:
            sink = sys.stderr if args.verbose else open(os.devnull, "w")
            with contextlib.redirect_stdout(sink):
                runner.main(args.net, args.seed, args.n_init, args.iterations, args.filter, "dt")
        finally:
            os.chdir(cwd)
    wall = time.perf_counter() - t0

    import scipy
    import sklearn

    return {"net": args.net, "seed": args.seed, "iterations": args.iterations, "filter": args.filter,
            "per": args.beta if args.filter == "cea" else 1.0, "dh_model": args.residue, "dh_seed": args.dh_seed,
            "emcee_samplers": counter["next"] - EMCEE_SEED0, "wall_s": wall,
            "prefetch": None if args.plain_libraries else dict(_PREFETCH),
            "versions": {"python": sys.version.split()[0], "numpy": np.__version__, "scipy": scipy.__version__,
                         "sklearn": sklearn.__version__, "emcee": emcee.__version__},
            **record}


def main(argv=None) -> int:
    args = _parse(argv)
    if args.residue == "empirical" and not args.dh_values:
        raise SystemExit("--residue empirical needs --dh-values")
    out = run(args)
    tmp = args.out + ".part"
    with open(tmp, "w") as fh:
        json.dump(out, fh)
    os.replace(tmp, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
