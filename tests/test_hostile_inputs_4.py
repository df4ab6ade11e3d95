"""Hostile and careless inputs, round 3, the report side (issue 34): ``tt docs results`` and ``tt summary`` on
report files of the wrong type, ``tt reproduce``'s merge of an earlier ``status.json``, what docs/results.md
may hold, ``tt summary --grep``, large ``tt runs`` grids and ``--out`` checked before any work.

Each case ends in one line ``tt: error: ...`` naming the file or option and the fix, with exit code 2 (or one
warning and the correct result); nothing is created before a refusal."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from conftest import assert_one_line_error, tt_cli
from tt_core.reporting import reproduce
from tt_core.reporting.summary import comparison


def _row(**kw) -> dict:
    return {"source": "TrimTuner Table II", "item": "feasible configurations", "paper": 10, "workbook": 10, **kw}


def _report(folder: Path, rows=None, status=None, meta=None) -> Path:
    """A ``tt reproduce`` folder: summary.csv (+ status.json and report.json when given, as text or JSON)."""
    folder.mkdir(parents=True, exist_ok=True)
    df = comparison(rows or [_row()])
    df["notebook"] = "02_table2_feasibility"
    df.to_csv(folder / "summary.csv", index=False)
    for name, value in (("status.json", status), ("report.json", meta)):
        if value is not None:
            (folder / name).write_text(value if isinstance(value, str) else json.dumps(value))
    return folder


# ============================================================== tt reproduce: an earlier status.json's entries
def test_a_malformed_earlier_status_entry_is_set_aside_and_the_new_status_kept(tmp_path):
    """An earlier entry without ``ok``, with ``seconds`` of text or a list as ``error``: once crashed
    merge_earlier after the notebook ran (KeyError/ValueError) and the new status was lost. Now it is left
    out with one warning, kept aside in status.json.malformed, and the new result and the good entries stay."""
    e = {x.stem: x for x in reproduce.NOTEBOOKS}
    earlier = [{"notebook": "01_dataset_analysis", "seconds": 5.0},                                  # no ok
               {"notebook": "02_table2_feasibility", "ok": True, "seconds": "fast"},               # text seconds
               {"notebook": "03_fig1_accuracy_vs_cost", "ok": "yes", "seconds": 1.0},              # ok not a bool
               {"notebook": "04_fig2_savings", "ok": True, "seconds": 2.0, "error": ["x"]},         # error a list
               {"notebook": "05_fig3_filters", "ok": True, "seconds": 4.0, "cpu_seconds": 6.0, "error": ""}]
    (tmp_path / "status.json").write_text(json.dumps(earlier))
    for d in earlier:
        (tmp_path / f"{d['notebook']}.ipynb").write_text("{}")
    now = [reproduce.NotebookResult(e["09_nephele_optimizer"], True, 50.0, "", 95.0)]
    with pytest.warns(UserWarning, match="malformed") as caught:
        merged = reproduce.merge_earlier(tmp_path, now)
    assert [(r.entry.stem, r.ok, r.seconds) for r in merged] == [("05_fig3_filters", True, 4.0),
                                                                  ("09_nephele_optimizer", True, 50.0)]
    msg = str(caught[0].message)
    for stem in ("01_dataset_analysis", "02_table2_feasibility", "03_fig1_accuracy_vs_cost", "04_fig2_savings"):
        assert stem in msg
    assert "status.json.malformed" in msg and "tt reproduce --only" in msg
    assert json.loads((tmp_path / "status.json.malformed").read_text()) == earlier[:4]
    reproduce.write_status(tmp_path, merged)                       # what run() does next: the new status is there
    with warnings.catch_warnings():
        warnings.simplefilter("error")                                # and the next merge reads it without a warning
        again = reproduce.merge_earlier(tmp_path, [])
    assert [r.entry.stem for r in again] == ["05_fig3_filters"]   # 09's executed copy is not in the folder


def test_an_earlier_status_json_of_the_wrong_type_is_no_crash(tmp_path):
    """A list of strings, a dict, numbers: no entry is kept, the new results are."""
    e = {x.stem: x for x in reproduce.NOTEBOOKS}
    now = [reproduce.NotebookResult(e["01_dataset_analysis"], True, 1.0, "", 1.0)]
    for text in ('["01_dataset_analysis"]', '{"notebook": "02_table2_feasibility"}', "42", '"x"', "[1, null, []]"):
        (tmp_path / "status.json").write_text(text)
        assert [r.entry.stem for r in reproduce.merge_earlier(tmp_path, now)] == ["01_dataset_analysis"]


def test_an_unknown_only_creates_no_folder(tmp_path, capsys):
    """`tt reproduce --only zz --out new`: refused before the run folder (or the figures folder) exists."""
    out, figs = tmp_path / "new" / "run", tmp_path / "figs"
    code, err = tt_cli(capsys, "reproduce", "--only", "zz", "--out", str(out), "--figures", str(figs))
    assert_one_line_error(code, err, "no notebook matches ['zz']")
    assert not (tmp_path / "new").exists() and not figs.exists()
