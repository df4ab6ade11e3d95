"""``tt summary`` (the paper-vs-workbook table collected from the notebooks' rows) and ``tt docs``
(documentation pages generated from a report; its parser lives beside the page it writes,
:mod:`tt_workbook.report.docs`)."""

from __future__ import annotations

import sys

#: The columns of the terminal table: (heading, the ``tidy`` row's column, the most characters it needs); a
#: column of ``None`` shares what the fixed ones leave.
TERMINAL_COLUMNS = (("nb", "owner", 2), ("source", "source", None), ("item", "item", None),
                    ("paper", "paper_text", 12), ("workbook", "workbook_text", 12), ("authors' code", "authors_text", 13),
                    ("status", "status", 17), ("cause", "cause", None))
#: How the columns that share the width split it (in proportion), each taking no more than its longest text.
SHARES = {"source": 2, "item": 3, "cause": 4}
#: The narrowest a column that shares the width is cut to (narrower terminals get a wider table than they are).
MIN_SHARED = 8


def add_summary(sub, only: str | None) -> None:
    sm = sub.add_parser("summary", help="the paper-vs-workbook table collected from figures/summary_*.csv",
                        examples="tt summary\n  tt summary --grep 'Fig. 3' --markdown")
    sm.add_argument("--figures", help="figures folder (default figures/)")
    sm.add_argument("--grep", help="keep rows whose item or source matches this regular expression")
    sm.add_argument("--markdown", action="store_true", help="print the rows as a GitHub markdown table")
    sm.add_argument("--wide", action="store_true",
                    help="print every column in full (by default the table is fitted to the terminal's width, long "
                         "texts cut with …)")
    sm.set_defaults(func=cmd_summary)


def add_docs(sub, only: str | None) -> None:
    """``tt docs results``: :func:`tt_workbook.report.docs.add_parser`."""
    from tt_workbook.report.docs import add_parser

    add_parser(sub)


def cmd_summary(args) -> int:
    from pathlib import Path

    from tt_core.data.benchmarks import PROJECT_DIR
    from tt_workbook.report.report import headline, tidy
    from tt_workbook.report.summary import collect, deduplicate, to_markdown

    if args.grep is not None and not args.grep:
        raise ValueError("--grep is empty (it would match every row); give a pattern, e.g. --grep 'Table II', or "
                         "drop --grep")
    if args.grep:
        import re
        import warnings

        try:
            re.compile(args.grep)
        except re.error as exc:
            raise ValueError(f"--grep {args.grep!r} is not a regular expression ({exc}); escape special "
                             "characters with a backslash, e.g. '\\['") from None
    from tt_core.data.io import check_regular
    from tt_workbook.report.summary import summary_files

    if args.figures is not None and not args.figures.strip():
        raise ValueError("--figures is empty (it would mean the working directory); give the folder holding "
                         "summary_*.csv, e.g. --figures figures")
    if args.figures is not None and not Path(args.figures).is_dir():
        what = "is not a folder" if Path(args.figures).exists() else "does not exist"
        raise ValueError(f"--figures {args.figures} {what}; give the folder holding summary_*.csv (default figures/)")
    figures = args.figures or PROJECT_DIR / "figures"
    for f in summary_files(figures).values():  # never opened unless regular: a FIFO would block the read
        check_regular(f, "summary table", fix="remove it or replace it by the CSV a notebook writes "
                                              "(tt reproduce writes them)")
    every = collect(figures)
    df = deduplicate(every)
    rows = tidy(every)
    if args.grep:
        with time_limit(GREP_SECONDS, f"--grep {args.grep!r} took more than {GREP_SECONDS} s on {len(df)} rows (a "
                                      "pattern with nested repetition, such as (a+)+, can take exponential time); "
                                      "simplify the pattern"), warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # pandas' "has match groups": a group is fine here
            keep = df["item"].str.contains(args.grep, case=False, regex=True) \
                | df["source"].str.contains(args.grep, case=False, regex=True)
            rows = rows[rows["item"].str.contains(args.grep, case=False, regex=True)
                        | rows["source"].str.contains(args.grep, case=False, regex=True)]
        if df.empty:
            raise ValueError("no paper-vs-workbook rows found; run `tt reproduce` (or a notebook) first")
        if not keep.any():
            raise ValueError(f"no row matches --grep {args.grep!r} (in item or source, ignoring case) among the "
                             f"{len(df)} rows of {figures}; try a shorter pattern, or `tt summary` for every row")
        df = df[keep]
    if df.empty:
        raise ValueError("no paper-vs-workbook rows found; run `tt reproduce` (or a notebook) first")
    if args.markdown:
        print(to_markdown(df))
    elif args.wide:
        print(df.to_string(index=False))
    else:
        import shutil

        width = shutil.get_terminal_size().columns
        text, cut = fit_table(rows, width)
        print(text)
    print("\n" + headline(rows) + " (each claim counted once, as in the report; a differing row counts as explained "
          "only when its cause names a measured mechanism and its evidence)", file=sys.stderr)
    if not (args.markdown or args.wide) and cut:
        print(f"({cut} cells cut with … to fit {width} columns; `tt summary --wide` prints them in full)",
              file=sys.stderr)
    return 0


#: The longest ``--grep`` may take to match the rows (a pattern with nested repetition can take exponential time).
GREP_SECONDS = 10


class time_limit:
    """``with time_limit(seconds, message):`` a ValueError(``message``) when the block takes longer (SIGALRM: the
    regular-expression engine checks signals while it matches); no limit off the main thread or without
    SIGALRM (Windows)."""

    def __init__(self, seconds: float, message: str):
        self.seconds, self.message, self.previous = seconds, message, None

    def __enter__(self):
        import signal
        import threading

        if hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread():
            def expired(signum, frame):
                raise ValueError(self.message)

            self.previous = signal.signal(signal.SIGALRM, expired)
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
        return self

    def __exit__(self, *exc) -> None:
        import signal

        if self.previous is not None:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.previous)


def fit_table(rows, width: int) -> tuple[str, int]:
    """The report's rows (:func:`tt_workbook.report.report.tidy`) as a table of at most ``width`` characters per
    line (when ``width`` leaves each shared column :data:`MIN_SHARED` characters): one line per row, the
    columns of :data:`TERMINAL_COLUMNS` (the authors' code only when a row has a value of it), numbers as the
    report prints them; a text longer than its column ends in ``…``. Returns ``(text, cells cut)``.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = pd.DataFrame({"owner": ["02_x"], "source": ["TrimTuner Table II"], "item": ["feasible configs"],
    ...                      "paper_text": ["10"], "workbook_text": ["9"], "authors_text": [""],
    ...                      "status": ["differs"], "cause": ["a long cause that will not fit in the rest"]})
    >>> print(fit_table(rows, 72)[0])
    nb  source       item          paper  workbook  status   cause
    02  TrimTuner …  feasible co…  10     9         differs  a long cause …
    """
    cols = [(h, c, cap) for h, c, cap in TERMINAL_COLUMNS
            if c in rows.columns and (c != "authors_text" or rows[c].astype(str).ne("").any())]
    cells = {c: [" ".join(str(v).split()) for v in rows[c]] for _, c, _ in cols}
    if "owner" in cells:  # the notebook's number
        cells["owner"] = [v[:2] for v in cells["owner"]]
    natural = {c: max([len(h)] + [len(v) for v in cells[c]]) for h, c, _ in cols}
    widths = {c: min(natural[c], cap) for _, c, cap in cols if cap is not None}
    shared = [c for _, c, cap in cols if cap is None]
    left = width - sum(widths.values()) - 2 * (len(cols) - 1)
    # water-filling: a shared column whose longest text fits its share takes only that, the others split the rest
    todo = list(shared)
    while todo:
        total = sum(SHARES[c] for c in todo)
        fits = [c for c in todo if natural[c] <= left * SHARES[c] // total]
        if not fits:
            extra = max(left - MIN_SHARED * len(todo), 0)  # each at least MIN_SHARED, the rest in proportion
            for c in todo:
                widths[c] = min(natural[c], MIN_SHARED + extra * SHARES[c] // total)
            break
        for c in fits:
            widths[c] = natural[c]
            left -= natural[c]
            todo.remove(c)
    cut = 0

    def fit(text: str, w: int) -> str:
        nonlocal cut
        if len(text) <= w:
            return text.ljust(w)
        cut += 1
        return text[:w - 1] + "…"

    lines = ["  ".join(h[:widths[c]].ljust(widths[c]) for h, c, _ in cols).rstrip()]
    for i in range(len(rows)):
        lines.append("  ".join(fit(cells[c][i], widths[c]) for _, c, _ in cols).rstrip())
    return "\n".join(lines), cut
