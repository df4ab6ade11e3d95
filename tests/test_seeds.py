"""The one seed check (tt_core.data.seeds.check_seed), used by every seeded entry point."""

from __future__ import annotations

import numpy as np
import pytest

from tt_core.data.benchmarks import load_benchmark
from tt_core.data.seeds import check_seed
from tt_workbook.runs.store import RunSpec
from tt_core.optimizers import make_optimizer

MESSAGE = "seed must be a non-negative integer (same seed, same run)"


def test_check_seed_known_cases():
    assert check_seed(0) == 0 and check_seed(3) == 3
    out = check_seed(np.int64(7))
    assert out == 7 and type(out) is int
    for bad, shown in ((-1, "-1"), (True, "True"), (1.0, "1.0"), ("1", "'1'"), (None, "None"), (np.int64(-2), "-2")):
        with pytest.raises(ValueError, match=rf"^{MESSAGE}, got {shown}$".replace("(", r"\(").replace(")", r"\)")):
            check_seed(bad)


@pytest.mark.parametrize("bad", [-1, True, 2.5])
def test_every_entry_point_says_the_same(bad):
    rnn = load_benchmark("rnn")
    with pytest.raises(ValueError, match=MESSAGE.replace("(", r"\(").replace(")", r"\)")):
        make_optimizer("random", rnn, seed=bad, max_cost=rnn.max_cost)
    with pytest.raises(ValueError, match=MESSAGE.replace("(", r"\(").replace(")", r"\)")):
        RunSpec("rnn", "random", bad)


def test_a_numpy_seed_is_stored_as_an_int():
    spec = RunSpec("rnn", "random", np.int64(4))
    assert spec.seed == 4 and type(spec.seed) is int and spec.path("runs").name == "seed4.parquet"
