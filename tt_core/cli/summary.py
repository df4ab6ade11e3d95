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
    from tt_core.reporting.summary import NO_CAUSE_YET, STATUSES, collect, deduplicate, to_markdown

    if args.grep:
        import re

        try:
            re.compile(args.grep)
        except re.error as exc:
            raise ValueError(f"--grep {args.grep!r} is not a regular expression ({exc}); escape special "
                             "characters with a backslash, e.g. '\\['") from None
    if args.figures is not None and not Path(args.figures).is_dir():
        what = "is not a folder" if Path(args.figures).exists() else "does not exist"
        raise ValueError(f"--figures {args.figures} {what}; give the folder holding summary_*.csv (default figures/)")
    df = deduplicate(collect(args.figures or PROJECT_DIR / "figures"))
    if args.grep:
        df = df[df["item"].str.contains(args.grep, case=False, regex=True)
                | df["source"].str.contains(args.grep, case=False, regex=True)]
    if df.empty:
        raise ValueError("no paper-vs-workbook rows found; run `tt reproduce` (or a notebook) first")
    print(to_markdown(df) if args.markdown else df.to_string(index=False))
    counts = df["status"].value_counts()
    unexplained = int(((df["status"] == "differs") & (df["cause"] == NO_CAUSE_YET)).sum())
    print("\n" + ", ".join(f"{int(counts.get(s, 0))} {s}" for s in STATUSES)
          + f" ({unexplained} of the differing rows without a measured cause yet; duplicates counted once, as in "
            "the report)", file=sys.stderr)
    return 0
