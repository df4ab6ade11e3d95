"""The install matches use (issue 36): pyproject.toml's core dependencies hold what the library and ``tt optimize`` /
``tt runs`` import, the notebook stack and the other extras are imported only inside functions there, ``make
setup`` installs everything it installed before, and environment.yml has pyproject.toml's floors.

Read as text (tomllib, ast, lines): nothing is imported or installed. The known answers are written here by
hand: which distribution provides a module, which distributions the install had before the extras.

The core modules, stated: the library ``tt_core`` whole (data, models, bo, acquisitions, optimizers, integrations,
replay); of the harness what ``tt runs`` uses (the store and its package, profiles, schedule, checkpoint, estimate,
summaries) and of its cli the entry point, common, extras, optimize and runs; and every module of the three packages
any of these imports at module level (e.g. the other cli modules, which the entry point imports).
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pytest needs tomli on Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "tt_core"
OURS = ("tt_core", "tt_spotsim", "tt_workbook")

CORE_PACKAGES = ("tt_core/data", "tt_core/models", "tt_core/bo", "tt_core/acquisitions", "tt_core/optimizers",
                 "tt_core/integrations", "tt_core/replay")
CORE_MODULES = ("tt_core/__init__.py", "tt_workbook/runs/__init__.py", "tt_workbook/runs/store.py",
                "tt_workbook/runs/profiles.py", "tt_workbook/runs/schedule.py", "tt_workbook/runs/checkpoint.py",
                "tt_workbook/runs/estimate.py", "tt_workbook/runs/summaries.py", "tt_workbook/cli/__init__.py",
                "tt_workbook/cli/common.py", "tt_workbook/cli/extras.py", "tt_workbook/cli/optimize.py",
                "tt_workbook/cli/runs.py")

#: The core install, by hand: what the library, `tt optimize` and `tt runs` need (measured with every other
#: package made unimportable: see pyproject.toml).
CORE = {"numpy", "scipy", "scikit-learn", "emcee", "pandas", "pyarrow", "joblib", "tqdm", "cma", "filelock",
        "threadpoolctl", "numba"}
#: The notebook stack: never in the core install, never imported at module level by a core module.
NOTEBOOK_STACK = {"jupyterlab", "papermill", "nbconvert", "ipywidgets", "seaborn", "matplotlib", "ipykernel",
                  "jupytext", "nbformat", "jupyter_client", "jinja2", "PIL", "IPython"}
#: The distribution that provides a top-level module, and the extra (or "core") that installs it: the
#: notebook stack's modules that pyproject.toml does not name come with a package it names.
PROVIDER = {
    "numpy": ("numpy", "core"), "scipy": ("scipy", "core"), "sklearn": ("scikit-learn", "core"),
    "emcee": ("emcee", "core"), "pandas": ("pandas", "core"), "pyarrow": ("pyarrow", "core"),
    "joblib": ("joblib", "core"), "tqdm": ("tqdm", "core"), "cma": ("cma", "core"),
    "filelock": ("filelock", "core"), "threadpoolctl": ("threadpoolctl", "core"), "numba": ("numba", "core"),
    "matplotlib": ("matplotlib", "notebooks"), "PIL": ("matplotlib", "notebooks"),
    "seaborn": ("seaborn", "notebooks"), "ipywidgets": ("ipywidgets", "notebooks"),
    "papermill": ("papermill", "notebooks"), "jupyterlab": ("jupyterlab", "notebooks"),
    "nbconvert": ("nbconvert", "notebooks"), "nbformat": ("nbconvert", "notebooks"),
    "jinja2": ("nbconvert", "notebooks"), "ipykernel": ("ipykernel", "notebooks"),
    "jupyter_client": ("ipykernel", "notebooks"), "IPython": ("ipykernel", "notebooks"),
    "jupytext": ("jupytext", "notebooks"),
    "torch": ("torch", "nn"), "dask": ("dask", "cluster"), "distributed": ("dask", "cluster"),
    "optuna": ("optuna", "optuna"), "lcdb": ("lcdb", "lcdb"), "george": ("george", "test"),
}
#: What `make setup` installed before the extras were split (pyproject.toml's dependencies, test, nn and lcdb
#: at commit 8f66fc7): it must install all of them still.
BEFORE = {"numpy", "scipy", "scikit-learn", "george", "emcee", "pandas", "matplotlib", "seaborn", "ipywidgets",
          "papermill", "jupyterlab", "nbconvert", "ipykernel", "pyarrow", "joblib", "tqdm", "cma", "jupytext",
          "filelock", "threadpoolctl", "numba", "pytest", "pytest-benchmark", "dask", "playwright", "ruff",
          "torch", "optuna", "lcdb"}
#: Installed by pip in environment.yml (not from conda-forge): PyTorch's CPU build, lcdb (not on conda-forge) and
#: playwright (pip's package drives the system's Chromium).
PIP_ONLY = {"torch", "lcdb", "playwright"}


def _pyproject():
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _requirement(text):
    """'dask[distributed]>=2024.1' -> ('dask', '>=2024.1', {'distributed'})."""
    m = re.fullmatch(r"\s*([A-Za-z0-9_.-]+)\s*(?:\[([^\]]*)\])?\s*(.*?)\s*", text)
    assert m, f"unreadable requirement {text!r}"
    extras = {e.strip() for e in (m.group(2) or "").split(",") if e.strip()}
    return m.group(1).lower(), m.group(3).replace(" ", ""), extras


def _resolved(extras):
    """The distributions (name -> version specifier) of the core install with these extras, self-references
    (``tt-core[...]``) followed."""
    project = _pyproject()["project"]
    optional = project["optional-dependencies"]
    texts, todo, seen = list(project["dependencies"]), list(extras), set()
    while todo:
        extra = todo.pop()
        if extra in seen:
            continue
        assert extra in optional, f"pyproject.toml has no extra {extra!r}"
        seen.add(extra)
        for text in optional[extra]:
            name, _, sub = _requirement(text)
            if name == "tt-core":
                todo += sorted(sub)
            else:
                texts.append(text)
    return {name: spec for name, spec, _ in map(_requirement, texts)}


def _imports(path):
    """(top-level module, at module level?, line) of each absolute import in the file; a module level import is
    one outside every function (inside a class body, an ``if`` or a ``try`` at module level counts)."""
    found = []

    def walk(node, lazy):
        for child in ast.iter_child_nodes(node):
            inner = lazy or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                found.extend((a.name, not lazy, child.lineno) for a in child.names)
            elif isinstance(child, ast.ImportFrom) and child.level == 0 and child.module:
                found.append((child.module, not lazy, child.lineno))
                if child.module.split(".")[0] in OURS:
                    found.extend((f"{child.module}.{a.name}", not lazy, child.lineno) for a in child.names)
            walk(child, inner)

    walk(ast.parse(path.read_text(encoding="utf-8"), str(path)), False)
    return found


def _module_file(dotted):
    """tt_core.a.b (or tt_workbook..., tt_spotsim...) -> its file (a module or a package's __init__), None for a name inside a module."""
    base = ROOT.joinpath(*dotted.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _core_files():
    """The stated core modules and every tt_core module they import at module level, transitively."""
    todo = [ROOT / m for m in CORE_MODULES]
    todo += [p for pkg in CORE_PACKAGES for p in sorted((ROOT / pkg).glob("*.py"))]
    files = set()
    while todo:
        path = todo.pop()
        if path in files:
            continue
        files.add(path)
        for name, module_level, _ in _imports(path):
            if module_level and name.split(".")[0] in OURS:
                target = _module_file(name)
                if target is not None:
                    todo.append(target)
    return files


def _third_party(files):
    std = set(sys.stdlib_module_names) | {"__future__", *OURS}
    for path in sorted(files):
        for name, module_level, line in _imports(path):
            top = name.split(".")[0]
            if top not in std:
                yield path.relative_to(ROOT), line, top, module_level


def test_core_modules_exist_and_the_closure_reaches_the_store():
    missing = [m for m in CORE_MODULES if not (ROOT / m).is_file()]
    assert not missing, f"stated core modules missing (moved? update CORE_MODULES): {missing}"
    files = {p.relative_to(ROOT).as_posix() for p in _core_files()}
    # the cli entry point imports every command module at module level: they are core too
    assert {"tt_workbook/cli/reproduce.py", "tt_workbook/cli/spot.py", "tt_core/models/fabolas_gp.py",
            "tt_workbook/runs/store.py"} <= files
    assert not any(f.startswith(("tt_workbook/plotting/", "tt_workbook/apps/", "tt_workbook/studies/")) for f in files), sorted(files)


def test_the_core_install_is_the_measured_set():
    core = {_requirement(r)[0] for r in _pyproject()["project"]["dependencies"]}
    assert core == CORE
    assert not core & {PROVIDER[m][0] for m in NOTEBOOK_STACK}
    assert not core & {"torch", "dask", "optuna", "lcdb", "george", "pytest"}


def test_every_module_level_import_of_a_core_module_is_a_core_dependency():
    core = {_requirement(r)[0] for r in _pyproject()["project"]["dependencies"]}
    wrong = [f"{path}:{line}: {top} at module level (provided by {PROVIDER.get(top, ('?', '?'))[0]}, "
             f"not a core dependency)"
             for path, line, top, module_level in _third_party(_core_files())
             if module_level and (top not in PROVIDER or PROVIDER[top][0] not in core)]
    assert not wrong, "\n".join(wrong)


def test_the_extras_are_imported_only_inside_functions_and_each_is_declared():
    optional = _pyproject()["project"]["optional-dependencies"]
    found = {}
    for path, line, top, module_level in _third_party(_core_files()):
        assert top in PROVIDER, f"{path}:{line}: {top} is provided by no known distribution (add it to PROVIDER)"
        distribution, extra = PROVIDER[top]
        if extra == "core":
            continue
        assert not module_level, f"{path}:{line}: {top} (the {extra} extra) imported at module level"
        assert distribution in {_requirement(r)[0] for r in optional[extra]}, (top, extra)
        found.setdefault(extra, set()).add(top)
    # the core modules do use the optional packages, lazily: the known ones of today
    assert {"dask"} <= found["cluster"] and {"george"} <= found["test"]
    assert not NOTEBOOK_STACK & {top for _, _, top, module_level in _third_party(_core_files()) if module_level}


def test_the_cli_names_the_extras_of_pyproject():
    from tt_workbook.cli.extras import COMMAND_EXTRAS, EXTRAS, message

    optional = _pyproject()["project"]["optional-dependencies"]
    for extra, modules in EXTRAS.items():
        assert extra in optional
        for module in modules:
            assert PROVIDER[module][1] == extra, (module, extra)
    assert COMMAND_EXTRAS["reproduce"][0] == "notebooks" and "papermill" in COMMAND_EXTRAS["reproduce"][1]
    assert message("reproduce", "papermill.engines") == ("`tt reproduce` needs the notebooks extra (papermill is "
                                                         "not installed): pip install 'tt-core[notebooks]'")
    assert _pyproject()["project"]["name"] == "tt-core"


def _make_setup_extras():
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    found = re.findall(r"pip install [^\n]*-e '\.\[([^\]]*)\]'", text)
    assert len(found) == 1, found
    return {e.strip() for e in found[0].split(",")}


def test_make_setup_installs_everything_it_did_before():
    installed = _resolved(_make_setup_extras())
    assert BEFORE <= set(installed), sorted(BEFORE - set(installed))


def _environment():
    """environment.yml's conda packages (name -> specifier) and its pip lines."""
    conda, pip, in_pip = {}, [], False
    text = (ROOT / "environment.yml").read_text(encoding="utf-8")
    assert text.count("\ndependencies:\n") == 1
    for raw in text.split("\ndependencies:\n")[1].splitlines():
        line = raw.split("#")[0].rstrip()
        if not line.strip():
            continue
        m = re.fullmatch(r"(\s*)- (.*)", line)
        if line.strip() == "- pip:":
            in_pip = True
        elif m and in_pip and len(m.group(1)) > 2:
            pip.append(m.group(2).strip())
        elif m and len(m.group(1)) == 2:
            in_pip = False
            name, spec = re.fullmatch(r"([A-Za-z0-9_.-]+)\s*(.*)", m.group(2).strip()).groups()
            conda[name.lower()] = spec.replace(" ", "")
    return conda, pip


def test_environment_yml_has_pyprojects_floors_and_extras():
    conda, pip = _environment()
    editable = [line for line in pip if line.startswith("-e .[")]
    assert len(editable) == 1, pip
    extras = set(editable[0][len("-e .["):-1].split(","))
    assert extras == _make_setup_extras()
    assert conda.pop("python") == _pyproject()["project"]["requires-python"] == ">=3.10"
    assert conda.pop("pip") == ""
    wanted = {name: spec for name, spec in _resolved(extras).items() if name not in PIP_ONLY}
    assert conda == wanted
    # by hand: the floors the issue names, and packages that were missing before
    assert conda["filelock"] == ">=3.12" and conda["numpy"] == ">=1.24" and conda["george"] == ">=0.4.3"
    assert {"pytest", "pytest-benchmark", "ruff", "dask", "optuna"} <= set(conda)


@pytest.mark.parametrize("argv, module, extra", [(["summary"], "matplotlib.pyplot", "notebooks"),
                                                 (["spot", "data"], "torch", "nn"),
                                                 (["runs", "--report"], "distributed", "cluster")])
def test_a_missing_extra_is_one_line(argv, module, extra, monkeypatch, capsys):
    from tt_workbook import cli

    def meet_missing(args):  # the command meets a module of an extra that is not installed
        raise ModuleNotFoundError(f"No module named {module!r}", name=module)

    monkeypatch.setattr(cli, "fetch_missing", meet_missing)
    assert cli.main(argv) == 2
    top = module.split(".")[0]
    assert capsys.readouterr().err == (f"tt: error: `tt {argv[0]}` needs the {extra} extra ({top} is not "
                                       f"installed): pip install 'tt-core[{extra}]'\n")


def test_tt_reproduce_names_the_notebooks_extra_before_it_starts(monkeypatch, capsys):
    from tt_workbook import cli

    monkeypatch.setitem(sys.modules, "papermill", None)  # as if it were not installed
    monkeypatch.setattr(cli, "fetch_missing", lambda args: pytest.fail("fetched data before naming the extra"))
    assert cli.main(["reproduce", "--only", "02"]) == 2
    assert capsys.readouterr().err == ("tt: error: `tt reproduce` needs the notebooks extra (papermill is not "
                                       "installed): pip install 'tt-core[notebooks]'\n")


def test_a_missing_module_of_no_extra_is_not_hidden(monkeypatch):
    from tt_workbook import cli

    monkeypatch.setattr(cli.extras, "COMMAND_EXTRAS", {"reproduce": ("notebooks", ("not_a_module_xyz",))})
    with pytest.raises(ModuleNotFoundError):
        cli.main(["reproduce", "--only", "02"])
