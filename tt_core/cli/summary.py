"""``tt summary`` (the paper-vs-workbook table collected from the notebooks' rows) and ``tt docs``
(documentation pages generated from a report; its parser lives beside the page it writes,
:mod:`tt_core.reporting.docs`)."""

from __future__ import annotations

import sys


def add_summary(sub, only: str | None) -> None:
    sm = sub.add_parser("summary", help="the paper-vs-workbook table collected from figures/summary_*.csv",
                        examples="tt summary\n  tt summary --grep 'Fig. 3' --markdown")
    sm.add_argument("--figures", help="figures folder (default figures/)")
    sm.add_argument("--grep", help="keep rows whose item or source matches this regular expression")
    sm.add_argument("--markdown", action="store_true", help="print the rows as a GitHub markdown table")
    sm.set_defaults(func=cmd_summary)


def add_docs(sub, only: str | None) -> None:
    """``tt docs results``: :func:`tt_core.reporting.docs.add_parser`."""
    from tt_core.reporting.docs import add_parser

    add_parser(sub)


def cmd_summary(args) -> int:
    from pathlib import Path

    from tt_core.data.benchmarks import PROJECT_DIR
    from tt_core.reporting.report import headline, tidy
    from tt_core.reporting.summary import collect, deduplicate, to_markdown

    if args.grep:
        import re

        try:
            re.compile(args.grep)
        except re.error as exc:
            raise ValueError(f"--grep {args.grep!r} is not a regular expression ({exc}); escape special "
                             "characters with a backslash, e.g. '\\['") from None
    from tt_core.data.io import check_regular
    from tt_core.reporting.summary import summary_files

    if args.figures is not None and not Path(args.figures).is_dir():
        what = "is not a folder" if Path(args.figures).exists() else "does not exist"
        raise ValueError(f"--figures {args.figures} {what}; give the folder holding summary_*.csv (default figures/)")
    figures = args.figures or PROJECT_DIR / "figures"
    for f in summary_files(figures).values():  # never opened unless regular: a FIFO would block the read
        check_regular(f, "summary table", fix="remove it or replace it by the CSV a notebook writes "
                                              "(tt reproduce writes them)")
    every = collect(figures)
    df = deduplicate(every)
    if args.grep:
        df = df[df["item"].str.contains(args.grep, case=False, regex=True)
                | df["source"].str.contains(args.grep, case=False, regex=True)]
    if df.empty:
        raise ValueError("no paper-vs-workbook rows found; run `tt reproduce` (or a notebook) first")
    print(to_markdown(df) if args.markdown else df.to_string(index=False))
    rows = tidy(every)
    if args.grep:
        rows = rows[rows["item"].str.contains(args.grep, case=False, regex=True)
                    | rows["source"].str.contains(args.grep, case=False, regex=True)]
    print("\n" + headline(rows) + " (each claim counted once, as in the report; a differing row counts as explained "
          "only when its cause names a measured mechanism and its evidence)", file=sys.stderr)
    return 0
