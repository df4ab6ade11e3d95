"""The paper profile runs the paper's setup; every notebook's settings table shows where a profile differs."""

from __future__ import annotations

import pytest

from tt_workbook.runs import profiles
from tt_workbook.runs.store import profile_specs
from tt_workbook.runs.settings import settings_table


def test_paper_profile_is_the_papers_setup():
    # TrimTuner §IV: six optimisers, both public networks, 10 runs of 44 tests
    specs = profile_specs("paper")
    assert {s.optimizer for s in specs} == {"trimtuner-dt", "trimtuner-gp", "fabolas", "eic", "eic-usd", "random"}
    assert {s.benchmark for s in specs} == {"rnn", "cnn"}
    assert {s.seed for s in specs} == set(range(1, 11)) and {s.iterations for s in specs} == {44}
    # §IV-B: Fig. 3 with TrimTuner-GP only (RNN, beta 10%, 10 runs); Fig. 4 with TrimTuner-DT on the RNN
    fig3 = profiles.settings("paper", "fig3")["plan"]
    assert list(fig3) == ["trimtuner-gp"] and fig3["trimtuner-gp"]["seeds"] == list(range(1, 11))
    fig4 = profiles.settings("paper", "fig4")
    assert fig4["networks"] == ["rnn"] and fig4["betas"] == [0.01, 0.1, 0.2, 0.5, 1.0]
    assert fig4["seeds"] == list(range(1, 11))
    # issue 13: Fig. 2's readings with bootstrap intervals over at least 20 seeds (Fig. 1's 10 among them)
    fig2 = profiles.settings("paper", "fig2")
    assert len(fig2["readings_seeds"]) >= 20 and set(range(1, 11)) <= set(fig2["readings_seeds"])
    assert {"trimtuner-dt", "eic", "eic-usd"} <= set(fig2["readings_optimizers"])


@pytest.mark.parametrize("study", ["fig1", "fig3", "fig4", "fabulinus"])
def test_paper_profile_settings_match_the_paper(study):
    t = settings_table("paper", study)
    compared = t[t["same"].notna()]
    assert compared["same"].all(), compared[~compared["same"].astype(bool)].to_string()


def test_quick_profile_shows_what_it_cuts():
    t = settings_table("quick", "fig3").set_index("setting")
    assert not t.loc["optimisers", "same"] and "trimtuner-dt" in t.loc["optimisers", "this run (quick profile)"]
    assert not t.loc["runs per filter", "same"]
    t1 = settings_table("quick", "fig1").set_index("setting")
    assert t1.loc["runs per optimiser", "this run (quick profile)"].startswith("3 ")
    assert t1.loc["tests per run", "same"]
    with pytest.raises(ValueError, match="known"):
        settings_table("quick", "fig9")
