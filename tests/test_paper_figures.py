"""The paper's figure data (tt_workbook.studies.fig1_fig2.paper_figures): found like the CSVs, absent without error."""

from __future__ import annotations

import json

import pytest

from tt_core.data import benchmarks
from tt_workbook.studies.fig1_fig2 import paper_figures as pf

needs_figures = pytest.mark.skipif(pf.locate() is None, reason="paper figure data not available")


def _tiny(path, value):
    data = {k: {"series": {}} for k in pf._KEYS.values()}
    data["fig1_accuracy_c_vs_cost"]["series"] = {"RNN": {"TT-DT": [[0.0, 0.0, True], [0.01, value, False]]}}
    data["fig2_savings_vs_trimtuner_dt"] = {"time": {"rnn": {"eic": 2.0}}, "cost": {"rnn": {"eic": 1.5}}}
    path.write_text(json.dumps(data))
    return path


def test_absent_file_gives_empty_tables(tmp_path, monkeypatch):
    monkeypatch.delenv("TT_DATA_DIR", raising=False)
    monkeypatch.setattr(benchmarks, "PROJECT_DIR", tmp_path / "wb")
    (tmp_path / "wb").mkdir()
    (tmp_path / "wb" / "pyproject.toml").write_text("")
    assert pf.locate() is None and pf.load() is None
    assert pf.paper_curves("fig1").empty and list(pf.paper_curves("fig1").columns) == pf.CURVE_COLUMNS
    assert pf.paper_fig2_bars().empty


def test_tt_data_dir_comes_first_and_explicit_path_wins(tmp_path, monkeypatch):
    d = tmp_path / "mine"
    (d / "paper_figures").mkdir(parents=True)
    _tiny(d / "paper_figures" / pf.FILE, 0.5)
    monkeypatch.setenv("TT_DATA_DIR", str(d))
    assert pf.paper_curves("fig1")["y"].tolist() == [0.0, 0.5]
    other = _tiny(tmp_path / "x.json", 0.7)
    assert pf.paper_curves("fig1", other)["y"].tolist() == [0.0, 0.7]
    assert pf.paper_fig2_bars(other).to_dict("records") == [{"benchmark": "rnn", "baseline": "eic", "time": 2.0, "cost": 1.5}]


def test_bad_files(tmp_path, monkeypatch):
    with pytest.raises(pf.PaperFiguresError, match="no such file"):
        pf.load(tmp_path / "missing.json")
    bad = tmp_path / pf.FILE
    bad.write_text("{not json")
    with pytest.raises(pf.PaperFiguresError, match="not a readable"):
        pf.load(bad)
    monkeypatch.setenv("TT_DATA_DIR", str(tmp_path))
    with pytest.warns(UserWarning, match="not shown"):
        assert pf.load() is None
    with pytest.raises(ValueError, match="unknown figure"):
        pf.paper_curves("fig9")


@needs_figures
def test_fig3_shift_puts_the_initial_design_where_fig1_draws_it():
    """Two independent drawings: Fig. 3's last initial point, shifted, is Fig. 1's TrimTuner-GP one."""
    f1 = pf.paper_curves("fig1")
    tt_gp = f1[(f1["benchmark"] == "rnn") & (f1["optimizer"] == "trimtuner-gp") & f1["initial"]]
    f3 = pf.paper_curves("fig3")
    cea = f3[f3["variant"] == "CEA"]
    assert cea["initial"].sum() == 1  # the first three initial points are left out when aligning
    assert cea["x"].iloc[0] == pytest.approx(tt_gp["x"].iloc[4], abs=5e-5)
    assert cea["y"].iloc[0] == pytest.approx(tt_gp["y"].iloc[4], abs=1e-3)
    # unaligned: the drawn values, the initial design charged in full (FABOLAS' points in Fig. 1)
    raw = pf.paper_curves("fig3", align_to_fig1=False)
    fab = f1[(f1["benchmark"] == "rnn") & (f1["optimizer"] == "fabolas") & f1["initial"]]
    assert raw[raw["variant"] == "CEA"]["x"].iloc[3] == pytest.approx(fab["x"].iloc[4], abs=5e-5)
    assert set(f1["optimizer"]) == set(pf.FIG1_METHODS.values())
