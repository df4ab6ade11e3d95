"""The authors' public TrimTuner-DT code, run by the oracle runner, against runs of that code made elsewhere.

The known answers are the reference trajectories in ``../shared/data/authors_code_runs/`` (made on the
same kind of machine by another harness, see its SOURCE.md) and the workbook's own benchmark table
(their recorded costs come from their own cost formula; the table's from the workbook's cost model).
Runs need ``.venv-authors`` (built on first use); the tests skip, saying why, when it cannot be built.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from tt_workbook.cli import main as tt_main
from tt_workbook.authors import oracle as A


@pytest.fixture(scope="module")
def oracle():
    try:
        A.locate_code()
    except A.AuthorsError as exc:
        pytest.skip(f"authors' code not available: {exc}")
    if A.reference_dir() is None:
        pytest.skip("reference runs ../shared/data/authors_code_runs/ not found")
    try:
        A.ensure_env(progress=lambda line: None)
    except A.AuthorsError as exc:
        pytest.skip(f".venv-authors cannot be built here: {exc}")
    return A.reference_dir()


def _reference(ref_dir, name):
    return json.loads((ref_dir / name).read_text())


def _assert_same_run(got, ref, n_tests):
    assert len(got["tests"]) == n_tests
    for k, (t, r) in enumerate(zip(got["tests"], ref["tests"][:n_tests])):
        assert t["x"] == r["x"] and t["size"] == r["size"], f"test {k + 1}"
        assert t["accuracy"] == pytest.approx(r["acc"], abs=1e-9), f"test {k + 1}"   # the reference rounds to 1e-10
        assert t["cost"] == pytest.approx(r["cost"], rel=1e-12), f"test {k + 1}"
    n_steps = n_tests - 4
    assert [(s["n_kept"], s["argmax"]) for s in got["steps"]] == \
        [(s["n_kept"], s["argmax"]) for s in ref["steps"][:n_steps]]
    if ref.get("incumbents"):
        for i, r in zip(got["incumbents"], ref["incumbents"][:n_steps]):
            assert i["after_test"] == r["after_test"] and i["x"] == r["x"]
            assert i["pred_acc"] == pytest.approx(r["pred_acc"], rel=1e-12)
            assert i["pred_cost"] == pytest.approx(r["pred_cost"], rel=1e-12)


@pytest.mark.slow
def test_first_tests_reproduce_reference_and_match_the_workbook_table(oracle):
    """Residue empirical, RNN seed 1: the first 12 tests (8 BO steps) as in the reference run; each test's
    accuracy and cost equal the workbook's table at that configuration and size (a second cost formula)."""
    got = A.run_authors("rnn", 1, residue="empirical", iterations=12)
    _assert_same_run(got, _reference(oracle, "out_rnn_s1_cea10_empirical0_44.json"), 12)
    traj = A.trajectory(got)
    from tt_core.data.benchmarks import as_benchmark

    bench = as_benchmark("rnn")
    for row in traj.itertuples():
        m = bench.lookup(row.config_id, row.size)
        assert row.accuracy == pytest.approx(float(m["accuracy"]), abs=1e-12)
        assert row.cost == pytest.approx(float(m["cost"]), rel=1e-9)
    assert list(traj["phase"]) == ["init"] * 4 + ["bo"] * 8
    assert all(s["all_equal"] is False or s["argmax"] == 0 for s in got["steps"])  # an exact tie picks the first


REFERENCE_44 = ([f"out_rnn_s{k}_cea10_empirical0_44.json" for k in range(1, 6)]
                + [f"out_cnn_s{k}_cea10_empirical0_44.json" for k in range(1, 6)]
                + [f"out_rnn_s2_cea10_{m}0_44.json" for m in ("zero", "pos", "neg")]
                + [f"out_rnn_s3_cea{b}_empirical0_44.json" for b in (1, 20, 50)]
                + ["out_rnn_s4_nofilter_zero0_44.json", "out_rnn_s5_nofilter_empirical0_44.json"])


@pytest.mark.slow
@pytest.mark.parametrize("name", REFERENCE_44)
def test_residue_runs_reproduce_reference_runs(oracle, name):
    ref = _reference(oracle, name)
    flt = "nofilter" if ref["filter"] == "nofilter" else "cea"
    got = A.run_authors(ref["net"], ref["seed"], beta=ref["per"] if flt == "cea" else 0.1, filter=flt,
                        residue=ref["dh_model"], iterations=44)
    _assert_same_run(got, ref, 44)
    # reproduced with the harness's batched CEA-filter rows in use (one batch per forest and BO step; the
    # bit-for-bit guard never switched it off), not by falling back to their row-by-row predictions; without
    # a filter their code has no CEA step to batch
    assert got["prefetch"] == {"on": True, "batches": 0 if flt == "nofilter" else 2 * 40, "off_reason": None}


@pytest.mark.slow
def test_exact_mode_dh_is_a_constant_residue(oracle):
    """Their entropy search as it is (2 BO steps, about a minute each): the initial design and each step's
    filtered set as in the reference exact run, and in every step each estimator's dH is one number for all
    candidates, a rounding residue of at most a few ulp of 1. Which candidate their argmax then takes is decided
    by that residue, i.e. by the machine's last bits (another CPU took another one at test 6), so it is not
    compared with the reference, which was made on one machine."""
    ref = _reference(oracle, "out_rnn_s1_cea10_exact_14.json")
    got = A.run_authors("rnn", 1, residue="exact", iterations=6)
    assert len(got["tests"]) == 6
    for k, (t, r) in enumerate(zip(got["tests"][:4], ref["tests"][:4])):
        assert t["x"] == r["x"] and t["size"] == r["size"], f"test {k + 1}"
    assert got["steps"][0]["n_kept"] == ref["steps"][0]["n_kept"]
    for step in got["steps"]:
        assert 0 <= step["argmax"] < step["n_kept"]
        assert len(step["dh_minmax"]) == 10
        for lo, hi in step["dh_minmax"]:
            assert lo == hi                      # constant across the kept candidates
            assert abs(lo) <= 3e-15
    assert got["emcee_samplers"] == 20           # one sampler per estimator per step, all seeded


@pytest.mark.slow
def test_cli_json_and_store(oracle, tmp_path, capsys):
    """``tt authors run --json`` prints the tests in the authors' encoding; ``--store`` keeps the run in the
    run store as authors-dt, where a RunSpec of the same settings finds it valid and recomputes it equally."""
    from tt_workbook.runs.store import RunSpec, load_runs, read_run, run_one, stored_status

    rc = tt_main(["authors", "run", "--benchmark", "rnn", "--seed", "2", "--residue", "zero", "--iterations", "6",
                  "--json", "--store", "--runs-dir", str(tmp_path)])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    ref = _reference(oracle, "out_rnn_s2_cea10_zero0_44.json")
    assert [t["x"] for t in out["tests"]] == [t["x"] for t in ref["tests"][:6]]
    assert set(out["tests"][0]) == {"x", "size", "accuracy", "cost"} and len(out["incumbents"]) == 2
    spec = RunSpec("rnn", "authors-dt", 2, iterations=6, options=(("residue", "zero"),))
    assert stored_status(spec, tmp_path) == "valid"
    stored, meta = read_run(spec.path(tmp_path))
    assert dict(meta["spec"]["options"]) == {"residue": "zero"} and meta["spec"]["beta"] == 0.1
    assert list(stored["size"]) == [t["size"] for t in ref["tests"][:6]]
    again = run_one(spec, tmp_path / "again")
    redo, _ = read_run(again)
    assert redo["config_id"].tolist() == stored["config_id"].tolist()
    assert np.allclose(redo["accuracy_c"], stored["accuracy_c"])
    assert len(load_runs([spec], tmp_path)) == 6


@pytest.mark.parametrize("argv, words", [
    (["--residue", "tiny"], "unknown residue model 'tiny'"),
    (["--beta", "2"], "beta must be a fraction"),
    (["--beta", "x"], "--beta"),
    (["--filter", "random"], "unknown filter 'random'"),
])
def test_bad_input_is_one_line_exit_2(argv, words, capsys):
    try:
        rc = tt_main(["authors", "run", "--benchmark", "rnn", "--seed", "1", *argv])
    except SystemExit as exc:  # argparse's own errors (one line, exit 2 too)
        rc = exc.code
    err = capsys.readouterr().err.strip()
    assert rc == 2
    assert err.startswith("tt: error:") and words in err and "\n" not in err


def test_missing_code_is_one_line_exit_2(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("TT_AUTHORS_CODE", str(tmp_path))
    assert tt_main(["authors", "run", "--benchmark", "rnn", "--seed", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("tt: error: TT_AUTHORS_CODE=") and "\n" not in err


def test_failed_install_is_one_line(monkeypatch, tmp_path):
    """A venv that cannot be built (here: an interpreter that does not exist) is an AuthorsError naming what to do."""
    with pytest.raises(A.AuthorsError, match="cannot create the authors' environment"):
        A.ensure_env(tmp_path / "venv", progress=lambda line: None, python=str(tmp_path / "no-python"))


def test_runspec_rejects_settings_the_authors_code_cannot_run():
    from tt_workbook.runs.store import RunSpec

    with pytest.raises(ValueError, match="residue"):
        RunSpec("rnn", "authors-dt", 1, options=(("residue", "huge"),))
    with pytest.raises(ValueError, match="cost limits"):
        RunSpec("rnn", "authors-dt", 1, max_cost=0.05)
    assert RunSpec("rnn", "authors-dt", 1).variant == "authors-dt"
    assert RunSpec("rnn", "authors-dt", 1, options=(("residue", "pos"),)).variant == "authors-dt-residuepos"


def test_size_cost_table_by_hand():
    """Two runs of 2 initial + 2 BO tests: the BO sizes 1000, 60000 | 30000, 30000 of 60000."""
    import pandas as pd

    rows = []
    for seed, sizes, costs, accs in [(1, [1000, 60000], [0.001, 0.02], [0.5, 0.9]),
                                     (2, [30000, 30000], [0.01, 0.01], [0.8, 0.7])]:
        for k in range(4):
            bo = k >= 2
            rows.append({"benchmark": "rnn", "variant": "v", "seed": seed, "iteration": k + 1,
                         "phase": "bo" if bo else "init", "size": sizes[k - 2] if bo else 6000,
                         "cost": costs[k - 2] if bo else 0.5, "accuracy_c": accs[k - 2] if bo else 0.0,
                         "incumbent_size": 60000})
    t = A.size_cost_table(pd.DataFrame(rows)).iloc[0]
    assert t["runs"] == 2
    assert t["mean_size_fraction"] == pytest.approx((1 / 60 + 1 + 0.5 + 0.5) / 4)
    assert t["share_at_1_60"] == pytest.approx(0.25)
    assert t["cost_per_bo_test"] == pytest.approx((0.001 + 0.02 + 0.01 + 0.01) / 4)
    assert t["final_accuracy_c"] == pytest.approx((0.9 + 0.7) / 2)
