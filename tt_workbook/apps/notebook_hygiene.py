"""Saving a workbook notebook in JupyterLab leaves the git tree clean.

JupyterLab saves what is on screen: outputs, execution counts, the kernel's display name, the
language version. For the workbook's own notebooks (:func:`is_workbook_notebook`: an ``NN_name.ipynb`` with its
paired ``NN_name.py`` in the ``notebooks/`` folder of a checkout, beside its ``tt_core/``, and tracked by git when
git can tell; they are tracked with their outputs stripped) :func:`strip_on_save` is a Jupyter ``pre_save_hook``:
it removes outputs and execution counts and brings the notebook's metadata back to the tracked form before the
file is written. Every other notebook is saved untouched, also in ``notebooks/``: a student's ``Untitled.ipynb``,
a teacher's executed copy of the tour saved under another name keep their outputs. Only the workbook's notebooks
are paired with a ``.py`` script (their own ``jupytext.formats`` metadata asks for it; ``pyproject.toml`` pairs
no other notebook).

The JupyterLab session keeps showing the outputs; only the file on disk is stripped. ``make setup``
registers the hook for the project's environment (``.venv/etc/jupyter/jupyter_server_config.json``; the
``.d`` folder beside it only enables extensions, it is not read as configuration). The paired ``.py`` scripts stay
stable through the ``[tool.jupytext]`` settings in ``pyproject.toml`` (no version stamp).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from tt_core.data.benchmarks import PROJECT_DIR
from tt_core.data.io import write_text
from tt_core.data.io import shown

__all__ = ["CANONICAL_KERNELSPEC", "install", "is_workbook_notebook", "strip_notebook", "strip_on_save"]

NOTEBOOK_DIR = PROJECT_DIR / "notebooks"
#: The kernelspec the tracked notebooks carry (the name selects the kernel; the display name varies).
CANONICAL_KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
#: Notebook metadata kept in the tracked files; everything else (language_info, widgets, ...) is dropped.
KEPT_METADATA = ("jupytext", "kernelspec")
#: Cell metadata that only records a session (timings, scroll state).
SESSION_CELL_METADATA = ("execution", "scrolled", "collapsed", "ExecuteTime")
HOOK = "tt_workbook.apps.notebook_hygiene.strip_on_save"
#: The name of a workbook notebook: two digits, an underscore, a name (``00_tour.ipynb``, ``98_discrepancies.ipynb``).
WORKBOOK_NAME = re.compile(r"^[0-9]{2}_[A-Za-z0-9_]+\.ipynb$")


def strip_notebook(nb: dict) -> dict:
    """The notebook (a JSON dict, changed in place and returned) with outputs, execution counts and
    session metadata removed and the tracked metadata (:data:`KEPT_METADATA`) normalised."""
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
        meta = cell.get("metadata", {})
        for key in SESSION_CELL_METADATA:
            meta.pop(key, None)
    meta = nb.get("metadata", {})
    for key in list(meta):
        if key not in KEPT_METADATA:
            del meta[key]
    if "kernelspec" in meta and meta["kernelspec"].get("name") == CANONICAL_KERNELSPEC["name"]:
        meta["kernelspec"] = dict(CANONICAL_KERNELSPEC)
    return nb


def _git_tracked(path: Path) -> bool | None:
    """Whether git tracks ``path``; None when git cannot tell (no git, not a work tree, a refused repository)."""
    import subprocess

    try:
        done = subprocess.run(["git", "ls-files", "--error-unmatch", "--", path.name], cwd=path.parent,
                              capture_output=True, timeout=10, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    return {0: True, 1: False}.get(done.returncode)  # 1: untracked; 128: not a repository (or not a safe one)


def is_workbook_notebook(os_path: str | Path) -> bool:
    """One of the workbook's own notebooks (this checkout or another clone): a file ``NN_name.ipynb`` with its
    paired ``NN_name.py`` beside it, in the ``notebooks/`` folder beside ``tt_core/``, and tracked by git where
    git can tell (without git, or outside a work tree, the name and the pair decide)."""
    try:
        path = Path(os_path).resolve()
        folder = path.parent
        if not (WORKBOOK_NAME.match(path.name) and folder.name == NOTEBOOK_DIR.name
                and (folder.parent / "tt_core" / "__init__.py").is_file() and path.with_suffix(".py").is_file()):
            return False
    except OSError:
        return False
    return _git_tracked(path) is not False


def strip_on_save(model: dict, path: str, contents_manager=None, **kwargs) -> None:
    """Jupyter ``pre_save_hook``: strip a workbook notebook before it is written (see the module)."""
    if not model or model.get("type") != "notebook" or contents_manager is None:
        return
    try:
        os_path = Path(contents_manager._get_os_path(path))
    except Exception:  # another contents manager: leave the notebook alone
        return
    if is_workbook_notebook(os_path):
        strip_notebook(model["content"])


#: The hook's name before the harness left tt_core (2026-11-28): an environment set up then is updated.
FORMER_HOOK = "tt_core.apps.notebook_hygiene.strip_on_save"


def install(prefix: str | Path | None = None) -> Path:
    """Register :func:`strip_on_save` for the Jupyter server of an environment (default: this one).

    Writes ``<prefix>/etc/jupyter/jupyter_server_config.json``, keeping whatever else it holds; refuses
    (ValueError) to replace another pre-save hook (the workbook's own former one, :data:`FORMER_HOOK`, is replaced)."""
    conf = Path(prefix or sys.prefix) / "etc" / "jupyter" / "jupyter_server_config.json"
    try:
        current = json.loads(conf.read_text()) if conf.is_file() else {}
    except ValueError as exc:
        raise ValueError(f"{conf} is not valid JSON ({exc}); fix or remove it, then run `make setup` again") from None
    section = current.setdefault("ContentsManager", {})
    if section.get("pre_save_hook") not in (None, HOOK, FORMER_HOOK):
        raise ValueError(f"{conf} already sets ContentsManager.pre_save_hook = {shown(section['pre_save_hook'])}; "
                         f"remove it or chain it with {HOOK}")
    section["pre_save_hook"] = HOOK
    conf.parent.mkdir(parents=True, exist_ok=True)
    return write_text(conf, json.dumps(current, indent=2) + "\n")
