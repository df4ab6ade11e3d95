"""Revocation statistics of a price trace (§II-A, Fig. 1's market) and the predictors' scores on it.

How often a maximum price some margin above the present price is crossed within the hour, the trace's
price statistics, and Fig. 10-style accuracy / F1 of the non-LSTM predictors (notebook 12).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tt_spotsim import market as M
from tt_workbook.studies.spottune.grids import prices_label
from tt_spotsim.revocation import evaluate, forward_max, make_predictor


def revocation_stats(trace, margins=(0.0, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0), start: float = 0.0,
                     end: float | None = None) -> pd.DataFrame:
    """Per type and relative bid margin: the fraction of minutes from which a bid that much above the price
    is crossed within the hour, and the trace's price statistics (``prices``: :func:`prices_label`)."""
    rows = []
    lo = int(start // 60)
    for name in trace.types:
        p = trace.series(name)
        hi = len(p) if end is None else int(end // 60)
        fm = forward_max(p)[lo:hi]
        cur = p[lo:hi]
        ok = ~np.isnan(fm)
        rise = fm[ok] / cur[ok] - 1.0
        od = M.instance(name).on_demand
        for m in margins:
            rows.append({"type": name, "margin": m, "p_revoked_within_hour": float((rise > m).mean()),
                         "mean_price": float(cur.mean()), "mean_fraction_of_on_demand": float(cur.mean() / od),
                         "minutes_above_on_demand_per_day": float((cur > od).mean() * 1440),
                         "price_changes_per_hour": float((np.diff(cur) != 0).mean() * 60),
                         "prices": prices_label(trace)})
    return pd.DataFrame(rows)


def predictor_scores(trace, fit_days: float = 9.0, test_days: float = 3.0, names=("empirical", "logistic")) -> pd.DataFrame:
    """Fig. 10-style accuracy and F1 of the predictors: trained on the first ``fit_days``, tested on the next
    ``test_days`` (the paper: 04/26-05/04, then 05/05-05/07); ``prices``: :func:`prices_label`."""
    out = []
    for n in names:
        pred = make_predictor(n).fit(trace, until=fit_days * 86400)
        out.append(evaluate(pred, trace, fit_days * 86400, (fit_days + test_days) * 86400))
    return pd.concat(out, ignore_index=True).assign(prices=prices_label(trace))
