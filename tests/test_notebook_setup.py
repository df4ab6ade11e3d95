"""The notebooks' shared setup (tt_workbook.apps.notebook.notebook_setup)."""

from __future__ import annotations

import pandas as pd
import pytest

from tt_workbook.apps.notebook import notebook_setup


def test_setup_makes_the_folder_and_reads_the_study(tmp_path):
    with pd.option_context("display.precision", 6, "display.width", 80):
        nb = notebook_setup(tmp_path / "a" / "figures", "quick", "fig3", smoke=True, n_jobs=2, precision=4, width=120)
        assert pd.get_option("display.precision") == 4 and pd.get_option("display.width") == 120
    assert nb.out.is_dir() and nb.out == tmp_path / "a" / "figures"
    # the smoke profile's Fig. 3 plan: TrimTuner-DT, seed 1, 6 tests, one worker fixed by the profile
    assert nb.settings["plan"] == {"trimtuner-dt": {"seeds": [1], "iterations": 6}}
    assert nb.n_jobs == 1 and nb.label == "quick profile, smoke"
    table = nb.settings_table.set_index("setting")
    assert table.loc["runs per filter", "this run (smoke profile)"] == "1 (seed 1)"


def test_the_notebooks_n_jobs_stands_where_the_profile_leaves_it_open(tmp_path):
    nb = notebook_setup(tmp_path, "quick", "fig4", n_jobs=3)  # the quick profile's fig4 n_jobs is None
    assert nb.n_jobs == 3 and nb.settings["betas"] == [0.01, 0.1, 0.2, 0.5, 1.0] and nb.label == "quick profile"


def test_without_a_study_no_settings(tmp_path):
    nb = notebook_setup(tmp_path, "quick")
    assert nb.settings == {} and nb.settings_table is None and nb.n_jobs == 1


def test_a_study_without_a_settings_table(tmp_path):
    nb = notebook_setup(tmp_path, "quick", "authors")
    assert nb.settings["benchmarks"] == ["cnn", "rnn"] and nb.settings_table is None


@pytest.mark.parametrize("profile, study, needle", [("quik", "fig3", "profile"), ("quick", "fig9", "fig9")])
def test_unknown_profile_or_study_is_named(tmp_path, profile, study, needle):
    with pytest.raises(ValueError, match=needle):
        notebook_setup(tmp_path, profile, study)
