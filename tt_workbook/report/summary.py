"""'Paper vs. this workbook' comparison records.

Every notebook that reproduces a number of a paper builds a small table with one row per item:
the paper's value (reference only, typed from the paper) next to the value the code computed, and
saves it with :func:`save_comparison`. ``tt reproduce`` collects these files into the report's
summary table.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

import pandas as pd

from tt_core.data.io import write_csv

COLUMNS = ["source", "item", "paper", "workbook", "authors", "agrees", "status", "cause", "side", "note", "tolerance"]
# ``authors``: the value of the authors' public code for a TrimTuner-DT row (tt_workbook.authors.oracle);
# ``side``: which side a difference from the paper is on (:func:`side_of`). A table written before these
# columns existed gets them empty (:func:`_complete`).

#: The statuses a row can have (``status`` column).
#: A *reproduction* row is a method's result computed here beside the paper's: ``agrees``: within the row's
#: tolerance (the row is *reproduced*); ``differs``: outside it, ``cause`` names the measured mechanism and its
#: evidence (:func:`names_mechanism`), or says that none has been measured yet; ``not comparable``: the
#: workbook's number comes from a setting that differs from the paper's, named in ``cause``; ``too few runs``:
#: computed from fewer than :data:`MIN_RUNS_PER_ARM` runs per compared arm, so its agreement or difference is
#: no verdict (``agrees`` still records it); ``paper only``: no workbook value.
#: The other kinds of row are no reproduction and are counted apart (:data:`CHECKS`), each still recording in
#: ``agrees`` whether it matches: ``data check``: a value read (counted, filtered) from the measurement tables,
#: which checks the data, not a method; ``setup``: a setting the workbook chose itself (e.g. its number of
#: initial tests); ``input check``: one of the paper's inputs (e.g. an instance's price) beside an independent
#: source of the same quantity; ``consistency check``: the paper's own arithmetic recomputed from its own
#: numbers; ``timing``: a time measured on this machine (``agrees`` None: undetermined, its interval crosses
#: the row's band); ``outside data``: one of the papers' claims tested on other data than the papers' (notebook 17: LCDB
#: learning curves), ``paper`` the number of data sets studied (the claim, as a general one, says it holds on all),
#: ``workbook`` the number where it holds (:func:`outside_outcome`).
STATUSES = ("agrees", "differs", "not comparable", "too few runs", "paper only", "data check", "setup", "input check",
            "consistency check", "timing", "outside data")
#: The statuses of reproduction rows (kind :data:`REPRODUCTION`).
REPRODUCTION_STATUSES = ("agrees", "differs", "not comparable", "too few runs", "paper only")
#: Row kind (``check`` key of :func:`comparison`) -> status.
CHECKS = {"data": "data check", "setup": "setup", "input": "input check", "consistency": "consistency check",
          "timing": "timing", "outside": "outside data"}
#: The row kind of a claim tested on outside data: counted apart from reproductions and from the other checks.
OUTSIDE = "outside"
#: The kind of a row that is no check: an independent computation of a method's result.
REPRODUCTION = "reproduction"
#: Below this many runs per compared arm (e.g. per beta level) a row's agreement is no verdict: ``too few runs``.
MIN_RUNS_PER_ARM = 5
#: Notebooks whose rows repeat other notebooks' rows (the tour recounts notebook 01-02's search space): a row
#: they share with another notebook is counted under that notebook (:func:`deduplicate`, :func:`owner_of`).
LINKING_NOTEBOOKS = ("00_tour",)
NO_CAUSE_YET = "cause not measured yet"

#: The sides a TrimTuner-DT row's difference from the paper can be on (``side`` column, :func:`side_of`).
SIDE_WORKBOOK = "a deviation of the workbook from the authors' code"
SIDE_BOTH = "the authors' public code does not produce the paper's value either"
SIDE_UNDETERMINED = "undetermined"
SIDE_OURS = "ours (a measured mechanism of this workbook's code)"


def _key_value(v) -> str:
    """A row value as a de-duplication key: numbers to 12 significant digits, anything else as text."""
    if v is None or isinstance(v, bool):
        return str(v)
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    if isinstance(v, str) and v.strip() in ("True", "False"):
        return v.strip()
    return "nan" if math.isnan(f) else f"{f:.12g}"


def deduplicate(df: pd.DataFrame) -> pd.DataFrame:
    """The rows with duplicates dropped: rows with the same source, item, paper and workbook value,
    written by several notebooks (the same item checked twice), are kept once, with every notebook
    that wrote it listed in ``notebook`` (comma-separated), its owner first (:func:`owner_of`: a notebook of
    :data:`LINKING_NOTEBOOKS` owns a row only when no other notebook wrote it). ``tt summary`` and the report
    count these: each claim once."""
    if df.empty:
        return df
    df = df.copy()
    if "notebook" not in df.columns:
        df["notebook"] = ""
    df["notebook"] = df["notebook"].fillna("").astype(str)
    # a linking notebook's copy of a row goes last: the row kept, and the first notebook listed, is its owner's
    df = df.assign(_link=df["notebook"].isin(LINKING_NOTEBOOKS)).sort_values("_link", kind="stable").drop(columns="_link")
    df["_k"] = list(zip(df["source"].astype(str), df["item"].astype(str), df["paper"].map(_key_value),
                        df["workbook"].map(_key_value)))
    notebooks = df.groupby("_k", sort=False)["notebook"].agg(lambda s: ", ".join(dict.fromkeys(x for x in s if x)))
    df = df.drop_duplicates("_k").copy()
    df["notebook"] = df["_k"].map(notebooks)
    return df.drop(columns="_k").reset_index(drop=True)


def owner_of(notebooks) -> str:
    """The notebook a de-duplicated row is counted under: the first of its ``notebook`` list (""), which
    :func:`deduplicate` makes a notebook that is not a linking one whenever there is one."""
    names = [n.strip() for n in str(notebooks or "").split(",") if n.strip()]
    return names[0] if names else ""


def agree(paper, workbook, rel_tol: float = 0.0, abs_tol: float = 0.0, factor: float | None = None) -> bool | None:
    """Whether a computed value matches the paper's (None when either side is missing).

    ``factor``: agree when both are positive and within that multiplicative factor of each other
    (e.g. 2: between half and double), for quantities whose magnitude depends on the machine or seeds."""
    if paper is None or workbook is None:
        return None
    try:
        p, w = float(paper), float(workbook)
    except (TypeError, ValueError):
        return str(paper) == str(workbook)
    if math.isnan(p) or math.isnan(w):
        return None
    if factor is not None:
        if factor < 1:
            raise ValueError(f"factor must be >= 1, got {factor}")
        return p > 0 and w > 0 and max(p / w, w / p) <= factor
    return math.isclose(p, w, rel_tol=rel_tol, abs_tol=abs_tol)


def tolerance_text(rel_tol: float = 0.0, abs_tol: float = 0.0, factor: float | None = None) -> str:
    """The agreement rule of a row, in words (the report explains each rule once).

    Examples
    --------
    >>> tolerance_text(), tolerance_text(abs_tol=0.0005), tolerance_text(rel_tol=0.1), tolerance_text(factor=2)
    ('exact', 'within ±0.0005', 'within 10%', 'within a factor of 2')
    """
    if factor is not None:
        return f"within a factor of {factor:g}"
    parts = []
    if abs_tol:
        parts.append(f"±{abs_tol:g}")
    if rel_tol:
        parts.append(f"{100 * rel_tol:g}%")
    return "within " + " or ".join(parts) if parts else "exact"


def as_timing(row: dict) -> dict:
    """``row`` as a *timing* row: its workbook value rests on seconds measured on this machine (wall or CPU
    time), so it is counted apart from reproductions and may differ from one machine, load or run to the next.
    A setting that differs from the paper's, and fewer than :data:`MIN_RUNS_PER_ARM` runs behind the value, move
    to the note (a check has neither a "not comparable" nor a "too few runs" status). A row without a workbook
    value measured nothing: it is left as it is (its own status says why)."""
    w = row.get("workbook")
    if w is None or (isinstance(w, float) and math.isnan(w)):
        return row
    row = dict(row)
    other = row.pop("not_comparable", "")
    runs = row.get("runs_per_arm")
    few = (f"{int(runs)} runs per arm" if runs is not None and not (isinstance(runs, float) and math.isnan(runs))
           and int(runs) < MIN_RUNS_PER_ARM else "")
    extra = [x for x in (str(row.get("note") or ""), f"another setting: {other}" if other else "", few) if x]
    if extra:
        row["note"] = "; ".join(extra)
    row["check"] = "timing"
    return row


def status_of(agrees, cause: str = "", not_comparable: str = "", check: str = "",
              runs_per_arm: int | None = None) -> tuple[str, str]:
    """``(status, cause)`` of a row from its computed agreement and what the notebook measured.

    ``check`` (a key of :data:`CHECKS`) makes the row a check of that kind whatever its agreement (which the
    row still records). ``runs_per_arm`` below :data:`MIN_RUNS_PER_ARM` makes a reproduction row that agrees or
    differs ``too few runs``: neither its agreement nor its difference is a verdict (a setting that differs is
    added to the cause); a row without a workbook value keeps its status. ``not_comparable`` (the setting that
    differs from the paper's) takes precedence over agreement: a number computed under another setting neither
    agrees nor differs. A disagreeing row without a ``cause``
    says so (:data:`NO_CAUSE_YET`) instead of staying silent."""
    if check:
        if check not in CHECKS:
            raise ValueError(f"unknown row kind {check!r}; known: {list(CHECKS)}")
        return CHECKS[check], str(cause or "")
    has_verdict = not (agrees is None or (isinstance(agrees, float) and math.isnan(agrees)))
    if has_verdict and runs_per_arm is not None and not (isinstance(runs_per_arm, float) and math.isnan(runs_per_arm)) \
            and int(runs_per_arm) < MIN_RUNS_PER_ARM:
        text = (f"{int(runs_per_arm)} runs per arm: a verdict needs at least {MIN_RUNS_PER_ARM} (with fewer, a test "
                "finds no significant difference almost whatever the truth, and an ordering of means rests on a "
                "handful of runs)")
        extra = "; ".join(x for x in (f"another setting too: {not_comparable}" if not_comparable else "",
                                      str(cause or "")) if x)
        return "too few runs", text + (f"; {extra}" if extra else "")
    if not_comparable:
        return "not comparable", str(not_comparable)
    if agrees is None or (isinstance(agrees, float) and math.isnan(agrees)):
        return "paper only", str(cause or "")
    if agrees in (True, "True"):
        return "agrees", str(cause or "")
    return "differs", str(cause or NO_CAUSE_YET)


def runs_by_arm(runs: pd.DataFrame, by, seed: str = "seed") -> dict:
    """``arm -> number of runs``: the distinct ``seed`` values of each group of ``runs`` by ``by`` (a column, or a
    list of columns: the keys are then tuples), counted from the runs a row is computed from, never typed.

    Examples
    --------
    >>> t = pd.DataFrame({"optimizer": ["a", "a", "a", "b"], "seed": [1, 1, 2, 1]})
    >>> runs_by_arm(t, "optimizer")
    {'a': 2, 'b': 1}
    """
    if runs is None or len(runs) == 0:
        return {}
    counts = runs.groupby(by, sort=False)[seed].nunique()
    return {k: int(v) for k, v in counts.items()}


def fewest_runs(counts: dict | int | None, arms) -> int | None:
    """The fewest runs behind the compared ``arms`` (keys of a :func:`runs_by_arm` dict; an arm without runs
    counts 0), the ``runs_per_arm`` of a row; ``counts`` an int: that number for every arm; None: not known.

    Examples
    --------
    >>> fewest_runs({"a": 5, "b": 3}, ["a", "b"]), fewest_runs({"a": 5}, ["a", "c"]), fewest_runs(7, ["a"])
    (3, 0, 7)
    """
    if counts is None:
        return None
    if isinstance(counts, (int, float)) and not isinstance(counts, bool):
        return int(counts)
    arms = list(arms)
    return min(int(counts.get(a, 0)) for a in arms) if arms else None


def kind_of(status: str) -> str:
    """The kind of a row from its status: :data:`REPRODUCTION` or a key of :data:`CHECKS`.

    Examples
    --------
    >>> kind_of("agrees"), kind_of("too few runs"), kind_of("data check"), kind_of("outside data")
    ('reproduction', 'reproduction', 'data', 'outside')
    """
    for key, st in CHECKS.items():
        if status == st:
            return key
    return REPRODUCTION


def check_outcome(agrees, workbook=None) -> str:
    """What a check row found: ``"agree"``, ``"differ"``, ``"undetermined"`` (a value whose agreement could not
    be decided, e.g. a timing interval across its band) or ``"no value"`` (no workbook value).

    Examples
    --------
    >>> check_outcome(True), check_outcome("False"), check_outcome(None, 1.3), check_outcome(float("nan"))
    ('agree', 'differ', 'undetermined', 'no value')
    """
    if agrees in (True, "True"):
        return "agree"
    if agrees in (False, "False"):
        return "differ"
    missing = workbook is None or (isinstance(workbook, float) and math.isnan(workbook)) or str(workbook) == ""
    return "no value" if missing else "undetermined"


#: What an outside-data row found (:func:`outside_outcome`), in the order counted.
OUTSIDE_FINDINGS = ("holds on all", "holds on some", "holds on none", "no value")


def outside_outcome(paper, workbook) -> str:
    """What an *outside data* row found: on how many of the ``paper`` data sets studied the claim holds
    (``workbook``): ``"holds on all"``, ``"holds on some"``, ``"holds on none"`` or ``"no value"`` (no count, or
    no data set studied).

    Examples
    --------
    >>> outside_outcome(3, 3), outside_outcome(3, 1), outside_outcome(3, 0), outside_outcome(None, None)
    ('holds on all', 'holds on some', 'holds on none', 'no value')
    """
    try:
        n, k = float(paper), float(workbook)
    except (TypeError, ValueError):
        return "no value"
    if math.isnan(n) or math.isnan(k) or n <= 0:
        return "no value"
    return "holds on all" if k >= n else "holds on none" if k <= 0 else "holds on some"


#: Words that make a cause a mechanism (how the difference arises), not only a label or a pointer to a file.
_MECHANISM_WORDS = re.compile(
    r"\b(because|so|since|hence|thus|therefore|which|whose|while|until|when|where|only|instead|rather|than|"
    r"makes?|gives?|gave|decides?|favou?rs?|means|leads?|drives?|needs?|buys|charges?|costs?|pays?|spends?|"
    r"returns?|computes?|maximises?|evaluates?|draws?|picks?|chooses|runs?|tests?|keeps?|sit|ties?|bring|reach|"
    r"break|falls?|divides?|outrank|exceeds?|uses?|depends?|implies|imply|moves?)\b", re.I)
#: An evidence reference: a file the notebooks write (a CSV, a figure) or a notebook's table or section.
_EVIDENCE = re.compile(r"[\w\-/.]+\.(?:csv|png|json)\b|\bnotebook \d\d\b|\btable '[^']+' of notebook\b", re.I)


def names_mechanism(cause) -> tuple[bool, str]:
    """Whether a differing row's ``cause`` is a measured mechanism with its evidence: ``(ok, why not)``.

    A cause must (1) name its evidence: a file the notebooks write (``*.csv``, ``*.png``, ``*.json``) or a
    notebook's table or section ("table 'time' of notebook 16"); (2) hold, outside that reference and its
    parentheses, a sentence of at least eight words that says how the difference arises (a verb of a mechanism:
    *gives*, *costs*, *draws ... until*, *so*, *because*, ...), not a label ("the measurements' costs") or a
    pointer alone ("measured in x.csv (cost columns)"). :data:`NO_CAUSE_YET` and an empty cause name none.

    Examples
    --------
    >>> names_mechanism("measured in spottune_fig7_revpred.csv (cost columns)")[0]
    False
    >>> names_mechanism("the initial sampling draws until $5 is spent, so $5 buys 24 tests (budget.csv)")[0]
    True
    """
    text = "" if cause is None or (isinstance(cause, float) and math.isnan(cause)) else str(cause).strip()
    if not text or text == NO_CAUSE_YET:
        return False, "no cause"
    if not _EVIDENCE.search(text):
        return False, "no evidence file or notebook section named"
    rest = _EVIDENCE.sub(" ", text)
    while re.search(r"\([^()]*\)", rest):
        rest = re.sub(r"\([^()]*\)", " ", rest)
    words = re.findall(r"[A-Za-z][A-Za-z'\-]*", rest)
    if len(words) < 8:
        return False, "only a pointer or a label: no sentence beside the evidence"
    if not _MECHANISM_WORDS.search(rest):
        return False, "no mechanism: the text says what differs, not how it arises"
    return True, ""


def side_of(agrees, authors_agrees, workbook_matches_authors=None, deviation: str = "", outside: str = "",
            missing: str = "", ours: str = "") -> str:
    """Which side the difference of a TrimTuner-DT row from the paper is on, from the numbers.

    ``agrees``: the workbook's value against the paper's (the row's rule); ``authors_agrees``: the value of the
    authors' public code against the paper's under the same rule (None: no value); ``workbook_matches_authors``:
    the workbook's value against the authors' code's, same rule. ``deviation`` names what the workbook does
    differently from the authors' code; ``outside`` names a part of the row the authors' repository does not
    hold (e.g. "EIc is not in the authors' repository"): the authors' value then mixes their code with the
    workbook's: shown, it decides no side. ``missing``: why there is no value of
    the authors' code. ``""`` when the workbook's value does not differ from the paper's.

    * part of the row is outside the authors' code (``outside``), or there is no value of it:
      :data:`SIDE_UNDETERMINED`, whatever the mixed value gives (a side is assigned only from like-for-like
      values: the same quantity from the workbook and from the authors' code);
    * the authors' code gives the paper's value and the workbook does not: :data:`SIDE_WORKBOOK`, named;
    * neither gives it, and the row is entirely the authors' code: :data:`SIDE_BOTH`.
    """
    if agrees not in (False, "False"):
        return ""
    if ours:
        return f"{SIDE_OURS}: {ours}"
    if authors_agrees is None:
        return f"{SIDE_UNDETERMINED}: " + (missing or outside or "no value of the authors' code")
    if outside:  # a side is assigned only from like-for-like values
        gives = "gives" if authors_agrees in (True, "True") else "does not give"
        return (f"{SIDE_UNDETERMINED}: {outside}; a value that mixes the workbook's code with the authors' decides "
                f"no side (the mixed value {gives} the paper's value)")
    if authors_agrees in (True, "True"):
        return f"{SIDE_WORKBOOK}: {deviation or 'not named yet'}"
    if workbook_matches_authors in (True, "True"):
        return f"{SIDE_BOTH} (the workbook's value agrees with it)"
    return f"{SIDE_BOTH}; the workbook differs from it too" + (f" ({deviation})" if deviation else "")


def comparison(rows: list[dict]) -> pd.DataFrame:
    """Build a comparison table from dicts with keys ``source, item, paper, workbook`` and optional
    ``rel_tol``, ``abs_tol``, ``factor``, ``note``, ``cause`` (the measured cause of a difference,
    naming the figure/table that shows the evidence), ``not_comparable`` (the setting that differs
    from the paper's), ``check`` (a key of :data:`CHECKS`: a row that is no reproduction) and ``runs_per_arm``
    (the fewest runs behind one compared arm: below :data:`MIN_RUNS_PER_ARM` the row is ``too few runs``).
    ``agrees`` and ``status`` are computed; only a check row may give its agreement itself, as ``agrees`` or
    ``verdict`` (e.g. a timing row read from an interval: None when the interval crosses its band, undetermined).

    A TrimTuner-DT row carries the key ``authors``: the same quantity from the authors' public code (None when
    there is none), with optional ``deviation``, ``outside``, ``missing`` and ``ours`` (:func:`side_of`); its
    ``side`` is computed from the three values under the row's rule. Rows without the key have an empty ``side``."""
    out = []
    for r in rows:
        tol = (r.get("rel_tol", 0.0), r.get("abs_tol", 0.0), r.get("factor"))
        agrees = agree(r.get("paper"), r.get("workbook"), *tol)
        given = [k for k in ("agrees", "verdict") if k in r]
        if given:
            if not r.get("check"):
                raise ValueError(f"row {r['item']!r}: only a check row may give its own agreement ({given[0]}); "
                                 "a reproduction row's is computed from its values")
            v = r[given[0]]
            agrees = None if v is None or (isinstance(v, float) and math.isnan(v)) else v in (True, "True")
        status, cause = status_of(agrees, r.get("cause", ""), r.get("not_comparable", ""), r.get("check", ""),
                                  r.get("runs_per_arm"))
        side = ""
        if "authors" in r and status != "too few runs":
            side = side_of(agrees, agree(r.get("paper"), r["authors"], *tol), agree(r["authors"], r.get("workbook"), *tol),
                           r.get("deviation", ""), r.get("outside", ""), r.get("missing", ""), r.get("ours", ""))
        out.append({
            "source": r["source"], "item": r["item"], "paper": r.get("paper"), "workbook": r.get("workbook"),
            "authors": r.get("authors"), "agrees": agrees, "status": status, "cause": cause, "side": side,
            "note": r.get("note", ""),
            "tolerance": tolerance_text(r.get("rel_tol", 0.0), r.get("abs_tol", 0.0), r.get("factor")),
        })
    return pd.DataFrame(out, columns=COLUMNS)


def _complete(df: pd.DataFrame) -> pd.DataFrame:
    """Add ``status``/``cause`` to a table written before they existed (or built by hand)."""
    df = df.copy()
    if "cause" not in df.columns:
        df["cause"] = ""
    df["cause"] = df["cause"].astype(object).fillna("").astype(str)
    if "authors" not in df.columns:
        df["authors"] = None
    for col in ("note", "tolerance", "side"):
        if col not in df.columns:
            df[col] = ""
    if "status" not in df.columns or df["status"].isna().any():
        given = df["status"] if "status" in df.columns else pd.Series([None] * len(df), index=df.index)
        computed = [status_of(a, c) for a, c in zip(df["agrees"], df["cause"])]
        df["status"] = [g if isinstance(g, str) and g else s for g, (s, _) in zip(given, computed)]
        df["cause"] = [c if c else cc for c, (_, cc) in zip(df["cause"], computed)]
    df["note"] = df["note"].astype(object).fillna("")
    df["tolerance"] = df["tolerance"].astype(object).fillna("")
    df["side"] = df["side"].astype(object).fillna("").astype(str)
    return df[COLUMNS + [c for c in df.columns if c not in COLUMNS]]


def save_comparison(df: pd.DataFrame, name: str, figures_dir: str | Path) -> Path:
    """Write ``figures_dir/summary_<name>.csv`` atomically."""
    df = _complete(df) if "agrees" in df.columns else df
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"comparison table lacks columns {missing}; build it with tt_workbook.report.summary.comparison")
    return write_csv(df[COLUMNS], Path(figures_dir) / f"summary_{name}.csv")


def summary_files(figures_dir: str | Path) -> dict[str, Path]:
    """``notebook -> summary_<notebook>.csv`` of every summary under a folder, sorted by notebook name."""
    return {f.stem.removeprefix("summary_"): f for f in sorted(Path(figures_dir).glob("summary_*.csv"))}


#: The columns every summary table holds (a table written before ``status`` existed has ``agrees`` instead);
#: the others are added empty when missing (:func:`_complete`).
REQUIRED_COLUMNS = ("source", "item", "paper", "workbook")
#: A summary table larger than this is no table a notebook writes (the largest holds a few hundred rows).
MAX_SUMMARY_BYTES = 64 * 2**20


def read_summary(path: str | Path, fix: str) -> pd.DataFrame:
    """One summary table (a notebook's ``summary_<notebook>.csv`` or a report's ``summary.csv``), checked: a
    regular file (never blocks on a FIFO) of at most :data:`MAX_SUMMARY_BYTES`, readable as CSV, with the
    :data:`REQUIRED_COLUMNS` and ``status`` (or ``agrees``), every status one of :data:`STATUSES`; ``source``,
    ``item``, ``cause`` and ``note`` as text. Otherwise a ValueError of one line naming the file (and the line, as
    a text editor counts it, of a bad status), what is wrong and ``fix``."""
    from tt_core.data.io import open_regular

    with open_regular(path, "summary table", fix=fix) as f:
        size = os.fstat(f.fileno()).st_size
        if size > MAX_SUMMARY_BYTES:
            raise ValueError(f"summary table {path} holds {size / 2**20:.0f} MB, more than any notebook writes "
                             f"({MAX_SUMMARY_BYTES // 2**20} MB at most); {fix}")
        try:
            df = pd.read_csv(f, keep_default_na=False, na_values=[""], skip_blank_lines=False)
        except (ValueError, pd.errors.ParserError) as exc:  # empty, unbalanced quotes, not UTF-8, ...
            why = " ".join(str(exc).split())[:200]
            raise ValueError(f"summary table {path} cannot be read as CSV ({why}); {fix}") from None
    df = df[~df.isna().all(axis=1)] if len(df.columns) else df  # blank lines: kept in the index, so line = index + 2
    missing = [c for c in REQUIRED_COLUMNS if c not in df.columns]
    if "status" not in df.columns and "agrees" not in df.columns:
        missing.append("status")
    if missing:
        has = ", ".join(map(str, df.columns[:8])) + (", ..." if len(df.columns) > 8 else "")
        raise ValueError(f"summary table {path} lacks the column{'s' if len(missing) > 1 else ''} "
                         f"{', '.join(missing)} (it has {has or 'none'}): it is no table a notebook writes; {fix}")
    if "status" in df.columns:
        for i, v in df["status"].items():
            if not (v is None or (isinstance(v, float) and math.isnan(v)) or v in STATUSES):
                raise ValueError(f"summary table {path}, line {int(i) + 2}: status {str(v)[:60]!r} is none of "
                                 f"{', '.join(STATUSES)}; {fix}")
    df = df.reset_index(drop=True)
    for col in ("source", "item", "cause", "note"):
        if col in df.columns:
            df[col] = df[col].astype(object).where(df[col].notna(), "").astype(str)
    return df


def collect(figures_dir: str | Path, skip_bad: bool = False) -> pd.DataFrame:
    """All ``summary_*.csv`` under a folder, concatenated (empty table if none), with a ``notebook``
    column: the notebook that wrote each row (from the file name ``summary_<notebook>.csv``). A file that is
    no summary table (:func:`read_summary`) is a ValueError naming it and how to rewrite it; with ``skip_bad``
    (``tt reproduce``'s report, after hours of notebooks) a warning with the same words, and its rows left out."""
    import warnings

    files = summary_files(figures_dir)
    if not files:
        return pd.DataFrame(columns=COLUMNS + ["notebook"])
    frames = []
    for notebook, f in files.items():
        try:
            df = read_summary(f, fix=f"delete it, or run its notebook again (tt reproduce --only {notebook[:2]})")
        except ValueError as exc:
            if not skip_bad:
                raise
            warnings.warn(f"{exc} (its rows are left out of the report)", stacklevel=2)
            continue
        df["notebook"] = notebook
        frames.append(df)
    if not frames:
        return pd.DataFrame(columns=COLUMNS + ["notebook"])
    return _complete(pd.concat(frames, ignore_index=True))


def to_markdown(df: pd.DataFrame, digits: int = 4) -> str:
    """A comparison table as GitHub markdown (for the README)."""
    def fmt(v):
        if v is None or (isinstance(v, float) and math.isnan(v)):
            return ""
        if isinstance(v, str) and v not in ("True", "False"):
            try:
                v = float(v)
            except ValueError:
                return v
        if isinstance(v, float):
            return f"{v:.{digits}g}"
        return str(v)

    df = _complete(df)
    if not has_authors(df):
        lines = ["| source | item | paper | this workbook | status | cause |", "| --- | --- | --- | --- | --- | --- |"]
        for _, r in df.iterrows():
            lines.append(f"| {r['source']} | {r['item']} | {fmt(r['paper'])} | {fmt(r['workbook'])} | {r['status']} "
                         f"| {r['cause']} |")
        return "\n".join(lines)
    lines = ["| source | item | paper | authors' code | this workbook | status | cause |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for _, r in df.iterrows():
        lines.append(f"| {r['source']} | {r['item']} | {fmt(r['paper'])} | {fmt(r['authors'])} | {fmt(r['workbook'])} "
                     f"| {r['status']} | {with_side(r['cause'], r['side'])} |")
    return "\n".join(lines)


def has_authors(df: pd.DataFrame) -> bool:
    """Whether any row carries a value of the authors' code or a side (then tables show that column)."""
    if df.empty:
        return False
    vals = df["authors"] if "authors" in df.columns else pd.Series(dtype=object)
    sides = df["side"] if "side" in df.columns else pd.Series(dtype=object)
    present = [v is not None and not (isinstance(v, float) and math.isnan(v)) and str(v) != "" for v in vals]
    return any(present) or bool(sides.fillna("").astype(str).ne("").any())


def with_side(cause, side) -> str:
    """A row's cause restated with the side its difference is on (``"side: <side>. <cause>"``)."""
    cause = "" if cause is None or (isinstance(cause, float) and math.isnan(cause)) else str(cause)
    side = "" if side is None or (isinstance(side, float) and math.isnan(side)) else str(side)
    if not side:
        return cause
    return f"side: {side}" + (f". {cause}" if cause else "")
