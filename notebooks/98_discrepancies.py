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
# # 98 - Every difference from the papers, and its cause
#
# Each notebook saves its paper-vs-workbook rows (`figures/summary_*.csv`) with a status: *agrees*,
# *differs* (the `cause` column names the measured cause and the figure or table with the evidence,
# or says that no cause has been measured yet), *not comparable* (the row comes from a setting other
# than the paper's, named in `cause`: e.g. the quick profile's 3 seeds instead of 10) or *paper only*.
# This notebook lists every row that is not in agreement, in one table. Run it last (`tt reproduce`
# does): it reads what the other notebooks wrote in this figures folder.

# %% tags=["parameters"]
profile = "quick"
smoke = False
figures_dir = "../figures"

# %%
from tt_workbook.apps.notebook import notebook_setup
from tt_core.data.io import write_csv
from tt_workbook.report.discrepancies import discrepancies, status_counts

out = notebook_setup(figures_dir, precision=6, width=200, max_colwidth=200).out  # style, display options, figures folder

# %% [markdown]
# ## Rows per notebook and status

# %%
counts = status_counts(out)
counts if len(counts) else print(f"no summary_*.csv in {out.resolve()}: run the other notebooks first")

# %% [markdown]
# ## Every row that differs or is not comparable, with its cause

# %%
table = discrepancies(out)
write_csv(table, out / "discrepancies.csv")
print(f"{len(table)} rows ({(table['status'] == 'differs').sum()} differ, "
      f"{(table['status'] == 'not comparable').sum()} not comparable; profile {profile})")
table[["notebook", "item", "paper", "workbook", "status", "cause"]]
