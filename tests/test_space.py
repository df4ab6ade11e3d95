"""Tests of tt_core.data.space: encoding of configurations and sizes, round trips, candidate pool."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from tt_core.data.space import CandidatePool, ConfigSpace

SIZES = (1000, 6000, 15000, 30000, 60000)


def trimtuner_like_table(sizes=SIZES, shuffle_seed=None) -> pd.DataFrame:
    """Full grid with TrimTuner's configuration columns (4 x 3 x 3 x 2 x 2 = 144 configs)."""
    grid = list(itertools.product(["t2.small", "t2.medium", "t2.xlarge", "t2.2xlarge"], [1, 8, 80],
                                  [1e-5, 1e-4, 1e-3], [16, 256], ["async", "sync"]))
    configs = pd.DataFrame(grid, columns=["vm_flavor", "n_workers", "learning_rate", "batch_size", "sync"])
    configs.insert(0, "config_id", np.arange(len(configs)))
    rows = configs.merge(pd.DataFrame({"size": list(sizes)}), how="cross")
    rows["s"] = rows["size"] / max(sizes)
    rows["accuracy"] = 0.9
    if shuffle_seed is not None:
        rows = rows.sample(frac=1.0, random_state=shuffle_seed).reset_index(drop=True)
    return rows


COLS = ["vm_flavor", "n_workers", "learning_rate", "batch_size", "sync"]


@pytest.fixture(scope="module")
def space():
    return ConfigSpace.from_table(trimtuner_like_table(), COLS)


def test_encoding_kinds(space):
    kinds = {e.name: e.kind for e in space.encodings}
    assert kinds == {"vm_flavor": "categorical", "n_workers": "log", "learning_rate": "log",
                     "batch_size": "log", "sync": "categorical"}
    # t2 flavours are ordered by machine size by default, other categoricals sorted
    assert space.encodings[0].categories == ("t2.small", "t2.medium", "t2.xlarge", "t2.2xlarge")
    assert space.encodings[4].categories == ("async", "sync")
    assert space.dim == 5 and space.n_configs == 144


def test_known_encoded_values(space):
    lr, nw, fl = space.encodings[2], space.encodings[1], space.encodings[0]
    np.testing.assert_allclose(lr.encode([1e-5, 1e-4, 1e-3]), [0.0, 0.5, 1.0], atol=1e-12)
    np.testing.assert_allclose(nw.encode([1, 80]), [0.0, 1.0])
    np.testing.assert_allclose(nw.encode([8]), [np.log(8) / np.log(80)])
    np.testing.assert_allclose(fl.encode(["t2.small", "t2.medium", "t2.xlarge", "t2.2xlarge"]), [0, 1 / 3, 2 / 3, 1])


def test_linear_single_value_and_explicit_order():
    table = pd.DataFrame({
        "config_id": [0, 1, 2], "size": [10, 10, 10],
        "momentum": [0.5, 0.7, 0.9],       # max/min < 10 -> linear
        "const": [3.0, 3.0, 3.0],          # single value -> 0
        "opt": ["sgd", "adam", "rmsprop"],
    })
    sp = ConfigSpace.from_table(table, ["momentum", "const", "opt"],
                                categorical_order={"opt": ["sgd", "rmsprop", "adam"]})
    X = sp.encode([0, 1, 2], [10, 10, 10])
    np.testing.assert_allclose(X[:, 0], [0.0, 0.5, 1.0])
    np.testing.assert_allclose(X[:, 1], 0.0)
    np.testing.assert_allclose(X[:, 2], [0.0, 1.0, 0.5])
    np.testing.assert_allclose(X[:, 3], 1.0)  # a single size is the full size
    # explicit order makes a numeric column ordinal
    sp2 = ConfigSpace.from_table(table, ["momentum"], categorical_order={"momentum": [0.9, 0.5, 0.7]})
    np.testing.assert_allclose(sp2.encode([0, 1, 2], 10)[:, 0], [0.5, 1.0, 0.0])


def test_size_encoding_endpoints_from_data(space):
    np.testing.assert_allclose(space.size_to_s([1000, 60000]), [0.0, 1.0])
    np.testing.assert_allclose(space.size_to_s([np.sqrt(1000 * 60000)]), [0.5])
    # s_min / s_max come from the data, not from MNIST
    table = trimtuner_like_table(sizes=(100, 200, 400))
    sp = ConfigSpace.from_table(table, COLS)
    np.testing.assert_allclose(sp.size_to_s([100, 200, 400]), [0.0, 0.5, 1.0])
    # sizes given explicitly widen the range
    sp = ConfigSpace.from_table(table, COLS, sizes=(50, 100, 200, 400))
    np.testing.assert_allclose(sp.size_to_s([50, 100, 400]), [0.0, 1 / 3, 1.0])


def test_round_trip_and_row_order(space):
    table = trimtuner_like_table(shuffle_seed=3)
    X = space.encode(table["config_id"], table["size"])
    assert X.shape == (len(table), 6) and X.min() >= 0 and X.max() <= 1
    back = space.decode(X)
    for col in COLS:
        if col in ("vm_flavor", "sync"):
            assert (back[col].to_numpy() == table[col].to_numpy()).all()
        else:
            np.testing.assert_allclose(back[col].to_numpy(float), table[col].to_numpy(float), rtol=1e-12)
    np.testing.assert_allclose(back["size"], table["size"], rtol=1e-12)
    # encode_values of the raw columns equals encode by id
    np.testing.assert_allclose(space.encode_values(table[COLS]), X[:, :-1])
    # nearest_config recovers the ids
    np.testing.assert_array_equal(space.nearest_config(X[:, :-1]), table["config_id"].to_numpy())


def test_shuffled_table_gives_same_space(space):
    sp = ConfigSpace.from_table(trimtuner_like_table(shuffle_seed=7), COLS)
    np.testing.assert_allclose(sp.full_size_X(), space.full_size_X())
    for a, b in zip(sp.all_pairs(), space.all_pairs()):
        np.testing.assert_array_equal(a, b)


def test_all_pairs_and_full_size(space):
    ids, sizes = space.all_pairs()
    assert len(ids) == 144 * 5
    assert set(zip(ids.tolist(), sizes.tolist())) == set(itertools.product(range(144), SIZES))
    Xf = space.full_size_X()
    assert Xf.shape == (144, 6)
    np.testing.assert_allclose(Xf[:, -1], 1.0)
    np.testing.assert_allclose(Xf, space.encode(space.config_ids, 60000))


def test_from_benchmark_uses_its_sizes():
    table = trimtuner_like_table(sizes=(1000, 60000))
    bench = SimpleNamespace(table=table, config_columns=tuple(COLS), sizes=(1000, 60000))
    sp = ConfigSpace.from_benchmark(bench)
    assert sp.sizes == (1000, 60000) and sp.max_size == 60000
    np.testing.assert_allclose(sp.size_to_s([1000, 60000]), [0, 1])


def test_pool_tracks_tested(space):
    pool = space.pool()
    assert len(pool) == 720 and pool.n_tested == 0
    pool.mark_tested(5, 1000)
    pool.mark_tested(np.int64(7), np.int64(60000))
    ids, sizes = pool.untested()
    assert len(ids) == 718
    pairs = set(zip(ids.tolist(), sizes.tolist()))
    assert (5, 1000) not in pairs and (7, 60000) not in pairs
    tids, tsizes = pool.tested()
    assert list(zip(tids.tolist(), tsizes.tolist())) == [(5, 1000), (7, 60000)]
    assert pool.is_tested(5, 1000) and not pool.is_tested(5, 6000)
    with pytest.raises(ValueError, match="already tested"):
        pool.mark_tested(5, 1000)
    with pytest.raises(ValueError, match="unknown candidate"):
        pool.mark_tested(5, 1234)
    with pytest.raises(ValueError, match="unknown candidate"):
        pool.mark_tested(999, 1000)
    # a second pool is independent
    assert space.pool().n_untested == 720


def test_pool_exhaustion_and_duplicates():
    pool = CandidatePool([0, 1], [10, 10])
    pool.mark_tested(0, 10)
    pool.mark_tested(1, 10)
    ids, sizes = pool.untested()
    assert ids.size == 0 and len(pool) == 0
    with pytest.raises(ValueError, match="duplicates"):
        CandidatePool([0, 0], [10, 10])


@pytest.mark.parametrize("kwargs, match", [
    (dict(config_columns=["nope"]), "lacks column"),
    (dict(config_columns=[]), "config_columns is empty"),
    (dict(config_columns=COLS, sizes=(1000, 6000)), "not listed in sizes"),
    (dict(config_columns=COLS, categorical_order={"vm_flavor": ["t2.small"]}), "lacks value"),
    (dict(config_columns=COLS, categorical_order={"other": ["a"]}), "unknown column"),
])
def test_from_table_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ConfigSpace.from_table(trimtuner_like_table(), **kwargs)


def test_inconsistent_ids_rejected():
    table = trimtuner_like_table()
    table.loc[0, "learning_rate"] = 0.5  # config 0 now has two different learning rates
    with pytest.raises(ValueError, match="config_id 0 has rows with different"):
        ConfigSpace.from_table(table, COLS)


def test_encode_errors(space):
    with pytest.raises(ValueError, match="unknown config_id"):
        space.encode([1000], [1000])
    with pytest.raises(ValueError, match="sizes must lie in"):
        space.encode([0], [999])
    with pytest.raises(ValueError, match="same length"):
        space.encode([0, 1], [1000, 1000, 1000])
    with pytest.raises(ValueError, match="unknown value"):
        space.encodings[0].encode(["m5.large"])
