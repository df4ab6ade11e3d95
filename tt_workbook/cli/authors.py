"""``tt authors``: the TrimTuner authors' public code (their TrimTuner-DT), run unmodified in its own
environment as an oracle."""

from __future__ import annotations

import json
import sys

from tt_workbook.cli.common import JSON_HELP, count, jsonable, light, show_help, whole
from tt_core.data.paper_defaults import CEA_BETA, TESTS_PER_RUN

HELP = "run the TrimTuner authors' public code (their TrimTuner-DT) as an oracle"


def add_parser(sub, only: str | None) -> None:
    """``authors run``; for another command, ``authors`` by name only (the oracle imports numpy, pandas)."""
    if light(only, "authors"):
        sub.add_parser("authors", help=HELP)
        return
    from tt_workbook.authors import oracle as A

    au = sub.add_parser("authors", help=HELP)
    asub = au.add_subparsers(dest="authors_command", metavar="ACTION")
    ar = asub.add_parser("run", help="one run of their TrimTuner-DT, unmodified, in .venv-authors",
                         description="Runs the authors' decision-tree TrimTuner (../shared/authors_code) in its own "
                                     "pinned environment (.venv-authors, created on first use). Their tree model makes "
                                     "the entropy-search value dH the same for every candidate; --residue says what "
                                     "that value is: exact (their code as is, minutes per BO step), zero, pos, neg, "
                                     "empirical (drawn from the values of an exact run).")
    ar.add_argument("--benchmark", required=True, help="rnn or cnn")
    ar.add_argument("--seed", type=whole("--seed", 1, 1_000_000), required=True,
                    help="the authors' seed (1 to 1000000)")
    ar.add_argument("--beta", type=float, help=f"fraction kept by the CEA filter (cea only; default {CEA_BETA:g})")
    ar.add_argument("--filter", default="cea", help="cea (default) or nofilter")
    ar.add_argument("--residue", default="empirical", help=f"one of {', '.join(A.RESIDUES)} (default empirical)")
    ar.add_argument("--iterations", type=count("--iterations"), default=TESTS_PER_RUN,
                    help=f"tests in total (default {TESTS_PER_RUN})")
    ar.add_argument("--dh-seed", type=whole("--dh-seed", 0), default=0,
                    help="--residue empirical only: 0 (default) draws as the reference runs did")
    ar.add_argument("--store", action="store_true", help="also store the run in the run store as optimiser authors-dt")
    ar.add_argument("--runs-dir", help="with --store (default: runs/)")
    ar.add_argument("--verbose", action="store_true", help="show the authors' own output")
    ar.add_argument("--json", action="store_true", help=JSON_HELP)
    ar.set_defaults(func=cmd_authors_run)
    from tt_workbook.authors.fetch import URL_TEMPLATE

    af = asub.add_parser("fetch", help="download their code (pinned commits) into the data cache and check it",
                         description="Downloads github pedrogbmendes/TrimTuner (a9dec1f) and automl/RoBO (91366b1) as "
                                     "tar archives, checks every file against the sha256 values pinned in the "
                                     "workbook, and installs the two folders where `tt authors run` looks (the data "
                                     "cache's authors_code/). Nothing is installed when a check fails.",
                         examples="tt authors fetch\n  tt authors fetch --dest ~/authors_code\n"
                                  "  tt authors fetch --url-template 'file:///mirror/{repo}-{commit}.tar.gz'")
    af.add_argument("--dest", help="install here instead of the data cache (then point TT_AUTHORS_CODE at it)")
    af.add_argument("--url-template", default=URL_TEMPLATE,
                    help="archive address with {owner}, {repo}, {commit} (default GitHub's codeload; only short "
                         "commit hashes are known, give a full one here if the service needs it)")
    af.add_argument("--force", action="store_true",
                    help="download again even if the pinned trees are installed; a tree there that differs from the "
                         "pinned code is kept aside as <tree>.aside, never deleted")
    af.set_defaults(func=cmd_authors_fetch)
    au.set_defaults(func=show_help(au))


def cmd_authors_run(args) -> int:
    from tt_workbook.authors import oracle as A

    # options that do not apply to the chosen settings are refused, not ignored
    if args.beta is not None and args.filter == "nofilter":
        raise ValueError(f"--beta {args.beta:g} applies to --filter cea only (nofilter keeps every candidate); drop "
                         "--beta or use --filter cea")
    if args.dh_seed != 0 and args.residue != "empirical":
        raise ValueError(f"--dh-seed {args.dh_seed} applies to --residue empirical only (--residue {args.residue} "
                         "draws no dH values); drop --dh-seed or use --residue empirical")
    if args.runs_dir is not None and not args.store:
        raise ValueError(f"--runs-dir {args.runs_dir} applies with --store only; add --store to keep the run there, "
                         "or drop --runs-dir")
    res = A.run_authors(args.benchmark, args.seed, beta=CEA_BETA if args.beta is None else args.beta,
                        filter=args.filter, residue=args.residue,
                        iterations=args.iterations, dh_seed=args.dh_seed, verbose=args.verbose)
    res["summary"] = A.summary(res)
    if args.store:
        from tt_workbook.authors.stored import store_run

        res["stored"] = str(store_run(res, args.runs_dir))
    if args.json:
        print(json.dumps(jsonable(res), indent=2))
        return 0
    s = res["summary"]
    print(f"authors' TrimTuner-DT ({res['code']}), {res['benchmark']}, seed {res['seed']}, filter {res['filter']} "
          f"beta {res['beta']:g}, dH residue {res['residue']}: {len(res['tests'])} tests in {res['wall_s']:.1f} s")
    for k, t in enumerate(res["tests"], start=1):
        print(f"  {k:>3} x={t['x']} size {t['size']:>5}  accuracy {t['accuracy']:.4f}  cost ${t['cost']:.5f}")
    print(f"BO tests: mean size fraction {s['mean_size_fraction']:.3f}, {100 * s['share_at_1_60']:.0f}% at 1/60, "
          f"${s['cost_per_bo_test']:.4f} per test; final Accuracy_C {s['final_accuracy_c']:.3f}; dH constant across "
          f"candidates in every step: {s['dh_constant_in_every_step']}" + (f"; stored {res['stored']}"
                                                                            if args.store else ""))
    return 0


def cmd_authors_fetch(args) -> int:
    from tt_workbook.authors import fetch as F

    dest = F.fetch(args.dest, url_template=args.url_template, force=args.force,
                   say=lambda line: print(f"authors fetch: {line}", file=sys.stderr, flush=True))
    print(f"authors' code in {dest}" + ("" if args.dest is None else
                                        f" (set TT_AUTHORS_CODE={dest} for `tt authors run` to use it)"))
    return 0
