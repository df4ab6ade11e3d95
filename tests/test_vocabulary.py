"""One vocabulary: the glossary names each term as the paper defines it, and no page, notebook or docstring
uses another name for it (TrimTuner paper Eq. 6: "Constrained Expected Accuracy (CEA)"; Eq. 7: Accuracy_C)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAPER = ROOT.parent / "shared" / "papers" / "trimtuner_paper.md"

#: Names the workbook once used that the papers do not (term -> the paper's name).
WRONG = {r"cost[- ]effective accuracy": "Constrained Expected Accuracy (CEA)",
         r"\bconstrained accuracy\b": "Accuracy_C"}


def _texts():
    for pattern in ("docs/*.md", "README.md", "notebooks/*.py", "tt_core/**/*.py", "tt_spotsim/**/*.py", "tt_workbook/**/*.py"):
        for path in ROOT.glob(pattern):
            yield path, path.read_text(encoding="utf-8")


def test_the_glossary_defines_cea_and_accuracy_c_as_the_paper_does():
    glossary = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
    assert "**CEA** (Constrained Expected Accuracy, paper Eq. 6)" in glossary
    assert "**Accuracy_C** (paper Eq. 7)" in glossary
    if PAPER.is_file():  # the paper's own words, where the shared folder is beside the checkout
        paper = PAPER.read_text(encoding="utf-8")
        assert "Constrained Expected Accuracy (CEA) (Eq. (6))" in paper and "Accuracy_C" in paper


def test_no_text_uses_a_name_the_papers_do_not():
    found = [f"{path.relative_to(ROOT)}: '{m.group(0)}' (the paper says {right})"
             for path, text in _texts() for wrong, right in WRONG.items()
             for m in re.finditer(wrong, text, re.IGNORECASE)]
    assert not found, "\n".join(found)
