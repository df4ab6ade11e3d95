"""``tt reproduce``: every notebook run with papermill, and the HTML report."""

from __future__ import annotations

from tt_workbook.cli.common import check_out_folder, count, profile_names


def add_parser(sub, only: str | None) -> None:
    rp = sub.add_parser("reproduce", help="run every notebook with papermill and write an HTML report",
                        examples="tt reproduce --profile quick\n"
                                 "  tt reproduce --profile paper --only 03 05   # in parts, same folder")
    rp.add_argument("--profile", choices=list(profile_names(only)), default="quick",
                    help="quick (minutes, fewer seeds) or paper (the papers' settings, hours); default quick")
    rp.add_argument("--out", help="run folder (default reports/<profile>)")
    rp.add_argument("--figures", help="figures folder (default figures/)")
    rp.add_argument("--only", nargs="+", help="notebook prefixes, e.g. 02 08")
    rp.add_argument("--smoke", action="store_true", help="tiny settings (CI)")
    rp.add_argument("--timeout", type=count("--timeout"),
                    help="seconds one notebook cell may run (default: 3600 in the quick profile, none in the paper "
                         "profile, whose grids run for hours in one cell)")
    rp.set_defaults(func=cmd_reproduce)


def cmd_reproduce(args) -> int:
    from tt_workbook.report import reproduce

    check_out_folder(args.out, "--out", example=f"reports/{args.profile}")   # before any notebook runs
    check_out_folder(args.figures, "--figures", example="figures")
    index, results = reproduce.run(
        profile=args.profile, out_dir=args.out, figures_dir=args.figures, only=args.only, smoke=args.smoke,
        timeout=args.timeout if args.timeout is not None else reproduce.default_timeout(args.profile),
    )
    failed = [r for r in results if not r.ok]
    wall = sum(r.seconds for r in results)
    cpu = sum(r.cpu_seconds for r in results if r.cpu_seconds == r.cpu_seconds)
    for r in results:
        print(f"  {r.entry.stem:<40} {'ok' if r.ok else 'FAILED':<7} {r.seconds:7.1f} s wall {r.cpu_seconds:7.1f} s CPU")
    print(f"\n{len(results) - len(failed)}/{len(results)} notebooks ran in {wall / 60:.1f} min ({cpu / 60:.1f} min of CPU). "
          f"Report: {index}")
    for r in failed:
        print(f"  FAILED {r.entry.stem}: {r.error.splitlines()[0] if r.error else ''}")
    return 1 if failed else 0
