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
# # 01 - What is in the data? The authors' CNN and RNN measurements
#
# The TrimTuner authors trained two networks on MNIST with distributed TensorFlow on AWS, for every
# configuration of the paper's Table I (VM flavour x number of VMs x learning rate x batch size x
# training mode) and for 5 training-set sizes, and measured the final accuracy, the training time
# and (through AWS prices) the cost of each run. Each row is the mean of three runs. This notebook
# looks at what is in these measurements before any optimiser sees them:
#
# 1. the search space, against Table I;
# 2. accuracy, training time and cost vs training-set size;
# 3. the effect of each factor (VM flavour, cluster size, learning rate, batch size, sync/async);
# 4. learning curves;
# 5. **why sub-sampling can work**: do small training sets rank configurations as the full one does?
#
# Everything is computed by `tt_workbook.studies.dataset.analysis`; the papers' numbers appear only in the
# comparison table at the end (`tt_workbook.studies.dataset.rows`).

# %% tags=["parameters"]
smoke = False
figures_dir = "../figures"
benchmarks = ["cnn", "rnn"]
n_curves = 6

# %%
import matplotlib.pyplot as plt
import pandas as pd

from tt_workbook.apps.notebook import notebook_setup
from tt_workbook import plotting
from tt_workbook.studies.dataset import analysis as ds
from tt_core.data.benchmarks import load_benchmark
from tt_core.data.io import save_figure, write_csv
from tt_workbook.studies.dataset import rows as report
from tt_workbook.report.summary import comparison, save_comparison

out = notebook_setup(figures_dir, precision=4, width=None).out  # style, display options, figures folder
loaded = {name: load_benchmark(name) for name in benchmarks}

# %% [markdown]
# ## 1. The search space
#
# 4 VM flavours x 6 cluster sizes x 3 learning rates x 2 batch sizes x 2 training modes = 288
# configurations, each measured at 5 training-set sizes. The cluster sizes of Table I differ per
# flavour so that the total number of vCPUs is always one of 8, 16, 32, 48, 64, 80.

# %%
spaces = {n: ds.search_space(b) for n, b in loaded.items()}
pd.DataFrame({n: {k: v for k, v in s.items() if k != "levels"} for n, s in spaces.items()}).T

# %%
report.levels_table(spaces)

# %% [markdown]
# ## 2. Accuracy, training time and cost vs training-set size
#
# Box plots over the 288 configurations at each size (time and cost on log axes: they span two to
# three orders of magnitude). More data means more iterations, hence longer and costlier runs, and
# usually a more accurate model.

# %%
fig = plotting.plot_metrics_vs_size({n: b.table for n, b in loaded.items()})
save_figure(fig, out / "fig_data_overview.png")
plt.show()
by_size = pd.concat({n.upper(): ds.summary_by_size(b).set_index("size") for n, b in loaded.items()})
write_csv(by_size.reset_index().rename(columns={"level_0": "network"}), out / "data_summary_by_size.csv")
by_size

# %% [markdown]
# ## 3. The factors, at the full training-set size
#
# Each panel shows how one factor shifts accuracy, time and cost over the configurations trained on
# the full data set (all other factors vary within each box). Note the ceiling of the CNN's
# training times near 600 s: the thesis (§6.2) mentions a 10-minute threshold for running a
# configuration in the cloud; about a quarter of all CNN runs (and almost all with batch size 16 on
# the full data set) end between 600 and 650 s, so they appear to have been stopped there, with the
# accuracy reached by then.

# %%
for name, bench in loaded.items():
    fig = plotting.plot_factor_effects(ds.with_cores(bench.full_size()),
                                       title=f"{plotting.network_label(name)}: factors at the full training-set size")
    save_figure(fig, out / f"fig_factors_{name}.png")
    plt.show()

# %%
pd.concat({n.upper(): ds.summary_by_factor(b, "vm_flavor", b.max_size).set_index("vm_flavor") for n, b in loaded.items()})

# %% [markdown]
# ## 4. Learning curves
#
# The authors' bookkeeper sampled the test accuracy during training (the thesis says every 5 s;
# the number of samples per second of training varies between runs, and the sample times are not
# recorded, so the x axis counts samples). Shown: a few configurations spread over the range of
# final accuracies, trained on the full data set.

# %%
curves = {n: ds.learning_curves(b, ds.representative_configs(b, 3 if smoke else n_curves), [b.max_size])
          for n, b in loaded.items()}
fig = plotting.plot_learning_curves(curves)
save_figure(fig, out / "fig_learning_curves.png")
plt.show()

# %% [markdown]
# ## 5. Rank agreement: the reason sub-sampling works
#
# For each size *s*, the 288 values measured at *s* are compared with those at the full size:
# Spearman's and Kendall's rank correlations, and the share of the best 10% at *s* that are also
# among the best 10% at full size. High values mean that cheap sub-sampled runs already tell which
# configurations will be good (accurate) or cheap on the full data set, which is what TrimTuner's
# and FABOLAS' models exploit.

# %%
agreement = {n: ds.rank_agreement(b) for n, b in loaded.items()}
fig = plotting.plot_rank_agreement(agreement)
save_figure(fig, out / "fig_rank_agreement.png")
plt.show()
rank_table = pd.concat([d.assign(network=n) for n, d in agreement.items()], ignore_index=True)
write_csv(rank_table, out / "rank_agreement.csv")
rank_table.pivot_table(index=["network", "size"], columns="metric", values="spearman")

# %% [markdown]
# ## Paper vs workbook
#
# The data match the search space of the paper's Table I and §IV text (counts and levels), and the
# assumption behind the kernels of TrimTuner/FABOLAS that accuracy and cost grow with the data-set
# size holds for the medians (see `agrees`).

# %%
summary = comparison([row for b in loaded.values() for row in report.table1_comparison_rows(b)])
save_comparison(summary, "01_dataset_analysis", out)
print(f"{int((summary['agrees'] == True).sum())} of {len(summary)} items agree with the paper.")
summary
