"""The optional extras of pyproject.toml, and the one line a command prints when it needs a missing one.

The core install (``pip install tt-core``) is the library and what ``tt optimize`` and ``tt runs`` need;
the notebooks, their figures and ``tt reproduce`` need the ``notebooks`` extra, SpotTune's LSTMs ``nn``,
``tt runs --backend dask`` ``cluster``, the Optuna sampler ``optuna`` and ``tt data lcdb`` ``lcdb``
(``make setup`` installs them all). A command that meets a module of a missing extra stops with one line
naming the extra to install (exit code 2), never a traceback.
"""

from __future__ import annotations

from importlib.util import find_spec

__all__ = ["EXTRAS", "COMMAND_EXTRAS", "extra_of", "message", "require"]

#: Each extra of pyproject.toml -> the top-level modules it installs that tt_core imports (the extra's own
#: packages and, for the notebooks, those they bring: nbformat, jupyter_client, jinja2, Pillow, IPython).
EXTRAS = {
    "notebooks": ("matplotlib", "seaborn", "ipywidgets", "papermill", "jupyterlab", "nbconvert", "ipykernel",
                  "jupytext", "nbformat", "jupyter_client", "jinja2", "PIL", "IPython"),
    "nn": ("torch",),
    "cluster": ("dask", "distributed"),
    "optuna": ("optuna",),
    "lcdb": ("lcdb",),
}

#: Commands that need an extra whatever their options -> (the extra, the modules checked before the command
#: starts, so that nothing is fetched or computed first). ``tt reproduce`` runs the notebooks with papermill.
COMMAND_EXTRAS = {"reproduce": ("notebooks", ("papermill", "nbformat", "nbconvert", "ipykernel", "matplotlib",
                                              "seaborn", "ipywidgets"))}


def extra_of(module: str | None) -> str | None:
    """The extra that installs ``module`` (a dotted name: its top level counts), or None."""
    top = (module or "").split(".")[0]
    return next((extra for extra, modules in EXTRAS.items() if top in modules), None)


def message(command: str, module: str) -> str:
    """The one line for ``tt COMMAND`` meeting the missing ``module`` of an extra."""
    extra = extra_of(module)
    return (f"`tt {command}` needs the {extra} extra ({module.split('.')[0]} is not installed): "
            f"pip install 'tt-core[{extra}]'")


def require(command: str | None) -> None:
    """Raise ModuleNotFoundError (its ``name`` the first missing module) when ``tt COMMAND`` needs an extra
    that is not installed (:data:`COMMAND_EXTRAS`); nothing for the other commands."""
    _, modules = COMMAND_EXTRAS.get(command or "", ("", ()))
    for module in modules:
        if not _installed(module):
            raise ModuleNotFoundError(f"No module named {module!r}", name=module)


def _installed(module: str) -> bool:
    try:
        return find_spec(module) is not None
    except (ImportError, ValueError):  # a broken package, or one set to None in sys.modules (made unimportable)
        return False
