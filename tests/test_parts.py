"""A model-based optimiser assembled from parts (tt_core.optimizers.parts), and the registry's options routed
to the parts that take them.

Toy problem: configurations a = 1..4 at sizes 10, 50, 100; a known acquisition part scores a candidate by
``10 * a + size / 100`` (so configuration 4 at size 100 is its maximum among untested candidates), a known
incumbent part always recommends configuration 2 and a known design tests (1, 10) and (3, 50) first.
"""

from __future__ import annotations

import numpy as np
import pytest

from tt_core.data.objectives import ReplayObjective
from tt_core.models.size_offset import SizeOffset
from tt_core.models.trees import ExtraTreesEnsemble
from tt_core.optimizers import make_optimizer
from tt_core.optimizers.model_based import ModelBasedOptimizer
from tt_core.optimizers.parts import CandidateFilter, TreeSurrogate
from tt_core.optimizers.registry import accepted_options, make_problem


class KnownAcquisition:
    name, needs_cost = "known", False

    def build(self, opt):
        space = opt.space

        def score(X):
            ids = np.rint(np.asarray(X)[:, 0] * 3).astype(int)  # encoded a in [0, 1] -> 0..3
            sizes = np.where(np.asarray(X)[:, -1] > 0.99, 100, np.where(np.asarray(X)[:, -1] > 0.5, 50, 10))
            return 10.0 * (ids + 1) + sizes / 100.0
        assert space.max_size == 100
        return score


class KnownIncumbent:
    name, constrained, feasibility_threshold = "known", True, 0.5

    def recommend(self, opt):
        return 1  # configuration id 1 (a = 2)


class KnownDesign:
    name, n_init, snapshot = "known", 2, False

    def pairs(self, space, rng, subsampling):
        return [(0, 10), (2, 50)]


def test_an_optimiser_of_known_parts_follows_them(grid12):
    problem = make_problem("trimtuner-dt", grid12, max_cost=grid12.max_cost)
    opt = ModelBasedOptimizer(problem, TreeSurrogate(), KnownAcquisition(), CandidateFilter("none", 1.0),
                              KnownIncumbent(), KnownDesign(), seed=0)
    table = ReplayObjective(grid12)
    tested = []
    for _ in range(5):
        c, s = opt.suggest()
        m = table(c, s)
        opt.observe(c, s, m.accuracy, m.cost, m.time)
        tested.append((c, s))
    # the design first, then the known acquisition's maxima: a = 4 at 100, 50, 10 (scores 40.99, 40.5, 40.1)
    assert tested == [(0, 10), (2, 50), (3, 100), (3, 50), (3, 10)]
    assert list(opt.history["phase"]) == ["init", "init", "bo", "bo", "bo"]
    assert opt.incumbent() == (1, 100)
    assert (opt.acquisition, opt.filter, opt.beta, opt.incumbent_rule, opt.init_design) == \
        ("known", "none", 1.0, "known", "known")


def test_a_name_instead_of_a_part_is_refused(grid12):
    problem = make_problem("trimtuner-dt", grid12, max_cost=grid12.max_cost)
    with pytest.raises(ValueError, match="acquisition must be a part with build.*from_settings"):
        ModelBasedOptimizer(problem, TreeSurrogate(), "trimtuner", CandidateFilter(), KnownIncumbent(),
                            KnownDesign(), seed=0)


def test_one_tree_surrogate_two_variants(rnn):
    from tt_core.data.space import ConfigSpace

    space = ConfigSpace.from_benchmark(rnn)
    assert type(TreeSurrogate("workbook")("loss", 1, space)) is ExtraTreesEnsemble
    for variant, overhead in (("workbook", None), ("overhead", "fit")):
        cost = TreeSurrogate(variant)("cost", 1, space)
        assert isinstance(cost, SizeOffset)
        assert cost.overhead == overhead
        assert cost.log_size_ratio == pytest.approx(np.log(60.0))  # ln(60000 / 1000), the RNN's sizes
        assert type(cost.model) is ExtraTreesEnsemble
    with pytest.raises(ValueError, match="unknown trees 'ours'"):
        TreeSurrogate("ours")


@pytest.mark.parametrize("name, takes, refuses", [
    ("trimtuner-dt", ["trees", "gh_roots", "constraint_factor", "n_representers", "incumbent_rule"], []),
    ("trimtuner-gp", ["gh_roots", "n_representers", "feasibility_threshold"], ["trees"]),
    ("fabolas", ["n_representers", "init_design"], ["gh_roots", "constraint_factor", "trees"]),
    ("eic", ["incumbent_rule", "n_init", "test_full_size"], ["n_representers", "gh_roots", "constraint_factor"]),
    ("ei", ["snapshot_init", "random_ties"], ["n_representers", "gh_roots"]),
])
def test_options_are_those_of_the_parts(rnn, name, takes, refuses):
    options = accepted_options(name)
    assert set(takes) <= set(options) and not set(refuses) & set(options)
    for option in refuses:
        with pytest.raises(ValueError, match=f"'{name}' has no option {option}"):
            make_optimizer(name, rnn, seed=1, max_cost=rnn.max_cost, **{option: 1})


def test_the_settings_reach_the_parts(rnn):
    opt = make_optimizer("fabulinus", rnn, seed=1, max_cost=rnn.max_cost, gh_roots=3, incumbent_rule="tested-cea")
    acq, inc, design = opt.parts.acquisition, opt.parts.incumbent, opt.parts.design
    assert (acq.gh_roots, acq.constraint_factor, acq.feasibility_threshold) == (3, "cea", 0.99)
    assert (inc.name, inc.feasibility_threshold, design.name, design.n_init) == ("tested-cea", 0.99, "random", 9)
    assert opt.parts.filter.name == "cea" and opt.parts.filter.beta == 0.1
    with pytest.raises(ValueError, match=r"beta must be a fraction in \(0, 1\]"):
        CandidateFilter("cea", 0.0)
    with pytest.raises(ValueError, match="unknown filter"):
        CandidateFilter("best", 0.1)
