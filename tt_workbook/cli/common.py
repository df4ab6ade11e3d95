"""What every command module of :mod:`tt_workbook.cli` shares: the parser class (one-line errors, examples
under the help), the argument types whose errors name the option, and printing a result.

Nothing here imports numpy or pandas at module level: ``tt --help`` builds the top-level parser from
these pieces without them.
"""

from __future__ import annotations

import argparse
import json
import math

from tt_core.data.io import check_out_file, check_out_folder, shown  # noqa: F401  (the commands' checks)

#: The largest seed of a run (a stored run's seed is a 32-bit unsigned number, as numpy's legacy generators take).
MAX_SEED = 2**32 - 1
#: Help of the ``--json`` flag of the commands that print a table or a record.
JSON_HELP = "print machine-readable JSON instead of a table"


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors: ``tt: error: <problem> (see 'tt optimize --help')``, exit code 2.

    ``examples`` (a keyword of the constructor, so also of ``add_parser``) is shown under the help as
    ``examples:`` with the lines as written. Sub-command parsers are built by this class too (argparse
    builds them with the class of their parent).
    """

    def __init__(self, *args, examples: str | None = None, **kwargs):
        if examples is not None:
            kwargs.setdefault("epilog", "examples:\n  " + examples)
            kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message):
        self.exit(2, f"tt: error: {message} (see '{self.prog} --help')\n")


def light(only: str | None, *commands: str) -> bool:
    """Whether a parser built for command ``only`` can leave out what only ``commands`` need.

    ``only`` is the command named on the command line ("" for none: ``tt --help``, ``tt --version``) or
    None (build everything). The other commands' options that need heavy imports (pandas, scipy, the
    optimisers) are left out, or the command is listed by name and help only.
    """
    return only is not None and only not in commands


def show_help(parser: argparse.ArgumentParser):
    """A command's ``func`` for a group without its action (``tt bench``): print the group's help."""
    def run(args) -> int:
        parser.print_help()
        return 0
    return run


def profile_names(only: str | None) -> tuple[str, ...]:
    """The run profiles (``--profile`` choices); checked only for the command that runs."""
    if light(only, "reproduce", "runs", "bench", "spot", "plan"):
        return ()
    from tt_workbook.runs.profiles import NAMES

    return NAMES


# ------------------------------------------------------------------------------------------------
# Printing
# ------------------------------------------------------------------------------------------------
def jsonable(obj):
    """``obj`` with numpy scalars as Python numbers and non-finite floats as None (valid JSON)."""
    import numpy as np

    if isinstance(obj, dict):
        return {k: jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def print_result(result: dict, as_json: bool) -> None:
    """A flat record as JSON or as aligned ``key  value`` lines."""
    if as_json:
        print(json.dumps(jsonable(result), indent=2))
        return
    width = max(len(k) for k in result)
    for k, v in jsonable(result).items():
        if isinstance(v, float):
            v = f"{v:.6g}"
        print(f"{k:<{width}}  {v}")


# ------------------------------------------------------------------------------------------------
# Argument types: each error names the option and what it takes
# ------------------------------------------------------------------------------------------------
def _finite(name: str, ok, need: str):
    """A finite number for which ``ok(v)`` holds; otherwise ``{name} must be {need}``."""
    def parse(text):
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number, got {shown(text)}") from None
        if not math.isfinite(v) or not ok(v):
            raise argparse.ArgumentTypeError(f"{name} must be {need}, got {shown(text)}")
        return v
    return parse


def positive(name: str):
    """A number > 0."""
    return _finite(name, lambda v: v > 0, "a positive number")


def nonnegative(name: str):
    """A finite number >= 0."""
    return _finite(name, lambda v: v >= 0, "a number >= 0")


def within(name: str, lo: float, hi: float, unit: str, low_open: bool = True):
    """A number in (lo, hi] (or [lo, hi]); the error names the option, the range and the unit."""
    def parse(text):
        v = nonnegative(name)(text)
        if v > hi or v < lo or (low_open and v == lo):
            raise argparse.ArgumentTypeError(f"{name} must lie in {'(' if low_open else '['}{lo:g}, {hi:g}] {unit}, "
                                             f"got {shown(text)}")
        return v
    return parse


def fraction(name: str):
    """A number in (0, 1]."""
    def parse(text):
        v = positive(name)(text)
        if v > 1:
            raise argparse.ArgumentTypeError(f"{name} is a fraction in (0, 1], got {shown(text)}")
        return v
    return parse


def whole(name: str, minimum: int, maximum: int | None = None):
    """A whole number >= ``minimum`` (and <= ``maximum``)."""
    def parse(text):
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a whole number >= {minimum}, got {shown(text)}") from None
        if v < minimum:
            raise argparse.ArgumentTypeError(f"{name} must be a whole number >= {minimum}, got {shown(text)}")
        if maximum is not None and v > maximum:
            raise argparse.ArgumentTypeError(f"{name} must be at most {maximum}, got {shown(text)}")
        return v
    return parse


def count(name: str):
    """A whole number >= 1."""
    return whole(name, 1)


def integer(name: str):
    """Any whole number."""
    def parse(text):
        try:
            return int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a whole number, got {shown(text)}") from None
    return parse


def numbers_at_least_zero(name: str):
    """A finite number >= 0, for options taking several (``takes numbers >= 0``)."""
    def parse(text):
        try:
            v = float(text)
        except ValueError:
            v = float("nan")
        if not (v >= 0 and math.isfinite(v)):
            raise argparse.ArgumentTypeError(f"{name} takes numbers >= 0, got {shown(text)}")
        return v
    return parse


# ------------------------------------------------------------------------------------------------
# Outputs: checked before any work starts, nothing created before a refusal
# ------------------------------------------------------------------------------------------------


def runs_dir_option(value: str | None, check_folder: bool = True):
    """``--runs-dir`` as given, or the default run store when it is not given. An empty value is refused (it
    would mean the working directory); with ``check_folder``, so is a path under a file, before anything runs."""
    if value is None:
        from tt_workbook.runs.store import DEFAULT_RUNS_DIR

        return DEFAULT_RUNS_DIR
    if not value.strip():
        raise ValueError("--runs-dir is empty (it would mean the working directory); give a folder, e.g. runs/")
    if check_folder:
        check_out_folder(value, "--runs-dir", example="runs")
    return value
