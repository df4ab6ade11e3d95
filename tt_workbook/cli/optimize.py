"""``tt optimize``: one optimiser on one benchmark, its trajectory printed; the problem options it shares
with ``tt runs``."""

from __future__ import annotations

import json

from tt_workbook.cli.common import JSON_HELP, MAX_SEED, count, fraction, jsonable, light, positive, whole
from tt_core.data.paper_defaults import CEA_BETA, INITIAL_BUDGETS, TESTS_PER_RUN, THESIS_MIN_ACCURACY

#: Largest lookahead horizon ``tt`` accepts: :data:`tt_core.optimizers.budgeted.MAX_HORIZON` (typed here so
#: that building the parser imports no optimiser; tests/test_hostile_inputs.py checks that they agree).
MAX_HORIZON = 4


def add_parser(sub, only: str | None) -> None:
    op = sub.add_parser("optimize", help="run one optimiser on a benchmark and print its trajectory",
                        examples="tt optimize --benchmark rnn --optimizer trimtuner-dt --seed 2\n"
                                 "  tt optimize --benchmark cnn --optimizer eic --seed 1 --max-cost 0.05 --iterations 20\n"
                                 "  tt optimize --benchmark rnn --optimizer nephele --seed 1 --min-accuracy 0.85 "
                                 "--max-time 300 --budget 2.5")
    op.add_argument("--benchmark", required=True, help="cnn, rnn or a CSV path")
    op.add_argument("--optimizer", required=True, help=f"one of {', '.join(optimizer_names(only))}")
    op.add_argument("--seed", type=whole("--seed", 0, MAX_SEED), required=True,
                    help=f"seed of every random choice of the run (same seed, same run; 0 to {MAX_SEED})")
    op.add_argument("--iterations", type=count("--iterations"),
                    help=f"tests in total, initial design included (default {TESTS_PER_RUN}; nephele, lynceus, cherrypick: "
                         "until the budget is spent)")
    op.add_argument("--beta", type=fraction("--beta"), help=f"filter fraction (model-based optimisers; default {CEA_BETA:g})")
    op.add_argument("--filter", help="override the filter: cea, random, none, direct, cmaes")
    op.add_argument("--max-cost", type=positive("--max-cost"), help="USD (default: the benchmark's)")
    op.add_argument("--max-time", type=positive("--max-time"), help="seconds")
    add_problem_options(op)
    op.add_argument("--json", action="store_true", help=JSON_HELP)
    op.set_defaults(func=cmd_optimize)


def optimizer_names(only: str | None) -> list[str]:
    """The registered optimisers (listed only by ``tt optimize --help``)."""
    if light(only, "optimize"):
        return []
    from tt_core.optimizers import available

    return available()


def add_problem_options(p) -> None:
    """The options of the thesis' cost-minimising problems (``tt optimize`` and ``tt runs``)."""
    p.add_argument("--min-accuracy", type=fraction("--min-accuracy"),
                   help=f"accuracy limit (nephele, lynceus, cherrypick: default {THESIS_MIN_ACCURACY:g}, thesis §6.2)")
    p.add_argument("--budget", type=positive("--budget"),
                   help="exploration budget in USD (budgeted optimisers: default CNN 20, RNN 2.5)")
    p.add_argument("--initial-budget", type=positive("--initial-budget"),
                   help="B_init in USD of nephele, lynceus, cherrypick (default: thesis Table 6.1, "
                        f"CNN {INITIAL_BUDGETS['cnn']:g}, RNN {INITIAL_BUDGETS['rnn']:g})")
    p.add_argument("--horizon", type=whole("--horizon", 0, MAX_HORIZON),
                   help=f"lookahead horizon of nephele and lynceus, 0 to {MAX_HORIZON} "
                        "(default 0; the thesis: 0, 1, 2)")
    p.add_argument("--objective", choices=["accuracy", "cost"],
                   help="random search only: maximise accuracy (default) or minimise cost")


def method_options(args) -> dict:
    """The budgeted methods' options given on the command line (``--initial-budget``, ``--horizon``)."""
    out = {}
    if getattr(args, "initial_budget", None) is not None:
        out["initial_budget"] = args.initial_budget
    if getattr(args, "horizon", None) is not None:
        out["horizon"] = args.horizon
    return out


def cmd_optimize(args) -> int:
    from tt_core.replay.driver import run_optimization
    from tt_core.optimizers.registry import objective_of, spec

    if args.filter == "none" and args.beta is not None:
        raise ValueError("--beta does not apply with --filter none (every candidate is kept); leave --beta out")
    budgeted = spec(args.optimizer).family == "budgeted"
    iterations = args.iterations if args.iterations is not None else (None if budgeted else TESTS_PER_RUN)
    traj = run_optimization(
        args.benchmark, args.optimizer, seed=args.seed, iterations=iterations, beta=args.beta,
        filter=args.filter, max_cost=args.max_cost, max_time=args.max_time, min_accuracy=args.min_accuracy,
        budget=args.budget, objective=args.objective, progress=not args.json, **method_options(args),
    )
    by_cost = objective_of(args.optimizer, args.objective) == "cost"
    score = ["cno", "cno_space"] if by_cost else ["accuracy_c", "accuracy_c_thesis"]
    if args.json:
        cols = ["iteration", "phase", "config_id", "size", "accuracy", "cost", "time", "cumulative_cost",
                "cumulative_time", "overhead_s", "incumbent", "incumbent_size", "incumbent_accuracy",
                "incumbent_cost", *score]
        print(json.dumps(jsonable(traj[cols].to_dict(orient="records")), indent=1))
    else:
        import pandas as pd

        with pd.option_context("display.width", 160, "display.max_rows", 200):
            print(readable(traj[["iteration", "phase", "config_id", "size", "accuracy", "cumulative_cost", "overhead_s",
                                 "incumbent", "incumbent_size", "incumbent_accuracy", "incumbent_cost", score[0]]])
                  .to_string(index=False))
        print("\n" + _optimize_summary(traj, args))
    return 0


#: Columns of a trajectory that hold whole numbers (floats when a value is missing: no incumbent yet).
WHOLE_COLUMNS = ("iteration", "config_id", "size", "incumbent", "incumbent_size")
#: Columns of a trajectory that hold US dollars.
COST_COLUMNS = ("cost", "cumulative_cost", "incumbent_cost")


def readable(table):
    """A trajectory table for printing: whole-number columns as whole numbers (``80``, not ``80.0``; a missing
    value blank), costs with their significant digits (``0.0000042``, not ``0.000004`` or ``0.0000``)."""
    import pandas as pd

    from tt_workbook.runs.summaries import plain

    out = table.copy()
    for c in out.columns:
        values = pd.to_numeric(out[c], errors="coerce") if out[c].dtype != object else None
        if values is None:
            continue
        if c in WHOLE_COLUMNS and all(float(v).is_integer() for v in values.dropna()):
            out[c] = values.astype("Int64")
        elif c in COST_COLUMNS:
            out[c] = [plain(v) if pd.notna(v) else "" for v in values]
    return out


def _optimize_summary(traj, args) -> str:
    from tt_workbook.runs.summaries import recommendation_sentence

    return recommendation_sentence(traj, args.benchmark, args.optimizer, max_cost=args.max_cost, max_time=args.max_time,
                                   min_accuracy=args.min_accuracy, budget=args.budget, objective=args.objective)
