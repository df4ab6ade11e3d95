"""Verdicts under settings the paper does not state: where a row's verdict holds and where it flips.

A paper-vs-workbook row is decided under settings the paper leaves open (how many networks an average
is over, which variant a sentence is about, a budget, the agreement tolerance itself). When the verdict
flips inside a plausible range of such a setting, the row says so in its note, with the range computed
from the numbers (never typed):

* :func:`factor_flip` / :func:`tolerance_note`: the agreement tolerance of a factor row (the verdict at
  1.5x beside the row's 2x, and the factor where it flips);
* :func:`holds_ranges` / :func:`range_note`: a setting on a grid (e.g. an exploration budget): the
  intervals of the grid where the verdict holds and the points where it flips;
* :func:`settings_note`: a few discrete settings (e.g. TrimTuner-DT or -GP, initial design counted or not):
  the value and verdict under each, and which ones flip it.
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

import numpy as np

__all__ = ["ALT_FACTOR", "factor_flip", "holds_ranges", "range_note", "settings_note", "tolerance_note",
           "verdict_word", "with_tolerance_note"]

#: The tighter agreement tolerance shown beside a factor row's own (issue 33 item 7).
ALT_FACTOR = 1.5


def verdict_word(v) -> str:
    """``agrees`` / ``differs`` / ``undetermined`` for True / False / None."""
    return "undetermined" if v is None else ("agrees" if v else "differs")


def _positive(x) -> float | None:
    try:
        f = float(x)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) and f > 0 else None


def factor_flip(paper, workbook) -> float | None:
    """The smallest tolerance factor under which ``workbook`` agrees with ``paper``: ``max(p/w, w/p)``
    (None when either is missing, not positive or not finite). A factor row agrees for every tolerance
    at or above it and differs below it."""
    p, w = _positive(paper), _positive(workbook)
    if p is None or w is None:
        return None
    return max(p / w, w / p)


def tolerance_note(paper, workbook, factor: float = 2.0, other: float = ALT_FACTOR) -> str:
    """``"tolerance: within 1.5x differs, within 2x agrees (flips at 1.73x)"``; "" when not computable."""
    f = factor_flip(paper, workbook)
    if f is None:
        return ""
    words = ", ".join(f"within {t:g}x {verdict_word(f <= t)}" for t in sorted({float(other), float(factor)}))
    return f"tolerance: {words} (flips at {f:.3g}x)"


def with_tolerance_note(row: dict, other: float = ALT_FACTOR) -> dict:
    """A factor row (``factor`` key, numeric paper and workbook values) with :func:`tolerance_note` appended
    to its note; other rows unchanged."""
    if row.get("factor") is None or isinstance(row.get("workbook"), bool) or isinstance(row.get("paper"), bool):
        return row
    text = tolerance_note(row.get("paper"), row.get("workbook"), float(row["factor"]), other)
    if not text:
        return row
    note = row.get("note") or ""
    return {**row, "note": f"{note}; {text}" if note else text}


def holds_ranges(xs: Sequence[float], ok: Sequence[bool | None]) -> list[tuple[float, float]]:
    """The maximal runs of consecutive grid points (``xs`` ascending) where ``ok`` is True, as
    ``(first x, last x)`` pairs (a False or None point ends a run)."""
    xs = [float(x) for x in xs]
    if len(xs) != len(ok):
        raise ValueError(f"xs and ok differ in length ({len(xs)} vs {len(ok)})")
    if any(b < a for a, b in zip(xs, xs[1:])):
        raise ValueError("xs must be ascending")
    out, start = [], None
    for i, v in enumerate(ok):
        if v is True and start is None:
            start = i
        if v is not True and start is not None:
            out.append((xs[start], xs[i - 1]))
            start = None
    if start is not None:
        out.append((xs[start], xs[-1]))
    return out


def range_note(xs: Sequence[float], ok: Sequence[bool | None], name: str, fmt: str = "{:g}",
               current: float | None = None) -> str:
    """``"holds for <name> in [a, b] (grid c..d); flips at e"`` from a verdict per grid point.

    The flips are the grid points where the verdict changes (the first point of the new verdict);
    ``current``: the value the row uses, named when given. "" for an empty grid."""
    if not len(xs):
        return ""
    f = fmt.format
    runs = holds_ranges(xs, ok)
    where = " and ".join(f"[{f(a)}, {f(b)}]" for a, b in runs) if runs else "no value"
    flips = [f(xs[i]) for i in range(1, len(xs)) if ok[i] is not ok[i - 1]]
    text = f"holds for {name} in {where} (grid {f(xs[0])} to {f(xs[-1])}, {len(xs)} points)"
    text += f"; flips at {', '.join(flips)}" if flips else "; never flips on the grid"
    if current is not None:
        text += f"; this row: {f(current)}"
    return text


def settings_note(values: dict[str, float | None], verdict: Callable[[float], bool | None], current: str,
                  fmt: str = "{:.2f}") -> str:
    """The value and verdict of a row under each of a few discrete settings, and which flip it.

    ``values``: setting label -> the row's value under it (None: not computed here); ``verdict``: the row's
    rule; ``current``: the label of the setting the row uses. E.g. ``"under other unstated settings:
    GP, BO tests 3.10 (agrees), DT, all tests 4.48 (agrees); the verdict flips under: GP, BO tests, ..."``."""
    base = verdict(values[current]) if values.get(current) is not None else None
    parts, flips, missing = [], [], []
    for label, v in values.items():
        if label == current:
            continue
        if v is None or (isinstance(v, float) and not np.isfinite(v)):
            missing.append(label)
            continue
        vv = verdict(v)
        parts.append(f"{label} {fmt.format(v)} ({verdict_word(vv)})")
        if vv is not base:
            flips.append(label)
    if not parts:
        return ""
    text = "under other unstated settings: " + "; ".join(parts)
    text += (f"; the verdict ({verdict_word(base)} under {current}) flips under: {', '.join(flips)}" if flips
             else f"; the verdict ({verdict_word(base)} under {current}) holds under all of them")
    if missing:
        text += f" (not run here: {', '.join(missing)})"
    return text
