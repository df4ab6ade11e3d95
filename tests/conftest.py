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
    from tt_core.cli import main

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
