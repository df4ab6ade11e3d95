"""Fixtures shared by the test modules: the registered benchmarks and a tiny table small enough to check
by hand."""

from __future__ import annotations

import pandas as pd
import pytest

from tt_core.data.benchmarks import benchmark_from_table, load_benchmark


@pytest.fixture(scope="module")
def rnn():
    """The RNN benchmark (authors' measurements), loaded once per test module."""
    return load_benchmark("rnn")


@pytest.fixture(scope="module")
def cnn():
    """The CNN benchmark (authors' measurements), loaded once per test module."""
    return load_benchmark("cnn")


@pytest.fixture
def grid12():
    """Configurations a = 1..4 at sizes 10, 50, 100 (12 candidate tests): accuracy ``0.5 + 0.1 a s / 100``,
    time ``s`` seconds, cost ``a`` x (0.002, 0.006, 0.01) USD at the three sizes; cost limit $0.10."""
    rows = [(a, size, 0.5 + 0.1 * a * size / 100, 1.0 * size, cost * a)
            for a in (1, 2, 3, 4) for size, cost in ((10, 0.002), (50, 0.006), (100, 0.01))]
    df = pd.DataFrame(rows, columns=["a", "size", "accuracy", "time", "cost"])
    return benchmark_from_table(df, ["a"], name="toy", max_cost=0.10)


def tt_cli(capsys, *argv) -> tuple[int, str]:
    """Run ``tt ARGV`` in this process; its exit code and what it printed on stderr."""
    from tt_workbook.cli import main

    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse's own errors (one line too: tt's parser overrides error())
        code = exc.code
    return code, capsys.readouterr().err


def assert_one_line_error(code, err, *needles) -> None:
    """Exit code 2 and exactly one ``tt: error: ...`` line (warnings and progress aside) holding ``needles``."""
    assert code == 2, err
    lines = [ln for ln in err.strip().splitlines() if not ln.startswith(("tt: warning", "runs:")) and ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("tt: error: ") and "Traceback" not in err, err
    for n in needles:
        assert n in lines[0], (n, lines[0])


#: Measured wall-clock columns of a run: they change from run to run and trajectory checks leave them out.
WALL_COLUMNS = ("overhead_s", "cumulative_wall")


def trajectory_rows(benchmark: str, optimizer: str, seed: int, **spec) -> dict:
    """One run (``RunSpec(benchmark, optimizer, seed, **spec)``, BLAS on one thread) as
    ``{column: list of values}``, wall-clock columns left out: what the trajectory checks store and compare."""
    from threadpoolctl import threadpool_limits

    from tt_workbook.runs.store import RunSpec

    with threadpool_limits(limits=1, user_api="blas"):
        df = RunSpec(benchmark, optimizer, seed, **spec).run()
    return {col: [v.item() if hasattr(v, "item") else v for v in df[col].tolist()]
            for col in df.columns if col not in WALL_COLUMNS}


def first_difference(ref: dict, new: dict) -> str | None:
    """The first value where two runs (as :func:`trajectory_rows` gives them) differ, named by iteration and
    column (NaN equals NaN); None when they agree column for column."""
    import math

    if sorted(ref) != sorted(new):
        return f"columns differ: {sorted(set(ref) ^ set(new))}"
    for i in range(len(ref["iteration"])):
        for col in ref:
            a, b = ref[col][i], new[col][i] if i < len(new[col]) else None
            same = a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))
            if not same:
                return f"iteration {ref['iteration'][i]}: {col} {a!r} -> {b!r}"
    if len(new["iteration"]) != len(ref["iteration"]):
        return f"{len(ref['iteration'])} rows -> {len(new['iteration'])}"
    return None
