"""An optimiser that tt_core's registry does not build is a registry entry of the run store
(``EXTERNAL_RUNNERS``), not a special case of ``RunSpec``: a stand-in runner, written here, is completed,
checked and replayed through its entry; ``authors-dt`` is such an entry."""

from __future__ import annotations

import types

import pytest

from tt_workbook.runs import store


def _stand_in(calls):
    class FakeReplay:
        def __init__(self, spec):
            self.spec = spec

        def run(self, iterations):
            return f"{self.spec.optimizer} x {iterations}"

    def check_spec(spec):
        calls.append(("check", spec.optimizer, spec.beta))
        if spec.seed > 100:
            raise ValueError("the stand-in takes seeds up to 100")

    return types.SimpleNamespace(default_beta=lambda spec: 0.3, check_spec=check_spec, replay=FakeReplay)


def test_a_registered_runner_completes_checks_and_replays_a_spec(monkeypatch):
    calls = []
    monkeypatch.setitem(store.EXTERNAL_RUNNERS, "stand-in", lambda: _stand_in(calls))
    spec = store.RunSpec("rnn", "stand-in", 7, iterations=5)
    assert spec.beta == 0.3 and calls == [("check", "stand-in", 0.3)]  # default filled in before the check
    assert store.RunSpec("rnn", "stand-in", 7, beta=0.5).beta == 0.5   # an explicit one is kept
    assert spec.run() == "stand-in x 5"
    with pytest.raises(ValueError, match="seeds up to 100"):
        store.RunSpec("rnn", "stand-in", 101)


def test_an_unregistered_unknown_optimizer_is_refused_by_the_registry():
    assert store.external_runner("nope") is None
    with pytest.raises(ValueError, match="nope"):
        store.RunSpec("rnn", "nope", 1)


def test_authors_dt_is_an_entry_with_the_papers_beta():
    from tt_workbook.authors import oracle

    assert store.external_runner("authors-dt") is oracle
    assert store.RunSpec("rnn", "authors-dt", 1).beta == 0.1            # TrimTuner §IV: beta = 10 %
    assert store.RunSpec("rnn", "authors-dt", 1, filter="nofilter").beta is None
