# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     notebook_metadata_filter: -jupytext.text_representation.jupytext_version,-jupytext.text_representation.format_version
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 05 - Which candidates should the acquisition look at? Filtering heuristics (TrimTuner Fig. 3)
#
# TrimTuner's acquisition (paper Eq. 5) is expensive: for every candidate it fantasises the
# observation and refits the models. So each iteration evaluates it only on a fraction **beta** of the
# untested (configuration, size) pairs, chosen by a *filter*. The paper's filter is **CEA**
# (constrained expected accuracy, Eq. 6: predicted accuracy times the probability of meeting the cost
# constraint). Fig. 3 compares it, on the RNN with TrimTuner-GP and beta = 10%, with
#
# * **DIRECT** and **CMA-ES**, black-box optimisers that maximise the acquisition itself over the
#   (continuous relaxation of the) search space, as FABOLAS does, and
# * **random**: a uniformly random 10% of the candidates.
#
# Its claim: to reach a feasible recommendation with at least **90% of the optimum's accuracy**, CEA
# needs **3.62x** less optimisation cost than CMA-ES and **7x** less than DIRECT.
#
# The *paper* profile runs the paper's experiment: TrimTuner-GP, RNN, beta = 10%, 10 runs per filter.
# **Quick profile: TrimTuner-DT** (3 seeds): a TrimTuner-GP iteration costs seconds (tens of seconds
# with DIRECT or CMA-ES), too much for the quick profile's budget; the GP variant's *recommendation
# times* per filter are in notebook 06 (Table IV). Runs are stored under `runs/` and reused (CEA at
# 10% is TrimTuner's default: those runs are Fig. 1's).
#
# The paper's own Fig. 3 curves (read from the vector drawing of its PDF) are drawn dotted over ours.
# Their cost axis is shifted by +\\$0.00754 against Fig. 1's: Fig. 3 charges each initial sub-sampled
# test in full, Fig. 1 (and our runs) as one snapshotted run; they are drawn shifted back
# (`tt_workbook.studies.fig1_fig2.paper_figures`). Read on that axis, the paper's own mean curves give exactly its
# savings (3.62x vs CMA-ES, 7.26x vs DIRECT): the paper read Fig. 3 off the *mean curves* and on
# Fig. 1's cost axis.

# %% tags=["parameters"]
profile = "quick"
smoke = False
figures_dir = "../figures"
runs_dir = "../runs"
n_jobs = 2

# %%
import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import display

from tt_workbook import runs as ex
from tt_workbook.studies.fig1_fig2 import savings as sv
from tt_workbook.studies.filters_beta import analysis as study
from tt_workbook.studies.fig1_fig2 import trajectories as tj
from tt_workbook.studies.fig1_fig2.scoring import score_initial_design
from tt_workbook.apps.notebook import notebook_setup
from tt_workbook.studies.fig1_fig2 import paper_figures as pf
from tt_core.data.benchmarks import load_benchmark
from tt_core.data.io import save_figure, write_csv
from tt_workbook.studies.filters_beta import specs as studies
from tt_workbook.studies.filters_beta import plan as runs_plan  # the runs this notebook reads: tt plan
from tt_workbook.studies.fig1_fig2.paper_curves import overlay_paper_curves
from tt_workbook.studies.filters_beta.figures import plot_study
from tt_workbook.studies.filters_beta import rows as fig3_filters
from tt_workbook import paper_values as pv
from tt_workbook.studies.fig1_fig2 import rows as tf
from tt_workbook.report.summary import comparison, save_comparison

nb = notebook_setup(figures_dir, profile, "fig3", smoke, n_jobs=n_jobs)  # style, folder, the one profile table
out, plan, n_jobs = nb.out, nb.settings["plan"], nb.n_jobs
specs = runs_plan.fig3_runs(profile, smoke)
print(f"{len(specs)} runs ({nb.label}): "
      + ", ".join(f"{o} x {len(p['seeds'])} seeds x {len(studies.FIG3_FILTERS)} filters" for o, p in plan.items()))
nb.settings_table

# %%
runs = study.label_runs(ex.ensure_runs(specs, runs_dir, n_jobs=n_jobs), "filter")
benches = {"rnn": load_benchmark("rnn")}
runs = score_initial_design(runs, benches, "paper")  # the initial design drawn as in the paper (notebook 03)
best = {b: tj.best_feasible_accuracy(bench_) for b, bench_ in benches.items()}
order = ["CEA", "DIRECT", "CMA-ES", "Random"]

# %% [markdown]
# ## Fig. 3: Accuracy_C of the incumbent vs optimisation cost, per filter (beta = 10%)
#
# Mean over seeds with a 95% confidence band; dashed: the initial design (the same for every filter);
# dotted: the best feasible accuracy (the optimum). One panel per TrimTuner variant.

# %%
curves = tj.curves_on_grid(runs, by=["benchmark", "optimizer", "variant"])
init_end = (runs[runs["phase"] == "init"].groupby(["benchmark", "optimizer", "variant", "seed"])["cumulative_cost"]
            .max().rename("cost").reset_index())
fig = plot_study(curves, init_end=init_end, reference=best, order=order, panel="optimizer",
                       suptitle=f"Filtering heuristics at beta = 10% (RNN; {profile} profile, mean and 95% CI)")
paper = pf.paper_curves("fig3")  # the paper's TrimTuner-GP curves, on Fig. 1's cost axis
overlay_paper_curves(fig, paper, list(dict.fromkeys(curves["optimizer"])), panel=None,
                     label=f"{pf.LABEL}, TrimTuner-GP: dotted")
save_figure(fig, out / "fig3_filters.png")
write_csv(curves, out / "fig3_filters.csv")
plt.show()

# %% [markdown]
# ## Cost to reach 90% of the optimum, final Accuracy_C, time per iteration
#
# Per filter: how many runs reached a feasible incumbent with at least 90% of the optimum's accuracy,
# the median optimisation cost until then, the final and the BO-phase mean Accuracy_C (mean and 95% CI
# half-width over seeds), and the median recommendation overhead per iteration measured in these runs
# (runs executed in parallel: for clean times see notebook 06).

# %%
metrics = study.run_metrics(runs, benches, fraction=pv.FIG3["fraction"])
levels = study.level_summary(metrics, order=order)
write_csv(metrics, out / "fig3_run_metrics.csv")
write_csv(levels, out / "fig3_filters_summary.csv")
levels

# %% [markdown]
# The paper's savings: the median cost to target of DIRECT / CMA-ES / random divided by CEA's (a run
# that never reached the target within its 44 tests counts as infinitely expensive, so a median over
# mostly such runs, and its ratio, is `inf`). Two definitions of "reaching the target": the paper's (`first`: the first feasible
# recommendation with at least 90% of the optimum's accuracy), and a stricter one (`held`: from where the
# recommendation stays on target until the end of the run), since a filter can hit the target once
# and then lose it.

# %% [markdown]
# The paper's reading: the cost at which each filter's mean-over-runs Accuracy_C curve (one point per
# test) first reaches 90% of the optimum, divided by CEA's; beside it, the same reading of the paper's
# own curves (`cost_ratio` of the second table: the paper's 3.62x and 7x).

# %%
targets = {b: pv.FIG3["fraction"] * v for b, v in best.items()}
mean_curves = sv.mean_curve(runs, by=["benchmark", "optimizer", "variant"])
curve_ratios = pd.concat([sv.curve_savings(mean_curves[mean_curves["optimizer"] == o], targets, "CEA",
                                           ["CMA-ES", "DIRECT", "Random"], key="variant").assign(optimizer=o)
                          for o in mean_curves["optimizer"].unique()], ignore_index=True)
paper_ratios = sv.curve_savings(paper, targets, "CEA", ["CMA-ES", "DIRECT"], key="variant", y="y", x={"cost": "x"})
write_csv(curve_ratios, out / "fig3_savings_mean_curve.csv")
display(curve_ratios)
paper_ratios

# %%
ratios = pd.concat([study.cost_ratio(metrics, b, held=h) for h in (False, True) for b in ("CMA-ES", "DIRECT", "Random")],
                   ignore_index=True)
write_csv(ratios, out / "fig3_savings.csv")
ratios

# %% [markdown]
# ## DIRECT and CMA-ES as in the authors' code
#
# The authors' code runs DIRECT and CMA-ES over the continuous box of the **raw** parameters, evaluates
# the acquisition at the continuous points and rounds the best one to the grid, where every size above
# 22,500 images becomes the full data set (`../shared/data/paper_figures/SOURCE.md`; filters
# `direct-raw`, `cmaes-raw` in `tt_core.bo.filters`). A raw box puts most of its volume at large sizes, so
# these baselines test at full size far more often than ours, which search the log-scaled encoded box.
# Same optimiser, seeds and budget of acquisition evaluations (10% of the candidates) as above; the
# paper's cost per test comes from the median step of its own Fig. 3 curves.

# %%
raw_specs = runs_plan.fig3_raw_runs(profile, smoke)
raw_runs = score_initial_design(study.label_runs(ex.ensure_runs(raw_specs, runs_dir, n_jobs=n_jobs), "filter"), benches, "paper")
both = pd.concat([runs, raw_runs], ignore_index=True)
both_curves = sv.mean_curve(both, by=["benchmark", "optimizer", "variant"])
both_ratios = pd.concat([sv.curve_savings(both_curves[both_curves["optimizer"] == o], targets, "CEA",
                                          list(tf.RAW_BOX) + list(tf.RAW_BOX.values()), key="variant").assign(optimizer=o)
                         for o in both_curves["optimizer"].unique()], ignore_index=True)
raw_table = tf.fig3_raw_box_table(study.test_costs(both), tf.paper_step_costs(paper, by=("benchmark", "variant")),
                                  both_ratios)
write_csv(raw_table, out / "fig3_raw_box.csv")
raw_table

# %% [markdown]
# ## How often does the paper's ordering appear? A bootstrap over runs
#
# The paper's Fig. 3 puts CEA above DIRECT, CMA-ES and random. Resampling the runs (seeds) of each filter
# with replacement, B times (2,000; 200 in smoke mode), and recomputing each filter's mean of the per-run
# BO-phase mean Accuracy_C (`mean_accuracy_c` above) gives the share of resamples in which CEA comes out
# above each baseline, and above all three at once (`study.ordering_bootstrap`, seed 0). It says how
# fragile an ordering is at this number of runs, not a p-value: with 3 runs a filter has only 10 distinct
# resamples. The Fig. 3 ordering rows below carry the share where the ordering differs from the paper's.

# %%
n_boot = 200 if smoke else 2000
ordering_share = study.ordering_bootstrap(metrics, "filter", n_boot=n_boot, seed=0)
write_csv(ordering_share, out / "fig3_ordering_bootstrap.csv")
ordering_share.drop(columns="evidence")

# %% [markdown]
# ## Paper vs workbook
#
# A saving agrees when it is within a factor of two of the paper's (the paper's numbers are for
# TrimTuner-GP, 10 runs; the DT rows compare the DT variant with the same claim). The ranking items
# check the direction only: CEA needs less cost than the other filter (median over runs). A row resting on fewer
# than 5 runs of CEA or of the other filter is *too few runs* (its agreement recorded, no verdict). The factor of two
# is this workbook's choice: each note gives the verdict at 1.5x beside 2x and the factor where it flips.

# %%
from tt_workbook.studies import unstated

for line in fig3_filters.no_ratio_lines(ratios):  # savings without a row, and why
    print(line)
from tt_workbook.report.summary import runs_by_arm

runs_per_optimizer = metrics.groupby("optimizer")["seed"].nunique().to_dict()
runs_per_filter = runs_by_arm(metrics, ["optimizer", "variant"])   # seeds per optimiser and filter, counted
summary = comparison(unstated.with_tolerance_notes(
    fig3_filters.fig3_rows(curve_ratios, ratios, levels, ordering_share, raw_table, runs_per_optimizer,
                           runs_per_arm=runs_per_filter)))
save_comparison(summary, "05_fig3_filters", out)
summary

# %% [markdown]
# **Reading the result.** Generated from the runs above:

# %%
for _, r in summary.iterrows():
    if r["paper"] is None or pd.isna(r["paper"]):
        print(f"- {r['item']}: workbook {r['workbook']} (no paper number)")
        continue
    verdict = "agrees with" if r["agrees"] is True else "does NOT agree with"
    val = r["workbook"] if isinstance(r["workbook"], bool) else f"{float(r['workbook']):.2f}x"
    print(f"- {r['item']}: workbook {val}, paper {r['paper']} -> {verdict} the paper")
for _, r in levels.iterrows():
    print(f"- {r['optimizer']} {r['variant']}: final Accuracy_C {r['final_accuracy_c']:.3f} "
          f"(+/- {r['final_accuracy_c_ci']:.3f}), target reached in {r['reached']} runs")

# %% [markdown]
# Why the reproduction can differ from the paper:
#
# * **Few seeds, wide bands.** Runs that reach the target early or never dominate medians of 3 (quick)
#   to 10 (paper profile) runs; overlapping confidence bands mean the filters are not distinguishable
#   at that sample size.
# * **DIRECT and CMA-ES here maximise the exact acquisition** over the snapped continuous relaxation
#   and return the best 10% they visited (`tt_core.bo.filters`); with a budget of 10% of the candidates
#   they explore a good part of the space, so they can pick candidates as good as CEA's, only more
#   expensively (Table IV). The authors' code maximises the acquisition over the continuous box of
#   *raw* parameters and rounds one point to the grid, where every size above 22,500 images rounds to
#   the full data set (`../shared/data/paper_figures/SOURCE.md`). The section "DIRECT and CMA-ES as in
#   the authors' code" runs that search and measures what it changes (`fig3_raw_box.csv`): the cost per
#   test relative to CEA's, the share of full-size tests, and the mean-curve ratio; the Fig. 3 rows name
#   it as their cause where it closes the gap, and carry it in their note where it does not.
# * **Reading.** The paper's 3.62x and 7x come out of its own curves only as a mean-curve reading on
#   Fig. 1's cost axis (the second table above); the per-run medians are a different statistic.
# * **Decision trees vs GPs.** The quick profile tests the DT variant; the paper's Fig. 3 is for the GP
#   variant (the paper profile runs the GP variant only, with 10 runs, as the paper did). Rows from a
#   setting other than the paper's are marked *not comparable* and name the setting.
