"""The linter: ``ruff check tt_core tt_spotsim tt_workbook tests`` with the rules of ``[tool.ruff]`` in pyproject.toml (pyflakes:
unused imports and variables, undefined names; pycodestyle's errors and warnings). ``make test`` (and so
``.ci/run``) runs it with the rest of the suite; ruff comes with the ``test`` extra."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _ruff() -> list[str]:
    """The ruff of this environment (``python -m ruff``), else one on PATH; skipped when there is none."""
    if importlib.util.find_spec("ruff") is not None:
        return [sys.executable, "-m", "ruff"]
    found = shutil.which("ruff")
    if found is None:
        pytest.skip("ruff is not installed: pip install -e '.[test]' (or pip install ruff) to lint")
    return [found]


def _check(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([*_ruff(), "check", "--no-cache", *args], cwd=cwd, capture_output=True, text=True)


def test_the_configured_rules_catch_an_unused_import_and_an_undefined_name(tmp_path):
    """A known-bad file under the project's configuration: both mistakes reported, exit code 1."""
    bad = tmp_path / "bad.py"
    bad.write_text("import os\n\n\ndef f():\n    return undefined_name\n")
    done = _check("--config", str(ROOT / "pyproject.toml"), "--output-format", "concise", str(bad), cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "bad.py:1:8: F401" in done.stdout and "bad.py:5:12: F821" in done.stdout


def test_the_package_and_the_tests_pass_the_linter():
    done = _check("--output-format", "concise", "tt_core", "tests")
    assert done.returncode == 0, f"ruff check tt_core tt_spotsim tt_workbook tests found problems:\n{done.stdout}{done.stderr}"
