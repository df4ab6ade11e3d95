"""The tour's step 5: the median and band over seeds (:func:`tt_workbook.studies.fig1_fig2.trajectories.seed_band`) on hand-made
runs, and the step's numbers against runs replayed independently."""

import numpy as np
import pandas as pd
import pytest

from tt_workbook.studies.fig1_fig2.trajectories import seed_band


def test_band_of_ten_single_step_runs_is_their_median_and_interpolated_deciles():
    # seed i recommends an incumbent of Accuracy_C i / 10 after spending $1, and stops there
    runs = pd.DataFrame({"optimizer": "a", "seed": range(1, 11), "cumulative_cost": 1.0,
                         "accuracy_c": [i / 10 for i in range(1, 11)]})
    band = seed_band(runs, grid=[0.5, 1.0, 2.0], by=["optimizer"])
    assert band["n"].tolist() == [10, 10, 10]
    # before $1 no run has a recommendation, past $1 no run spent that much: not defined
    assert band.loc[[0, 2], ["median", "lo", "hi"]].isna().all().all()
    # sorted values 0.1 ... 1.0: the median halfway between 0.5 and 0.6; the 10% quantile at rank 0.9 (0.1 + 0.9 x 0.1),
    # the 90% one at rank 8.1 (0.9 + 0.1 x 0.1)
    assert band.loc[1, ["median", "lo", "hi"]].tolist() == pytest.approx([0.55, 0.19, 0.91])


def test_band_waits_for_every_run_and_a_finished_run_keeps_its_last_incumbent():
    runs = pd.DataFrame([
        ("a", 1, 1.0, 0.2), ("a", 1, 3.0, 0.8),                      # seed 1: 0.2 from $1, 0.8 from $3
        ("a", 2, 2.0, 0.4),                                          # seed 2: starts at $2, ends there
        ("a", 3, 1.0, 0.6), ("a", 3, 2.0, 0.1), ("a", 3, 4.0, 0.9),  # seed 3
        ("b", 1, 1.0, 0.5), ("b", 2, 1.0, 0.7),                      # another optimiser, its own band
    ], columns=["optimizer", "seed", "cumulative_cost", "accuracy_c"])
    band = seed_band(runs, grid=[1, 2, 3, 4, 5], by=["optimizer"]).set_index(["optimizer", "cumulative_cost"])
    a = band.loc["a"]
    assert np.isnan(a.loc[1.0, "median"])                 # seed 2 has no recommendation yet
    # $2: (0.2, 0.4, 0.1) -> sorted 0.1, 0.2, 0.4; deciles at ranks 0.2 and 1.8
    assert a.loc[2.0, ["median", "lo", "hi"]].tolist() == pytest.approx([0.2, 0.12, 0.36])
    # $3: seed 2 keeps its 0.4 -> 0.1, 0.4, 0.8
    assert a.loc[3.0, ["median", "lo", "hi"]].tolist() == pytest.approx([0.4, 0.16, 0.72])
    # $4: 0.4, 0.8, 0.9
    assert a.loc[4.0, ["median", "lo", "hi"]].tolist() == pytest.approx([0.8, 0.48, 0.88])
    assert np.isnan(a.loc[5.0, "median"])                 # beyond the group's largest spend ($4)
    b = band.loc["b"]
    assert b.loc[1.0, ["median", "lo", "hi"]].tolist() == pytest.approx([0.6, 0.52, 0.68])
    assert b["median"].iloc[1:].isna().all()              # b's runs spent $1 only


def test_band_refuses_quantiles_out_of_order():
    runs = pd.DataFrame({"optimizer": "a", "seed": [1], "cumulative_cost": [1.0], "accuracy_c": [0.5]})
    with pytest.raises(ValueError, match="quantiles"):
        seed_band(runs, by=["optimizer"], quantiles=(0.9, 0.1))


def test_step_5_numbers_are_those_of_the_runs_replayed_one_by_one(tmp_path):
    """The step's single-seed and over-seeds numbers against each run replayed by run_optimization."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from tt_workbook.apps import tour
    from tt_core.replay.driver import run_optimization

    opts, seeds = ["trimtuner-dt", "random"], [1, 2, 3]
    step = tour.incumbent_progress("rnn", opts, seed=3, seeds=seeds, iterations=6, runs_dir=tmp_path,
                                   quantiles=(0.25, 0.75))
    for opt in opts:
        finals = {s: run_optimization("rnn", opt, seed=s, iterations=6).iloc[-1] for s in seeds}
        acc = sorted(float(f["accuracy_c"]) for f in finals.values())
        facts = step.facts[opt]
        assert facts["final_accuracy_c"] == float(finals[3]["accuracy_c"])
        assert facts["total_cost"] == float(finals[3]["cumulative_cost"])
        assert facts["median_final_accuracy_c"] == acc[1]
        # quartiles of three values at ranks 0.5 and 1.5
        assert facts["final_accuracy_c_p25"] == pytest.approx((acc[0] + acc[1]) / 2)
        assert facts["final_accuracy_c_p75"] == pytest.approx((acc[1] + acc[2]) / 2)
        assert facts["median_total_cost"] == pytest.approx(np.median([float(f["cumulative_cost"]) for f in finals.values()]))
    assert set(step.data["optimizer"]) == set(opts) and (step.data["n"] == 3).all()
    assert "median and 25-75% band over 3 seeds" in step.figure.axes[0].get_title()
    assert "the thin lines are seed 3" in step.figure.axes[0].get_title()
    assert len(list(tmp_path.rglob("seed*.parquet"))) == 6   # stored, so a second tour reads them
    plt.close("all")
