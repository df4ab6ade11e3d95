"""Saving a workbook notebook in JupyterLab leaves the git tree clean.

JupyterLab saves what is on screen: outputs, execution counts, the kernel's display name, the
language version. For the workbook's own notebooks (``notebooks/*.ipynb`` of a checkout, beside its ``tt_core/``;
tracked in git with their outputs stripped) :func:`strip_on_save` is a Jupyter ``pre_save_hook``: it removes outputs and
execution counts and brings the notebook's metadata back to the tracked form before the file is
written. Notebooks elsewhere are saved untouched (a user's own notebooks keep their outputs).

The JupyterLab session keeps showing the outputs; only the file on disk is stripped. ``make setup``
registers the hook for the project's environment (``.venv/etc/jupyter/jupyter_server_config.json``; the
``.d`` folder beside it only enables extensions, it is not read as configuration). The paired ``.py`` scripts stay
stable through the ``[tool.jupytext]`` settings in ``pyproject.toml`` (no version stamp).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tt_core.data.benchmarks import PROJECT_DIR
from tt_core.data.io import write_text
from tt_core.data.io import shown

__all__ = ["CANONICAL_KERNELSPEC", "install", "strip_notebook", "strip_on_save"]

NOTEBOOK_DIR = PROJECT_DIR / "notebooks"
#: The kernelspec the tracked notebooks carry (the name selects the kernel; the display name varies).
CANONICAL_KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
#: Notebook metadata kept in the tracked files; everything else (language_info, widgets, ...) is dropped.
KEPT_METADATA = ("jupytext", "kernelspec")
#: Cell metadata that only records a session (timings, scroll state).
SESSION_CELL_METADATA = ("execution", "scrolled", "collapsed", "ExecuteTime")
HOOK = "tt_core.apps.notebook_hygiene.strip_on_save"


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


def _is_workbook_notebook(os_path: Path) -> bool:
    """A notebook in a workbook checkout's ``notebooks/`` folder (this one or another clone)."""
    try:
        folder = os_path.resolve().parent
        return (os_path.suffix == ".ipynb" and folder.name == NOTEBOOK_DIR.name
                and (folder.parent / "tt_core" / "__init__.py").is_file())
    except OSError:
        return False


def strip_on_save(model: dict, path: str, contents_manager=None, **kwargs) -> None:
    """Jupyter ``pre_save_hook``: strip a workbook notebook before it is written (see the module)."""
    if not model or model.get("type") != "notebook" or contents_manager is None:
        return
    try:
        os_path = Path(contents_manager._get_os_path(path))
    except Exception:  # another contents manager: leave the notebook alone
        return
    if _is_workbook_notebook(os_path):
        strip_notebook(model["content"])


def install(prefix: str | Path | None = None) -> Path:
    """Register :func:`strip_on_save` for the Jupyter server of an environment (default: this one).

    Writes ``<prefix>/etc/jupyter/jupyter_server_config.json``, keeping whatever else it holds; refuses
    (ValueError) to replace another pre-save hook."""
    conf = Path(prefix or sys.prefix) / "etc" / "jupyter" / "jupyter_server_config.json"
    try:
        current = json.loads(conf.read_text()) if conf.is_file() else {}
    except ValueError as exc:
        raise ValueError(f"{conf} is not valid JSON ({exc}); fix or remove it, then run `make setup` again") from None
    section = current.setdefault("ContentsManager", {})
    if section.get("pre_save_hook") not in (None, HOOK):
        raise ValueError(f"{conf} already sets ContentsManager.pre_save_hook = {shown(section['pre_save_hook'])}; "
                         f"remove it or chain it with {HOOK}")
    section["pre_save_hook"] = HOOK
    conf.parent.mkdir(parents=True, exist_ok=True)
    return write_text(conf, json.dumps(current, indent=2) + "\n")
