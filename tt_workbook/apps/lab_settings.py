"""The JupyterLab settings the workbook ships: no news toast over the figures.

JupyterLab 4 opens with a toast asking whether to fetch the official Jupyter news; on a laptop screen it
covers the notebook's figures until dismissed. :func:`install` (run by ``make setup``) writes
:data:`OVERRIDES` as the environment's default settings, in the file of its own that JupyterLab merges from
``<app dir>/settings/overrides.d/`` (``<app dir>`` is ``<prefix>/share/jupyter/lab`` unless
``JUPYTERLAB_DIR`` says otherwise). A user's own ``overrides.json`` and settings still win over it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tt_core.data.io import write_text

__all__ = ["OVERRIDES", "FILE_NAME", "settings_dir", "install"]

#: ``{plugin id: {setting: value}}``: never fetch the news (the toast asks only when the setting is "none"),
#: and so never look for a newer JupyterLab either (that check needs the news).
OVERRIDES = {"@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False}}
#: The workbook's file in ``overrides.d`` (JupyterLab reads every ``*.json`` there, sorted by name).
FILE_NAME = "tt-workbook.json"


def settings_dir(prefix: str | Path | None = None) -> Path:
    """JupyterLab's application settings folder: ``<prefix>/share/jupyter/lab/settings``; without ``prefix``,
    that of the JupyterLab of this environment (``jupyterlab.commands.get_app_dir``, which honours
    ``JUPYTERLAB_DIR``)."""
    if prefix is not None:
        return Path(prefix) / "share" / "jupyter" / "lab" / "settings"
    from jupyterlab.commands import get_app_dir

    return Path(get_app_dir()) / "settings"


def install(prefix: str | Path | None = None) -> Path:
    """Write :data:`OVERRIDES` to ``<settings_dir(prefix)>/overrides.d/``:data:`FILE_NAME` (replacing only
    that file) and return its path."""
    path = settings_dir(prefix) / "overrides.d" / FILE_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_text(path, json.dumps(OVERRIDES, indent=2) + "\n")


if __name__ == "__main__":  # python -m tt_workbook.apps.lab_settings [prefix]
    print(install(sys.argv[1] if len(sys.argv) > 1 else None))
