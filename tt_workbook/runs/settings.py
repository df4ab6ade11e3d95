"""What a notebook runs, beside what the paper ran: one table, ``setting | this run | paper``.

Every experiment notebook prints :func:`settings_table` for its study (the profile's settings from
:mod:`tt_workbook.runs.profiles`, the method defaults that apply, and the paper's setup from
:data:`tt_workbook.paper_values.PAPER_SETUP`), so a reader sees at once where the quick profile
cuts seeds or optimisers and whether the paper profile runs the paper's experiment.
"""

from __future__ import annotations

import inspect

import pandas as pd

from tt_workbook.runs import profiles
from tt_workbook.paper_values import PAPER_SETUP
from tt_core.data.io import shown


_RULES = {"paper": "max predicted accuracy among predicted-feasible full-size configs (Alg. 1 line 19)",
          "tested-cea": "max CEA among tested configs (the authors' code)"}


def _pct(b: float) -> str:
    return "no filter" if b >= 1 else f"{100 * b:g}%"


def _method_defaults() -> dict:
    """Defaults of the model-based optimisers that the runs use (read from the code)."""
    from tt_core.optimizers.model_based import ModelBasedOptimizer

    params = inspect.signature(ModelBasedOptimizer.from_settings).parameters
    return {k: params[k].default for k in ("n_init", "beta", "filter", "snapshot_init", "incumbent_rule")}


def _seeds(seeds) -> str:
    seeds = list(seeds)
    return f"{len(seeds)} (seeds {seeds[0]}-{seeds[-1]})" if len(seeds) > 1 else f"1 (seed {seeds[0]})"


def _this_run(profile: str, study: str, smoke: bool) -> dict:
    s = profiles.settings(profile, study, smoke)
    d = _method_defaults()
    if study == "fig1":
        from tt_core.data.benchmarks import REGISTRY

        return {"optimisers": ", ".join(s["optimizers"]), "networks": ", ".join(s["benchmarks"]),
                "runs per optimiser": _seeds(s["seeds"]), "tests per run": str(s["iterations"]),
                "initial samples": f"{d['n_init']} (TrimTuner: 1 random config at 4 sizes; EIc: {d['n_init']} LHS full-size)",
                "beta (TrimTuner)": _pct(d["beta"]), "filter (TrimTuner)": str(d["filter"]).upper(),
                "cost limit": ", ".join(f"{b} ${REGISTRY[b].max_cost:.2f}" for b in s["benchmarks"]),
                "Fig. 2 target": "90% of the optimum",
                "initial design charged": "one run snapshotted at each size" if d["snapshot_init"] else "each test in full",
                "incumbent rule": _RULES.get(d["incumbent_rule"], d["incumbent_rule"])}
    if study == "fig3":
        plan = s["plan"]
        return {"optimisers": ", ".join(plan), "networks": "rnn",
                "runs per filter": ", ".join(f"{_seeds(p['seeds'])}" for o, p in plan.items()),
                "tests per run": ", ".join(sorted({str(p["iterations"]) for p in plan.values()})),
                "filters": "CEA, DIRECT, CMA-ES, random", "beta": "10%", "Fig. 3 target": "90% of the optimum"}
    if study == "fig4":
        return {"optimisers": "trimtuner-dt", "networks": ", ".join(s["networks"]), "runs per beta": _seeds(s["seeds"]),
                "tests per run": str(s["iterations"]), "betas": ", ".join(_pct(b) for b in s["betas"])}
    if study == "tables3_4":
        import os
        import platform

        plans = s["plans"]
        return {"machine": f"{os.cpu_count()} cores, {platform.processor() or platform.machine()}, "
                           f"Python {platform.python_version()}",
                "networks": ", ".join(dict.fromkeys(p["benchmark"] for p in plans)),
                "observations per recommendation": ", ".join(str(n) for n in sorted({n for p in plans for n in p["n_obs"]})),
                "time measured": "CPU seconds of one process (BLAS on 1 thread), median; settings interleaved "
                                 "at each optimiser state"}
    if study == "fabulinus":
        from tt_core.data.benchmarks import REGISTRY
        from tt_core.optimizers.registry import FABULINUS_SETTINGS

        init = "as many as the initial design" if s["n_init"] != profiles.FABULINUS_N_INIT else "3%"
        return {"optimisers": ", ".join(s["optimizers"]), "networks": ", ".join(s["benchmarks"]),
                "runs per optimiser": _seeds(s["seeds"]), "tests per run": str(s["iterations"]),
                "initial samples": f"{init} of the configurations, random ({s['n_init']}; Fabulinus, FABOLAS: each at "
                                   "every sub-sampled size; EIc, EI: at full size; same configurations per seed)",
                "cost limit": ", ".join(f"{b} ${REGISTRY[b].max_cost:g}" for b in s["benchmarks"]),
                "initial design charged": "each test in full (the RNN's 'almost 9%' needs it, see below)",
                "beta (Fabulinus CEA filter)": f"{_pct(d['beta'])} (TrimTuner's)",
                "incumbent rule (Fabulinus)": f"max predicted accuracy with P(cost <= C_max) >= "
                                              f"{FABULINUS_SETTINGS['feasibility_threshold']:g} (§4.2)",
                "C_overhead of Eq. 4.3": "0 (FABOLAS' information gain per predicted cost)",
                "statistic of the curves": "mean over runs, 95% band"}
    if study == "nephele":
        return {"runs": _seeds(s["seeds"]), "initial budget B_init": ", ".join(
                    f"{b} ${v:g}" for b, v in profiles.INITIAL_BUDGETS.items()),
                "exploration budget B": ", ".join(f"{b} ${v:g}" for b, v in s["budgets"].items()),
                "lookahead horizons": f"0, 1, 2 ({len(s['lookahead_seeds'])} seeds)"}
    raise ValueError(f"no settings table for study {shown(study)}; known: {sorted(PAPER_SETUP)}")


def _norm(text: str) -> frozenset:
    """The comparable content of a setting's text: its comma-separated items without remarks in
    parentheses, lower-case, the MLP (not public) left out."""
    import re

    items = (re.sub(r"\([^)]*\)", "", str(text)).lower().split(","))
    return frozenset(i.strip() for i in items if i.strip() and not i.strip().startswith("mlp"))


def settings_table(profile: str, study: str, smoke: bool = False) -> pd.DataFrame:
    """``setting | this run | paper | same`` for ``study`` (``fig1``, ``fig3``, ``fig4``, ``tables3_4``,
    ``nephele``, ``fabulinus``) in ``profile``. ``same`` compares the items of both texts, ignoring remarks in
    parentheses and the MLP (its data are not public); None where the paper gives no value (or says
    it is "not stated"/"not given")."""
    if study not in PAPER_SETUP:
        raise ValueError(f"no settings table for study {shown(study)}; known: {sorted(PAPER_SETUP)}")
    ours = _this_run(profile, study, smoke)
    paper = PAPER_SETUP[study]
    rows = []
    for key in list(dict.fromkeys([*paper, *ours])):
        p = paper.get(key, "(not stated)")
        o = ours.get(key, "")
        stated = key in paper and not str(p).startswith(("not stated", "not given"))
        rows.append({"setting": key, "this run": o, "paper": p, "same": bool(_norm(o) == _norm(p)) if stated else None})
    name = "smoke" if smoke else profile
    return pd.DataFrame(rows).rename(columns={"this run": f"this run ({name} profile)"})
