"""Bootstrap share of the paper's Fig. 3 / Fig. 4 orderings (tt_workbook.studies.filters_beta.analysis.ordering_bootstrap).

Known answers: levels whose every run has the same value give a share of exactly 1 or 0; with 2 runs
per level each level has 4 equally likely resamples, so the exact share is a count over all
combinations (enumerated here, Spearman's rho from scipy), which the Monte Carlo estimate must match
within 4 binomial standard deviations.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from tt_workbook.studies.filters_beta.analysis import beta_trend, ordering_bootstrap

B = 20000


def _metrics(levels: dict, bench="rnn", opt="trimtuner-dt") -> pd.DataFrame:
    return pd.DataFrame([{"benchmark": bench, "optimizer": opt, "variant": v, "seed": k, "mean_accuracy_c": x}
                         for v, xs in levels.items() for k, x in enumerate(xs)])


def _share(out, ordering):
    row = out[out["ordering"] == ordering]
    assert len(row) == 1, (ordering, list(out["ordering"]))
    return float(row["share"].iloc[0]), bool(row["observed"].iloc[0])


def _within(mc, exact, n=B):
    sd = np.sqrt(exact * (1 - exact) / n)
    assert abs(mc - exact) <= 4 * sd + 1e-12, (mc, exact)


def _resamples(xs):
    """The 2**2 equally likely resample means of a 2-run level (ordered draws with replacement)."""
    return [np.mean([xs[i], xs[j]]) for i, j in itertools.product(range(len(xs)), repeat=len(xs))]


def test_constant_runs_give_shares_of_exactly_one_or_zero():
    m = _metrics({"CEA": [0.9] * 3, "DIRECT": [0.8] * 3, "CMA-ES": [0.95] * 3, "Random": [0.5] * 4})
    out = ordering_bootstrap(m, "filter", n_boot=500, seed=1)
    assert _share(out, "CEA above DIRECT") == (1.0, True)
    assert _share(out, "CEA above CMA-ES") == (0.0, False)
    assert _share(out, "CEA above Random") == (1.0, True)
    assert _share(out, "CEA above DIRECT, CMA-ES, Random at once") == (0.0, False)
    assert set(out["resamples"]) == {500} and out["runs_per_level"].iloc[0] == 3
    assert "100% of 500 bootstrap resamples of the 6 runs" in out["evidence"].iloc[0]

    up = _metrics({"beta 1%": [0.7] * 3, "beta 10%": [0.8] * 3, "no filter": [0.9] * 3})
    out = ordering_bootstrap(up, "beta", n_boot=300, seed=2)
    assert _share(out, "Spearman rho of beta vs Accuracy_C > 0") == (1.0, True)
    assert _share(out, "no filter is best") == (1.0, True)
    down = _metrics({"beta 1%": [0.9] * 3, "beta 10%": [0.8] * 3, "no filter": [0.7] * 3})
    out = ordering_bootstrap(down, "beta", n_boot=300, seed=2)
    assert _share(out, "Spearman rho of beta vs Accuracy_C > 0") == (0.0, False)
    assert _share(out, "no filter is best") == (0.0, False)


def test_fig3_share_matches_the_enumeration_of_all_resamples():
    lv = {"CEA": [0.80, 0.90], "DIRECT": [0.70, 0.88], "CMA-ES": [0.86, 0.85], "Random": [0.60, 0.95]}
    res = {v: _resamples(xs) for v, xs in lv.items()}
    combos = list(itertools.product(*res.values()))  # 4**4 equally likely joint resamples
    assert len(combos) == 256
    exact = {b: np.mean([c[0] > c[i] for c in combos]) for i, b in enumerate(lv) if i}
    exact["all"] = np.mean([all(c[0] > c[i] for i in (1, 2, 3)) for c in combos])
    assert 0.1 < min(exact.values()) and max(exact.values()) < 0.9  # a non-trivial case
    out = ordering_bootstrap(_metrics(lv), "filter", n_boot=B, seed=np.random.default_rng(5))
    for b in ("DIRECT", "CMA-ES", "Random"):
        _within(_share(out, f"CEA above {b}")[0], exact[b])
    _within(_share(out, "CEA above DIRECT, CMA-ES, Random at once")[0], exact["all"])
    assert _share(out, "CEA above DIRECT")[1] is True and _share(out, "CEA above CMA-ES")[1] is False


def test_fig4_share_matches_the_enumeration_of_all_resamples():
    lv = {"beta 1%": [0.72, 0.86], "beta 10%": [0.80, 0.70], "no filter": [0.90, 0.74]}
    draws = {v: list(itertools.product(xs, repeat=2)) for v, xs in lv.items()}  # 4 ordered resamples each
    x = [0.01, 0.01, 0.10, 0.10, 1.0, 1.0]
    rho_pos, best = [], []
    for a, b, c in itertools.product(*draws.values()):
        y = list(a) + list(b) + list(c)
        rho = stats.spearmanr(x, y)[0]
        rho_pos.append(bool(rho > 0))  # NaN (all equal) counts as not > 0
        best.append(np.mean(c) > max(np.mean(a), np.mean(b)))
    exact_rho, exact_best = np.mean(rho_pos), np.mean(best)
    assert 0.1 < exact_rho < 0.9 and 0.1 < exact_best < 0.9
    out = ordering_bootstrap(_metrics(lv), "beta", n_boot=B, seed=11)
    _within(_share(out, "Spearman rho of beta vs Accuracy_C > 0")[0], exact_rho)
    _within(_share(out, "no filter is best")[0], exact_best)


def test_observed_ordering_is_that_of_beta_trend_and_seeded():
    rng = np.random.default_rng(0)
    lv = {f"beta {b}%": rng.uniform(0.6, 0.9, 4) for b in (1, 10, 20, 50)}
    lv["no filter"] = rng.uniform(0.6, 0.9, 4)
    m = _metrics(lv)
    trend = beta_trend(m).iloc[0]
    out = ordering_bootstrap(m, "beta", n_boot=400, seed=3)
    assert _share(out, "Spearman rho of beta vs Accuracy_C > 0")[1] == bool(trend["spearman_rho"] > 0)
    assert _share(out, "no filter is best")[1] == bool(trend["best_level"] == "no filter")
    pd.testing.assert_frame_equal(out, ordering_bootstrap(m, "beta", n_boot=400, seed=3))
    two = pd.concat([m, _metrics(lv, bench="cnn")], ignore_index=True)
    assert list(ordering_bootstrap(two, "beta", n_boot=50)["benchmark"]) == ["rnn", "rnn", "cnn", "cnn"]
    with pytest.raises(ValueError, match="study"):
        ordering_bootstrap(m, "size")
    with pytest.raises(ValueError, match="n_boot"):
        ordering_bootstrap(m, "beta", n_boot=0)
