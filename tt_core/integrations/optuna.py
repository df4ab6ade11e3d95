"""TrimTuner as an Optuna sampler: any registered accuracy-maximising optimiser behind ``optuna.create_study``.

Optuna asks a sampler for one parameter value at a time; the workbook's optimisers choose a whole test, a
(configuration, training-set size) pair of a finite space (:mod:`tt_core.optimizers.base`). The adapter
joins the two through the trial's life:

* ``before_trial``: the optimiser's ``suggest()`` picks the pair of the new trial;
* ``sample_independent``: each ``trial.suggest_*(name, ...)`` receives that pair's value of the column
  ``name`` (or the size, for the size parameter);
* ``after_trial``: the finished trial, as Optuna's storage holds it (its parameters, its value = the
  accuracy, its user attributes ``cost`` and ``time``), is told to the optimiser (``observe``).

The trials, their fidelity (``size``, ``fidelity`` = size / full size), cost, time and feasibility (user
attributes, and ``constraints`` as Optuna's convention: each value <= 0 when met) land in the study's
storage, so optuna-dashboard shows a run live; the optimiser's recommendation (which is not
``study.best_trial``: that may be a sub-sampled test, or break the cost limit) is the study's user attribute
``recommendation`` and :meth:`TrimTunerSampler.recommendation`. Trials run one at a time (``n_jobs=1``:
the optimiser asks for one test after another). A study reopened from its storage is resumed: its completed
trials are told to the optimiser in trial order before its next suggestion.

Optuna is an optional extra: ``pip install 'tt-core[optuna]'``.
"""

from __future__ import annotations

import math
from itertools import product

import pandas as pd

from tt_core.data.io import shown
from tt_core.data.space import ConfigSpace, plain_values
from tt_core.optimizers.base import Recommendation
from tt_core.optimizers.registry import available, make_optimizer, spec

#: The one line printed when Optuna is missing.
MISSING = "the Optuna sampler needs Optuna: pip install 'tt-core[optuna]' (or pip install 'optuna>=4')"

#: User attributes a trial carries (set by :meth:`TrimTunerSampler.objective`; ``cost`` and ``time`` are read
#: by the sampler from any objective that sets them).
USER_ATTRS = ("config_id", "size", "fidelity", "cost", "time", "feasible", "constraints")


def require_optuna():
    """The ``optuna`` module, or an ImportError with one line naming the extra to install."""
    try:
        import optuna
    except ImportError:
        raise ImportError(MISSING) from None
    return optuna


class TrimTunerSampler:
    """An Optuna sampler backed by a registered optimiser of the workbook (default TrimTuner-DT).

    Parameters
    ----------
    search_space : dict or pandas.DataFrame
        The finite configuration space: ``{name: [values]}`` (every combination, as Optuna's
        ``GridSampler``), or a DataFrame with one row per configuration (``config_id`` optional).
        Values may be numbers, text or ``None`` (scikit-learn's ``max_depth=None``).
    sizes : sequence of int
        The training-set sizes; the largest is the full training set.
    optimizer : str
        A registered optimiser that maximises the accuracy (:func:`tt_core.optimizers.available`).
    seed : int
    max_cost, max_time : float, optional
        Limits (USD, seconds) on a full-size training run of the recommended configuration (paper Eq. 4).
    budget : float, optional
        Exploration budget (USD): the study stops once the tests have been charged this much.
    size_param : str
        Name of the size parameter in ``trial.suggest_*``.
    **options
        The optimiser's options (:func:`tt_core.optimizers.make_optimizer`: ``beta``, ``filter``, ...).
    """

    def __init__(self, search_space, sizes, optimizer: str = "trimtuner-dt", *, seed: int,
                 max_cost: float | None = None, max_time: float | None = None, budget: float | None = None,
                 size_param: str = "size", **options):
        require_optuna()
        if spec(optimizer).objective == "cost":
            raise ValueError(f"{shown(optimizer)} minimises the cost of a priced benchmark; the Optuna sampler "
                             f"maximises the accuracy: use one of {[n for n in available() if spec(n).objective != 'cost']}")
        configs = _configs(search_space)
        if size_param in configs.columns:
            raise ValueError(f"size_param {shown(size_param)} is also a configuration column; rename one of them")
        self.configs = configs
        self.columns = tuple(c for c in configs.columns if c != "config_id")
        table = configs.loc[configs.index.repeat(len(sizes))].reset_index(drop=True)
        sizes = sorted({int(s) for s in sizes})
        table["size"] = sizes * len(configs)
        self.space = ConfigSpace.from_table(table, self.columns, sizes=sizes)
        self.size_param = size_param
        self.limits = {"cost": max_cost, "time": max_time}
        self.optimizer = make_optimizer(optimizer, self.space, seed=seed, max_cost=max_cost, max_time=max_time,
                                        budget=budget, **options)
        values = {c: plain_values(configs[c]) for c in self.columns}
        self.choices = {c: list(dict.fromkeys(values[c])) for c in self.columns}
        self._config = {int(cid): {c: values[c][i] for c in self.columns} for i, cid in enumerate(configs["config_id"])}
        self._id_of = {tuple(cfg[c] for c in self.columns): cid for cid, cfg in self._config.items()}
        self._pending: dict[int, tuple[int, int]] = {}
        self._told: set[int] = set()

    # ------------------------------------------------------------------------------------ the objective
    def config(self, config_id: int) -> dict:
        """Configuration ``config_id`` as plain values (a copy)."""
        return dict(self._config[int(config_id)])

    def objective(self, fn):
        """An Optuna objective from a job ``fn(config: dict, size: int) -> {"accuracy", "cost" and/or "time"}``.

        It suggests every configuration column and the size (so the sampler's choice becomes the trial's
        parameters), calls the job, records the user attributes of :data:`USER_ATTRS` and returns the accuracy.
        """
        def run(trial) -> float:
            config = {c: trial.suggest_categorical(c, self.choices[c]) for c in self.columns}
            size = trial.suggest_categorical(self.size_param, list(self.space.sizes))
            out = fn(dict(config), int(size))
            if not isinstance(out, dict) or "accuracy" not in out:
                raise ValueError(f"the job must return a dict with 'accuracy' and 'cost' and/or 'time'; got {shown(out)}")
            acc = float(out["accuracy"])
            if not 0.0 <= acc <= 1.0:
                raise ValueError(f"the job returned accuracy {shown(out['accuracy'])}; it must be a fraction in [0, 1]")
            measured = {k: float(out[k]) for k in ("cost", "time") if out.get(k) is not None}
            trial.set_user_attr("config_id", self._id_of[tuple(config[c] for c in self.columns)])
            trial.set_user_attr("size", int(size))
            trial.set_user_attr("fidelity", int(size) / self.space.max_size)
            for k, v in measured.items():
                trial.set_user_attr(k, v)
            gaps = [measured.get(k, math.nan) - lim for k, lim in self.limits.items() if lim is not None]
            if gaps:
                trial.set_user_attr("constraints", gaps)
                trial.set_user_attr("feasible", all(g <= 0 for g in gaps))
            return acc
        return run

    # ------------------------------------------------------------------------------------ Optuna's sampler API
    def infer_relative_search_space(self, study, trial) -> dict:
        return {}

    def sample_relative(self, study, trial, search_space) -> dict:
        return {}

    def before_trial(self, study, trial) -> None:
        """Resume from the storage's completed trials, then ask the optimiser for this trial's test."""
        if len(study.directions) != 1 or study.direction.name != "MAXIMIZE":
            raise ValueError("the Optuna sampler maximises one value, the accuracy: "
                             "optuna.create_study(direction='maximize', sampler=...)")
        if self._pending:
            raise RuntimeError(f"trial {min(self._pending)} is still running; the optimiser asks for one test after "
                               "another: run the study with n_jobs=1")
        states = require_optuna().trial.TrialState
        for t in study.get_trials(deepcopy=False, states=(states.COMPLETE,)):
            if t.number not in self._told:
                self._tell(t, t.values)
        self._pending[trial.number] = self.optimizer.suggest()

    def sample_independent(self, study, trial, param_name, param_distribution):
        """The value of ``param_name`` in this trial's (configuration, size)."""
        config_id, size = self._pending.get(trial.number, (None, None))
        if config_id is None:
            raise RuntimeError(f"trial {trial.number} has no test of the sampler (a trial enqueued with its own "
                               "parameters, or started by another sampler)")
        if param_name == self.size_param:
            value = int(size)
        elif param_name in self.columns:
            value = self._config[config_id][param_name]
        else:
            raise ValueError(f"parameter {shown(param_name)} is neither a configuration column {list(self.columns)} nor "
                             f"the size parameter {shown(self.size_param)} of the sampler's space")
        if not _contains(param_distribution, value):
            raise ValueError(f"the sampler chose {param_name}={shown(value)}, which the trial's distribution "
                             f"{param_distribution} does not hold: suggest every value of the space")
        return value

    def after_trial(self, study, trial, state, values) -> None:
        """Tell the optimiser the finished trial (as the storage holds it); stop the study when it is done."""
        states = require_optuna().trial.TrialState
        self._pending.pop(trial.number, None)
        if state != states.COMPLETE:
            study.stop()  # the optimiser has no result for its test and would ask for it again
            self.stopped_because = (f"trial {trial.number} ended {state.name}: the optimiser has no result for its "
                                    "test; the study stopped")
            return
        self._tell(trial, values)
        rec = self.recommendation()
        if rec is not None:
            study.set_user_attr("recommendation", rec)
        if self.optimizer.done:
            study.stop()

    def reseed_rng(self) -> None:
        """Nothing to reseed: the optimiser's random streams come from its seed."""

    # ------------------------------------------------------------------------------------ results
    def recommendation(self) -> dict | None:
        """The optimiser's incumbent: ``{"config_id", "size", **configuration}``, or None."""
        inc = self.optimizer.incumbent()
        if inc is None:
            return None
        return {"config_id": int(inc.config_id), "size": int(inc.size), **self._config[int(inc.config_id)]}

    def incumbent(self) -> Recommendation | None:
        """The optimiser's :class:`~tt_core.optimizers.base.Recommendation` (configuration id, size)."""
        return self.optimizer.incumbent()

    def _tell(self, trial, values) -> None:
        params = trial.params
        missing = [c for c in (*self.columns, self.size_param) if c not in params]
        if missing:
            raise ValueError(f"trial {trial.number} did not suggest {missing}; its objective must suggest every "
                             "configuration column and the size (TrimTunerSampler.objective(fn) does)")
        key = tuple(params[c] for c in self.columns)
        if key not in self._id_of:
            raise ValueError(f"trial {trial.number}: configuration {dict(zip(self.columns, key))} is not in the space")
        attrs = trial.user_attrs
        self.optimizer.observe(self._id_of[key], int(params[self.size_param]), float(values[0]),
                               float(attrs.get("cost", math.nan)), float(attrs.get("time", math.nan)))
        self._told.add(trial.number)


def _contains(distribution, value) -> bool:
    """Whether an Optuna distribution holds ``value`` (categorical: one of its choices; numeric: in its range)."""
    choices = getattr(distribution, "choices", None)
    if choices is not None:
        return any(value is c or (value is not None and c is not None and type(value) is not bool and value == c)
                   for c in choices)
    low, high = getattr(distribution, "low", None), getattr(distribution, "high", None)
    return low is not None and low <= value <= high


def _configs(search_space) -> pd.DataFrame:
    """The search space as one row per configuration with ``config_id`` 0..n-1 (or the given ids)."""
    if isinstance(search_space, dict):
        if not search_space or any(not isinstance(v, (list, tuple)) or not v for v in search_space.values()):
            raise ValueError("search_space must map each parameter name to a non-empty list of values")
        rows = list(product(*search_space.values()))
        configs = pd.DataFrame(rows, columns=list(search_space))
        configs.insert(0, "config_id", range(len(configs)))
        return configs
    if isinstance(search_space, pd.DataFrame):
        configs = search_space.reset_index(drop=True).copy()
        if "config_id" not in configs.columns:
            configs.insert(0, "config_id", range(len(configs)))
        if len(configs.columns) < 2:
            raise ValueError("search_space has no configuration column besides config_id")
        return configs
    raise ValueError(f"search_space must be a dict {{name: [values]}} or a DataFrame of configurations, got "
                     f"{type(search_space).__name__}")
