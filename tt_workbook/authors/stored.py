"""Runs of the authors' code in the run store (optimiser ``authors-dt``), kept apart from
:mod:`tt_workbook.authors.oracle` so that the store can run them without an import cycle."""

from __future__ import annotations

from tt_workbook.authors.oracle import OPTIMIZER, SPEC_OPTIONS, frame_for_store
from tt_core.data.paper_defaults import CEA_BETA, TESTS_PER_RUN


def spec_of(result: dict):
    """The :class:`~tt_workbook.runs.store.RunSpec` of a finished run (settings as the store keeps them)."""
    from tt_workbook.runs.store import RunSpec

    opts = {k: v for k, v in (("residue", result["residue"]), ("dh_seed", result["dh_seed"]))
            if v != SPEC_OPTIONS[k]}
    return RunSpec(result["benchmark"], OPTIMIZER, int(result["seed"]), iterations=int(result["iterations"]),
                   beta=None if result["filter"] == "nofilter" else float(result["beta"]),
                   filter=None if result["filter"] == "cea" else result["filter"],
                   options=tuple(sorted(opts.items())))


def store_run(result: dict, runs_dir=None):
    """Store a finished run (from :func:`tt_workbook.authors.oracle.run_authors`) in the run store; return its path.

    Written as :func:`tt_workbook.runs.store.run_one` would (same metadata), so ``tt runs``, the
    profiles and the notebooks read it like any other run; the authors' environment's package versions
    go in the metadata too.
    """
    from tt_workbook.runs.store import DEFAULT_RUNS_DIR, write_run

    spec = spec_of(result)
    path = spec.path(runs_dir or DEFAULT_RUNS_DIR)
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_run(spec, frame_for_store(result), path, wall_s=float(result["wall_s"]),
                     authors_versions=result["versions"], authors_code=result["code"])


def authors_specs(benchmarks, seeds, residues=("empirical",), betas=(CEA_BETA,), filters=("cea",), iterations: int = TESTS_PER_RUN):
    """RunSpecs of ``authors-dt`` for a grid (what a notebook passes to ``ensure_runs``).

    ``filters`` holds ``cea`` and/or ``nofilter``; ``betas`` apply to ``cea`` only.
    """
    from tt_workbook.runs.store import RunSpec

    specs = []
    for b in benchmarks:
        for f in filters:
            for beta in (betas if f == "cea" else (None,)):
                for r in residues:
                    opts = () if r == SPEC_OPTIONS["residue"] else (("residue", r),)
                    specs += [RunSpec(b, OPTIMIZER, int(s), iterations=iterations, beta=beta,
                                      filter=None if f == "cea" else f, options=opts) for s in seeds]
    return specs
