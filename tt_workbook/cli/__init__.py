"""The ``tt`` command line: data, analyses, reproduction.

Run ``tt --help`` or ``tt COMMAND --help``. Errors are printed as one clear line (exit code 2),
never as a traceback.

One module per domain adds its commands to the top-level parser (:func:`build_parser`) and runs them:
:mod:`~tt_workbook.cli.data` (``data``, ``feasibility``, ``subsampling-gain``), :mod:`~tt_workbook.cli.reproduce`,
:mod:`~tt_workbook.cli.plan`,
:mod:`~tt_workbook.cli.optimize`, :mod:`~tt_workbook.cli.runs`, :mod:`~tt_workbook.cli.summary` (``summary``,
``docs``), :mod:`~tt_workbook.cli.bench`, :mod:`~tt_workbook.cli.spot` and :mod:`~tt_workbook.cli.authors`;
:mod:`~tt_workbook.cli.common` holds what they share, :mod:`~tt_workbook.cli.extras` the optional extras a
command may need (a missing one is named in one line). A parser built for one command (the first word of
the command line that is not an option) is complete for that command; the others are listed by name
and help, so that ``tt --help`` and ``tt --version`` import neither numpy, pandas, scipy nor
scikit-learn.
"""

from __future__ import annotations

import argparse
import sys

from tt_workbook.cli import authors, bench, data, extras, optimize, plan, reproduce, runs, spot, summary
from tt_workbook.cli.common import Parser

__all__ = ["main", "build_parser", "parser_for", "COMMANDS"]

#: The commands in the order ``tt --help`` lists them: each adds its parser(s) to the sub-commands.
COMMANDS = (data.add_parsers, reproduce.add_parser, plan.add_parser, optimize.add_parser, runs.add_parser, summary.add_summary,
            bench.add_parser, spot.add_parser, summary.add_docs, authors.add_parser)

_TOP_EXAMPLES = """examples:
  tt data list                                             # where the measurements were found
  tt optimize --benchmark rnn --optimizer trimtuner-dt --seed 2
  tt runs --benchmarks rnn --optimizers eic random --seeds 1 2 3 --jobs 2
  tt reproduce --profile quick                             # every notebook -> reports/quick/index.html
  tt summary --grep "Table II"                             # paper-vs-workbook rows

Run `tt COMMAND --help` for a command's options and examples. Terms: docs/glossary.md."""


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The ``tt`` parser: complete (``only=None``), or complete for the command ``only`` only, the others
    listed by name and help ("" for none: ``tt --help``, ``tt --version``)."""
    p = Parser(prog="tt", description="TrimTuner Workbook command line", epilog=_TOP_EXAMPLES,
               formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"tt (TrimTuner Workbook) {_version()}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for add in COMMANDS:
        add(sub, only)
    return p


def parser_for(argv: list[str]) -> argparse.ArgumentParser:
    """The parser for this command line: complete for the command named (the first word that is not an
    option), the other commands listed by name and help; with no command (``tt --help``, ``tt --version``)
    start-up imports neither pandas, scipy nor scikit-learn."""
    return build_parser(only=next((a for a in argv if not a.startswith("-")), ""))


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("tt-core")
    except Exception:  # not installed (PYTHONPATH): the package's own
        from tt_core import __version__

        return __version__


def main(argv: list[str] | None = None) -> int:
    parser = parser_for(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    import signal
    import warnings

    from tt_core.data.benchmarks import BenchmarkError  # after parsing: `tt --help` needs no pandas

    def on_term(signum, frame):  # a TERM ends the command like Ctrl-C: workers are shut down with it
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, on_term)
    shown = warnings.showwarning
    warnings.showwarning = lambda message, category, *a, **k: print(f"tt: warning: {message}", file=sys.stderr)
    try:
        extras.require(args.command)  # before any download: a missing extra is named at once
        fetch_missing(args)
        code = int(args.func(args) or 0)
        sys.stdout.flush()  # a reader that closed the pipe early (`tt summary | head`) shows here, not at exit
        return code
    except BrokenPipeError as exc:
        if not stdout_closed():  # a pipe of the command's own (a worker, a subprocess): an error like any other
            print(f"tt: error: {os_error(exc)}", file=sys.stderr)
            return 2
        quiet_stdout()  # as Unix tools do: the reader has what it wanted, nothing to report
        return 0
    except (BenchmarkError, ValueError) as exc:
        print(f"tt: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"tt: error: {os_error(exc)}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as exc:
        if not extras.extra_of(exc.name):  # not a module of an optional extra: a broken install, shown as is
            raise
        print(f"tt: error: {extras.message(args.command, exc.name)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        stored = " (finished runs are stored; run the same command again to resume)" if args.command == "runs" else ""
        print(f"tt: interrupted{stored}", file=sys.stderr)
        return 130
    except Exception as exc:  # pyarrow's errors for a corrupt file, and the like: one line, never a traceback
        if type(exc).__module__.startswith("pyarrow"):
            print(f"tt: error: {exc} (a corrupt results file? delete it and run again)", file=sys.stderr)
            return 2
        raise
    finally:
        signal.signal(signal.SIGTERM, previous)
        warnings.showwarning = shown


def needed_benchmarks(args) -> list[str]:
    """The registered benchmarks a command line will load: ``tt reproduce`` (its notebooks) and ``tt runs
    --profile`` without ``--benchmarks`` every public one; the commands with ``--benchmark``/``--benchmarks``
    those named (a CSV path or an unknown name is left to the command). ``tt data``, ``tt authors`` (whose
    code reads its own copy), ``tt summary`` and ``tt spot`` load none."""
    from tt_core.data.benchmarks import REGISTRY

    command = getattr(args, "command", None)
    if command in ("data", "authors", "summary", "docs", "spot"):
        return []
    if command == "reproduce" or (command == "runs" and getattr(args, "profile", None) and not getattr(args, "report", False)
                                  and not getattr(args, "benchmarks", None)):
        return [name for name, spec in REGISTRY.items() if spec.public]
    named = getattr(args, "benchmarks", None) or [getattr(args, "benchmark", None)]
    return [n for n in named if isinstance(n, str) and n.lower() in REGISTRY]


def fetch_missing(args) -> None:
    """Download, once and before the command starts (before any notebook runs), the registered benchmarks it
    needs that are found nowhere (:func:`tt_core.data.benchmarks.ensure`; progress on stderr). A notebook's
    kernel never downloads: it finds what this step fetched."""
    names = needed_benchmarks(args)
    if names:
        from tt_core.data.benchmarks import ensure

        ensure(names, say=lambda line: print(f"tt: data: {line}", file=sys.stderr, flush=True))


def stdout_closed() -> bool:
    """Whether standard output is a pipe whose reader has gone (``tt summary | head`` after ``head`` exits): the
    write end of such a pipe polls as an error. Not a file descriptor (a test's capture): False."""
    import io
    import select

    try:
        fd = sys.stdout.fileno()
    except (AttributeError, ValueError, io.UnsupportedOperation):
        return False
    if not hasattr(select, "poll"):  # Windows: a broken pipe while printing is the common case
        return True
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    return any(events & select.POLLERR for _, events in poller.poll(0))


def quiet_stdout() -> None:
    """Point standard output at the null device, so that what is still buffered for a closed pipe is dropped at
    exit instead of ending in "Exception ignored ... BrokenPipeError" (Python's documented recipe)."""
    import io
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (AttributeError, ValueError, OSError, io.UnsupportedOperation):
        pass


def os_error(exc: OSError) -> str:
    """One line for an operating-system error: what failed, on which path, and what to do."""
    import errno

    where = f" {exc.filename}" if exc.filename else ""
    what = exc.strerror or str(exc)
    hint = {
        errno.EACCES: "check the permissions of the file or folder, or choose another",
        errno.EPERM: "check the permissions of the file or folder, or choose another",
        errno.EROFS: "the file system is read-only: choose another folder (e.g. --runs-dir)",
        errno.ENOSPC: "the disk is full: free some space",
        errno.ENOTDIR: "a file stands where a folder is needed: give a folder",
        errno.EISDIR: "a folder stands where a file is needed: move or delete it",
        errno.EEXIST: "a file stands where a folder is needed: give a folder",
        errno.ENOENT: "check the path",
    }.get(exc.errno, "check the path and try again")
    return f"{what}:{where} ({hint})"
