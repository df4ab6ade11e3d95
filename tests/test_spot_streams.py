"""SpotTune's named random streams: each purpose is the stream its module drew before the streams had names
(the same integers), and a simulation recorded before the change gives the same numbers."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from tt_workbook.runs.profiles import settings
from tt_workbook.studies.spottune import grids as G
from tt_spotsim import market as M, simulator as S
from tt_spotsim.streams import PURPOSES, entropy, spot_rng

#: purpose, keys -> the entropy the modules passed to numpy.random.default_rng before (typed by hand)
BEFORE = [
    ("submission", (), [5, 7]),                         # simulator.submission_time
    ("provisioner-bids", (), [5, 11]),                  # the provisioner of a SpotTune run
    ("interruptions", (2, 1), [5, 2, 1, 13]),           # job 2, phase 1
    ("lstm-batches", (), [5, 17]),                      # revpred.train_network
    ("lstm-training-bids", (3,), [5, 3, 23]),           # type index 3
    ("label-rates", (1,), [5, 1, 29]),                  # revpred_study.label_rates
    ("staged-order", (), [5, 2601]),                    # staged: the digits split and row order
    ("test-bids", (4,), [5, 4]),                        # revocation.evaluate, type index 4
    ("prices", ("r4.large",), [5, zlib.crc32(b"r4.large")]),  # market: one stream per type
]


@pytest.mark.parametrize("purpose, keys, ints", BEFORE)
def test_each_purpose_is_the_stream_drawn_before(purpose, keys, ints):
    assert entropy(5, purpose, *keys) == ints
    np.testing.assert_array_equal(spot_rng(5, purpose, *keys).random(8), np.random.default_rng(ints).random(8))


def test_every_purpose_is_covered_and_unknown_ones_are_refused():
    assert {p for p, _, _ in BEFORE} == set(PURPOSES)
    with pytest.raises(ValueError, match="unknown SpotTune random-stream purpose 'bids'"):
        spot_rng(1, "bids")


def test_a_synthetic_market_draws_each_type_from_its_prices_stream():
    # the sum of one day of r4.large prices at seed 3, recorded before the streams had names
    assert float(M.market("synthetic", seed=3, days=1.0).series("r4.large").sum()) == 39.5268
    one = M.synthetic_market(3, types=["r4.large"], days=1.0).series("r4.large")
    both = M.synthetic_market(3, types=["m4.4xlarge", "r4.large"], days=1.0).series("r4.large")
    np.testing.assert_array_equal(one, both)


#: (rules, prices, bid) -> approach -> (cost, JCT s, revocations, deployments) of the smoke job set at seed 3 on
#: a 12-day market, recorded before the streams had names (repr of the floats).
RECORDED = {
    ("paper", "synthetic", "tributary"): {"spottune-0.7": (1.7519466427719372, 8866.217739035841, 2, 21),
                                          "single-cheapest": (1.7594233420725125, 52348.10419586301, 0, 12)},
    ("aws-today", "synthetic-today", "algorithm2"): {"spottune-0.7": (1.689454764562754, 10791.640642370214, 0, 20),
                                                     "single-cheapest": (2.6032506065200156, 52348.10419586301, 0, 12)},
}


@pytest.mark.parametrize("case", list(RECORDED))
def test_a_simulation_is_unchanged(case):
    rules, prices, bid = case
    cfg = settings("quick", "spottune", smoke=True)
    js = G.study_job_sets(cfg)[0]
    trace = M.market(prices, seed=3, days=12.0)
    st = S.with_settings(G.sim_settings(cfg), rules=rules, bid=bid)
    for ap, (cost, jct, revocations, deployments) in RECORDED[case].items():
        s = S.simulate(js, trace, ap, st, 3).summary
        assert (s["cost"], s["jct_s"], s["revocations"], s["deployments"]) == (cost, jct, revocations, deployments)
