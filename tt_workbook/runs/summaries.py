"""Closing sentences of ``tt optimize`` and ``tt runs``: what a run recommends, in words.

:func:`recommendation_sentence` states the configuration an optimisation run ends on, at which
training-set size, its measured (true) accuracy, cost and time, and whether it meets each limit of the
problem. :func:`final_scores` and :func:`runs_sentence` summarise a grid of stored runs: the final
Accuracy_C (accuracy maximisers) or CNO (cost minimisers) per network and optimiser.
"""

from __future__ import annotations

import math

from tt_core.data.paper_defaults import TESTS_PER_RUN

__all__ = ["describe_config", "final_scores", "median_seed", "money", "recommendation_sentence", "runs_sentence",
           "typical_seed", "plain"]


def _num(v) -> float:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return math.nan
    return f


def plain(value, digits: int = 4) -> str:
    """A number as a person reads it: at least ``digits`` significant digits, never in exponent notation, never
    rounded to zero (``0.0000042``, not ``0.0000`` or ``4.2e-06``); a whole number without decimals; amounts of
    0.01 and more with 4 decimals (as the workbook prints costs). Not a finite number: ``"n/a"``.

    Examples
    --------
    >>> plain(4.2e-06), plain(0.1234567), plain(12.5), plain(0), plain(80.0), plain(float("nan"))
    ('0.0000042', '0.1235', '12.5000', '0', '80', 'n/a')
    """
    try:
        x = float(value)
    except (TypeError, ValueError):
        return str(value)
    if not math.isfinite(x):
        return "n/a"
    if x.is_integer():
        return f"{int(x)}"
    if abs(x) >= 0.01:
        return f"{x:.4f}"
    decimals = min(digits - 1 - math.floor(math.log10(abs(x))), 30)
    return f"{x:.{decimals}f}".rstrip("0").rstrip(".")


def money(value, digits: int = 3) -> str:
    """An amount of US dollars: ``$0.1235``, ``$12.5000``; below a cent with ``digits`` significant digits
    (``$0.0000042``, never ``$0.0000``).

    Examples
    --------
    >>> money(4.2e-06), money(0.1234567), money(5e-06), money(2)
    ('$0.0000042', '$0.1235', '$0.000005', '$2')
    """
    text = plain(value, digits)
    return text if text == "n/a" else ("-$" + text[1:] if text.startswith("-") else "$" + text)


def _limit(usd: float) -> str:
    """A cost limit as the user typed it (``$5``, ``$0.3``), below a cent with its significant digits."""
    return money(usd) if abs(usd) < 0.01 else f"${usd:g}"


def describe_config(benchmark, config_id: int) -> str:
    """One configuration in words: ``"t2.small x 8 workers, learning rate 0.001, batch 16, sync"``
    (generic benchmarks: ``column=value`` pairs)."""
    configs = benchmark.configs().set_index("config_id")
    row = configs.loc[int(config_id)]
    cols = list(row.index)
    # a column of whole numbers (the loader may hold it as floats, and a row of numbers comes back as floats) is
    # printed as whole numbers: batch=80, not batch=80.0
    whole = {c for c in cols if configs[c].dtype.kind in "iu" or (configs[c].dtype.kind == "f" and configs[c].notna().all()
                                                                  and bool((configs[c] % 1 == 0).all()))}
    if {"vm_flavor", "n_workers", "learning_rate", "batch_size"} <= set(cols):
        sync = f", {row['sync']}" if "sync" in cols else ""
        return (f"{row['vm_flavor']} x {int(row['n_workers'])} worker{'s' if int(row['n_workers']) != 1 else ''}, "
                f"learning rate {float(row['learning_rate']):g}, batch {int(row['batch_size'])}{sync}")
    return ", ".join(f"{c}={int(row[c]) if c in whole else row[c]}" for c in cols)


def recommendation_sentence(traj, benchmark, optimizer: str, *, max_cost=None, max_time=None, min_accuracy=None,
                            budget=None, objective=None) -> str:
    """What a run (a trajectory of :func:`tt_core.replay.driver.run_optimization`) recommends, in words.

    The limits are the run's: explicit ones, else the problem's defaults
    (:func:`tt_core.replay.driver.problem_limits`). "Meets" compares the incumbent's *measured*
    values with each limit."""
    from tt_core.data.benchmarks import as_benchmark
    from tt_core.replay.driver import problem_limits
    from tt_core.optimizers.registry import objective_of

    bench = as_benchmark(benchmark)
    goal = objective_of(optimizer, objective)
    limits = problem_limits(bench, goal, max_cost=max_cost, max_time=max_time, min_accuracy=min_accuracy,
                            budget=budget)
    n = len(traj)
    spent = _num(traj["cumulative_cost"].iloc[-1]) if n else math.nan
    head = f"{optimizer} on {bench.name}, {n} tests for {money(spent)}"
    if not n or traj["incumbent"].isna().iloc[-1]:
        return f"{head}: no recommendation (no configuration is believed to meet the limits)."
    last = traj.iloc[-1]
    cfg = int(last["incumbent"])
    size = int(last["incumbent_size"]) if "incumbent_size" in traj and not math.isnan(_num(last["incumbent_size"])) \
        else bench.max_size
    acc, cost = _num(last["incumbent_accuracy"]), _num(last["incumbent_cost"])
    secs = _num(last.get("incumbent_time", math.nan))
    at = "the full training set" if size == bench.max_size else f"{size} of {bench.max_size} training examples"
    checks = []
    if limits.get("max_cost") is not None:
        ok = cost <= limits["max_cost"]
        checks.append(f"{'meets' if ok else 'BREAKS'} the cost limit {_limit(limits['max_cost'])}"
                      + ("" if ok else f" ({cost / limits['max_cost']:.1f}x)"))
    if limits.get("max_time") is not None and not math.isnan(secs):
        ok = secs <= limits["max_time"]
        checks.append(f"{'meets' if ok else 'BREAKS'} the time limit {limits['max_time']:g} s")
    if limits.get("min_accuracy") is not None:
        ok = acc >= limits["min_accuracy"]
        checks.append(f"{'meets' if ok else 'BREAKS'} the accuracy limit {limits['min_accuracy']:g}")
    score = ""
    if "accuracy_c" in traj and not math.isnan(_num(last["accuracy_c"])):
        score = f"; Accuracy_C {_num(last['accuracy_c']):.3f}"
    elif "cno" in traj and not math.isnan(_num(last["cno"])):
        score = f"; CNO {_num(last['cno']):.2f} (1 = the cheapest configuration that meets the limits)"
    time_text = "" if math.isnan(secs) else f", {secs:.0f} s"
    return (f"{head}. It recommends configuration {cfg} ({describe_config(bench, cfg)}) trained on {at}: measured "
            f"accuracy {acc:.3f}, cost {money(cost)}{time_text} per training run; it "
            + ", ".join(checks) + score + "." + (f" ({bench.cost_note}.)" if bench.cost_note else ""))


def final_scores(runs):
    """The last row of each stored run (``runs``: :func:`tt_workbook.runs.store.load_runs`), scored:
    one row per network and optimiser variant with the number of runs and the mean and range of the
    final Accuracy_C (accuracy maximisers) or CNO (cost minimisers)."""
    import pandas as pd

    if runs.empty:
        return pd.DataFrame(columns=["benchmark", "optimizer", "metric", "runs", "mean", "min", "max"])
    keys = [k for k in ("benchmark", "optimizer", "variant", "seed") if k in runs.columns]
    last = runs.groupby(keys, sort=False, dropna=False).tail(1)
    rows = []
    group_keys = [k for k in ("benchmark", "variant" if "variant" in keys else "optimizer") if k in keys]
    for key, g in last.groupby(group_keys, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        metric = "accuracy_c" if "accuracy_c" in g and g["accuracy_c"].notna().any() else "cno"
        v = g[metric].astype(float) if metric in g else pd.Series(dtype=float)
        name = str(g["optimizer"].iloc[0]) if "optimizer" in g else str(key[-1])
        rows.append({"benchmark": key[0], "optimizer": name, "variant": str(key[-1]),
                     "metric": "Accuracy_C" if metric == "accuracy_c" else "CNO",
                     "runs": len(g), "mean": v.mean(), "min": v.min(), "max": v.max()})
    return pd.DataFrame(rows)


def runs_sentence(scores) -> str:
    """The final scores in words, one line per network: ``"rnn: final Accuracy_C (mean of 3 runs) ..."``."""
    if scores.empty:
        return "No stored runs to summarise."
    lines = []
    scores = scores.copy()
    if "variant" in scores:  # the optimiser's name, or its variant where one optimiser ran several settings
        dup = scores.duplicated(["benchmark", "optimizer"], keep=False)
        scores.loc[dup, "optimizer"] = scores.loc[dup, "variant"]
    for bench, g in scores.groupby("benchmark", sort=False):
        parts = [f"{r.optimizer} {r.metric} {r.mean:.3f}" + (f" ({r.min:.3f}-{r.max:.3f})" if r.runs > 1 else "")
                 for r in g.itertuples()]
        runs = sorted(set(g["runs"]))
        n = f"{runs[0]}" if len(runs) == 1 else f"{runs[0]}-{runs[-1]}"
        lines.append(f"{bench}: final score, mean (range) over {n} run(s): " + "; ".join(parts) + ".")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------
# Teaching defaults: which seed the tour, the explorer and the README show
# ------------------------------------------------------------------------------------------------
#: The rule for the teaching notebooks' default seed: TrimTuner-DT on the RNN, seeds 1-10, 44 tests.
TYPICAL_SEED_RULE = {"benchmark": "rnn", "optimizer": "trimtuner-dt", "seeds": tuple(range(1, 11)), "iterations": TESTS_PER_RUN}


def median_seed(scores: dict) -> int:
    """The seed whose score is the (lower) median of ``scores`` ({seed: score}): sorted by score, then by
    seed, the element at position ``(n - 1) // 2``. With an even number of seeds the lower of the two
    middle scores is taken, so the seed shown is a run that actually happened, never an average.

    Examples
    --------
    >>> median_seed({1: 0.35, 2: 0.977, 3: 0.98, 4: 0.975, 9: 0.28})
    4
    >>> median_seed({1: 0.5, 2: 0.5, 3: 0.9, 4: 0.1})
    1
    """
    if not scores:
        raise ValueError("median_seed needs at least one seed")
    ranked = sorted(scores.items(), key=lambda kv: (float(kv[1]), kv[0]))
    return int(ranked[(len(ranked) - 1) // 2][0])


def typical_seed(benchmark: str = "rnn", optimizer: str = "trimtuner-dt", seeds=tuple(range(1, 11)),
                 iterations: int = TESTS_PER_RUN) -> tuple[int, dict]:
    """``(seed, {seed: final Accuracy_C})``: the run of median final Accuracy_C among ``seeds``
    (:func:`median_seed`), so that a teaching notebook's default run is a typical one, not a lucky or
    an unlucky one. The defaults are :data:`TYPICAL_SEED_RULE`."""
    from tt_core.replay.driver import run_optimization

    scores = {}
    for s in seeds:
        traj = run_optimization(benchmark, optimizer, seed=int(s), iterations=iterations)
        scores[int(s)] = float(traj["accuracy_c"].iloc[-1])
    return median_seed(scores), scores
