"""Notebooks: stored clean (no outputs, a ``parameters`` cell, .py/.ipynb in sync) and runnable.

Each notebook listed in :data:`NOTEBOOKS` is executed headless with papermill in smoke mode, from
the ``notebooks/`` folder (as the report runner does), writing into a temporary figures folder.
The test checks that the expected files were written and that every exact item of the notebook's
paper-vs-workbook summary (counts, sizes in images) agrees. To cover another notebook, add an
entry to :data:`NOTEBOOKS`.
"""

from __future__ import annotations

import time
from pathlib import Path

import nbformat
import pandas as pd
import pytest

NOTEBOOK_DIR = Path(__file__).resolve().parent.parent / "notebooks"

#: name (without extension) -> files it must write into figures_dir (its summary_<name>.csv is implied).
NOTEBOOKS: dict[str, list[str]] = {
    "00_tour": ["tour_space.png", "tour_subsampling.png", "tour_surrogates.png", "tour_cea.png", "tour_progress.png",
                "headline_seeds.png", "headline_seeds.csv"],
    "01_dataset_analysis": [
        "fig_data_overview.png", "fig_learning_curves.png", "fig_rank_agreement.png", "fig_factors_cnn.png",
        "fig_factors_rnn.png", "data_summary_by_size.csv", "rank_agreement.csv",
    ],
    "02_table2_feasibility": ["table2.csv", "table7_1.csv", "fig_table2_cost_accuracy.png"],
    "03_fig1_accuracy_vs_cost": ["fig1_accuracy_vs_cost.png", "fig1_accuracy_vs_cost.csv", "fig1_exploration_stats.csv",
                                 "fig1_size_mix.csv", "fig1_authors_code_variants.csv", "fig1_per_test_costs.csv"],
    "04_fig2_savings": ["fig2a_time_savings.png", "fig2b_cost_savings.png", "fig2_time_to_target.csv", "fig2_savings.csv",
                        "fig2_mean_curve.csv", "fig2_readings.csv", "fig2_mean_curve_savings.png",
                        "fig2_initial_design_hits.csv"],
    "05_fig3_filters": ["fig3_filters.png", "fig3_filters.csv", "fig3_filters_summary.csv", "fig3_savings.csv"],
    "06_tables3_4_recommendation_time": ["table3.csv", "table4.csv", "table34_targets.csv", "bench_recommend.csv",
                                         "table34_cpu_wall.csv"],
    "07_fig4_beta": ["fig4_beta.png", "fig4_beta.csv", "fig4_beta_summary.csv", "fig4_beta_trend.csv"],
    "08_nephele_subsampling": [
        "table6_2.csv", "table6_3.csv", "table6_4.csv", "fig_table6_3.png", "fig_table6_4.png",
        "fig6_7_time_sorted.png", "fig6_8_cost_reduction.png", "fig6_8_cost_reduction.csv",
        "fig6_9_feasible_per_size.png", "fig6_9_feasible_per_size.csv",
    ],
    "09_nephele_optimizer": [
        "fig6_10_cnn.png", "fig6_11_rnn.png", "fig6_13_lookahead.png", "fig6_10_6_11_curves.csv", "table6_1.csv",
        "nephele_reach.csv", "table_lookahead.csv", "table_lookahead_wall_time.csv", "nephele_shared_start.csv",
        "nephele_random_budget.csv", "nephele_random_draws.csv",
    ],
    "10_explorer": ["explorer.png", "explorer_half_limit.png"],
    "11_your_own_job": ["own_job_runs.png", "own_job_runs.csv"],
    "12_spottune_market": ["spottune_table3.csv", "spottune_fig1.png", "spottune_revocation.png",
                           "spottune_revocation.csv", "spottune_predictors.csv"],
    "13_spottune_simulation": ["spottune_fig7.png", "spottune_fig7.csv", "spottune_fig7_runs.csv", "spottune_fig9.png",
                               "spottune_fig9.csv", "spottune_fig8.png", "spottune_fig8.csv", "spottune_fig8_topk.csv",
                               "spottune_rules.csv", "spottune_fig7_revpred.png", "spottune_fig7_revpred.csv",
                               "spottune_fig9_revpred.png", "spottune_fig7_loop_runs.csv",
                               "spottune_fig7_loop_intervals.csv", "spottune_calibration.csv",
                               "spottune_reliability.csv", "spottune_reliability.png", "spottune_fig8_shape.csv",
                               "spottune_claims_by_predictor.csv", "spottune_fig8_phase1.csv",
                               "spottune_jct_ordering.csv"],
    "14_spottune_earlycurve": ["spottune_fig11.png", "spottune_fig11_errors.csv", "spottune_topk.csv",
                               "spottune_topk_misses.csv"],
    "15_spottune_revpred": ["spottune_fig10.png", "spottune_fig10.csv", "spottune_fig10_labels.csv",
                            "spottune_fig10_fit.csv", "spottune_fig10c.png", "spottune_fig10c.csv",
                            "spottune_fig10c_runs.csv"],
    "16_fabulinus_evaluation": ["thesis_fig7_2_rnn.png", "thesis_fig7_1_7_2_curves.csv", "thesis_ch7_initial_sampling.csv",
                                "thesis_ch7_cost_reduction.csv", "thesis_ch7_time.csv", "thesis_ch7_overhead.csv",
                                "thesis_ch7_constraint.csv", "thesis_ch7_reach.csv", "thesis_ch7_cost_ceiling.csv"],
    "17_lcdb_outside_data": ["lcdb_datasets.csv", "lcdb_provenance.csv", "lcdb_claims_per_dataset.csv",
                             "lcdb_claim_counts.csv", "lcdb_claims.png"],
    "98_discrepancies": ["discrepancies.csv"],
}
#: Notebooks that write no paper-vs-workbook table of their own (98 lists the others').
NO_SUMMARY: set[str] = {"98_discrepancies"}
#: Notebooks whose results come from optimiser runs (seeded, not exact): their summaries have no
#: exact items to check, only the paper-vs-workbook table itself.
NO_EXACT_ITEMS: set[str] = {"03_fig1_accuracy_vs_cost", "04_fig2_savings", "05_fig3_filters",
                             "06_tables3_4_recommendation_time", "07_fig4_beta",
                             "13_spottune_simulation", "14_spottune_earlycurve", "15_spottune_revpred", "16_fabulinus_evaluation",
                             "17_lcdb_outside_data"}
#: Item suffixes of summary rows that are exact (no rounding involved): they must agree.
EXACT_SUFFIXES = ("(count)", "(images)")
#: Smoke-mode budget per notebook (the runner's limit is 60 s).
SMOKE_SECONDS = 60


@pytest.mark.parametrize("name", sorted(NOTEBOOKS))
def test_notebook_stored_clean(name):
    path = NOTEBOOK_DIR / f"{name}.ipynb"
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    dirty = [i for i, c in enumerate(code) if c.get("outputs") or c.get("execution_count") is not None]
    assert not dirty, f"{path.name}: code cells {dirty} have outputs; strip them (jupytext --to ipynb {name}.py)"
    tagged = [c for c in code if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(tagged) == 1, f"{path.name}: needs exactly one code cell tagged 'parameters'"
    assert code.index(tagged[0]) == 0, f"{path.name}: the parameters cell must be the first code cell"
    params = tagged[0].source
    for key in ("smoke", "figures_dir"):
        assert f"{key} =" in params, f"{path.name}: the parameters cell must set {key}"


@pytest.mark.parametrize("name", sorted(NOTEBOOKS))
def test_notebook_pair_in_sync(name):
    jupytext = pytest.importorskip("jupytext")
    py = jupytext.read(NOTEBOOK_DIR / f"{name}.py")
    ipynb = nbformat.read(NOTEBOOK_DIR / f"{name}.ipynb", as_version=4)
    strip = lambda nb: [(c.cell_type, c.source.strip()) for c in nb.cells]  # noqa: E731
    assert strip(py) == strip(ipynb), f"{name}.py and {name}.ipynb differ: run jupytext --sync or --to ipynb"


@pytest.mark.parametrize("name", sorted(NOTEBOOKS))
def test_notebook_runs_in_smoke_mode(name, tmp_path):
    papermill = pytest.importorskip("papermill")
    figures = tmp_path / "figures"
    start = time.perf_counter()
    papermill.execute_notebook(
        str(NOTEBOOK_DIR / f"{name}.ipynb"), str(tmp_path / f"{name}.out.ipynb"),
        parameters={"smoke": True, "figures_dir": str(figures), "runs_dir": str(tmp_path / "runs")},
        cwd=str(NOTEBOOK_DIR), kernel_name="python3", progress_bar=False, log_output=False,
    )
    elapsed = time.perf_counter() - start
    print(f"{name}: {elapsed:.1f} s in smoke mode")  # speed is a report, not an assertion (load varies)

    expected = [*NOTEBOOKS[name]] + ([] if name in NO_SUMMARY else [f"summary_{name}.csv"])
    missing = [f for f in expected if not (figures / f).is_file() or (figures / f).stat().st_size == 0]
    assert not missing, f"{name} did not write {missing}"

    if name in NO_SUMMARY:
        return
    summary = pd.read_csv(figures / f"summary_{name}.csv")
    assert list(summary.columns) == ["source", "item", "paper", "workbook", "authors", "agrees", "status", "cause", "side",
                                     "note", "tolerance"]
    exact = summary[summary["item"].str.endswith(EXACT_SUFFIXES) & summary["workbook"].notna()]
    if name in NO_EXACT_ITEMS:
        assert len(summary) > 0, f"{name}: empty summary"
        # a value may be missing only where the row says why (e.g. a smoke run that never reaches the target,
        # or a paper-only row of the multilayer network, whose data are not public, with a note saying so)
        said = (summary["status"] == "not comparable") | (summary["status"].isin(["paper only", "outside data"])
                                                         & summary["note"].fillna("").str.len().gt(0))
        unexplained = summary[summary["workbook"].isna() & ~said]
        assert unexplained.empty, f"{name}: uncomputed rows without a reason:\n{unexplained.to_string()}"
        return
    assert len(exact) > 0, f"{name}: its summary has no exact (count) items with a computed value"
    wrong = exact[exact["agrees"].astype(str) != "True"]
    assert wrong.empty, f"{name}: exact items disagree with the paper:\n{wrong.to_string()}"
