"""The papers' defaults are stated once (:mod:`tt_core.data.paper_defaults`): their values are the papers'
own words, and no other module of the package types them again."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tt_core.data import paper_defaults as D

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("tt_core", "tt_spotsim", "tt_workbook")
PAPERS = ROOT.parent / "shared" / "papers"

#: A default typed again: the literal patterns the defaults were written as before they had a name.
PATTERNS = [
    r"\bbetas?\s*(:\s*float\s*)?=\s*\(?0\.1\b",           # beta=0.1, beta: float = 0.1, betas=(0.1, ...)
    r"\bbeta\b[^\n]{0,20}[!=]=\s*0\.1\b",                  # self.beta == 0.1
    r"\bbeta\b[^\n]*\belse\s+0\.1\b",                      # beta if beta is not None else 0.1
    r"\biterations\s*(:\s*int(\s*\|\s*None)?\s*)?=\s*44\b",  # iterations: int = 44
    r"[\"']iterations[\"']\s*:\s*44\b",                   # {"iterations": 44}
    r"\bdefault\s*=\s*44\b", r"\bdefault 44\b",            # argparse default=44, help "default 44"
    r"\belse\s+44\b",                                      # ... else 44
    r"\bdefault 0\.1\b",                                   # help "default 0.1"
    r"\bn_init\s*(:\s*int\s*)?=\s*4\b",                    # n_init: int = 4
    r"\(0\.01, 0\.1, 0\.2, 0\.5, 1\.0\)",                  # Fig. 4's betas
    r"\(\"cea\", \"direct\", \"cmaes\", \"random\"\)",     # Fig. 3's filters
    r"\bTHESIS_(MIN_ACCURACY|MAX_TIME)\s*=",               # the thesis' limits defined again
    r"\bINITIAL_BUDGETS\s*=",
]
#: Modules that may not import tt_core: the authors' harness runs in their own environment.
OUTSIDE = {"tt_workbook/authors/harness.py"}


def _modules():
    for path in sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel == "tt_core/data/paper_defaults.py" or rel in OUTSIDE or rel.startswith("tt_workbook/apps/explorer/"):
            continue
        yield rel, path.read_text(encoding="utf-8")


def test_no_module_types_a_paper_default_again():
    found = [f"{rel}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)!r}"
             for rel, text in _modules() for p in PATTERNS for m in re.finditer(p, text)]
    assert not found, "a paper default typed again (use tt_core.data.paper_defaults):\n" + "\n".join(found)


def test_the_patterns_find_what_they_are_meant_to_find():
    # each pattern against a line the code once held, so that a pattern that stopped matching is seen
    once = ["def f(beta: float = 0.1):", "if self.beta == 0.1:", "beta=s.beta if s.beta is not None else 0.1,",
            "iterations: int | None = 44", "{'iterations': 44}", 'add_argument("--n", default=44)',
            "(None if budgeted else 44)", 'help="filter fraction (default 0.1)"', "n_init: int = 4,",
            "FIG4_BETAS = (0.01, 0.1, 0.2, 0.5, 1.0)", 'FIG3 = ("cea", "direct", "cmaes", "random")',
            "THESIS_MAX_TIME = 300.0", "INITIAL_BUDGETS = {}", "betas=(0.1,)", 'help="tests (default 44)"']
    missed = [line for line in once if not any(re.search(p, line) for p in PATTERNS)]
    assert not missed
    # and not the numbers that are other decisions
    assert not any(re.search(p, line) for p in PATTERNS
                   for line in ("beta=0.15", "iterations=440", "n_init=40", "lr = 0.1", "half = 0.5 if not log else 0.1", "n_obs=[8, 20, 44]"))


@pytest.mark.skipif(not (PAPERS / "trimtuner_paper.md").is_file(), reason="the papers are beside the checkout only")
def test_the_values_are_the_papers_words():
    paper = (PAPERS / "trimtuner_paper.md").read_text(encoding="utf-8")
    assert "We set the maximum number of iterations to 44 for all optimizers" in paper and D.TESTS_PER_RUN == 44
    assert "setting the filtering rate  $\\beta$  to 10%" in paper and D.CEA_BETA == 0.10
    assert "we bootstrap the models using 4 initial samples" in paper.replace("\n", " ") and D.INITIAL_SAMPLES == 4
    assert "Direct [12] and CMAES [11] and a simple random policy" in paper
    assert D.FIG3_FILTERS == ("cea", "direct", "cmaes", "random")


def test_the_values_as_the_papers_state_them():
    # TrimTuner §IV-B, Fig. 4: 1 %, 10 %, 20 %, 50 % and no filter; thesis §6.2 and Table 6.1
    assert [round(100 * b) for b in D.FIG4_BETAS] == [1, 10, 20, 50, 100]
    assert (D.THESIS_MIN_ACCURACY, D.THESIS_MAX_TIME) == (0.85, 300.0)
    assert D.INITIAL_BUDGETS == {"cnn": 5.0, "rnn": 1.0, "mlp": 2.0}


def test_the_command_line_states_the_defaults(capsys):
    from tt_workbook.cli import main

    with pytest.raises(SystemExit):
        main(["optimize", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "(default 44;" in text and "default 0.1)" in text and "default 0.85, thesis §6.2" in text
    assert "thesis Table 6.1, CNN 5, RNN 1)" in text
