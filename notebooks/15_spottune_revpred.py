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
# # 15 - RevPred vs Tributary's predictor: will the instance be revoked within the hour? (Fig. 10)
#
# SpotTune's provisioner (notebook 13) needs, for each instance type *i*, maximum price *b* and time *t*,
# the probability that the spot price rises above *b* within the next hour. The paper's predictor,
# **RevPred** (§III-B), and the one it compares with, **Tributary's** (re-implemented by the SpotTune
# authors), are LSTM networks trained on the price history; the baseline is a logistic regression on
# the same six engineered features. This notebook builds the three (`tt_spotsim.revpred`,
# `tt_spotsim.revocation`), reproduces Fig. 10 (a, b), accuracy and F1 per instance type on the test
# days, and Fig. 10 (c), SpotTune's cost and PCR with each predictor plugged into the provisioner.
#
# * **Samples**: every minute with the 59 minutes before it (*history*: six features each) and the
#   present minute (six features and the maximum price); the label is whether the price rises above the
#   maximum price within the next 60 minutes.
# * **Maximum price in training**: RevPred's Alg. 2 (present price plus the trimmed mean price change of
#   the past hour: samples near the border between revoked and not revoked); Tributary's present price
#   plus a random delta in [\\$0.00001, \\$0.2]. **At inference** both are asked about random maximum
#   prices, as the paper says.
# * **Networks**: RevPred, a three-layer LSTM over the history and three fully connected layers over the
#   present, concatenated to one output; Tributary, one LSTM over all 60 records. Class weights from the
#   positive and negative fractions; the output turned into a probability by **Eq. 3, which was lost in
#   the paper's text and is reconstructed here** (`revocation.calibrate`).
#
# **What the numbers measure.** Unless you supply the 2017 trace (`us-east-1.csv`, see notebook 12),
# prices come from the workbook's seeded **synthetic** 2017-style market: the comparison then measures
# how well each model learns *the synthetic generator*, not AWS's market, and every row is marked
# *not comparable*. With the real file the same notebook reproduces the paper's calendar split (train
# from the trace's start on 2017-04-26 to 05-05 00:00 UTC, test 05-05 00:00 to 05-08 00:00 UTC,
# `revpred_study.fig10_split`; a file not covering those dates is refused with one line naming them). Trained weights are cached under `data/spot_revpred/` by seed,
# settings and the trace's checksum (a second run reads them).

# %% tags=["parameters"]
profile = "quick"          # "quick" (small networks, few epochs, every 3rd minute) or "paper" (every minute)
smoke = False
figures_dir = "../figures"
prices = "synthetic"       # "synthetic", "real" (the located 2017 trace) or a path
seed = 1                   # the synthetic market's seed

# %%
import time
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from tt_core.data.io import save_figure, write_csv
from tt_workbook.runs import profiles
from tt_workbook.report.summary import save_comparison
from tt_workbook.studies.spottune import figures as F, rows as report, revpred_study as RS, settings_tables as STB
from tt_spotsim import market as M, simulator as S

pd.set_option("display.precision", 3)
out = Path(figures_dir)
out.mkdir(parents=True, exist_ok=True)
cfg = profiles.settings(profile, "revpred", smoke)
spot_cfg = profiles.settings(profile, "spottune", smoke)
trace = RS.revpred_market(cfg, prices, seed)
job_sets = RS.fig10c_job_sets(cfg, spot_cfg, progress=True)
print(f"prices: {trace.label}, {trace.n_minutes / 1440:.0f} days from {trace.start:%Y-%m-%d}")
STB.revpred_settings_table(cfg, trace.label, len(job_sets), trace.synthetic)

# %% [markdown]
# ## How often is the training label positive?
#
# The share of revoked-within-the-hour samples in the training days under each choice of the maximum
# price. Alg. 2 puts the price just above the present one, so about half the samples are revocations;
# a random delta of up to \\$0.2 is large next to a cheap type's price (r4.large costs about \\$0.03 an
# hour), so there revocations become rare. Narrower delta ranges are shown for comparison.

# %%
rates = RS.label_rates(trace, cfg)
write_csv(rates, out / "spottune_fig10_labels.csv")
rates.pivot(index="type", columns="max_price", values="positive_rate")

# %% [markdown]
# ## Training
#
# One network per instance type and predictor (the logistic regression too). CPU seconds per type;
# `cached`: read from the weight cache instead of trained.

# %%
c0 = time.process_time()
predictors = RS.fig10_predictors(trace, cfg, progress=True)
fit_cpu = time.process_time() - c0
fits = RS.fit_table(predictors)
write_csv(fits, out / "spottune_fig10_fit.csv")
print(f"fitting all predictors: {fit_cpu:.1f} s CPU in this process "
      f"(training alone: {fits['cpu_s'][~fits['cached']].sum():.1f} s; {int(fits['cached'].sum())} of {len(fits)} "
      "networks from the cache)")
fits.round(3)

# %% [markdown]
# ## Fig. 10 (a, b): accuracy and F1 on the test days
#
# Test samples from the days after the fit period, each with a random maximum price (present price plus
# a delta in Tributary's range, seeded); a sample counts as predicted revoked when the probability is at
# least 0.5. F1 is empty for a type where no test sample is a revocation and none is predicted.

# %%
scores = RS.fig10_scores(trace, predictors, cfg)
write_csv(scores, out / "spottune_fig10.csv")
fig = F.fig10(scores, trace.synthetic)
save_figure(fig, out / "spottune_fig10.png")
plt.show()
scores[scores["bids"] == "random"].pivot(index="type", columns="predictor", values=["accuracy", "f1"])

# %% [markdown]
# The same models asked about Alg. 2 maximum prices instead (RevPred's training distribution; the
# samples near the border, where a revocation is as likely as not):

# %%
scores[scores["bids"] == "algorithm2"].pivot(index="type", columns="predictor", values=["accuracy", "f1"])

# %% [markdown]
# ## Does the past hour carry information? A market with memory
#
# The synthetic 2017-style market is memoryless by construction: price levels are drawn afresh at each
# change and spikes arrive at random, so a history-based predictor cannot beat one that sees only the
# present minute. `synthetic-persistent` keeps its parameters but adds memory (`tt_spotsim.market`:
# calm and volatile regimes switching as a Markov chain, spikes clustered in the volatile regime,
# mean-reverting levels; the regime constants are assumptions, stated there, not fitted to the 2017 trace,
# which is not available here). Below: the test log loss of a logistic regression on the present minute
# only and of one with the past hour's features (Fig. 10's) added, on both markets (same seed; positive
# gain: the past hour helps).

# %%
memory = pd.concat([RS.history_value(M.market(style, seed=seed, days=12.1)).assign(market=style)
                    for style in ("synthetic", "synthetic-persistent")], ignore_index=True)
write_csv(memory, out / "spottune_history_value.csv")
memory.groupby("market")[["log_loss_present", "log_loss_history", "gain"]].mean().round(4)

# %% [markdown]
# ## Fig. 10 (c): SpotTune with each predictor
#
# SpotTune (θ = 0.7) on Fig. 7's substituted workloads, submitted after the fit period, with each
# predictor in the provisioner (Eqs. 1-2) and the maximum price drawn at random as at inference. Cost,
# JCT and PCR are averaged over seeds per job set, normalised to the run with Tributary's predictor,
# then averaged over job sets.

# %%
grid = RS.fig10c_grid(job_sets, trace, predictors, cfg["seeds"], cfg, spot_cfg, progress=True)
c_summary = RS.fig10c_summary(grid)
write_csv(grid, out / "spottune_fig10c_runs.csv")
write_csv(c_summary, out / "spottune_fig10c.csv")
fig = F.fig10c(c_summary, trace.synthetic)
save_figure(fig, out / "spottune_fig10c.png")
plt.show()
c_summary

# %% [markdown]
# Figs 7 and 9 with each of the three predictors in the loop (RevPred the main reading), and each
# predictor's calibration in the loop (predicted against realised revocation rate, a reliability curve),
# are in notebook 13: they use the predictors trained here (the same weights, read from the cache).

# %% [markdown]
# ## Paper vs workbook
#
# The paper's +20.32 % accuracy and +34.03 % F1 are read as relative gains of RevPred's mean score over
# Tributary's (the text does not say whether they are relative or points; the points are in the note).
# Its Fig. 10 (c) numbers are reference only: substituted workloads and, here, synthetic prices.

# %%
gains = RS.fig10_gains(scores)
ref = c_summary.set_index("predictor")
c_values = {"cost_saving": 1 - ref.loc["revpred", "cost_norm"], "pcr_gain": ref.loc["revpred", "pcr_norm"] - 1}
setting = (f"{'smoke' if smoke else profile} profile: {cfg['hidden']}-unit networks, {cfg['epochs']} epoch(s), "
           f"a training sample every {cfg['stride']} minute(s)")
rows = report.fig10_rows(gains, c_values, trace.synthetic, setting) + [report.fig10_best_row(scores, trace.synthetic, setting)]
summary = report.summary(rows)
save_comparison(summary, "15_spottune_revpred", out)
summary[["item", "paper", "workbook", "status"]]

# %% [markdown]
# **Reading the result.**
#
# * *Which maximum prices?* The paper trains RevPred on Alg. 2's maximum prices and asks it about random
#   ones. Random deltas of up to \\$0.2 lie far above the present price of the cheap types, so most test
#   samples are clearly safe: accuracy is high for every model that predicts "not revoked" there, and F1
#   (the revocations found) separates them. The label table above shows how rare the positives become.
# * *The synthetic market.* Its spikes arrive at random (a Poisson process) and its calm-market changes
#   are independent of the past, so the history carries little information beyond the six present
#   features: a logistic regression on those features is a strong baseline here. On the real 2017 trace
#   the history may carry more; run the notebook with `prices = "real"`.
# * *Fig. 10 (c).* The provisioner uses the probability in Eq. 1's expected cost, so a predictor changes
#   SpotTune's cost only where it changes which type is cheapest in expectation; the revocations and
#   free-step shares per predictor are in `spottune_fig10c.csv`.
