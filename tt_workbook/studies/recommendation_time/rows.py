"""TrimTuner Tables III-IV (time to compute one recommendation): the measurements of
:func:`tt_workbook.bench.bench_recommend` as the paper's tables, and their comparison rows.

Table III: median seconds per recommendation of each optimiser and its ratio to EIc's; Table IV: of
TrimTuner with each candidate filter (CEA, DIRECT, CMA-ES, random; beta) and its ratio to CEA at 10%.
The paper reports minutes on its machine; only ratios are compared (``factor`` 2: both on one machine).

Timings are measured as timings (issue 33 item 3): every optimiser state gets a discarded warm-up
recommendation and at least :data:`MIN_REPEATS` timed ones (:func:`tt_workbook.bench.bench_recommend`);
every ratio carries an interval (:func:`ratio_interval`: a bootstrap over the repeats of each state) and
its verdict is read from the interval (:func:`interval_verdict`): inside the agreement band it agrees,
outside it differs, across an edge it is *undetermined* (``agrees`` None). The rows are their own kind
(``check: "timing"``): they cannot be byte-identical from one machine or load to the next.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from tt_workbook.studies.filters_beta import analysis as study
from tt_core.data.paper_defaults import CEA_BETA
from tt_workbook import bench
from tt_workbook import paper_values as pv
from tt_workbook.report.summary import comparison
from tt_workbook.studies.unstated import ALT_FACTOR, verdict_word

__all__ = ["busy_warning", "comparison_rows", "fantasy_cause", "interval_flips", "interval_verdict", "LEVEL",
           "measure_plans", "MIN_REPEATS", "N_BOOT", "paired_ratio", "per_repeat_ratios", "ratio_by_n_obs",
           "ratio_interval", "table3", "table4", "targets", "time_table", "timing_comparison", "VALUE"]

#: The time compared: the process' CPU seconds of one recommendation (BLAS pinned to one thread, so on an
#: idle machine it equals the wall time; unlike the wall time it does not grow when other processes take
#: the cores).
VALUE = "cpu_s"

_RENAME = {"median": "median_s", "iqr": "iqr_s", "min": "min_s", "max": "max_s"}

#: Timed repeats per optimiser state below which a ratio gets no interval (and so no verdict).
MIN_REPEATS = 3
#: Coverage of a ratio's interval, and the bootstrap replicates behind it.
LEVEL = 0.95
N_BOOT = 2000


def measure_plans(plans: list[dict], csv_path: str | Path, progress: bool = True) -> pd.DataFrame:
    """Measure (or reuse from ``csv_path``) every plan of the profile and return exactly the
    measurements the plans ask for (a CSV shared with other runs may hold more)."""
    frames = []
    for p in plans:
        df = bench.bench_recommend(p["settings"], n_obs=p["n_obs"], repeats=p["repeats"], seeds=p["seeds"],
                                   benchmark=p["benchmark"], out=csv_path, resume=True, progress=progress)
        labels = [s.label for s in bench.parse_settings(p["settings"])]
        keep = ((df["benchmark"] == p["benchmark"]) & df["setting"].isin(labels) & df["n_obs"].isin(p["n_obs"])
                & df["seed"].isin(p["seeds"]) & (df["repeat"] < p["repeats"]) & (df["policy"] == "random"))
        frames.append(df[keep])
    return pd.concat(frames, ignore_index=True).drop_duplicates(bench.KEY_COLUMNS)


def paired_ratio(measured: pd.DataFrame, a: str, b: str, benchmark: str = "rnn", value: str = VALUE) -> float | None:
    """Median ``value`` of setting ``a`` over that of ``b``, both taken over the optimiser states
    (``n_obs``, seed) measured for *both* (a plan may time a GP setting at fewer states than a tree one;
    a ratio of medians over different states would compare different numbers of observations).
    None when the two share no state."""
    m = measured[measured["benchmark"] == benchmark]
    states = [set(map(tuple, m.loc[m["setting"] == s, ["n_obs", "seed"]].to_numpy().tolist())) for s in (a, b)]
    common = states[0] & states[1]
    if not common:
        return None
    keep = m[["n_obs", "seed"]].apply(tuple, axis=1).isin(common)
    med = [float(m.loc[keep & (m["setting"] == s), value].median()) for s in (a, b)]
    return med[0] / med[1]


def _cells(measured: pd.DataFrame, a: str, b: str, benchmark: str, value: str) -> tuple[list, list, list]:
    """The optimiser states (n_obs, seed) both settings were measured at, sorted, and per state the
    repeats' ``value`` of ``a`` and of ``b`` (arrays)."""
    m = measured[measured["benchmark"] == benchmark]
    states = [set(map(tuple, m.loc[m["setting"] == s, ["n_obs", "seed"]].to_numpy().tolist())) for s in (a, b)]
    common = sorted(states[0] & states[1])
    cells = {s: [m.loc[(m["setting"] == s) & (m["n_obs"] == n) & (m["seed"] == sd), value].to_numpy(float)
                 for n, sd in common] for s in (a, b)}
    return common, cells[a], cells[b]


def per_repeat_ratios(measured: pd.DataFrame, a: str, b: str, benchmark: str = "rnn", value: str = VALUE) -> list[float]:
    """The ratio of medians of ``a`` over ``b`` (over the states both were measured at) within each repeat
    index alone: the spread a one-repeat measurement would have shown. Empty without a ``repeat`` column."""
    if "repeat" not in measured.columns:
        return []
    m = measured[measured["benchmark"] == benchmark]
    common, _, _ = _cells(measured, a, b, benchmark, value)
    keep = m[["n_obs", "seed"]].apply(tuple, axis=1).isin(common) if len(common) else pd.Series(False, index=m.index)
    out = []
    for r in sorted(set(m.loc[keep & (m["setting"] == a), "repeat"]) & set(m.loc[keep & (m["setting"] == b), "repeat"])):
        med = [float(m.loc[keep & (m["setting"] == s) & (m["repeat"] == r), value].median()) for s in (a, b)]
        out.append(med[0] / med[1] if med[1] > 0 else float("nan"))
    return out


def ratio_interval(measured: pd.DataFrame, a: str, b: str, benchmark: str = "rnn", value: str = VALUE,
                   level: float = LEVEL, n_boot: int = N_BOOT, seed: int = 0, min_repeats: int = MIN_REPEATS) -> dict:
    """The ratio of medians of ``a`` over ``b`` (:func:`paired_ratio`) with a percentile bootstrap interval.

    The optimiser states are the design (the same for both settings); the noise is that of the repeats.
    A bootstrap replicate redraws, within every (setting, state) cell, as many repeats as it has with
    replacement, pools each setting's draws over the states and divides the medians; the interval is the
    ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles of ``n_boot`` replicates (seeded: the same
    numbers give the same interval).

    Returns ``ratio``, ``lo``, ``hi`` (None without an interval), ``states`` (common states), ``repeats``
    (the fewest repeats of a cell), ``per_repeat`` (:func:`per_repeat_ratios`) and ``reason`` (why there is
    no interval: no common state, or fewer than ``min_repeats`` repeats in a cell; "" otherwise).
    """
    common, ca, cb = _cells(measured, a, b, benchmark, value)
    out = {"ratio": None, "lo": None, "hi": None, "states": len(common), "repeats": 0,
           "per_repeat": per_repeat_ratios(measured, a, b, benchmark, value), "reason": ""}
    if not common:
        out["reason"] = "no optimiser state measured for both"
        return out
    out["ratio"] = float(np.median(np.concatenate(ca)) / np.median(np.concatenate(cb)))
    out["repeats"] = int(min(len(c) for c in ca + cb))
    if out["repeats"] < min_repeats:
        out["reason"] = f"{out['repeats']} repeat(s) at a state, fewer than {min_repeats}: no interval"
        return out
    rng = np.random.default_rng(seed)

    def draws(cells):
        return np.median(np.concatenate([c[rng.integers(0, len(c), size=(n_boot, len(c)))] for c in cells], axis=1),
                         axis=1)

    ratios = draws(ca) / draws(cb)
    lo, hi = np.quantile(ratios, [(1 - level) / 2, (1 + level) / 2])
    out["lo"], out["hi"] = float(lo), float(hi)
    return out


def interval_verdict(paper, lo, hi, factor: float = 2.0) -> bool | None:
    """A timing ratio's verdict from its interval: True when ``[lo, hi]`` lies within a factor ``factor``
    of ``paper`` (both ends), False when it lies wholly outside, None (undetermined) when it crosses an
    edge of the band or there is no interval."""
    vals = [lo, hi, paper]
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in vals) or float(paper) <= 0:
        return None
    p, lo, hi = float(paper), float(lo), float(hi)
    band = (p / factor, p * factor)
    if band[0] <= lo and hi <= band[1]:
        return True
    if hi < band[0] or lo > band[1]:
        return False
    return None


def interval_flips(paper, lo, hi) -> tuple[float, float] | None:
    """The tolerance factors at which an interval's verdict changes: ``(agrees_from, differs_below)``. The
    interval agrees for every factor >= ``agrees_from``, differs for every factor < ``differs_below`` (1.0
    when the paper's value lies inside the interval: it never differs) and is undetermined in between."""
    if lo is None or hi is None or paper is None or min(float(lo), float(paper)) <= 0:
        return None
    p, lo, hi = float(paper), float(lo), float(hi)
    agrees_from = max(p / lo, hi / p, 1.0)
    differs_below = p / hi if hi < p else (lo / p if lo > p else 1.0)
    return agrees_from, differs_below


def _less_than_one(intervals: list[dict]) -> bool | None:
    """Whether every ratio is below 1 (True: every interval below 1; False: some interval above 1;
    None: an interval contains 1 or is missing)."""
    if any(iv["hi"] is None for iv in intervals):
        return None
    if all(iv["hi"] < 1 for iv in intervals):
        return True
    if any(iv["lo"] > 1 for iv in intervals):
        return False
    return None


def _interval_text(iv: dict, level: float = LEVEL) -> str:
    per = [x for x in iv["per_repeat"] if np.isfinite(x)]
    spread = (f"; one repeat alone would give {min(per):.2f} to {max(per):.2f} ({len(per)} repeats)" if len(per) > 1 else "")
    if iv["lo"] is None:
        return f"no interval ({iv['reason']}){spread}"
    return (f"{100 * level:g}% interval [{iv['lo']:.2f}, {iv['hi']:.2f}] (bootstrap over {iv['repeats']}+ repeats at "
            f"each of {iv['states']} optimiser states, after a discarded warm-up){spread}")


def _verdict_text(paper, iv: dict, factor: float, verdict) -> str:
    """The interval's verdict at ``factor`` and at :data:`ALT_FACTOR`, and where it flips."""
    if iv["lo"] is None:
        return f"verdict: undetermined ({iv['reason']})"
    at = ", ".join(f"within {f:g}x {verdict_word(interval_verdict(paper, iv['lo'], iv['hi'], f))}"
                   for f in sorted({float(ALT_FACTOR), float(factor)}))
    flips = interval_flips(paper, iv["lo"], iv["hi"])
    text = f"verdict from the interval: {verdict_word(verdict)}; tolerance: {at}"
    if flips:
        text += f" (agrees from {flips[0]:.3g}x" + (f", differs below {flips[1]:.3g}x)" if flips[1] > 1 else ", never differs)")
    return text


def _times_text(measured: pd.DataFrame, a: str, b: str, benchmark: str = "rnn") -> str:
    """Median CPU and wall seconds of both settings at their common states, and the load during them."""
    common, _, _ = _cells(measured, a, b, benchmark, VALUE)
    m = measured[(measured["benchmark"] == benchmark) & measured["setting"].isin([a, b])]
    m = m[m[["n_obs", "seed"]].apply(tuple, axis=1).isin(common)] if common else m.iloc[:0]
    if m.empty or "total_s" not in m.columns:
        return ""
    parts = [f"{s} {m.loc[m['setting'] == s, 'cpu_s'].median():.3g} s CPU / {m.loc[m['setting'] == s, 'total_s'].median():.3g} s wall"
             for s in (a, b)]
    load = (f"; load average {m['load_1min'].min():.2f}-{m['load_1min'].max():.2f}" if "load_1min" in m.columns
            and m["load_1min"].notna().any() else "")
    return "medians " + ", ".join(parts) + load


def time_table(measured: pd.DataFrame) -> pd.DataFrame:
    """Per benchmark and setting: median CPU and wall seconds per recommendation, their ratio (CPU below
    wall: the process waited for the cores), the load average during the measurements, the optimiser
    states, the fewest timed repeats at a state and the warm-up recommendations before them."""
    rows = []
    for (bench_name, setting), g in measured.groupby(["benchmark", "setting"], sort=False):
        per_state = g.groupby(["n_obs", "seed"]).size()
        rows.append({"benchmark": bench_name, "setting": setting, "cpu_s": float(g["cpu_s"].median()),
                     "wall_s": float(g["total_s"].median()),
                     "cpu_over_wall": float(g["cpu_s"].median() / g["total_s"].median()),
                     "load_min": float(g["load_1min"].min()) if "load_1min" in g else float("nan"),
                     "load_max": float(g["load_1min"].max()) if "load_1min" in g else float("nan"),
                     "states": int(len(per_state)), "repeats": int(per_state.min()),
                     "warmup": int(g["warmup"].min()) if "warmup" in g.columns and g["warmup"].notna().all() else 0})
    return pd.DataFrame(rows)


def timing_comparison(rows: list[dict]) -> pd.DataFrame:
    """:func:`tt_workbook.report.summary.comparison` of timing rows, each ``agrees`` replaced by the row's
    ``verdict`` (read from its interval, :func:`interval_verdict`; None: undetermined) instead of the
    point value's."""
    table = comparison(rows)
    table["agrees"] = pd.Series([r.get("verdict", a) for r, a in zip(rows, table["agrees"])], index=table.index,
                                dtype=object)
    return table


def _common_n_obs(measured: pd.DataFrame, a: str, b: str, benchmark: str = "rnn") -> list:
    """The numbers of observations at which both settings were timed, ascending."""
    m = measured[measured["benchmark"] == benchmark]
    return sorted(set(m.loc[m["setting"] == a, "n_obs"]) & set(m.loc[m["setting"] == b, "n_obs"]))


def ratio_by_n_obs(measured: pd.DataFrame, a: str, b: str, benchmark: str = "rnn", value: str = VALUE) -> pd.DataFrame:
    """:func:`paired_ratio` of ``a`` over ``b`` at each number of observations both were measured at."""
    m = measured[measured["benchmark"] == benchmark]
    rows = []
    for n in _common_n_obs(measured, a, b, benchmark):
        sub = m[m["n_obs"] == n]
        rows.append({"benchmark": benchmark, "ratio": f"{a} / {b}", "n_obs": int(n),
                     f"{a} median {value}": float(sub.loc[sub["setting"] == a, value].median()),
                     f"{b} median {value}": float(sub.loc[sub["setting"] == b, value].median()),
                     "x": paired_ratio(sub, a, b, benchmark, value)})
    return pd.DataFrame(rows)


def fantasy_cause(measured: pd.DataFrame, setting: str, reference: str, benchmark: str = "rnn") -> str:
    """The measured mechanism behind a filter's time relative to ``reference`` (CEA at 10%): how many
    candidates' constraint factor (Eq. 5, one model fantasy per Gauss-Hermite root: the costly part) each
    computed, median over the states both were measured at. Empty when the counts were not recorded."""
    m = measured[measured["benchmark"] == benchmark]
    if "n_fantasised" not in m.columns:
        return ""
    states = [set(map(tuple, m.loc[m["setting"] == s, ["n_obs", "seed"]].to_numpy().tolist())) for s in (setting, reference)]
    keep = m[["n_obs", "seed"]].apply(tuple, axis=1).isin(states[0] & states[1])
    a, b = (m.loc[keep & (m["setting"] == s)] for s in (setting, reference))
    if a.empty or b.empty or (a["n_fantasised"] < 0).any() or (b["n_fantasised"] < 0).any():
        return ""
    return (f"measured mechanism: this setting computes the constraint fantasies of Eq. 5 (the costly part) for a "
            f"median of {a['n_fantasised'].median():g} candidates, CEA (10%) for {b['n_fantasised'].median():g} of its "
            f"{b['n_evaluated'].median():g} kept (this workbook maximises alpha_T exactly by branch-and-bound, "
            f"TrimTunerAcquisition.argmax; DIRECT and CMA-ES evaluate alpha_T itself at every point they visit); "
            f"n_fantasised in bench_recommend.csv")


def busy_warning(measured: pd.DataFrame) -> str:
    """A warning when measurements were taken while the machine was busy (load above its cores)."""
    busy = measured[measured["load_1min"] > measured["n_cores"]]
    if busy.empty:
        return ""
    return (f"WARNING: {len(busy)} measurements were taken while other processes kept the machine busy (load "
            f"average above {int(measured['n_cores'].max())} cores): their times are inflated, GP ones most. For "
            "clean numbers re-measure on an idle machine, e.g. `tt bench recommend --settings table3 table4 --resume`.")


def table3(summary: pd.DataFrame) -> pd.DataFrame:
    """Table III from :func:`tt_workbook.bench.summarize`: median seconds and ratio to EIc,
    beside the paper's minutes and ratio."""
    t3 = summary[summary["setting"].isin(["trimtuner-gp", "trimtuner-dt", "fabolas", "eic", "eic-usd"])].copy()
    t3["paper_min"] = t3["setting"].map(lambda s: pv.TABLE_III_MIN[s][0])
    t3["paper_sd_min"] = t3["setting"].map(lambda s: pv.TABLE_III_MIN[s][1])
    t3["x EIc"] = float("nan")
    for _, grp in t3.groupby("benchmark"):
        if "eic" in set(grp["setting"]):
            eic = float(grp.loc[grp["setting"] == "eic", "median"].iloc[0])
            t3.loc[grp.index, "x EIc"] = grp["median"] / eic
    t3["paper x EIc"] = t3["paper_min"] / pv.TABLE_III_MIN["eic"][0]
    return t3[["benchmark", "setting", "median", "iqr", "min", "max", "n", "x EIc", "paper_min", "paper_sd_min",
               "paper x EIc"]].rename(columns=_RENAME)


def table4(summary: pd.DataFrame) -> pd.DataFrame:
    """Table IV (RNN) from :func:`tt_workbook.bench.summarize`: median seconds of each filter and
    beta and the ratio to CEA at 10%, beside the paper's."""
    t4 = summary[summary["benchmark"] == "rnn"].copy()
    t4 = t4[t4["setting"].isin([s.label for s in bench.SETTING_GROUPS["table4"]] + ["trimtuner-dt", "trimtuner-gp"])]
    t4["filter"] = t4["filter"].astype(str)
    t4["beta"] = t4["beta"].astype(float)
    t4 = t4.drop_duplicates(["optimizer", "filter", "beta"])
    t4["paper_min"] = [pv.TABLE_IV_MIN.get((f, round(b, 2)), {}).get(o)
                       for o, f, b in zip(t4["optimizer"], t4["filter"], t4["beta"])]
    ref = t4[(t4["filter"] == "cea") & (t4["beta"].round(2) == CEA_BETA)].set_index("optimizer")
    t4["x CEA 10%"] = t4["median"] / t4["optimizer"].map(ref["median"])
    t4["paper x CEA 10%"] = t4["paper_min"] / t4["optimizer"].map(ref["paper_min"])
    t4["heuristic"] = [study.heuristic_label(f, b) for f, b in zip(t4["filter"], t4["beta"])]
    return t4[["setting", "optimizer", "heuristic", "median", "iqr", "min", "max", "n", "x CEA 10%", "paper_min",
               "paper x CEA 10%"]].rename(columns=_RENAME)


#: This workbook's speed targets (seconds per recommendation on 2 cores), not the paper's.
TARGETS = (("trimtuner-dt", "CEA (10%)", 1.0), ("trimtuner-gp", "CEA (10%)", 20.0),
           ("trimtuner-dt", "no filter", 10.0), ("trimtuner-gp", "no filter", 120.0))


def targets(table4_df: pd.DataFrame) -> pd.DataFrame:
    """Whether the median recommendation time meets :data:`TARGETS` (NaN when not measured)."""
    out = pd.DataFrame([{"optimizer": o, "heuristic": h, "target_s": t} for o, h, t in TARGETS]).merge(
        table4_df[["optimizer", "heuristic", "median_s", "max_s", "n"]], on=["optimizer", "heuristic"], how="left")
    out["met"] = (out["median_s"] <= out["target_s"]).where(out["median_s"].notna())
    return out


def _single_state(measured: pd.DataFrame, a: str, b: str, benchmark: str = "rnn") -> str:
    """The reason a ratio of ``a`` over ``b`` is not comparable with the paper's when both were timed at one
    number of observations only (the quick profile), else "". The paper's times are over whole runs, and
    the ratios move with the observations (measured: TrimTuner-GP / -DT 6.0x, 8.1x, 12.9x at 8, 20, 44)."""
    common = _common_n_obs(measured, a, b, benchmark)
    if len(common) != 1:
        return ""
    return (f"timed at {int(common[0])} observations only (this profile); the paper's times are over whole runs "
            "and the ratio moves with the observations (the paper profile times 8, 20 and 44)")


def _dt_side(row: dict, *optimizers: str) -> dict:
    """A row involving TrimTuner-DT gets the side of its difference: no value of the authors' code (undetermined)."""
    from tt_workbook.studies.fig1_fig2.rows import NO_AUTHORS_TIMES, dt_row_without_authors

    return dt_row_without_authors(row, NO_AUTHORS_TIMES) if "trimtuner-dt" in optimizers else row


def comparison_rows(table3_df: pd.DataFrame, table4_df: pd.DataFrame, measured: pd.DataFrame | None = None,
                    value: str = VALUE) -> list[dict]:
    """Timing rows (``check: "timing"``, see :mod:`tt_workbook.report.summary`) for the ratios of Tables
    III-IV and the text's claim that CEA is faster than DIRECT and CMA-ES; rows without a measurement are
    left out. Build their table with :func:`timing_comparison` (``agrees`` from the interval).

    With ``measured`` (the rows of :func:`tt_workbook.bench.bench_recommend`) every ratio is
    :func:`paired_ratio` of ``value`` (default CPU seconds) over the optimiser states both settings were
    measured at, with its interval (:func:`ratio_interval`) and ``verdict`` (:func:`interval_verdict`;
    None when the interval crosses the band, when there are fewer than :data:`MIN_REPEATS` repeats, or when
    both were timed at one state only, which the paper's run averages are not comparable with); the note
    gives the interval, the per-repeat spread, the verdict at 1.5x beside 2x, CPU and wall medians and the
    load. Without it, the ratio of the tables' medians, verdict None (no repeats to give an interval)."""
    rows = []
    s3 = table3_df[table3_df["benchmark"] == "rnn"].set_index("setting")

    def timed(row: dict, a: str, b: str, factor: float = 2.0) -> tuple[dict, dict | None]:
        """``row`` with the interval, the verdict and the timing notes of ``a`` over ``b``."""
        row = {**row, "check": "timing"}
        if measured is None:
            row["verdict"] = None
            row["note"] += "; verdict: undetermined (no measurements given: no interval)"
            return row, None
        iv = ratio_interval(measured, a, b, "rnn", value)
        one = _single_state(measured, a, b)
        verdict = None if one else interval_verdict(row["paper"], iv["lo"], iv["hi"], factor)
        row["workbook"] = iv["ratio"]
        row["verdict"] = verdict
        parts = [row["note"], _interval_text(iv), _verdict_text(row["paper"], iv, factor, verdict)]
        if one:
            row["not_comparable"] = one
            parts.append(f"not comparable, so no verdict: {one}")
        parts.append(_times_text(measured, a, b))
        row["note"] = "; ".join(p for p in parts if p)
        return row, iv

    for a, b, paper, note in (
        ("trimtuner-gp", "trimtuner-dt", pv.TABLE_III_TEXT["gp_over_dt"], "text: 'a 13x speed up'"),
        ("fabolas", "eic", pv.TABLE_III_MIN["fabolas"][0] / pv.TABLE_III_MIN["eic"][0], "Table III minutes"),
        ("trimtuner-gp", "fabolas", pv.TABLE_III_MIN["trimtuner-gp"][0] / pv.TABLE_III_MIN["fabolas"][0],
         "Table III minutes ('approximately 30% longer')"),
        ("trimtuner-dt", "eic", pv.TABLE_III_MIN["trimtuner-dt"][0] / pv.TABLE_III_MIN["eic"][0],
         "Table III minutes ('almost on par')"),
    ):
        if a not in s3.index or b not in s3.index:
            continue
        row = {"source": "TrimTuner Table III", "item": f"RNN: recommendation time {a} / {b}",
               "paper": round(paper, 2), "workbook": float(s3.loc[a, "median_s"] / s3.loc[b, "median_s"]),
               "factor": 2.0, "note": note + "; paper: average of three networks"}
        row, _ = timed(row, a, b)
        rows.append(_dt_side(row, a, b))
    ref = table4_df[table4_df["heuristic"] == "CEA (10%)"].set_index("optimizer")
    for _, r in table4_df.iterrows():
        if r["heuristic"] == "CEA (10%)" or pd.isna(r["paper x CEA 10%"]):
            continue
        paper = round(float(r["paper x CEA 10%"]), 2)
        row = {"source": "TrimTuner Table IV", "item": f"RNN {r['optimizer']}: {r['heuristic']} / CEA (10%) time",
               "paper": paper, "workbook": float(r["x CEA 10%"]), "factor": 2.0, "cause": "",
               "note": "ratio of medians on one machine, at the same optimiser states"}
        if measured is not None and r["optimizer"] not in ref.index:
            continue
        reference = ref.loc[r["optimizer"], "setting"] if r["optimizer"] in ref.index else None
        row, _ = timed(row, r["setting"], reference)
        if measured is not None and row["verdict"] is False:
            row["cause"] = fantasy_cause(measured, r["setting"], reference)
        rows.append(_dt_side(row, r["optimizer"]))
    for o in ("trimtuner-gp", "trimtuner-dt"):
        sub = table4_df[table4_df["optimizer"] == o].set_index("heuristic")
        if not {"CEA (10%)", "DIRECT (10%)", "CMA-ES (10%)"} <= set(sub.index):
            continue
        cea = sub.loc["CEA (10%)"]
        row = {"source": "TrimTuner Table IV", "item": f"RNN {o}: CEA (10%) faster than DIRECT and CMA-ES (10%)",
               "paper": True, "check": "timing", "note": "text: CEA is more efficient than Direct and CMAES"}
        if measured is None:
            row.update(workbook=bool(cea["median_s"] < sub.loc["DIRECT (10%)", "median_s"]
                                     and cea["median_s"] < sub.loc["CMA-ES (10%)", "median_s"]), verdict=None)
            row["note"] += "; verdict: undetermined (no measurements given: no interval)"
        else:
            ivs = [ratio_interval(measured, cea["setting"], sub.loc[h, "setting"], "rnn", value)
                   for h in ("DIRECT (10%)", "CMA-ES (10%)")]
            if any(iv["ratio"] is None for iv in ivs):
                continue
            verdict = _less_than_one(ivs)
            row.update(workbook=bool(all(iv["ratio"] < 1 for iv in ivs)), verdict=verdict)
            row["note"] += "; " + "; ".join(
                f"CEA / {h} {iv['ratio']:.2f}, {_interval_text(iv)}" for h, iv in zip(("DIRECT", "CMA-ES"), ivs))
            row["note"] += (f"; verdict from the intervals: {verdict_word(verdict)} (holds when both intervals lie "
                            "below 1, fails when one lies above 1)")
        rows.append(_dt_side(row, o))
    return [r for r in rows if r["workbook"] is not None]
