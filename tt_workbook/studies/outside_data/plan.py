"""The optimiser runs notebook 17 (TrimTuner's claims on LCDB) reads, at a profile (:mod:`tt_workbook.runs.profiles`).

The runs depend on the data: the data sets chosen by the selection rule (:mod:`tt_workbook.studies.outside_data.analysis`)
and their converted files (:func:`tt_workbook.studies.outside_data.lcdb.convert`). Without the lcdb package (the
``lcdb`` extra, at :data:`~tt_workbook.studies.outside_data.lcdb.LCDB_VERSION`) the notebook runs nothing, and
neither does its plan.
"""

from __future__ import annotations

from tt_core.data.benchmarks import sha256_of
from tt_workbook.runs.profiles import settings
from tt_workbook.runs.store import RunSpec
from tt_workbook.studies.outside_data import analysis as od
from tt_workbook.studies.outside_data import lcdb

__all__ = ["run_specs", "notebook_17_runs"]


def run_specs(ids, files: dict, chosen, seeds) -> dict:
    """``(openml_id, arm label, seed) -> RunSpec``: every arm of :data:`~tt_workbook.studies.outside_data.analysis.ARMS`
    on each data set's file, with its cost limit and one test per learner (``chosen``: the selection's rows)."""
    table = chosen.set_index("openml_id")
    limits = {oid: float(table.loc[oid, "limit"]) for oid in ids}
    n_tests = {oid: int(table.loc[oid, "learners"]) for oid in ids}
    return {(oid, label, s): RunSpec(str(files[oid]), opt, s, iterations=n_tests[oid], max_cost=limits[oid], filter=filt)
            for oid in ids for label, opt, filt in od.ARMS for s in seeds}


def notebook_17_runs(profile: str, smoke: bool = False, data_dir=None, convert: bool = True) -> list:
    """Every run notebook 17 reads (none when lcdb is not installed at the version it reads).

    ``convert=False`` names each data set's file where :func:`~tt_workbook.studies.outside_data.lcdb.convert`
    writes it, without writing it (``tt plan`` computes nothing).
    """
    if lcdb.installed_version() != lcdb.LCDB_VERSION:
        return []
    cfg = settings(profile, "lcdb", smoke)
    rows = lcdb.read_source()
    chosen_all = od.eligible(od.dataset_summary(rows))
    ids = od.spread(chosen_all, cfg["datasets"])
    chosen = chosen_all[chosen_all["openml_id"].isin(ids)].reset_index(drop=True)
    if convert:
        source_sha = sha256_of(lcdb.source_csv())
        files = {oid: lcdb.convert(oid, data_dir, rows=rows, source_sha256=source_sha) for oid in ids}
    else:
        files = {oid: lcdb.output_path(oid, data_dir) for oid in ids}
    return list(run_specs(ids, files, chosen, cfg["seeds"]).values())
