"""How the tests of the initial design are scored in a trajectory (TrimTuner Fig. 1).

A stored trajectory scores every test by the optimiser's incumbent after it. During a sub-sampled
initial design (TrimTuner, FABOLAS) there are no models yet, and the workbook's optimisers recommend the
tested configuration *at full size*: the single random configuration tested at 1/60 of the data is
scored as if it had been recommended for the full data set, and a run whose random configuration
happens to be good "reaches" the target after $0.0008 of optimisation.

The paper's Fig. 1 draws the initial design as its own, dashed series: its first points (identical for
TrimTuner-GP, TrimTuner-DT and FABOLAS, whose runs share the random configuration) rise with the size
tested (RNN: 0.16, 0.30, 0.43, 0.56 at 1/60, 1/10, 1/4, 1/2), so each initial point is the *test's own*
accuracy at its sub-sampled size, not a full-size recommendation; EIc's initial points (0.68, 0.65, 0.46,
0.65) are not monotone either, so they are each test's own value, not a running best. The first
recommendation is scored after the first BO test. :func:`score_initial_design` with ``how="paper"``
rescores stored runs that way (a reconstruction from the figure; the paper's text does not say it).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tt_core.replay.metrics import accuracy_c
from tt_core.data.io import shown

#: Ways of scoring the initial design: ``incumbent`` (as stored: the optimiser's recommendation after
#: each test) or ``paper`` (Fig. 1: each initial test is shown as its own Accuracy_C at its own size and
#: cost, and is not a recommendation).
HOWS = ("incumbent", "paper")


def _max_cost(runs: pd.DataFrame, benchmarks: dict) -> pd.Series:
    default = runs["benchmark"].map(lambda b: benchmarks[b].max_cost)
    if "max_cost" in runs:
        return runs["max_cost"].astype(float).where(runs["max_cost"].notna(), default).astype(float)
    return default.astype(float)


def score_initial_design(runs: pd.DataFrame, benchmarks: dict, how: str = "paper") -> pd.DataFrame:
    """A copy of ``runs`` with the initial design scored as ``how`` says.

    Parameters
    ----------
    runs : DataFrame
        Stored trajectories (columns ``benchmark, phase, accuracy, cost, accuracy_c, incumbent_accuracy,
        incumbent_cost``).
    benchmarks : dict
        ``name -> Benchmark`` (the cost limit of runs stored without an explicit ``max_cost``).
    how : {"incumbent", "paper"}

    Returns
    -------
    DataFrame
        With a boolean column ``recommendation``. For ``how="paper"``, rows of the initial design get
        ``accuracy_c`` = Eq. 7 of the test itself (its accuracy, penalised if its own cost exceeds the
        limit), ``recommendation = False`` and NaN incumbent measurements, so that
        :func:`tt_workbook.studies.fig1_fig2.trajectories.time_to_target` cannot count them as reaching the target.
    """
    if how not in HOWS:
        raise ValueError(f"how must be one of {list(HOWS)}, got {shown(how)}")
    missing = [b for b in runs["benchmark"].unique() if b not in benchmarks]
    if missing:
        raise ValueError(f"no benchmark given for {missing}; pass benchmarks={{name: load_benchmark(name)}}")
    out = runs.copy()
    out["recommendation"] = True
    if how == "incumbent" or out.empty:
        return out
    init = (out["phase"] == "init").to_numpy()
    cmax = _max_cost(out, benchmarks).to_numpy()
    acc_c = np.array([accuracy_c(a, c, m) for a, c, m in zip(out["accuracy"].to_numpy(float),
                                                             out["cost"].to_numpy(float), cmax)], dtype=float)
    out.loc[init, "accuracy_c"] = acc_c[init]
    for col in ("incumbent_accuracy", "incumbent_cost", "incumbent_time"):
        if col in out:
            out.loc[init, col] = np.nan
    out.loc[init, "recommendation"] = False
    return out
