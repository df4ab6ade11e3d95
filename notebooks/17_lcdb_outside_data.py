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
# # 17 - Do TrimTuner's claims hold on learning curves nobody here measured? (LCDB)
#
# Every other notebook replays the TrimTuner authors' two tables (a CNN and an RNN on MNIST). Here the
# same optimisers run on **LCDB** (the `lcdb` package 0.1.0, MIT; the OpenML data sets carry their own
# licences): the learning curves of 20 scikit-learn learners on 248 OpenML data sets, with measured
# train times. Install it with `pip install -e '.[lcdb]'` (`make setup` does): a 68 MB download, 459 MB
# installed. Without it this notebook says so and stops.
#
# **The setting, written down before any run** (`tt_workbook/studies/outside_data/lcdb.py`, `tt_workbook/studies/outside_data/analysis.py`):
#
# * a configuration is a learner (LCDB runs each at its scikit-learn defaults); the fidelity is the
#   training-set size, at the LCDB sizes nearest to the TrimTuner paper's five fractions (1/60, 1/10, 1/4,
#   1/2 and all of the training set);
# * a test is LCDB's protocol at that size: accuracy = the mean validation accuracy over its splits,
#   time = the splits' summed train time, cost = time x 0.0464 USD/h (AWS t2.medium, the authors' price list);
# * data sets: those whose curves fit the setting (five distinct sizes, at least 15 learners with every size,
#   a median full-size time of at least 10 s, and at most half of the affordable learners within 1% of the best),
#   spread over their cost range; limit: the median full-size cost of the data set's learners; tests per run:
#   the number of learners (EIc can test every learner at full size).
#
# **The claims tested**, per data set with 95% bootstrap intervals over seeds:
# Fig. 2 (EIc needs more cost than TrimTuner-DT to reach within 1% of the best affordable full-size accuracy),
# Figs 3-4 (CEA at beta = 10% loses nothing against no filter), Fig. 1 (TrimTuner-DT's Accuracy_C is higher
# than each baseline's after the same spend). These are outside data, not the paper's numbers: the summary
# rows are of the kind *outside data*, counted apart from the reproductions, and say on how many data sets each
# claim holds, with intervals.

# %% tags=["parameters"]
profile = "quick"
smoke = False
figures_dir = "../figures"
runs_dir = "../runs"
data_dir = None  # where the converted LCDB files go (None: the git-ignored data/lcdb/)
n_jobs = 2

# %%
import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import display

from tt_workbook.studies.outside_data import analysis as od
from tt_workbook.apps.notebook import notebook_setup
from tt_workbook.studies.outside_data import lcdb
from tt_workbook.studies.outside_data import plan as runs_plan  # the runs this notebook reads: tt plan
from tt_core.data.benchmarks import sha256_of
from tt_core.data.io import save_figure, write_csv
from tt_workbook.runs import store
from tt_workbook.studies.outside_data.figures import plot_claims
from tt_workbook.report.summary import comparison, save_comparison

nb = notebook_setup(figures_dir, profile, "lcdb", smoke, n_jobs=n_jobs)
out, cfg = nb.out, nb.settings
SOURCE = "TrimTuner on outside data (LCDB)"
version = lcdb.installed_version()
available = version == lcdb.LCDB_VERSION
if not available:
    why = (f"lcdb {version} is installed, this notebook reads lcdb {lcdb.LCDB_VERSION}" if version
           else "the lcdb package is not installed")
    print(f"SKIPPED: {why}; {lcdb.INSTALL_HINT}. The rows below say so.")
    save_comparison(comparison([{"source": SOURCE, "item": "claims on LCDB data sets", "paper": None, "workbook": None,
                                 "check": "outside", "cause": f"not run: {why}", "note": lcdb.INSTALL_HINT}]),
                    "17_lcdb_outside_data", out)
else:
    print(f"lcdb {version}; {nb.label}: {cfg['datasets'] or 'all eligible'} "
          f"data set(s) x {len(cfg['seeds'])} seed(s) x {len(od.ARMS)} arms")

# %% [markdown]
# ## Which data sets: the selection rule applied to every LCDB data set

# %%
if available:
    rows = lcdb.read_source()
    summary = od.dataset_summary(rows)
    chosen_all = od.eligible(summary)
    ids = od.spread(chosen_all, cfg["datasets"])
    chosen = chosen_all[chosen_all["openml_id"].isin(ids)].reset_index(drop=True)
    print(f"{len(summary)} LCDB data sets; {len(chosen_all)} eligible; studied here: {ids}")
    write_csv(summary, out / "lcdb_datasets.csv")
    display(chosen)

# %% [markdown]
# ## Convert (data/lcdb/, with the lcdb version and sha256s) and run
#
# Runs are stored under `runs/` (one folder per converted file) and reused.

# %%
if available:
    src = lcdb.source_csv()
    source_sha = sha256_of(src)  # the run store records each converted file's own sha256
    files = {oid: lcdb.convert(oid, data_dir, rows=rows, source_sha256=source_sha) for oid in ids}
    provenance = pd.DataFrame([{k: v for k, v in lcdb.provenance(p).items()
                                if k in ("openml_id", "file", "sha256", "lcdb_version", "source_sha256", "splits", "sizes")}
                               for p in files.values()])
    write_csv(provenance, out / "lcdb_provenance.csv")
    specs = runs_plan.run_specs(ids, files, chosen, cfg["seeds"])
    store.run_grid(list(specs.values()), runs_dir, n_jobs=nb.n_jobs)
    runs = pd.concat([store.read_run(sp.path(runs_dir))[0].assign(openml_id=oid, arm=label)
                      for (oid, label, _), sp in specs.items()], ignore_index=True)
    display(provenance)

# %% [markdown]
# ## The claims, per data set
#
# `value` with its 95% interval (`lo`, `hi`) over seeds; `verdict`: *holds* when the interval lies on the
# claim's side (for the filter: unless it lies below 0), *fails* when on the other side, *undecided* otherwise.
# Where a claim fails, `reason` names the measured property of the data set that comes with it.

# %%
if available:
    per = []
    for oid in ids:
        row = chosen.set_index("openml_id").loc[oid]
        c = od.claims(runs[runs["openml_id"] == oid], float(row["best_affordable"])).assign(openml_id=oid)
        c["reason"] = [od.reason(row) if v == "fails" else "" for v in c["verdict"]]
        per.append(c)
    table = pd.concat(per, ignore_index=True)
    write_csv(table, out / "lcdb_claims_per_dataset.csv")
    counts = od.claim_counts(table)
    write_csv(counts, out / "lcdb_claim_counts.csv")
    display(table[["openml_id", "claim", "value", "lo", "hi", "verdict", "runs", "reason", "note"]])
    display(counts)

# %%
if available:
    fig = plot_claims(table, title=f"TrimTuner's claims on LCDB ({profile} profile; 95% bootstrap intervals over seeds)")
    save_figure(fig, out / "lcdb_claims.png")
    plt.show()

# %% [markdown]
# ## Paper vs. this workbook
#
# One row per claim, of the kind *outside data* (counted apart from the reproductions and the checks): the number
# of studied data sets (the claim, as a general one, says it holds on all) beside the number where it holds; its
# note gives each data set's value, 95% interval and verdict, and the reason where it fails.

# %%
if available:
    summary_rows = comparison(od.summary_rows(
        table, SOURCE, setting="LCDB learning curves of scikit-learn learners, not the paper's networks"))
    save_comparison(summary_rows, "17_lcdb_outside_data", out)
    display(summary_rows)
