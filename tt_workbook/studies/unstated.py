"""Verdicts under settings the paper does not state: where a row's verdict holds and where it flips.

A paper-vs-workbook row is decided under settings the paper leaves open (how many networks an average
is over, which variant a sentence is about, a budget, the agreement tolerance itself). When the verdict
flips inside a plausible range of such a setting, the row says so in its note, with the range computed
from the numbers (never typed):

* :func:`factor_flip` / :func:`tolerance_note`: the agreement tolerance of a factor row (the verdict at
  1.5x beside the row's 2x, and the factor where it flips);
* :func:`holds_ranges` / :func:`range_note`: a setting on a grid (e.g. an exploration budget): the
  intervals of the grid where the verdict holds and the points where it flips;
* :func:`settings_note`: a few discrete settings (e.g. TrimTuner-DT or -GP, initial design counted or not):
  the value and verdict under each, and which ones flip it.
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

import numpy as np

__all__ = ["ALT_FACTOR", "factor_flip", "holds_ranges", "range_note", "settings_note", "tolerance_note",
           "verdict_word", "with_tolerance_note"]

#: The tighter agreement tolerance shown beside a factor row's own (issue 33 item 7).
ALT_FACTOR = 1.5


def verdict_word(v) -> str:
    """``agrees`` / ``differs`` / ``undetermined`` for True / False / None."""
    return "undetermined" if v is None else ("agrees" if v else "differs")


def _positive(x) -> float | None:
    try:
        f = float(x)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) and f > 0 else None


def factor_flip(paper, workbook) -> float | None:
    """The smallest tolerance factor under which ``workbook`` agrees with ``paper``: ``max(p/w, w/p)``
    (None when either is missing, not positive or not finite). A factor row agrees for every tolerance
    at or above it and differs below it."""
    p, w = _positive(paper), _positive(workbook)
    if p is None or w is None:
        return None
    return max(p / w, w / p)


def tolerance_note(paper, workbook, factor: float = 2.0, other: float = ALT_FACTOR) -> str:
    """``"tolerance: within 1.5x differs, within 2x agrees (flips at 1.73x)"``; "" when not computable."""
    f = factor_flip(paper, workbook)
    if f is None:
        return ""
    words = ", ".join(f"within {t:g}x {verdict_word(f <= t)}" for t in sorted({float(other), float(factor)}))
    return f"tolerance: {words} (flips at {f:.3g}x)"


def with_tolerance_note(row: dict, other: float = ALT_FACTOR) -> dict:
    """A factor row (``factor`` key, numeric paper and workbook values) with :func:`tolerance_note` appended
    to its note; other rows unchanged."""
    if row.get("factor") is None or isinstance(row.get("workbook"), bool) or isinstance(row.get("paper"), bool):
        return row
    text = tolerance_note(row.get("paper"), row.get("workbook"), float(row["factor"]), other)
    if not text:
        return row
    note = row.get("note") or ""
    return {**row, "note": f"{note}; {text}" if note else text}


def holds_ranges(xs: Sequence[float], ok: Sequence[bool | None]) -> list[tuple[float, float]]:
    """The maximal runs of consecutive grid points (``xs`` ascending) where ``ok`` is True, as
    ``(first x, last x)`` pairs (a False or None point ends a run)."""
    xs = [float(x) for x in xs]
    if len(xs) != len(ok):
        raise ValueError(f"xs and ok differ in length ({len(xs)} vs {len(ok)})")
    if any(b < a for a, b in zip(xs, xs[1:])):
        raise ValueError("xs must be ascending")
    out, start = [], None
    for i, v in enumerate(ok):
        if v is True and start is None:
            start = i
        if v is not True and start is not None:
            out.append((xs[start], xs[i - 1]))
            start = None
    if start is not None:
        out.append((xs[start], xs[-1]))
    return out


def range_note(xs: Sequence[float], ok: Sequence[bool | None], name: str, fmt: str = "{:g}",
               current: float | None = None) -> str:
    """``"holds for <name> in [a, b] (grid c..d); flips at e"`` from a verdict per grid point.

    The flips are the grid points where the verdict turns from agrees to differs or back (the first point of
    the new verdict; points without a verdict, None, are skipped and counted apart); ``current``: the value the
    row uses, named when given. "" for an empty grid."""
    if not len(xs):
        return ""
    f = fmt.format
    runs = holds_ranges(xs, ok)
    where = " and ".join(f"[{f(a)}, {f(b)}]" for a, b in runs) if runs else "no value"
    decided = [(x, v) for x, v in zip(xs, ok) if v is not None]
    flips = [f(decided[i][0]) for i in range(1, len(decided)) if decided[i][1] is not decided[i - 1][1]]
    text = f"holds for {name} in {where} (grid {f(xs[0])} to {f(xs[-1])}, {len(xs)} points)"
    text += f"; flips at {', '.join(flips)}" if flips else "; never flips on the grid"
    none = [x for x, v in zip(xs, ok) if v is None]
    if none:
        text += f"; no verdict at {len(none)} grid point(s), {f(none[0])} to {f(none[-1])}"
    if current is not None:
        text += f"; this row: {f(current)}"
    return text


def settings_note(values: dict[str, float | None], verdict: Callable[[float], bool | None], current: str,
                  fmt: str = "{:.2f}") -> str:
    """The value and verdict of a row under each of a few discrete settings, and which flip it.

    ``values``: setting label -> the row's value under it (None: not computed here); ``verdict``: the row's
    rule; ``current``: the label of the setting the row uses. E.g. ``"under other unstated settings:
    GP, BO tests 3.10 (agrees), DT, all tests 4.48 (agrees); the verdict flips under: GP, BO tests, ..."``."""
    base = verdict(values[current]) if values.get(current) is not None else None
    parts, flips, missing = [], [], []
    for label, v in values.items():
        if label == current:
            continue
        if v is None or (isinstance(v, float) and not np.isfinite(v)):
            missing.append(label)
            continue
        vv = verdict(v)
        parts.append(f"{label} {fmt.format(v)} ({verdict_word(vv)})")
        if vv is not base:
            flips.append(label)
    if not parts:
        return ""
    text = "under other unstated settings: " + "; ".join(parts)
    text += (f"; the verdict ({verdict_word(base)} under {current}) flips under: {', '.join(flips)}" if flips
             else f"; the verdict ({verdict_word(base)} under {current}) holds under all of them")
    if missing:
        text += f" (not run here: {', '.join(missing)})"
    return text


# ------------------------------------------------------------------------------------------------
# TrimTuner Fig. 1 (notebook 03): which TrimTuner, and whether the initial design is counted
# ------------------------------------------------------------------------------------------------
#: The per-test cost the paper's Fig. 1 text quotes does not say which TrimTuner (DT or GP) nor whether
#: the initial design's tests are counted; the row uses TrimTuner-DT's BO tests.
FIG1_CURRENT = "TrimTuner-DT, BO tests"
_FIG1_LABEL = {"trimtuner-dt": "TrimTuner-DT", "trimtuner-gp": "TrimTuner-GP"}
_COUNTED = {"BO tests": ("bo",), "all tests": ("init", "bo")}


def per_test_costs(runs, max_sizes: dict | None = None):
    """Per benchmark, optimiser and counting (``BO tests``: after the initial design, as Fig. 1's rows;
    ``all tests``: the initial design's tests counted too): the mean cost of one test and the mean size
    fraction of the tests, over every run's tests (``runs``: trajectories with ``phase``, ``cost``, ``size``)."""
    import pandas as pd

    rows = []
    for (bench, opt), rv in runs.groupby(["benchmark", "optimizer"], sort=False):
        smax = (max_sizes or {}).get(bench, rv["size"].max())
        for counted, phases in _COUNTED.items():
            t = rv[rv["phase"].isin(phases)]
            rows.append({"benchmark": bench, "optimizer": opt, "counted": counted, "tests": len(t),
                         "cost_per_test": float(t["cost"].mean()) if len(t) else float("nan"),
                         "mean_s": float((t["size"] / smax).mean()) if len(t) else float("nan")})
    return pd.DataFrame(rows)


def fig1_settings_notes(rows: list[dict], costs) -> list[dict]:
    """Fig. 1's rows (:func:`tt_workbook.studies.fig1_fig2.rows.fig1_rows`) with the unstated settings named:
    every cost-per-test ratio and sub-sampling rate recomputed with TrimTuner-GP instead of -DT and with the
    initial design's tests counted (:func:`per_test_costs`), the verdict under each (the row's own rule)
    and which settings flip it (:func:`settings_note`); and every factor row's verdict at 1.5x beside its
    own (:func:`with_tolerance_note`). Settings whose runs are not here (TrimTuner-GP outside the paper
    profile) are named as not run."""
    import re

    from tt_workbook.report.summary import agree

    c = costs.set_index(["benchmark", "optimizer", "counted"])

    def get(bench, opt, counted, col):
        key = (bench, opt, counted)
        return float(c.loc[key, col]) if key in c.index and np.isfinite(c.loc[key, col]) else None

    out = []
    for row in rows:
        row = dict(row)
        m_cost = re.match(r"^(\w+): cost per test, (EIc|EIc-USD) / TrimTuner-DT$", str(row.get("item", "")))
        m_rate = re.match(r"^(\w+): mean sub-sampling rate of TrimTuner-DT tests$", str(row.get("item", "")))
        values = {}
        if m_cost:
            bench, base = m_cost.group(1), {"EIc": "eic", "EIc-USD": "eic-usd"}[m_cost.group(2)]
            for opt in ("trimtuner-dt", "trimtuner-gp"):
                for counted in _COUNTED:
                    b, t = get(bench, base, counted, "cost_per_test"), get(bench, opt, counted, "cost_per_test")
                    values[f"{_FIG1_LABEL[opt]}, {counted}"] = b / t if b is not None and t else None
        elif m_rate:
            bench = m_rate.group(1)
            for opt in ("trimtuner-dt", "trimtuner-gp"):
                for counted in _COUNTED:
                    values[f"{_FIG1_LABEL[opt]}, {counted}"] = get(bench, opt, counted, "mean_s")
        if values and values.get(FIG1_CURRENT) is not None:
            tol = (row.get("rel_tol", 0.0), row.get("abs_tol", 0.0), row.get("factor"))
            text = settings_note(values, lambda v: agree(row.get("paper"), v, *tol), FIG1_CURRENT)
            if text:
                row["note"] = f"{row.get('note') or ''}; {text} (fig1_per_test_costs.csv)".lstrip("; ")
        out.append(with_tolerance_note(row))
    return out


# ------------------------------------------------------------------------------------------------
# TrimTuner Fig. 4 (notebook 07): the authors' dH residue model
# ------------------------------------------------------------------------------------------------
#: The residue models of the authors' code (:mod:`tt_workbook.authors.oracle`): their dH is a rounding
#: residue, so a run needs a model of it; the paper states none (it ran on its own machine's last bits).
RESIDUES = ("empirical", "pos", "zero", "neg")


def residue_trends(runs, benchmarks: dict):
    """:func:`tt_workbook.studies.filters_beta.analysis.beta_trend` of the authors' runs per dH residue model (``runs``: the
    authors' beta-study runs, labelled by :func:`tt_workbook.studies.filters_beta.analysis.label_runs` and scored, with a
    ``residue`` column), with ``residue`` and ``seeds`` (the seeds behind it) columns."""
    import pandas as pd

    from tt_workbook.studies.filters_beta import analysis as study

    frames = []
    for res, g in runs.groupby("residue", sort=False):
        t = study.beta_trend(study.run_metrics(g, benchmarks), value="mean_accuracy_c")
        frames.append(t.assign(residue=res, seeds=", ".join(str(s) for s in sorted(g["seed"].unique()))))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["benchmark", "residue"])


def fig4_residue_notes(rows: list[dict], trends) -> list[dict]:
    """Fig. 4's rows (:func:`tt_workbook.studies.fig1_fig2.rows.fig4_rows`) with the authors' code's answer under
    each dH residue model (:func:`residue_trends`, the same seeds for every model) and the models that flip
    it, in the note; rows of a network without such runs are unchanged."""
    from tt_workbook.studies.fig1_fig2.rows import _fig4_claims

    out = []
    for row in rows:
        row = dict(row)
        net, _, claim = str(row.get("item", "")).partition(": ")
        t = trends[trends["benchmark"].astype(str).str.upper() == net] if len(trends) else trends
        if len(t) and t["residue"].nunique() > 1:
            t = t.set_index("residue")
            answers = {res: _fig4_claims(t.loc[res]).get(claim) for res in RESIDUES if res in t.index}
            if any(v is not None for v in answers.values()):
                rho = {res: float(t.loc[res, "spearman_rho"]) for res in answers}
                base = answers.get("empirical")
                each = "; ".join(f"{res} {verdict_word(v)}"
                                 + (f" (rho = {rho[res]:+.2f})" if "rho" in claim and np.isfinite(rho[res]) else "")
                                 for res, v in answers.items())
                flips = [res for res, v in answers.items() if res != "empirical" and v is not base]
                seeds = str(t["seeds"].iloc[0])
                text = (f"the authors' code under its unstated dH residue model (seed(s) {seeds}, "
                        f"{int(t['runs_per_level'].min())} run(s) per beta; claim holds = agrees): {each}; "
                        + (f"its answer flips under: {', '.join(flips)}" if flips else "its answer holds under every model")
                        + " (fig4_authors_code_residues.csv)")
                row["note"] = f"{row.get('note') or ''}; {text}".lstrip("; ")
        out.append(row)
    return out


# ------------------------------------------------------------------------------------------------
# Thesis §6.4 (notebook 09): random search's exploration budget
# ------------------------------------------------------------------------------------------------
RANDOM_CNO_ITEM = "CNN: random search's final CNO (ratio)"


def random_budget_curve(df, benchmark: str = "cnn", q: float = 90.0, n_grid: int = 200):
    """Random search's final CNO had its exploration budget B been each point of a grid: the p``q`` over
    seeds of the CNO after spending at most B (a random-search run stopped at B is the start of a longer
    one), on ``n_grid`` geometric points from the dearest first test of a seed to the budget the runs had
    (below it some seed has no test: infinite CNO, no verdict). Columns ``budget``, ``cno``."""
    import pandas as pd

    from tt_workbook.studies.nephele.analysis import curve_at_cost

    d = df[(df["benchmark"] == benchmark) & (df["optimizer"] == "random")]
    if "horizon" in d.columns:
        d = d[d["horizon"] == 0]
    if d.empty:
        return pd.DataFrame(columns=["budget", "cno"])
    first = d.sort_values("iteration").groupby("seed")["cumulative_cost"].first().max()
    grid = np.geomspace(float(first), float(d["budget"].max()), n_grid)
    c = curve_at_cost(d, grid, q)
    return pd.DataFrame({"budget": grid, "cno": c["cno"].to_numpy(float)})


def random_budget_notes(rows: list[dict], curve) -> list[dict]:
    """The thesis' "random search's final CNO" row with the range of exploration budgets (a setting the
    thesis does not state) under which its verdict holds (:func:`range_note`, the row's own rule, the
    value rounded as the row's), from :func:`random_budget_curve`."""
    from tt_workbook.report.summary import agree

    out = []
    for row in rows:
        row = dict(row)
        if row.get("item") == RANDOM_CNO_ITEM and len(curve):
            xs = curve["budget"].to_numpy(float)
            tol = (row.get("rel_tol", 0.0), row.get("abs_tol", 0.0), row.get("factor"))
            ok = [agree(row.get("paper"), round(v, 2), *tol) if np.isfinite(v) else None for v in curve["cno"]]
            text = range_note(xs, ok, "random's exploration budget B (unstated in the thesis)", fmt="${:.2f}",
                              current=float(xs[-1]))
            row["note"] = f"{row.get('note') or ''}; {text} (nephele_random_budget.csv)".lstrip("; ")
        out.append(row)
    return out


def random_draws_curve(costs, feasible, optimum_cost: float, q: float = 90.0):
    """Random search's p``q`` CNO after ``N`` uniform draws without repeats from a table of points, for every ``N``:
    a run keeps the cheapest feasible point it drew, so its CNO exceeds ``c`` only when it missed all ``m(c)``
    feasible points of CNO <= ``c``, with probability ``C(M - m, N) / C(M, N)`` (hypergeometric, ``M`` points);
    the p``q`` over runs is the smallest feasible CNO whose miss probability is at most ``1 - q/100`` (inf when even
    the dearest is missed more often). ``costs``: every point's cost; ``feasible``: which meet the constraints.
    Columns ``draws``, ``budget`` (draws x the mean cost of a point: what that many draws spend on average),
    ``cno``."""
    import pandas as pd
    from scipy.special import gammaln

    costs = np.asarray(costs, float)
    feasible = np.asarray(feasible, bool)
    M = len(costs)
    c = np.sort(costs[feasible] / float(optimum_cost))
    m = np.searchsorted(c, c, side="right")            # points of CNO <= each c (ties counted together)
    rows = []
    for n in range(1, M + 1):
        ok = M - m >= n
        log_miss = np.full(len(c), -np.inf)
        k = M - m[ok]
        log_miss[ok] = gammaln(k + 1) - gammaln(k - n + 1) - gammaln(M + 1) + gammaln(M - n + 1)
        hit = np.flatnonzero(log_miss <= math.log(1 - q / 100.0) + 1e-12)
        rows.append({"draws": n, "budget": n * float(costs.mean()), "cno": float(c[hit[0]]) if len(hit) else math.inf})
    return pd.DataFrame(rows, columns=["draws", "budget", "cno"])


def random_draws_causes(rows: list[dict], curve, tests: float, budget: float, n_points: int, n_feasible: int,
                        q: float = 90.0, evidence: str = "nephele_random_draws.csv") -> list[dict]:
    """The thesis' "random search's final CNO" row, when it differs and has no cause yet, with its measured
    mechanism from :func:`random_draws_curve`: the runs' mean number of tests at their budget, the analytic p``q``
    after that many uniform draws, and the draws (and their mean spend) at which the row's rule would agree."""
    from tt_workbook.report.summary import agree

    out = []
    for row in rows:
        row = dict(row)
        tol = (row.get("rel_tol", 0.0), row.get("abs_tol", 0.0), row.get("factor"))
        if (row.get("item") == RANDOM_CNO_ITEM and len(curve) and not row.get("cause")
                and agree(row.get("paper"), row.get("workbook"), *tol) is False):
            d = curve["draws"].to_numpy(float)
            at = float(curve["cno"].iloc[int(np.argmin(np.abs(d - tests)))])      # the p at the nearest whole draws
            ok = [agree(row.get("paper"), round(v, 2), *tol) if np.isfinite(v) else None for v in curve["cno"]]
            spans = holds_ranges(d, ok)
            per = float(curve["budget"].iloc[0])
            span = lambda lo, hi, f: f.format(lo) if f.format(lo) == f.format(hi) else f"{f.format(lo)}-{f.format(hi)}"  # noqa: E731
            where = ("after " + ", ".join(f"{span(lo, hi, '{:.0f}')} draws ({span(lo * per, hi * per, '${:.2f}')} at the "
                                          f"mean ${per:.3f} a point)" for lo, hi in spans) if spans
                     else "after no number of draws")
            row["cause"] = (f"random search draws points of every size uniformly, without repeats, until its budget is "
                            f"spent and keeps the cheapest feasible one, so its final CNO falls with the number of draws: "
                            f"{n_feasible} of the {n_points} points are feasible, the budget ${budget:g} buys {tests:.0f} "
                            f"tests per run (mean over runs), and that many draws miss every point of CNO <= c only with "
                            f"probability C(M - m(c), N) / C(M, N), which puts the p{q:g} at {at:.2f} (measured "
                            f"{row.get('workbook')}); the thesis' {row.get('paper')} is that p{q:g} {where} ({evidence})")
        out.append(row)
    return out


def with_tolerance_notes(rows: list[dict], other: float = ALT_FACTOR) -> list[dict]:
    """:func:`with_tolerance_note` of every row (factor rows get the verdict at ``other`` beside their own)."""
    return [with_tolerance_note(r, other) for r in rows]
