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
# # 03 - Accuracy of the recommendation vs. what the optimisation cost (TrimTuner Fig. 1)
#
# Every optimiser is replayed on the authors' measurements: when it asks for a (configuration,
# data-set size), it is charged the measured training cost and time of that run. After each test it
# recommends a full-data-set configuration (its *incumbent*), which we score with the paper's
# **Accuracy_C** (Eq. 7): the incumbent's true accuracy, scaled by `C_max / C` when its true
# cost `C` exceeds the limit `C_max` (CNN \\$0.10, RNN \\$0.02).
#
# The paper's Fig. 1 plots Accuracy_C against the cumulative optimisation cost, averaged over 10 runs,
# with the initial design (random sampling) dashed. Its claims: both TrimTuner variants reach high
# Accuracy_C at a fraction of the others' cost; one TrimTuner test costs about 10x less than one EIc
# test and 2.4x less than one EIc/USD test (average sub-sampling rate about 1/4); FABOLAS, which
# ignores the constraint, recommends accurate but often infeasible configurations.
#
# The runs are stored under `runs/` (one file per run) and re-used: only missing runs are computed.
# The paper's own mean curves, read from the vector drawing of its PDF
# (`../shared/data/paper_figures/`), are drawn over ours (dotted) when that file is found.

# %% tags=["parameters"]
profile = "quick"
smoke = False
figures_dir = "../figures"
runs_dir = "../runs"
n_jobs = 2

# %%
import pandas as pd
from IPython.display import Markdown, display

from tt_workbook import runs as ex
from tt_workbook.studies.fig1_fig2 import scoring, variants
from tt_workbook.studies.fig1_fig2 import plan as runs_plan  # the runs this notebook reads: tt plan
from tt_workbook.studies.fig1_fig2 import trajectories as tj
from tt_workbook.apps.notebook import notebook_setup
from tt_workbook.studies.fig1_fig2 import paper_figures as pf
from tt_core.data.benchmarks import load_benchmark
from tt_core.data.io import save_figure, write_csv
from tt_workbook.runs import profiles
from tt_workbook.plotting.figures import plot_metric_vs_cost
from tt_workbook.studies.fig1_fig2.paper_curves import overlay_paper_curves
from tt_workbook.studies.fig1_fig2 import rows as tf
from tt_workbook.report.summary import comparison, save_comparison

nb = notebook_setup(figures_dir, profile, "fig1", smoke, precision=4, width=None, max_colwidth=90)
out = nb.out
specs = runs_plan.fig1_runs(profile, smoke)  # the one profile table: tt_workbook.runs.profiles
print(f"{len(specs)} runs ({nb.label})")
nb.settings_table

# %%
runs = ex.ensure_runs(specs, runs_dir, n_jobs=n_jobs)
benches = {b: load_benchmark(b) for b in runs["benchmark"].unique()}

# %% [markdown]
# ## Fig. 1: Accuracy_C of the incumbent vs. cumulative optimisation cost
#
# Lines are means over seeds, bands 95% confidence intervals; dashed parts are the initial design,
# drawn as in the paper: each initial test at its own Accuracy_C (a 1/60-size test scores its 1/60-size
# accuracy), not as a full-size recommendation (`tt_workbook.studies.fig1_fig2.scoring`); the grey dotted line is
# the best Accuracy_C possible (the best feasible full-size accuracy). Thin dotted lines with dots, in
# the same colours: the paper's own mean curves, **paper (read from the PDF)**, for the methods run here.
# Its TrimTuner-DT is the **workbook's** (a real information gain, as the paper describes), not the authors' code.

# %%
scored = scoring.score_initial_design(runs, benches, "paper")
curves = tj.curves_on_grid(scored)
init_end = (runs[runs["phase"] == "init"].groupby(["benchmark", "variant", "seed"])["cumulative_cost"].max()
            .rename("cost").reset_index())
best = {b: tj.best_feasible_accuracy(bench) for b, bench in benches.items()}
fig = plot_metric_vs_cost(curves, init_end, reference=best,
                          suptitle=f"Accuracy$_C$ vs optimisation cost ({profile} profile, mean and 95% CI)")
paper = pf.paper_curves("fig1")
overlay_paper_curves(fig, paper, list(dict.fromkeys(curves["benchmark"])), only=list(runs["optimizer"].unique()))
save_figure(fig, out / "fig1_accuracy_vs_cost.png")
write_csv(curves, out / "fig1_accuracy_vs_cost.csv")
print("paper curves:", "found" if len(paper) else "not found (../shared/data/paper_figures/): ours alone")

# %% [markdown]
# ## What one test costs, and where the optimisers end

# %%
max_sizes = {b: bench.max_size for b, bench in benches.items()}
stats = tj.exploration_stats(runs, max_sizes, key="optimizer", max_costs={b: bench.max_cost for b, bench in benches.items()})
write_csv(stats, out / "fig1_exploration_stats.csv")
stats

# %% [markdown]
# Which sizes TrimTuner-DT tests after its initial design (share of its BO tests per size fraction),
# and what one test costs in the paper's own Fig. 1 curves (median cost step between consecutive
# points after the initial design; an upper bound if the PDF merged collinear points).

# %%
mix = tf.size_mix(runs, benches)
steps = tf.paper_step_costs(paper) if len(paper) else pd.DataFrame(columns=["benchmark", "optimizer", "step_cost"])
write_csv(mix, out / "fig1_size_mix.csv")
write_csv(steps, out / "fig1_paper_step_costs.csv")
display(mix.pivot_table(index="benchmark", columns="s", values="share").round(3))
steps[steps["benchmark"].isin(list(benches))] if len(steps) else steps

# %% [markdown]
# ## Why TrimTuner-DT tests the smallest size: its acquisition traced per size
#
# `tt_workbook.studies.fig1_fig2.alpha_trace` replays seeded TrimTuner-DT runs on the RNN and records, at every BO step, the
# parts of alpha_T (Eq. 5: information gain / predicted cost x constraint factor) for the chosen test and the best
# candidate at each size. The measured cause, printed below from the trace, is that the trees' information gain is
# size-blind, so alpha_T ranks sizes by predicted cost, and the cost model puts the smallest size at a small share of
# the full-size cost (the size offset ignores start-up cost). Without a filter nearly every test is at the smallest
# size; at beta 10% the CEA filter keeps few smallest-size candidates, which lifts the mean size.
# `trees="overhead"` (a fitted start-up share) is an option, not the default.

# %%
from tt_workbook.studies.fig1_fig2 import alpha_trace

ats = profiles.settings(profile, "alpha_trace", smoke)
traces, traced_runs = alpha_trace.trace_runs(ats["seeds"], betas=ats["betas"], iterations=ats["iterations"])
trace_table = alpha_trace.summarise_traces(traces, traced_runs)
write_csv(trace_table, out / "fig1_alpha_trace.csv")
size_cause = alpha_trace.measured_cause(trace_table)
display(Markdown(f"**Measured** (seeds {ats['seeds']}, {ats['iterations']} tests, betas {ats['betas']}): {size_cause}."))
trace_table.round(4)

# %% [markdown]
# ## Why EIc/USD tests cost about as much as EIc's
#
# The paper has one EIc/USD step at 2.4x TrimTuner's and one EIc step at 10x; here an EIc/USD test costs
# about as much as an EIc test.
# `tt_workbook.studies.fig1_fig2.eic_usd` replays seeded EIc/USD runs and, at every BO step, evaluates on the same candidates
# and models EIc and the predicted cost `E[C] = exp(mu_c + sigma_c^2/2)` (USD) it divides by. The measurement, per
# network below: whether the division is in USD and how close the cost model is, how many decades EIc spans over
# the full-size candidates against the predicted cost, how many candidates can outrank EIc's argmax after the
# division, how often the pick is EIc's own argmax, and what its tests cost against EIc's pick at the same state.
# Dividing by the cost matters mostly early, while EIc is still flat; no defect in the cost model or its space was
# found.

# %%
from tt_workbook.studies.fig1_fig2 import eic_usd

eus_seeds = ats["seeds"] if smoke else sorted(set(ats["seeds"]) | {1, 2, 3})
eus_trace = eic_usd.trace_runs(eus_seeds, benchmarks=tuple(benches), iterations=ats["iterations"])
eus_table = eic_usd.summarise(eus_trace)
write_csv(eus_table, out / "fig1_eic_usd_mechanism.csv")
eus_cause = {b: eic_usd.measured_cause(eus_table[eus_table["benchmark"] == b]) for b in eus_table["benchmark"]}
display(Markdown("\n".join(f"* {text}" for text in eus_cause.values())))
eus_table.round(4)

# %% [markdown]
# ## As in the authors' code: three settings, and the authors' code itself
#
# Which TrimTuner-DT each figure and table shows: the Fig. 1 curves, the tables above and the alpha_T trace are
# the **workbook's own TrimTuner-DT** (a real information gain, as the paper describes); this section's table
# is the workbook's TrimTuner-DT with one setting of the authors' code at a time, plus one row that is the
# **authors' code itself**; `fig1_authors_code.png` and the tables after it are the authors' code.
#
# The authors' public code differs from the paper's text, and from the workbook's defaults, in four
# ways: (a) the incumbent is the tested configuration of maximum CEA, not the best predicted-feasible of
# all 288; (b) each initial sub-sampled test is charged in full, not as one snapshotted run; (c) the
# initial design is drawn as its own series (as in the figure above) rather than scored as full-size
# recommendations; (d) its tree ensemble gives entropy search no information (zero covariance with the
# representers) and never refits a fantasy. (a)-(c) are settings of the workbook's TrimTuner-DT
# (`tt_workbook.studies.fig1_fig2.variants`) and are run here on the RNN. (d) is **not reconstructed**: an earlier
# reconstruction (tests the max-CEA candidate) was dropped once the authors' code itself could be run,
# because their code does something else (next section: among the CEA-kept candidates, the one of largest
# or smallest P(feasible)/cost). Its row, `authors' public code (empirical residue)`, is added to the table
# after the next section from the oracle's runs. The table gives the final Accuracy_C (mean, 95% CI), how
# many runs reached Fig. 2's target (90% of the optimum, feasible), the median cost to it per run
# (unreached runs at their total cost) and where the mean curve reaches it (Fig. 2's reading).

# %%
vspecs = runs_plan.variant_runs(profile, smoke)
vruns = {lab: ex.ensure_runs(sp, runs_dir, n_jobs=n_jobs, progress=False) for lab, sp in vspecs.items()}
effects = variants.variant_effects(vruns, benches)
effects

# %% [markdown]
# ## The authors' public code beside this workbook
#
# The authors' own decision-tree TrimTuner (`pedrogbmendes/TrimTuner` with `automl/RoBO`) is run here,
# unmodified, in an environment of its own (`tt authors run`, `tt_workbook.authors.oracle`; created on first
# use). What it does, read from its code and checked by running it: its tree ensemble gives a candidate
# **zero covariance** with the representer points, and a fantasised test never refits the trees. Entropy
# search then sees no change at all: its value dH is **the same number for every candidate**, a rounding
# residue of at most a few units in the last place (the figure below: for each BO step and each of the
# ten estimators, the smallest and largest dH over the candidates coincide). The acquisition
# dH / cost x P(incumbent feasible) therefore picks, among the candidates the CEA filter keeps, the one of
# largest P/cost when the residue is positive, of smallest P/cost when negative, and the first kept one on
# an exact tie. Because that sign is a rounding accident (an exact run here, with the same code, versions and
# seeds as the reference run, gave -1.3e-15 where the reference has -4.4e-16), the runs below
# replace dH by a residue model: `empirical` (values drawn from an exact run; the main reading) and
# `pos` / `zero` / `neg` (its range). Every other figure of this notebook shows the workbook's own
# TrimTuner-DT, which follows the paper's text (a real information gain). Their GP variant is left out: it
# needs automl's fork of `george` (its `BayesianLinearRegressionKernel`), which the package registry does not
# offer (it has the upstream `george` only).

# %%
import json as _json

from tt_workbook.authors import oracle as au
from tt_workbook.plotting.authors_code import plot_authors_code

aus = profiles.settings(profile, "authors", smoke)
try:
    au.ensure_available()  # the code found and its environment made, else AuthorsError
    aspecs = runs_plan.authors_runs_03(profile, smoke)
    aruns = ex.ensure_runs(aspecs, runs_dir, n_jobs=n_jobs, progress=False)
except au.AuthorsError as exc:
    aruns = None
    print(f"the authors' code was not run: {exc}")
if aruns is not None:
    ours = runs[(runs["optimizer"] == "trimtuner-dt") & runs["benchmark"].isin(aus["benchmarks"])]
    authors_table = pd.concat([
        au.size_cost_table(aruns.assign(source="authors' public code"), by=("benchmark", "source", "residue")),
        au.size_cost_table(ours.assign(source="this workbook", residue="-"), by=("benchmark", "source", "residue")),
    ], ignore_index=True).sort_values(["benchmark", "source"])
    write_csv(authors_table, out / "fig1_authors_code.csv")
    display(authors_table.round(4))

# %% [markdown]
# The settings' table with the authors' code itself as its last row (d): their TrimTuner-DT, empirical residue,
# on the benchmarks the settings were run on, scored the same way (`variant_effects`).

# %%
if aruns is not None:
    theirs = aruns[(aruns["residue"] == "empirical") & aruns["benchmark"].isin(effects["benchmark"])]
    if len(theirs):
        effects = pd.concat([effects, variants.variant_effects({"authors' public code (empirical residue)": theirs},
                                                               benches)], ignore_index=True)
write_csv(effects, out / "fig1_authors_code_variants.csv")
effects

# %% [markdown]
# The **authors' code** (left) and both (right). Left: dH of the authors' code over the kept candidates, per BO step and estimator (an exact run of their
# entropy search, RNN seed 1, from `../shared/data/authors_code_runs/`; minimum and maximum coincide in every
# step). Right: the sizes their code and the workbook's TrimTuner-DT test after the initial design.

# %%
ref = au.reference_dir()
exact_file = ref / "out_rnn_s1_cea10_exact_14.json" if ref is not None else None
if aruns is not None:
    steps_exact = (_json.loads(exact_file.read_text())["steps"]
                   if exact_file is not None and exact_file.is_file() else None)
    full = max(benches[b].max_size for b in aus["benchmarks"] if b in benches)
    sizes = sorted(set(aruns["size"]) | set(ours["size"]))
    fig = plot_authors_code(steps_exact, {"authors' code (empirical)": aruns[aruns["residue"] == "empirical"],
                                          "this workbook": ours}, sizes, full)
    save_figure(fig, out / "fig1_authors_code.png")

# %% [markdown]
# ## Paper vs. the authors' public code vs. this workbook
#
# The paper's ratios are averages over three networks (one not public); ours are per network. We
# call a ratio in agreement when it is within a factor of two of the paper's. Each differing row
# carries its measured cause (per-test costs here and in the paper's own curves, the sizes tested) and,
# computed from the numbers, the side its difference is on: the `authors` column is the same quantity from
# the authors' public code (empirical residue; pos/zero/neg in the note), and when it is within the row's
# rule of the paper's value the difference is *a deviation of the workbook from the authors' code*; when it
# is not, *the authors' public code does not produce the paper's value either*; a ratio against EIc or
# EIc/USD (not in their repository: their value is our EIc over their TrimTuner-DT) that still differs
# stays *undetermined* (`tt_workbook.report.summary.side_of`). A row resting on fewer than 5 runs of an
# optimiser it compares (the runs per optimiser of `fig1_exploration_stats.csv`) is *too few runs*: its
# agreement is recorded, it is no verdict.
#
# **Settings the paper does not state.** Its text does not say which TrimTuner (DT or GP) its per-test costs
# are of, nor whether the initial design's tests are counted. Each row's note gives its value and verdict
# under the other choices (`fig1_per_test_costs.csv`; TrimTuner-GP only where its runs are in this profile)
# and which of them flip the verdict, and, for the agreement tolerance, the verdict at 1.5x beside the
# row's 2x with the factor where it flips (`tt_workbook.studies.unstated`).

# %%
from tt_workbook.studies import unstated

oracle = (authors_table[authors_table["source"] == "authors' public code"] if aruns is not None
          else pd.DataFrame(columns=["benchmark", "residue"]))
per_test = unstated.per_test_costs(runs, max_sizes)
write_csv(per_test, out / "fig1_per_test_costs.csv")
summary = comparison(unstated.fig1_settings_notes(
    tf.fig1_rows(stats, steps, mix, alpha_trace={"rnn": size_cause}, eic_usd=eus_cause, authors=oracle), per_test))
save_comparison(summary, "03_fig1_accuracy_vs_cost", out)
summary
