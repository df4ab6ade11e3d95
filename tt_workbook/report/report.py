"""The HTML report a person opens first: ``reports/<profile>/index.html``.

Its first screen answers "does it reproduce?" in one sentence (:func:`verdict_sentence`) and one figure (the
headline multi-seed figure :data:`HEADLINE_FIGURE`, drawn by the tour), then "what was reproduced, what differs,
and why":

1. the reproduced rows first (a method's result computed here agrees with the paper's), then the other
   reproduction rows by status (differs with a measured mechanism / differs, no mechanism measured yet / not
   comparable / too few runs / paper only), then each kind of check apart, with what it found (data checks,
   setup, input checks, consistency checks, timing), and the papers' claims tested on outside data apart too, with
   on how many data sets each holds;
2. one thumbnail per paper figure, linking to the notebook that draws it;
3. the rows that do not agree, first, each with its cause and the notebook it comes from;
4. then every row, grouped by paper and section (folded), numbers printed to the paper's precision,
   duplicates (the same item checked by two notebooks) shown once, each agreement rule explained in
   words once;
5. the notebooks' run status and times.

The page is self-contained: thumbnails are small PNG files beside it, and it loads no script, font
or style sheet from the network.
"""

from __future__ import annotations

import html
import math
import time
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pandas as pd

from tt_core.data.io import atomic_path, write_text
from tt_workbook.report.summary import (CHECKS, OUTSIDE, OUTSIDE_FINDINGS, check_outcome, deduplicate, has_authors,
                                       names_mechanism, outside_outcome, owner_of, with_side)

__all__ = ["HEADLINE_FIGURE", "ReportNotebook", "card_counts", "card_line", "check_findings", "format_like", "headline",
           "outside_findings", "outside_text", "tidy", "totals", "verdict_sentence", "write_index"]

#: Paper names as they start a row's ``source``, and how the report titles them.
PAPERS = {
    "TrimTuner": "TrimTuner (Mendes et al., MASCOTS 2020)",
    "thesis": "Nephele (thesis)",
    "SpotTune": "SpotTune (Li et al., ICDCS 2020)",
}

#: The status groups of the totals line, in order, with their colours: the reproduction rows first (``agrees``:
#: *reproduced*), then each kind of check (:data:`tt_workbook.report.summary.CHECKS`), then the claims tested on outside
#: data.
GROUPS = [
    ("agrees", "reproduced (a method's result computed here agrees)", "#2e7d32"),
    ("differs (cause measured)", "differ, with a measured mechanism", "#ef6c00"),
    ("differs (cause not measured yet)", "differ, no mechanism measured yet", "#c62828"),
    ("not comparable", "not comparable (another setting)", "#6d4c41"),
    ("too few runs", "too few runs (under 5 per arm: no verdict)", "#8d6e63"),
    ("paper only", "paper only (no workbook value)", "#757575"),
    ("data check", "data checks (a value read from the measurements)", "#00838f"),
    ("setup", "setup (a setting the workbook chose)", "#546e7a"),
    ("input check", "input checks (a paper's input vs an independent source)", "#1565c0"),
    ("consistency check", "consistency checks (a paper's own arithmetic)", "#5e35b1"),
    ("timing", "timing (times measured on this machine)", "#ad1457"),
    ("outside data", "claims tested on outside data (other learning curves than the papers')", "#33691e"),
]
#: Groups that are no reproduction: never counted as reproduced or differing (what each found is counted apart,
#: :func:`check_findings`).
CHECK_GROUPS = tuple(st for kind, st in CHECKS.items() if kind != OUTSIDE)
#: The papers' claims tested on other data than the papers' (notebook 17): no reproduction and no check of the
#: papers' numbers, counted apart from both, with on how many data sets each holds (:func:`outside_findings`).
OUTSIDE_GROUPS = (CHECKS[OUTSIDE],)
#: The reproduction groups (every group neither a check nor outside data).
REPRODUCTION_GROUPS = tuple(g for g, _, _ in GROUPS if g not in CHECK_GROUPS + OUTSIDE_GROUPS)

#: The headline figure (written into figures/ by notebook 00_tour): TrimTuner against its baselines, median and band
#: over seeds; the report shows it under its first sentence.
HEADLINE_FIGURE = "headline_seeds.png"
#: The notebook that draws it: a report that did not run it does not show it (it could be another run's).
HEADLINE_NOTEBOOK = "00_tour"

#: What each agreement rule means, in words (shown once in the legend).
RULE_WORDS = {
    "exact": "the same number (counts, table cells, statements true/false)",
    "within ±": "the absolute difference is at most this (numbers the paper rounds)",
    "within %": "the relative difference is at most this",
    "within a factor": "both positive and the larger at most this many times the smaller (quantities that "
                       "depend on the machine or the seeds: times, savings ratios)",
}


@dataclass
class ReportNotebook:
    """A notebook as the report shows it: its stem, title, what it reproduces, run status and figures."""

    stem: str
    title: str
    reproduces: str
    ok: bool = True
    seconds: float = float("nan")
    error: str = ""
    figures: tuple[str, ...] = field(default_factory=tuple)
    cpu_seconds: float = float("nan")


# ------------------------------------------------------------------------------------------- numbers
def _decimals(text: str) -> int:
    """Decimal places of a number as typed (``"0.755"`` -> 3, ``"65"`` / ``"65.0"`` -> 0)."""
    text = text.strip()
    if "e" in text.lower():
        mant, _, exp = text.lower().partition("e")
        return max(0, _decimals(mant) - int(exp))
    if "." not in text:
        return 0
    frac = text.split(".", 1)[1].rstrip("0")
    return len(frac)


def _number(v):
    if v is None or isinstance(v, bool):
        return None
    if isinstance(v, str):
        if v.strip() in ("True", "False", ""):
            return None
        try:
            return float(v)
        except ValueError:
            return None
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) else f


def format_like(value, paper=None) -> str:
    """A value printed to the precision of the paper's number.

    The paper's number sets the decimal places (its shortest form: 0.755 -> 3, 65 -> 0); a value that
    would then show fewer than two significant digits gets two. Booleans read "yes"/"no", an infinite
    value "never (∞)", a missing one "".

    Examples
    --------
    >>> format_like(0.75536, 0.755), format_like(3.1523, 65), format_like(0.0034, 1), format_like(178.0, 178)
    ('0.755', '3.2', '0.0034', '178')
    >>> format_like(float("inf"), 3.62), format_like(True), format_like("False"), format_like(None)
    ('never (∞)', 'yes', 'no', '')
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bool) or value in ("True", "False"):
        return "yes" if value in (True, "True") else "no"
    x = _number(value)
    if x is None:
        return str(value)
    if math.isinf(x):
        return "never (∞)" if x > 0 else "-∞"
    p = _number(paper)
    if p is not None and math.isfinite(p):
        d = _decimals(repr(float(p)) if not float(p).is_integer() else "0")
    else:
        d = _decimals(f"{x:.4g}") if abs(x) < 1e6 else 0
    if x != 0:
        magnitude = math.floor(math.log10(abs(x)))
        d = max(d, 1 - magnitude)  # at least two significant digits
    d = min(max(d, 0), 8)
    # round half up, as a person rounds the printed number (f-strings round 12.5 to 12)
    q = Decimal(repr(x)).quantize(Decimal(1).scaleb(-d), rounding=ROUND_HALF_UP)
    return f"{q:,.{d}f}" if abs(x) >= 10000 else f"{q:.{d}f}"


def _count_text(value) -> str:
    """A count as a whole number (``3.0`` -> ``"3"``); anything else as :func:`format_like` prints it."""
    x = _number(value)
    return str(int(x)) if x is not None and math.isfinite(x) and x.is_integer() else format_like(value)


# ------------------------------------------------------------------------------------------- rows
def _paper_and_section(source: str) -> tuple[str, str]:
    head, _, rest = str(source).partition(" ")
    paper = PAPERS.get(head)
    return (paper, rest.strip() or head) if paper else ("Other", str(source))


def _group(status: str, cause: str) -> str:
    """A row's group of :data:`GROUPS`: a differing row counts as explained only when its cause names a measured
    mechanism and its evidence (:func:`tt_workbook.report.summary.names_mechanism`)."""
    if status == "differs":
        return "differs (cause measured)" if names_mechanism(cause)[0] else "differs (cause not measured yet)"
    return status


def tidy(summary: pd.DataFrame) -> pd.DataFrame:
    """The summary rows as the report shows them.

    Adds ``paper``/``section`` (from ``source``), ``group`` (the totals' status groups), the formatted
    ``paper_text``/``workbook_text``, ``owner`` (the notebook the row is counted under) and ``found`` (what a
    check row found: agree / differ / undetermined / no value; what an outside-data row found: holds on all / some /
    none of its data sets, or no value; "" for a reproduction row), and drops duplicates:
    rows with the same source, item and values written by several notebooks are kept once, with every notebook
    listed in ``notebook``, its owner first.
    """
    if summary.empty:
        return summary.assign(paper_name=[], section=[], group=[], paper_text=[], workbook_text=[], authors_text=[],
                              owner=[], found=[])
    df = deduplicate(summary)
    ps = [_paper_and_section(s) for s in df["source"]]
    df["paper_name"] = [p for p, _ in ps]
    df["section"] = [s for _, s in ps]
    df["group"] = [_group(s, c) for s, c in zip(df["status"], df["cause"].fillna(""))]
    df["owner"] = [owner_of(n) for n in df["notebook"]]
    df["found"] = [check_outcome(a, w) if g in CHECK_GROUPS else outside_outcome(p, w) if g in OUTSIDE_GROUPS else ""
                   for g, a, p, w in zip(df["group"], df["agrees"], df["paper"], df["workbook"])]
    df["paper_text"] = [format_like(p, p) for p in df["paper"]]
    df["workbook_text"] = [format_like(w, p) for w, p in zip(df["workbook"], df["paper"])]
    outside = df["group"].isin(OUTSIDE_GROUPS)  # counts of data sets: whole numbers, as counted
    for col, text in (("paper", "paper_text"), ("workbook", "workbook_text")):
        df.loc[outside, text] = [_count_text(v) for v in df.loc[outside, col]]
    authors = df["authors"] if "authors" in df.columns else [None] * len(df)
    df["authors_text"] = [format_like(a, p) for a, p in zip(authors, df["paper"])]
    if "side" not in df.columns:
        df["side"] = ""
    df["cause"] = [with_side(c, s) for c, s in zip(df["cause"], df["side"])]
    return df.reset_index(drop=True)


def totals(rows: pd.DataFrame) -> dict[str, int]:
    """Number of (de-duplicated) rows per status group of :data:`GROUPS`."""
    counts = rows["group"].value_counts() if not rows.empty else pd.Series(dtype=int)
    return {g: int(counts.get(g, 0)) for g, _, _ in GROUPS}


#: What a check row can find (:func:`tt_workbook.report.summary.check_outcome`), in the order counted.
FINDINGS = ("agree", "differ", "undetermined", "no value")


def check_findings(rows: pd.DataFrame) -> dict[str, dict[str, int]]:
    """Per check group: how many of its rows agree, differ, are undetermined or have no workbook value."""
    out = {}
    for g in CHECK_GROUPS:
        found = rows.loc[rows["group"] == g, "found"] if not rows.empty else pd.Series(dtype=str)
        out[g] = {f: int((found == f).sum()) for f in FINDINGS}
    return out


def _findings_text(found: dict[str, int]) -> str:
    """``"141 agree, 6 no value"`` (findings with no row left out)."""
    return ", ".join(f"{n} {f}" for f, n in found.items() if n)


def outside_findings(rows: pd.DataFrame) -> dict[str, int]:
    """Of the claims tested on outside data, how many hold on every data set studied, on some, on none, or have no
    value (:data:`tt_workbook.report.summary.OUTSIDE_FINDINGS`)."""
    found = rows.loc[rows["group"].isin(OUTSIDE_GROUPS), "found"] if not rows.empty else pd.Series(dtype=str)
    return {f: int((found == f).sum()) for f in OUTSIDE_FINDINGS}


def outside_text(found: dict[str, int]) -> str:
    """What the claims tested on outside data found, in words (findings with no claim left out).

    Examples
    --------
    >>> outside_text({"holds on all": 1, "holds on some": 4, "holds on none": 1, "no value": 0})
    '1 holds on every data set studied, 4 on some, 1 on none'
    >>> outside_text({"holds on all": 0, "holds on some": 2, "holds on none": 0, "no value": 1})
    '2 hold on some data sets studied, 1 no value'
    """
    parts, first = [], True
    for f in OUTSIDE_FINDINGS:
        n = found.get(f, 0)
        if not n:
            continue
        if f == "no value":
            parts.append(f"{n} no value")
            continue
        where = {"holds on all": "every data set studied", "holds on some": "some", "holds on none": "none"}[f]
        if first:
            where += " data sets studied" if f == "holds on some" else ""
            where = where if f != "holds on none" else "none of the data sets studied"
            parts.append(f"{n} {'holds' if n == 1 else 'hold'} on {where}")
            first = False
        else:
            parts.append(f"{n} on {where}")
    return ", ".join(parts)


def headline(rows: pd.DataFrame) -> str:
    """The counts in one line, *reproduced* first, each kind apart, e.g. ``"12 reproduced of 40 reproduction
    rows (...); checks counted apart: 147 data checks (141 agree, 6 no value), ...; 6 claims tested on outside data,
    counted apart (1 holds on every data set studied, 5 on some)"`` (plain text).

    Examples
    --------
    >>> import pandas as pd
    >>> rows = pd.DataFrame({"group": ["agrees", "differs (cause measured)", "data check", "data check"],
    ...                      "found": ["", "", "agree", "no value"]})
    >>> headline(rows)
    '1 reproduced of 2 reproduction rows (1 differ, with a measured mechanism); checks, counted apart: 2 data checks (1 agree, 1 no value)'
    """
    tot = totals(rows)
    n_rep = sum(tot[g] for g in REPRODUCTION_GROUPS)
    labels = {g: label.split(" (")[0] for g, label, _ in GROUPS}
    rest = [f"{tot[g]} {labels[g]}" for g in REPRODUCTION_GROUPS[1:] if tot[g]]
    line = f"{tot['agrees']} reproduced of {n_rep} reproduction rows" + (f" ({', '.join(rest)})" if rest else "")
    found = check_findings(rows)

    def one(n, label):
        return label[:-1] if n == 1 and label.endswith("checks") else label

    checks = [f"{tot[g]} {one(tot[g], labels[g])}" + (f" ({_findings_text(found[g])})" if _findings_text(found[g]) else "")
              for g in CHECK_GROUPS if tot[g]]
    o = sum(tot[g] for g in OUTSIDE_GROUPS)
    outside = (f"; {_n(o, 'claim', 'claims')} tested on outside data, counted apart ({outside_text(outside_findings(rows))})"
               if o else "")
    return line + (f"; checks, counted apart: {', '.join(checks)}" if checks else "") + outside


def _n(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def verdict_sentence(tot: dict[str, int]) -> str:
    """The report's first sentence: does it reproduce? From the counts per group of :data:`GROUPS`
    (:func:`totals`).

    The reproduction rows are the papers' claims: those compared at the papers' settings are reproduced or
    differ (with or without a measured mechanism); the others could not be compared (another setting, too few
    runs for a verdict, no workbook value). The claims tested on outside data (other data than the papers') and
    the checks are counted apart; without outside data the sentence names the checks alone.

    Examples
    --------
    >>> tot = dict.fromkeys([g for g, _, _ in GROUPS], 0)
    >>> verdict_sentence({**tot, "agrees": 3, "differs (cause measured)": 2, "not comparable": 1, "data check": 4})
    "Of the papers' 6 claims, 5 could be compared at the papers' settings: 3 are reproduced and 2 differ, each with \
its measured cause; 1 could not be compared (1 run at another setting than the paper's); 4 checks of the data, \
settings, inputs and timings are counted apart."
    >>> verdict_sentence({**tot, "agrees": 1, "outside data": 6, "timing": 2})
    "Of the papers' 1 claim, 1 could be compared at the papers' settings: 1 is reproduced and 0 differ; 6 claims \
tested on outside data and 2 checks of the data, settings, inputs and timings are counted apart."
    """
    get = lambda g: int(tot.get(g, 0))  # noqa: E731
    r, dm, du = get("agrees"), get("differs (cause measured)"), get("differs (cause not measured yet)")
    nc, few, only = get("not comparable"), get("too few runs"), get("paper only")
    n_checks, o = sum(get(g) for g in CHECK_GROUPS), sum(get(g) for g in OUTSIDE_GROUPS)
    d, n, x = dm + du, r + dm + du + nc + few + only, nc + few + only
    checks = f"{_n(n_checks, 'check', 'checks')} of the data, settings, inputs and timings {'is' if n_checks == 1 and not o else 'are'} counted apart"
    if o:
        checks = f"{_n(o, 'claim', 'claims')} tested on outside data and {checks}"
    if not n:
        return f"No claim of the papers was compared here; {checks}."
    compared = f"{r + d} could be compared at the papers' settings"
    if r + d:
        why = ("" if not d else ", each with its measured cause" if not du
               else ", none with a measured cause yet" if not dm else f" ({dm} with a measured cause, {du} not yet)")
        compared += (f": {r} {'is' if r == 1 else 'are'} reproduced and {d} {'differs' if d == 1 else 'differ'}{why}")
    rest = ""
    if x:
        parts = [p for k, p in ((nc, f"{nc} run at {'another setting' if nc == 1 else 'other settings'} than the paper's"),
                                (few, f"{few} on too few runs for a verdict"),
                                (only, f"{only} that the workbook cannot compute")) if k]
        rest = f"; {x} could not be compared ({', '.join(parts)})"
    return f"Of the papers' {_n(n, 'claim', 'claims')}, {compared}{rest}; {checks}."


#: How a notebook card counts its rows: the reproduction groups (the two "differs" groups merged), each kind of
#: check, and the rows it shares with a notebook they are counted under (``linked``): each claim counted once.
CARD_GROUPS = ("reproduced", "differ", "not comparable", "too few runs", "paper only", "data check", "setup",
               "input check", "consistency check", "timing", "outside data", "linked")


def card_counts(rows: pd.DataFrame, stem: str) -> dict[str, int]:
    """Rows of one notebook per :data:`CARD_GROUPS`: de-duplicated rows it owns (the first notebook their
    ``notebook`` lists) by group, and ``linked``: rows it wrote that another notebook owns (counted there)."""
    if rows.empty:
        return dict.fromkeys(CARD_GROUPS, 0)
    listed = pd.Series([stem in [s.strip() for s in str(n).split(",")] for n in rows["notebook"]], index=rows.index)
    owners = rows["owner"] if "owner" in rows.columns else rows["notebook"].map(owner_of)
    mine = rows[listed & (owners == stem)]
    g = mine["group"]
    out = {"reproduced": int((g == "agrees").sum()), "differ": int(g.str.startswith("differs").sum())}
    out.update({k: int((g == k).sum()) for k in CARD_GROUPS[2:-1]})
    out["linked"] = int(listed.sum() - len(mine))
    return out


def card_line(counts: dict[str, int], owners: str = "") -> str:
    """A card's line, e.g. ``"12 rows: 8 reproduced, 1 differs, 3 not comparable"`` (groups with no row left
    out); ``owners``: the notebooks its linked rows are counted under.

    Examples
    --------
    >>> card_line({"reproduced": 8, "differ": 1, "not comparable": 3, "paper only": 0})
    '12 rows: 8 reproduced, 1 differs, 3 not comparable'
    >>> card_line({"reproduced": 0, "differ": 0, "not comparable": 0, "paper only": 0})
    'no paper rows'
    >>> card_line({"reproduced": 2, "not comparable": 1, "input check": 18, "data check": 1})
    '22 rows: 2 reproduced, 1 not comparable, 1 data check, 18 input checks'
    >>> card_line({"linked": 6}, "01_data, 02_table2")
    '6 rows: 6 counted under 01_data, 02_table2 (the same claims)'
    """
    n = sum(counts.values())
    if not n:
        return "no paper rows"
    words = {"reproduced": ("reproduced",) * 2, "differ": ("differs", "differ"),
             "not comparable": ("not comparable",) * 2, "too few runs": ("too few runs",) * 2,
             "paper only": ("paper only",) * 2, "data check": ("data check", "data checks"),
             "setup": ("setup row", "setup rows"), "input check": ("input check", "input checks"),
             "consistency check": ("consistency check", "consistency checks"),
             "timing": ("timing row", "timing rows"),
             "outside data": ("claim tested on outside data", "claims tested on outside data"),
             "linked": (f"counted under {owners or 'another notebook'} (the same claim)",
                        f"counted under {owners or 'other notebooks'} (the same claims)")}
    parts = [f"{counts[k]} {words[k][counts[k] != 1]}" for k in CARD_GROUPS if counts.get(k)]
    return f"{n} row{'s' if n != 1 else ''}: " + ", ".join(parts)


def notebook_card(rows: pd.DataFrame, stem: str) -> str:
    """:func:`card_line` of one notebook, naming the notebooks its linked rows are counted under."""
    counts = card_counts(rows, stem)
    owners = ""
    if counts.get("linked"):
        owned = rows[[stem in [s.strip() for s in str(n).split(",")] for n in rows["notebook"]]]
        owners = ", ".join(sorted({o for o in owned["owner"] if o != stem}))
    return card_line(counts, owners)


# ------------------------------------------------------------------------------------------- page
_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;max-width:1200px;margin:1.5em auto;padding:0 1em;
color:#222;line-height:1.4}
h1{margin-bottom:.2em} h2{margin-top:1.6em;border-bottom:1px solid #ddd;padding-bottom:.2em}
.sub{color:#555;margin-top:0}
.totals{display:flex;gap:12px;flex-wrap:wrap;margin:1em 0}
.total{border-radius:8px;padding:6px 12px;color:#fff;flex:1;min-width:120px;font-size:.9em}
.total b{font-size:1.8em;display:block;line-height:1.1}
.lead{font-size:1.3em;margin:.6em 0 0}
.bar{display:flex;height:12px;border-radius:6px;overflow:hidden;margin:.3em 0 1em}
.thumbs{display:grid;grid-template-columns:repeat(auto-fill,minmax(180px,1fr));gap:10px}
.thumb{border:1px solid #ddd;border-radius:8px;padding:6px;text-decoration:none;color:#222;background:#fafafa;font-size:.9em}
.thumb img{width:100%;height:105px;object-fit:contain;background:#fff}
.thumb .t{font-weight:600;font-size:.95em} .thumb .r{font-size:.85em;color:#555}
.thumb.fail{background:#fdecea}
table{border-collapse:collapse;width:100%;margin:.5em 0;font-size:.92em}
td,th{border-bottom:1px solid #e5e5e5;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f4f4f4;position:sticky;top:0}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.s{display:inline-block;border-radius:4px;padding:0 6px;color:#fff;font-size:.85em;white-space:nowrap}
details{margin:.4em 0;border:1px solid #e5e5e5;border-radius:6px;padding:.3em .8em}
summary{cursor:pointer;font-weight:600}
summary .c{font-weight:400;color:#555}
.legend td{border:none;padding:2px 8px}
.muted{color:#666}
.partial{background:#fff3e0;border-left:4px solid #ef6c00;padding:.4em .8em}
.verdict{font-size:1.25em;margin:.4em 0 .6em;max-width:60em}
.headline{margin:0 0 1em} .headline img{max-width:100%;height:auto;max-height:70vh}
.headline figcaption{color:#555;font-size:.9em}
"""


def _pill(group: str, found: str = "") -> str:
    colour = {g: c for g, _, c in GROUPS}.get(group, "#999")
    label = {"differs (cause measured)": "differs", "differs (cause not measured yet)": "differs",
             "agrees": "reproduced"}.get(group, group)
    if found and isinstance(found, str):
        label += f": {found}"
    return f"<span class='s' style='background:{colour}'>{html.escape(label)}</span>"


def _nb_links(notebooks: str, available: set[str]) -> str:
    out = []
    for stem in [s.strip() for s in str(notebooks).split(",") if s.strip()]:
        out.append(f"<a href='{stem}.html'>{stem[:2]}</a>" if stem in available else html.escape(stem[:2]))
    return " ".join(out)


def _row_html(r, available: set[str], with_cause: bool, authors: bool = False) -> str:
    note = "" if pd.isna(r.get("note", "")) else str(r.get("note", ""))
    cause = "" if pd.isna(r.get("cause", "")) else str(r.get("cause", ""))
    cells = [
        f"<td>{html.escape(str(r['section']))}</td>" if with_cause else "",
        f"<td>{html.escape(str(r['item']))}" + (f"<div class='muted'>{html.escape(note)}</div>" if note else "") + "</td>",
        f"<td class='num'>{html.escape(r['paper_text'])}</td>",
        f"<td class='num'>{html.escape(str(r.get('authors_text', '')))}</td>" if authors else "",
        f"<td class='num'>{html.escape(r['workbook_text'])}</td>",
        f"<td>{_pill(r['group'], r.get('found', ''))}<div class='muted'>{html.escape(str(r.get('tolerance', '') or ''))}</div></td>",
        f"<td>{html.escape(cause)}</td>" if (with_cause or cause) else "<td></td>",
        f"<td>{_nb_links(r['notebook'], available)}</td>",
    ]
    return "<tr>" + "".join(cells) + "</tr>"


def _thumbnail(src: Path, dest: Path, width: int = 440) -> bool:
    """A small PNG copy of a figure (False when the figure is missing or unreadable)."""
    try:
        from PIL import Image

        with Image.open(src) as im:
            im = im.convert("RGB")
            if im.width > width:
                im = im.resize((width, max(1, round(im.height * width / im.width))), Image.LANCZOS)
            with atomic_path(dest) as tmp:
                im.save(tmp, format="PNG", optimize=True)
        return True
    except (OSError, ValueError):
        return False


def write_index(out: Path, figs: Path, notebooks: list[ReportNotebook], summary: pd.DataFrame, profile: str,
                settings_note: str = "", not_run: list[tuple[str, str]] | None = None) -> Path:
    """Write ``out/index.html`` (and thumbnails under ``out/thumbs/``); returns its path.

    ``not_run``: ``(stem, title)`` of the workbook's notebooks this report did not run (a partial report,
    ``tt reproduce --only``): the page names them and says its totals cover only the notebooks that ran."""
    out = Path(out)
    rows = tidy(summary)
    tot = totals(rows)
    n_rows = sum(tot.values())
    available = {nb.stem for nb in notebooks if (out / f"{nb.stem}.html").is_file()}

    # 1. totals: the reproduction rows (reproduced first), then each kind of check with what it found
    found = check_findings(rows)

    def box(g, label, c):
        extra = f": {_findings_text(found[g])}" if g in CHECK_GROUPS and _findings_text(found[g]) else ""
        if g in OUTSIDE_GROUPS and outside_text(outside_findings(rows)):
            extra = f": {outside_text(outside_findings(rows))}"
        return f"<div class='total' style='background:{c}'><b>{tot[g]}</b>{html.escape(label + extra)}</div>"

    boxes = ('<div class="totals">' + "".join(box(g, label, c) for g, label, c in GROUPS if g in REPRODUCTION_GROUPS)
             + "</div><p class='muted'>Checks, counted apart (no reproduction of a method):</p><div class=\"totals\">"
             + "".join(box(g, label, c) for g, label, c in GROUPS if g in CHECK_GROUPS) + "</div>"
             + "<p class='muted'>The papers' claims tested on outside data, counted apart (no reproduction: other data "
               "than the papers'):</p><div class=\"totals\">"
             + "".join(box(g, label, c) for g, label, c in GROUPS if g in OUTSIDE_GROUPS) + "</div>")
    n_rep = sum(tot[g] for g in REPRODUCTION_GROUPS)
    bar = "".join(f"<div style='background:{c};width:{100 * tot[g] / n_rows:.2f}%' title='{tot[g]} {html.escape(label)}'>"
                  "</div>" for g, label, c in GROUPS if n_rows and tot[g])
    # 0. the answer: one sentence and the headline figure
    verdict = f"<p class='verdict'>{html.escape(verdict_sentence(tot))}</p>"
    if any(nb.stem == HEADLINE_NOTEBOOK for nb in notebooks) and _thumbnail(figs / HEADLINE_FIGURE,
                                                                              out / "headline.png", width=900):
        verdict += ("<figure class='headline'><img src='headline.png' alt='TrimTuner against its baselines: median and "
                    f"band over seeds'><figcaption>Drawn by notebook {HEADLINE_NOTEBOOK} from its runs (step 5); the "
                    "paper's Fig. 1 in full: notebook 03.</figcaption></figure>")
    else:
        verdict += ("<p class='muted'>The headline figure (TrimTuner against its baselines over seeds) is drawn by "
                    f"notebook {HEADLINE_NOTEBOOK}; this report has none from it.</p>")
    n_ok = sum(nb.ok for nb in notebooks)
    total_s = sum(nb.seconds for nb in notebooks if math.isfinite(nb.seconds))
    total_cpu = sum(nb.cpu_seconds for nb in notebooks if math.isfinite(nb.cpu_seconds))

    # 2. thumbnails
    thumbs = []
    for nb in notebooks:
        fig = next((figs / f for f in nb.figures if (figs / f).is_file()), None)
        img = ""
        if fig is not None and _thumbnail(fig, out / "thumbs" / f"{nb.stem}.png"):
            img = f"<img src='thumbs/{nb.stem}.png' alt='{html.escape(fig.name)}'>"
        href = f"{nb.stem}.html" if nb.stem in available else f"{nb.stem}.ipynb"
        state = "" if nb.ok else " fail"
        line = ("FAILED: " + html.escape(nb.error[:160])) if not nb.ok else html.escape(notebook_card(rows, nb.stem))
        thumbs.append(f"<a class='thumb{state}' href='{href}'>{img}<div class='t'>{html.escape(nb.stem[:2])} "
                      f"{html.escape(nb.title)}</div><div class='r'>{html.escape(nb.reproduces)}</div>"
                      f"<div class='r'>{line}</div></a>")

    # 3. differences first (with a column "authors' code" when a TrimTuner-DT row carries the authors' value)
    au = has_authors(rows)
    au_th = "<th>authors' code</th>" if au else ""
    order = {g: i for i, (g, _, _) in enumerate(GROUPS)}
    diff = rows[rows["group"].isin(["differs (cause not measured yet)", "differs (cause measured)", "not comparable",
                                    "too few runs"]) | (rows["found"] == "differ")] if not rows.empty else rows
    if not diff.empty:
        paper_order = {p: i for i, p in enumerate(PAPERS.values())}
        diff = diff.assign(_o=diff["group"].map(order), _p=diff["paper_name"].map(paper_order).fillna(99)) \
            .sort_values(["_o", "_p", "section"], kind="stable")
        diff_html = ("<table><tr><th>section</th><th>item</th><th>paper</th>" + au_th + "<th>workbook</th><th>status</th>"
                     "<th>cause (evidence)</th><th>nb</th></tr>"
                     + "".join(_row_html(r, available, True, au) for _, r in diff.iterrows()) + "</table>")
    else:
        diff_html = ("<p>Every row with a workbook value agrees with the paper"
                     + (" (in the notebooks that ran).</p>" if not_run else ".</p>"))

    # 4. all rows, grouped by paper and section
    groups_html = []
    for paper, prows in rows.groupby("paper_name", sort=False) if not rows.empty else []:
        t = totals(prows)
        groups_html.append(f"<h3>{html.escape(paper)} <span class='muted'>({len(prows)} rows: {t['agrees']} reproduced)"
                           f"</span></h3>")
        for section, srows in prows.groupby("section", sort=False):
            st = totals(srows)
            n_diff = st["differs (cause measured)"] + st["differs (cause not measured yet)"]
            colours = {g: c for g, _, c in GROUPS}
            badge = (f" <span class='s' style='background:{colours['differs (cause measured)']}'>{n_diff} differ</span>"
                     if n_diff else "") + (
                f" <span class='s' style='background:{colours['not comparable']}'>{st['not comparable']} not comparable"
                "</span>" if st["not comparable"] else "")
            groups_html.append(
                f"<details><summary>{html.escape(section)} <span class='c'>{len(srows)} rows, {st['agrees']} reproduced"
                f"{', ' + str(st['paper only']) + ' paper only' if st['paper only'] else ''}</span>{badge}</summary>"
                "<table><tr><th>item</th><th>paper</th>" + au_th + "<th>workbook</th><th>status</th><th>cause</th>"
                "<th>nb</th></tr>"
                + "".join(_row_html(r, available, False, au) for _, r in srows.iterrows()) + "</table></details>")

    # legend: each agreement rule once
    rules = sorted(set(rows["tolerance"].fillna("").astype(str)) - {""}) if not rows.empty else []
    legend = []
    for rule in rules:
        kind = ("exact" if rule == "exact" else "within a factor" if rule.startswith("within a factor")
                else "within ±" if "±" in rule else "within %" if rule.endswith("%") else "")
        words = RULE_WORDS.get(kind, "")
        n = int((rows["tolerance"] == rule).sum())
        legend.append(f"<tr><td><b>{html.escape(rule)}</b></td><td>{html.escape(words)}</td><td class='muted'>{n} rows</td></tr>")

    # 5. notebooks
    nb_rows = "".join(
        f"<tr><td><a href='{nb.stem}.html'>{nb.stem}</a></td><td>{html.escape(nb.title)}</td>"
        f"<td>{html.escape(nb.reproduces)}</td><td class='num'>{nb.seconds:.0f}</td><td class='num'>{nb.cpu_seconds:.0f}</td>"
        f"<td>{'ok' if nb.ok else '<b>FAILED</b>: ' + html.escape(nb.error[:300])}</td></tr>" for nb in notebooks)

    partial = ""
    if not_run:
        names = ", ".join(f"{html.escape(s)} ({html.escape(t)})" for s, t in not_run)
        partial = (f"<p class='partial'><b>Partial report:</b> {len(notebooks)} of {len(notebooks) + len(not_run)} "
                   f"notebooks ran; the totals and rows below cover only those. Not run: {names}.</p>")
    page = f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>TrimTuner Workbook: what was reproduced ({html.escape(profile)})</title><style>{_CSS}</style></head><body>
<h1>TrimTuner Workbook: does it reproduce?</h1>
{partial}{verdict}
<p class="sub">Profile <b>{html.escape(profile)}</b>, {time.strftime('%Y-%m-%d %H:%M')}: {n_ok} of {len(notebooks)} notebooks {'in this report ' if not_run else ''}ran ({total_s / 60:.1f} min, {total_cpu / 60:.1f} min of CPU). {n_rows} paper-vs-workbook rows, each claim counted once. {html.escape(settings_note)}</p>
<p class="lead"><b>{tot['agrees']} reproduced</b> of {n_rep} reproduction rows.</p>{boxes}<div class="bar">{bar}</div>
<p class="muted">A reproduction row is <i>reproduced</i> when a method's result, computed in this run from the
authors' measurements, is within the row's stated rule of the number printed in the paper (the rules are explained
<a href="#rules">below</a>). A row that <i>differs</i> names the mechanism that was measured and its evidence file, or
counts as <i>no mechanism measured yet</i>; a row is <i>not comparable</i> when this run used another setting than the
paper (named in the row), and <i>too few runs</i> when it rests on fewer than 5 runs per compared arm.
Checks are no reproduction of a method and are counted apart, each with what it found: <i>data checks</i> (a value
read from the measurement tables: they check the data), <i>setup</i> (a setting the workbook chose itself),
<i>input checks</i> (a paper's input beside an independent source), <i>consistency checks</i> (a paper's own
arithmetic recomputed) and <i>timing</i> (times measured on this machine; <i>undetermined</i> when the interval
crosses the row's band). <i>Outside data</i> rows test a paper's claim on other data than the paper's (learning
curves of other learners and data sets): each says on how many of the data sets studied the claim holds, with its
intervals over seeds and, where it fails, the measured reason.</p>
<h2>Figures and tables, by notebook</h2><div class="thumbs">{''.join(thumbs)}</div>
<h2>Where the workbook and the papers differ</h2>{diff_html}
<h2>Every row, by paper and section</h2>{''.join(groups_html) or '<p>(no comparison tables were written)</p>'}
<h2 id="rules">Agreement rules</h2><table class="legend">{''.join(legend)}</table>
<p class="muted">The <i>paper</i> column is typed from the papers as reference; numbers are printed to the paper's
precision (at least two significant digits). Rows that two notebooks check identically are shown once.</p>
<h2>Notebooks</h2><table><tr><th>notebook</th><th>topic</th><th>reproduces</th><th>wall s</th><th>CPU s</th><th>status</th></tr>
{nb_rows}</table>
</body></html>"""
    return write_text(out / "index.html", page)
