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
# # 09 - The Nephele optimiser against Lynceus, CherryPick and random search (thesis §6.4-6.5: Figs. 6.10-6.13)
#
# Nephele (thesis ch. 3) looks for the cheapest way to train a model that is good enough
# (Eq. 3.1):
#
# $$\min_{x, s} C(x, s) \quad \text{s.t.} \quad A(x, s) \ge A_{min},\; T(x, s) \le T_{max},\;
# \sum_{(x_k, s_k) \in \mathcal{S}} C(x_k, s_k) \le B$$
#
# where *x* is a cloud/training configuration, *s* the training-set size, and *B* the budget for
# testing configurations. Unlike Lynceus, it may recommend a model trained on a **sub-sampled**
# data set, which makes both the recommendation and the tests cheaper.
#
# | optimiser | sizes tested | after a Latin-hypercube start worth $B_{init}$ |
# |---|---|---|
# | Nephele | all 5 sizes (1440 points) | feasible set Γ (predicted to meet $A_{min}$, $T_{max}$ and the budget left), then argmax EIc / predicted cost; random pick if Γ is empty; optional lookahead *h* (Alg. 3) |
# | Lynceus | full data set only (288 points) | the same |
# | CherryPick | full data set only | argmax EIc, with the budget as stop condition |
# | Random | all sizes | uniformly random |
#
# Each run stops when its budget is spent and recommends the cheapest **measured** point that met
# both constraints. Its quality is the CNO (Eq. 6.1): the recommendation's cost divided by the cost of
# the optimum. As the thesis, we plot the 90th percentile over seeds of the CNO after each
# exploration against the 90th percentile of the money (and time) spent up to it.
#
# Everything below is computed by `tt_core` (the budgeted optimisers, the replay driver, `tt_workbook.studies.nephele.analysis`) from the authors' measurements; the thesis'
# numbers (`tt_workbook.paper_values`) only fill the *paper* column at the end. The thesis' Multilayer
# network (its Fig. 6.12) is not public, so only the CNN (Fig. 6.10) and RNN (Fig. 6.11) are shown.

# %% tags=["parameters"]
profile = "quick"          # "quick" (10 seeds) or "paper" (100 seeds, as the thesis)
smoke = False              # tiny run for the tests (2 seeds, small budgets)
figures_dir = "../figures"
runs_dir = "../runs"       # runs are stored under <runs_dir>/<network>/ and resumed (smoke too: its budgets name other folders)
benchmarks = ["cnn", "rnn"]
optimizers = ["nephele", "lynceus", "cherrypick", "random"]
seeds = None               # None: the profile's seeds
lookahead_seeds = None     # None: the profile's seeds
horizons = [0, 1, 2]
percentile_q = 90
n_jobs = 2                 # parallel runs (processes)

# %%
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import display

from tt_core.data.benchmarks import load_benchmark
from tt_core.data.io import save_figure, write_csv
from tt_workbook import runs as ex
from tt_workbook.studies.nephele import analysis as nph
from tt_workbook.apps.notebook import notebook_setup
from tt_workbook import bench
from tt_workbook.runs import profiles
from tt_workbook.studies.nephele import figures as nplots
from tt_workbook.studies.nephele import plan as runs_plan  # the runs this notebook reads: tt plan
from tt_workbook.studies.nephele import rows as report
from tt_workbook.report.summary import comparison, save_comparison

nb = notebook_setup(figures_dir, profile, "nephele", smoke, width=None)  # style, folder, the one profile table
out, settings = nb.out, nb.settings
seeds = seeds or settings["seeds"]
lookahead_seeds = lookahead_seeds or settings["lookahead_seeds"]
runs = Path(runs_dir)
loaded = {name: load_benchmark(name) for name in benchmarks}
print(f"profile {settings['name']}: {len(seeds)} seeds, budgets B = {settings['budgets']} USD, "
      f"B_init = { {b: profiles.INITIAL_BUDGETS[b] for b in benchmarks} } USD; runs in {runs}")
nb.settings_table

# %% [markdown]
# ## The target: the optimum with and without sub-sampling
#
# With the thesis' constraints ($A_{min}$ = 85%, $T_{max}$ = 300 s) the cheapest feasible point is
# trained on a sub-sampled data set for both networks (notebook 08). An optimiser restricted to the
# full data set can therefore never reach CNO = 1 when the CNO is taken against the optimum at any
# size: its floor is `cno_floor_full_size`. The `cno_space` columns of the runs use each optimiser's
# own search space instead.
#
# The exploration budget *B* is not given in the thesis ("a value that could allow the optimizers
# to find the optimum"); the workbook uses \\$20 (CNN) and \\$2.5 (RNN), enough for the 90th-percentile
# run of every model-based optimiser to find the optimum of its own space on these data.

# %%
optima = report.optima_table(loaded)
optima

# %% [markdown]
# ## Running the optimisers
#
# One file per run under `runs/<network>/<optimiser>[-settings]/seed<k>.parquet` (the workbook's one run store),
# written atomically; existing files are reused, so an interrupted notebook resumes.

# %%
specs = runs_plan.nephele_runs(profile, smoke, benchmarks, optimizers, seeds)
ex.run_grid(specs, runs, n_jobs=n_jobs)
df = ex.load_runs(specs, runs)
curves = nph.iteration_curves(df, percentile_q)
write_csv(curves, out / "fig6_10_6_11_curves.csv")
print(f"{len(specs)} runs, {len(df)} explorations")

# %% [markdown]
# ## Table 6.1: what the initial budget buys
#
# All optimisers get the same $B_{init}$ (CNN \\$5, RNN \\$1). With sub-sampling the same money buys more,
# cheaper tests.

# %%
n_candidates = {(b, o): (len(loaded[b].table) if o in ("nephele", "random") else loaded[b].n_configs)
                for b in benchmarks for o in optimizers}
table6_1 = nph.initial_sampling_table(df, n_candidates)
write_csv(table6_1, out / "table6_1.csv")
table6_1

# %% [markdown]
# What the same money buys by the data alone: uniform draws at full size (Lynceus, CherryPick) and over
# all sizes (Nephele) make about `B_init / mean cost` tests. Where this explains our count but not the
# thesis', the difference lies in the measurements' costs, not in the sampler.

# %%
budget_check = nph.initial_budget_check(loaded, {b: profiles.INITIAL_BUDGETS[b] for b in benchmarks})
write_csv(budget_check, out / "table6_1_budget_check.csv")
budget_check

# %% [markdown]
# ## Figs. 6.10 (CNN) and 6.11 (RNN): CNO vs exploration cost, time and number of explorations
#
# 90th percentile over seeds (a curve starts once 90% of the runs have a feasible recommendation).
# The dashed line is the thesis' reading point (CNN: CNO = 10, RNN: CNO = 2); the dotted line is the
# floor of the optimisers without sub-sampling. Time is the measured training time of the explored
# runs (the recommendation overhead is in `total_time`).

# %%
fig_names = {"cnn": "fig6_10_cnn.png", "rnn": "fig6_11_rnn.png"}
targets = {"cnn": (10,), "rnn": (2,)}
floors = optima.set_index("network")["cno_floor_full_size"]
for b in benchmarks:
    fig = nplots.plot_cno_curves(curves, b, optimizers=optimizers, q=percentile_q, targets=targets.get(b, ()),
                                 floor=floors[b])
    save_figure(fig, out / fig_names.get(b, f"fig_nephele_{b}.png"))
    plt.show()

# %% [markdown]
# The same curves with each optimiser's CNO taken against the optimum of **its own** search space
# (the full-size optimum for Lynceus and CherryPick), which shows how fast each finds what it can find:

# %%
for b in benchmarks:
    fig = nplots.plot_cno_curves(curves, b, optimizers=optimizers, q=percentile_q, value="cno_space")
    save_figure(fig, out / f"fig_nephele_{b}_own_space.png")
    plt.show()

# %% [markdown]
# ### Exploration cost to reach a given CNO
#
# `cost_p90_curve` reads the thesis' curves (the first spend at which the 90th-percentile CNO is at
# or below the target), `cost_median_run` is the median over runs of the spend at which each run
# reaches it (a check that the reading is not an artefact of the percentile). Ratios are to Nephele.

# %%
reach = report.reach_table(df, [10, 4.5, 2.5, 2, 1], percentile_q)
write_csv(reach, out / "nephele_reach.csv")
reach.round(3)

# %% [markdown]
# ## §6.5: lookahead (h = 0, 1, 2)
#
# Lookahead simulates, for each pair of Γ, the path of the next *h* explorations (Alg. 3): the cost
# prediction is integrated with 3 Gauss-Hermite points, the accuracy at its mean (N = 3, M = 1 as in
# §6.5), both ensembles are refitted at every node, and the path's reward and cost are discounted by
# γ = 0.9. Both refits together take a few milliseconds, but a lookahead from **every** pair of Γ
# (100-350 pairs here) needs 3 of them per pair at h = 1 and 12 at h = 2: a couple of seconds per
# recommendation at h = 1 and around ten at h = 2 on this machine. The runs below therefore
# start the lookahead only from the pairs of Γ with the best one-step EIc / cost
# (`max_paths`, a deviation, stated in the folder name), and use smaller budgets (the optimum is found
# well within them). The timing table measures both settings at the same optimiser states.

# %%
look_specs = runs_plan.lookahead_runs(profile, smoke, benchmarks, lookahead_seeds, horizons)
ex.run_grid(look_specs, runs, n_jobs=n_jobs)
look = ex.load_runs(look_specs, runs)
look_curves = nph.iteration_curves(look, percentile_q)
fig = nplots.plot_lookahead_curves(look_curves, benchmarks, q=percentile_q)
save_figure(fig, out / "fig6_13_lookahead.png")
plt.show()
lookahead = nph.lookahead_table(look, percentile_q)
write_csv(lookahead, out / "table_lookahead.csv")
lookahead

# %% [markdown]
# ### Wall time per recommendation
#
# One recommendation timed for each horizon at the same optimiser states (after the initial sampling
# and a few steps), with the lookahead from the top pairs of Γ and, in the quick/paper profiles, from
# all of Γ as in the thesis.

# %%
max_paths_options = [settings["lookahead_max_paths"]] + ([None] if settings["timing_full_gamma"] else [])
timing = pd.concat([bench.time_recommendations(loaded[b], horizons=horizons, max_paths=max_paths_options,
                                             n_states=settings["timing_states"])
                    for b in benchmarks], ignore_index=True)
write_csv(timing, out / "table_lookahead_wall_time.csv")
timing.pivot_table(index=["benchmark", "max_paths"], columns="horizon", values="wall_s", aggfunc="mean")

# %% [markdown]
# The thesis compares *total* optimisation times (training time of the explored runs plus the time to
# pick them). Here the overhead of the capped lookahead is small next to the training time, so the
# measured ratios stay near 1. The projection below charges every recommendation of the lookahead runs
# the measured wall time of a lookahead from **all** of Γ instead (only in the quick/paper profiles).

# %%
projected = report.projected_total_time(look, timing)
write_csv(projected, out / "table_lookahead_projected_time.csv")
projected

# %% [markdown]
# ## Thesis vs workbook
#
# Ratios "agree" within 25% of the thesis' value (the thesis reads them off 100-seed curves; a
# few-seed percentile is noisy); statements are compared as booleans. Each §6.4 row that differs is
# recomputed with the seeds resampled with replacement (`seed_draws` draws): where the thesis' value
# lies inside the central 90% of those values (a statement: holds in at least 5% of the draws), the
# number of seeds is named as the cause; otherwise the interval goes into the note, which rules seed
# noise out (`nephele_seed_intervals.csv`). A differing RNN equal-spend row ("best case", "CherryPick is
# always the worst") is also read on the own-space CNO, the thesis' Fig. 6.11 reading ("in the respective
# search space"): where that agrees it is named as the cause, else its value goes into the note
# (`nephele_equal_spend.csv`). Random search's final CNO depends on its exploration budget, which the thesis
# does not state: that row's note gives the range of budgets where its verdict holds (`nephele_random_budget.csv`).
# A row computed from fewer than 5 runs of an optimiser or horizon it compares (counted from the runs; the
# lookahead study runs fewer seeds than the rest) is *too few runs*: its agreement is recorded, it is no
# verdict. The exact rows are the
# sizes of the optima the CNO is normalised by (§6.3, also checked in notebook 08).

# %%
from tt_workbook import paper_values as pv
from tt_workbook.studies import unstated

rows = [{"source": "thesis §6.3", "item": f"{r.network.upper()}: size of the optimum of Eq. 3.1 (images)",
         "paper": pv.SECTION_6_3[r.network]["optimum_size"], "workbook": r.optimum_size}
        for r in optima.itertuples() if r.network in pv.SECTION_6_3]
rows += report.table_6_1_rows(df, n_candidates, budget_check)
rows_6_4 = report.with_cost_scale_causes(report.section_6_4_rows(df, optima, percentile_q), budget_check)
# the equal-spend curves those rows read (same grid), on both readings of the CNO
write_csv(nph.equal_spend_curves(df, benchmarks, percentile_q), out / "nephele_equal_spend.csv")
# how far the shared initial sampling alone takes each optimiser (the RNN CNO-2 rows' measured cause)
write_csv(nph.shared_start(df, pv.SECTION_6_4["rnn"]["target_cno"], "cno_space", percentile_q),
          out / "nephele_shared_start.csv")
# the differing rows again with the seeds resampled: is the difference within seed noise?
seed_iv = report.seed_intervals(df, optima, rows_6_4, percentile_q, n_boot=settings["seed_draws"], rng=0)
write_csv(seed_iv, out / "nephele_seed_intervals.csv")
# random search's exploration budget is not stated in the thesis: its final CNO had B been each spend, and the
# range of B where the row's verdict holds (in the row's note)
random_budget = unstated.random_budget_curve(df, "cnn", percentile_q)
write_csv(random_budget, out / "nephele_random_budget.csv")
rows_6_4 = unstated.random_budget_notes(report.with_seed_causes(rows_6_4, seed_iv), random_budget)
# why random's final CNO is what it is: the p90 CNO of N uniform draws from the table (its measured mechanism)
if "cnn" in benchmarks and "random" in optimizers:
    table = loaded["cnn"].table
    feasible = (table["accuracy"] >= report.DEFAULT_MIN_ACCURACY) & (table["training_time"] <= report.DEFAULT_MAX_TIME)
    random_draws = unstated.random_draws_curve(table["cost"], feasible,
                                               float(optima.set_index("network").loc["cnn", "optimum_cost"]), percentile_q)
    write_csv(random_draws, out / "nephele_random_draws.csv")
    rnd = df[(df["benchmark"] == "cnn") & (df["optimizer"] == "random")]
    rows_6_4 = unstated.random_draws_causes(rows_6_4, random_draws, float(rnd.groupby("seed")["iteration"].max().mean()),
                                            float(rnd["budget"].max()), len(table), int(feasible.sum()), percentile_q)
rows += rows_6_4
rows += report.section_6_5_rows(look, percentile_q, max_paths=settings["lookahead_max_paths"])
rows += report.projected_time_rows(projected)
summary = comparison(rows)
save_comparison(summary, "09_nephele_optimizer", out)
computed = summary[summary["workbook"].notna()]
print(f"{int((computed['agrees'] == True).sum())} of {len(computed)} computed rows agree with the thesis")
summary

# %% [markdown]
# **Reading the result.** The run-dependent numbers are in the tables above and in the files named below
# (they move with the profile and the seeds); the values quoted here are the thesis' or properties of the
# public measurements.
#
# *Where the reproduction agrees with the thesis.*
#
# * Sub-sampling pays off in the exploration as well as in production. With the same initial budget
#   Nephele tests several times more configurations (Table 6.1 rows; the thesis' ratio for the RNN is
#   2.66), reaches any CNO for less money than Lynceus and CherryPick on both networks, and ends on the
#   optimum (CNO = 1), whereas the optimisers without sub-sampling stop at their floor, the cheapest
#   feasible full-size configuration: the thesis' "75% reduction" (CNN) and "two times cheaper" (RNN).
# * Table 6.1 for the RNN: \\$1 buys about the thesis' number of initial samples, with and without
#   sub-sampling.
# * Lookahead brings little: with h = 1 or 2 Nephele finds the optimum for about the same money as
#   without lookahead, while each recommendation takes far longer (`table_lookahead_wall_time.csv`).
#
# *Where it does not.*
#
# * The CNN ratios at CNO = 10 (thesis 1.75x and 2.13x) come out smaller on the thesis-style
#   90th-percentile curves: here Nephele's \\$5 initial sampling alone does not bring the
#   90th-percentile run below CNO = 10, so the ratio measures how soon after \\$5 each method gets there.
#   The median over runs of the spend to reach CNO = 10 is in `nephele_reach.csv` (`ratio_median_run`).
#   A 10-seed 90th percentile is essentially the second-worst run, so these ratios are noisy.
# * Table 6.1 for the CNN: \\$5 buys more tests than in the thesis. These CNN measurements are
#   cheaper than the thesis' (its 8 full-size runs for \\$5 imply ~\\$0.63 per run; here a full-size CNN
#   run costs \\$0.21 on average), while the RNN costs match.
# * RNN at CNO = 2: against the optimum at any size, Lynceus and CherryPick never get there (their floor
#   is 2.1), so the thesis' 1.2x and 3.67x can only be compared on each optimiser's own-space CNO.
#   "CherryPick is always the worst" does not hold here: CherryPick and Lynceus share the initial
#   sampling and then behave alike. The thesis' best cases against Lynceus (3x) and CherryPick (3.5x)
#   are read on the own-space CNO curves and on the deployment cost in `nephele_equal_spend.csv`; the
#   rows above say which reading matches and name it as the cause. Why the RNN's CNO-2 ratios sit near 1
#   is measured in `nephele_shared_start.csv`: the share of runs that the shared \$1 initial sampling
#   alone brings to own-space CNO <= 2, after which CherryPick's and Lynceus' runs part.
# * "Spending \$10, three times cheaper" (CNN): at \$10 every Nephele run is at the optimum and almost
#   every Lynceus run at its floor, the cheapest feasible full-size configuration (4.09x the optimum:
#   the thesis' own 75% reduction); every reading gives that floor, so the thesis' 3x means its Lynceus
#   had not yet reached the floor at \$10.
# * The thesis' total-time ratios of lookahead (2.34x, 3.83x for the CNN) depend on the speed of its
#   Java implementation relative to the training times: with this implementation they are in
#   `table_lookahead.csv` (the capped Γ) and `table_lookahead_projected_time.csv` (every recommendation
#   charged the measured full-Γ wall time: seconds of selection against minutes of training per exploration). The thesis' "h = 2 is
#   the worst" (CNN) and "h = 2 spends 1.3x more" (RNN) are compared with the seed noise in the rows above.
