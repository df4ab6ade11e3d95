# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 04 - Time and cost savings of TrimTuner (TrimTuner Fig. 2)
#
# How much optimisation time and money does each method spend before it recommends a configuration
# that reaches at least **90%** of the best feasible full-size accuracy? The paper's Fig. 2 compares
# TrimTuner (decision trees) with EIc, EIc/USD and TrimTuner-GP: "the optimization process lasts up
# to 65x / 15x (resp.) and costs up to 50x / 10x more".
#
# **How the paper computed it.** The paper's own mean curves of Fig. 1, read from the vector drawing
# of its PDF (`../shared/data/paper_figures/`), settle it: the cost at which each method's
# *mean-over-runs* Accuracy_C curve first reaches 0.9 x the optimum, divided by TrimTuner-DT's,
# reproduces the RNN EIc/USD bar (12.50 vs 12.5), the RNN TrimTuner-GP bar (2.57 vs 2.6) and the CNN
# EIc/USD bar (3.30 vs 3.3) (checked in `tests/test_savings.py`). "Up to 65x / 50x" is the **RNN** EIc
# bar. That reading is the primary statistic here (`tt_workbook.studies.fig1_fig2.savings.curve_savings`); the
# per-run view and every other reading of the words follow, with bootstrap confidence intervals.
#
# The initial design is scored as in the paper's Fig. 1 (each initial test its own series, not a
# full-size recommendation: `tt_workbook.studies.fig1_fig2.scoring`). "Time" is the training time of the tests
# (the authors' logs keep training time and recommendation overhead apart). Runs are notebook 03's
# (stored under `runs/`, computed if missing).

# %% tags=["parameters"]
profile = "quick"
smoke = False
figures_dir = "../figures"
runs_dir = "../runs"
n_jobs = 2
fraction = 0.9
n_boot = 2000

# %%
import pandas as pd
from IPython.display import display

from tt_workbook import runs as ex
from tt_workbook.studies.fig1_fig2 import initial_design as design
from tt_workbook.studies.fig1_fig2 import plan as runs_plan  # the runs this notebook reads: tt plan
from tt_workbook.studies.fig1_fig2 import savings as sv
from tt_workbook.studies.fig1_fig2 import trajectories as tj
from tt_workbook.studies.fig1_fig2.scoring import score_initial_design
from tt_workbook.apps.notebook import notebook_setup
from tt_workbook.studies.fig1_fig2 import paper_figures as pf
from tt_core.data.benchmarks import load_benchmark
from tt_core.data.io import save_figure, write_csv
from tt_workbook.runs import profiles
from tt_workbook.plotting.figures import plot_time_to_target
from tt_workbook.studies.fig1_fig2.paper_curves import plot_fig2_bars
from tt_workbook.studies.fig1_fig2 import rows as tf
from tt_workbook.report.summary import comparison, save_comparison

nb = notebook_setup(figures_dir, profile, "fig1", smoke)  # style, folder, Fig. 1's profile settings
out = nb.out
specs = runs_plan.fig2_runs(profile, smoke)  # Fig. 1's runs but FABOLAS' (tt_workbook.runs.profiles)
runs = ex.ensure_runs(specs, runs_dir, n_jobs=n_jobs)
benches = {b: load_benchmark(b) for b in runs["benchmark"].unique()}
runs = score_initial_design(runs, benches, "paper")
n_runs = int(runs.groupby("optimizer")["seed"].nunique().min())
baselines = [b for b in ("eic", "eic-usd", "trimtuner-gp", "random") if b in set(runs["optimizer"])]
nb.settings_table

# %% [markdown]
# ## Fig. 2 as the paper computed it: savings read off the mean curves
#
# `cost_method` / `cost_baseline`: where TrimTuner-DT's and the baseline's mean-over-runs Accuracy_C
# curves (one point per test: mean cumulative cost, mean Accuracy_C) first reach the target; NaN:
# never within the run. Beside it, the same reading of the paper's own Fig. 1 curves and the paper's
# bar heights.

# %%
targets = {b: fraction * tj.best_feasible_accuracy(x) for b, x in benches.items()}
curves = sv.mean_curve(runs)
write_csv(curves, out / "fig2_mean_curve.csv")
ours = sv.curve_savings(curves, targets, "trimtuner-dt", baselines)
paper_sav = sv.curve_savings(pf.paper_curves("fig1"), targets, "trimtuner-dt", baselines, y="y", x={"cost": "x"})
bars = pf.paper_fig2_bars()
write_csv(ours, out / "fig2_savings_mean_curve.csv")
ours

# %%
if len(bars):
    ref = bars.merge(paper_sav[["benchmark", "baseline", "cost_method", "cost_baseline", "cost_ratio"]]
                     .rename(columns={"cost_ratio": "cost_ratio_from_paper_curves"}), on=["benchmark", "baseline"], how="left")
    display(ref[ref["benchmark"].isin(list(benches))])

# %% [markdown]
# ### The TrimTuner-DT side with the authors' public code
#
# The same reading with the authors' own TrimTuner-DT (`tt authors run`, unmodified, beta 10%, its
# entropy-search residue drawn from an exact run; notebook 03 explains the residue models) in place of the
# workbook's: `cost_method` is where the mean curve of their code reaches the target. Every other table of
# this notebook uses the workbook's TrimTuner-DT.

# %%
from tt_workbook.authors import oracle as au
try:
    au.ensure_available()  # the code found and its environment made, else AuthorsError
    aruns = ex.ensure_runs(runs_plan.authors_runs_04(profile, smoke), runs_dir, n_jobs=n_jobs, progress=False)
except au.AuthorsError as exc:
    aruns = None
    print(f"the authors' code was not run: {exc}")
if aruns is not None:
    aruns = score_initial_design(aruns, benches, "paper")
    a_curves = sv.mean_curve(pd.concat([runs, aruns], ignore_index=True))
    authors_sav = sv.curve_savings(a_curves, targets, "authors-dt", baselines)
    write_csv(authors_sav, out / "fig2_savings_authors_code.csv")
    display(authors_sav)

# %% [markdown]
# ## Every reading of "costs up to N x more", with bootstrap 95% intervals over the seeds
#
# Seeds are resampled with replacement (the same resample for every method, so same-seed runs stay
# paired). Per-run cost to target: the first feasible recommendation with >= 90% of the optimum; a
# run that never gets there counts at its total cost (a lower bound; `*_reached` say how many did).
# Random search is the control: a reading that makes random look many times better than EIc says
# more about EIc's runs than about sub-sampling. The paper profile runs 30 seeds of TrimTuner-DT, EIc,
# EIc/USD and random for these intervals (profile study `fig2`; TrimTuner-GP keeps Fig. 1's 10); the
# quick profile uses Fig. 1's 3.
# The figure below (`fig2_mean_curve_savings.png`) shows the **workbook's TrimTuner-DT** (a real information
# gain, as the paper describes), not the authors' code; the authors' code's reading is the table above.

# %%
# the paper profile adds seeds of the cheap optimisers for these intervals (the issue: >= 20 seeds)
extra = runs_plan.readings_runs(profile, smoke)
runs_r = score_initial_design(ex.ensure_runs(specs + extra, runs_dir, n_jobs=n_jobs), benches, "paper") if extra else runs
print("seeds per optimiser in the readings:", runs_r.groupby("optimizer")["seed"].nunique().to_dict())
readings = sv.savings_readings(runs_r, benches, "trimtuner-dt", baselines, fraction=fraction, n_boot=n_boot)
write_csv(readings, out / "fig2_readings.csv")
readings.pivot_table(index=["benchmark", "baseline", "quantity"], columns="reading", values="value",
                     sort=False)[list(sv.READINGS)]

# %%
readings[readings["quantity"] == "cost"][["benchmark", "baseline", "reading", "value", "lo", "hi", "runs",
                                          "method_reached", "baseline_reached"]]

# %%
fig = plot_fig2_bars(ours, bars, readings, suptitle=f"Fig. 2 read off the mean curves ({profile} profile, "
                                                    f"{n_runs} runs per method)")
save_figure(fig, out / "fig2_mean_curve_savings.png");

# %% [markdown]
# How far can the choice of 10 seeds move the mean-curve reading? (random 10-seed subsets of the runs
# available: the paper profile's 30 seeds of the cheap optimisers; the quick profile has too few.)

# %%
subsets = sv.random_subsets(runs_r, benches, size=10)
write_csv(subsets, out / "fig2_seed_subsets.csv")
subsets if len(subsets) else print(f"only {n_runs} seeds: no 10-seed subsets")

# %% [markdown]
# ## Per run: cost and time to the first good feasible recommendation
#
# The **workbook's TrimTuner-DT** and the other optimisers, not the authors' code.

# %%
ttt = tj.time_to_target(runs, benches, fraction=fraction)
write_csv(ttt, out / "fig2_time_to_target.csv")
fig_cost = plot_time_to_target(ttt, value="cost", ylabel="optimisation cost to target [USD]",
                               suptitle=f"Cost to a feasible recommendation with >= {fraction:.0%} of the optimum (per run)")
save_figure(fig_cost, out / "fig2b_cost_savings.png")
fig_time = plot_time_to_target(ttt, value="time", ylabel="training time to target [s]",
                               suptitle=f"Time to a feasible recommendation with >= {fraction:.0%} of the optimum (per run)")
save_figure(fig_time, out / "fig2a_time_savings.png")
sav = tj.savings(ttt, "trimtuner-dt", baselines, time_col="time")
write_csv(sav, out / "fig2_savings.csv")
sav

# %% [markdown]
# ## Does EIc's initial design already hold a good configuration?
#
# EIc and EIc/USD start with 4 full-size configurations nearest to Latin-hypercube points of the
# encoded space. How often do they contain a feasible configuration with >= 90% of the optimum (then
# EIc reaches the target right after its initial design), against the share of such configurations
# and the chance for 4 uniform draws from the grid? (Designs drawn for many seeds; nothing is run.)

# %%
hits = pd.concat([design.design_hit_summary(benches, opt, range(1, 21 if smoke else 201), fraction)
                  for opt in ("eic", "random")], ignore_index=True)
write_csv(hits, out / "fig2_initial_design_hits.csv")
hits

# %% [markdown]
# ## Paper vs. this workbook
#
# The paper's bar heights against the workbook's mean-curve reading (agreement within a factor of
# two). With fewer runs than the paper's 10 the rows are *not comparable*, and with fewer than 5 runs per
# compared optimiser (counted from the runs) *too few runs*: no verdict; the cause column gives
# where both mean curves reach the target here and in the paper's Fig. 1. The `authors` column is the same
# reading with the authors' TrimTuner-DT (above) against the workbook's baselines, and `side` says, from the
# numbers, which side a difference is on (the baselines are not in their repository, so a difference their
# TrimTuner-DT shares stays *undetermined*). The agreement tolerance is a choice of this workbook: each note
# gives the verdict at 1.5x beside 2x and the factor where it flips (`tt_workbook.studies.unstated`).

# %%
from tt_workbook.studies import unstated

from tt_workbook.report.summary import runs_by_arm

nc = "" if n_runs >= 10 else f"{n_runs} runs per method (paper: 10)"
runs_per_curve = runs_by_arm(runs, ["benchmark", "optimizer"])   # seeds behind each mean curve, counted
summary = comparison(unstated.with_tolerance_notes(tf.fig2_rows(
    ours, paper_sav, bars, runs_per_curve, not_comparable=nc,
    authors_sav=authors_sav if aruns is not None else pd.DataFrame())))
save_comparison(summary, "04_fig2_savings", out)
summary
