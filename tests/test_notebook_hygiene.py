"""Saving a workbook notebook in JupyterLab must not dirty the git tree."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from tt_workbook.apps.notebook_hygiene import HOOK, install, strip_notebook, strip_on_save


ROOT = Path(__file__).resolve().parents[1]
WORKBOOK = "02_table2_feasibility"


class _FakeContentsManager:
    def __init__(self, root):
        self.root = root

    def _get_os_path(self, path):
        return str(self.root / path)


def _executed_notebook():
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("1 + 1", execution_count=7,
                                     outputs=[nbformat.v4.new_output("execute_result", data={"text/plain": "2"},
                                                                     execution_count=7)])
    cell.metadata.update({"execution": {"iopub.status.busy": "2026-11-23"}, "scrolled": True, "tags": ["parameters"]})
    nb.cells = [nbformat.v4.new_markdown_cell("# t"), cell]
    nb.metadata.update({"jupytext": {"formats": "ipynb,py:percent"}, "language_info": {"name": "python", "version": "3.11.7"},
                        "kernelspec": {"display_name": "Python 3 (my env)", "language": "python", "name": "python3"},
                        "widgets": {"state": {}}})
    return json.loads(nbformat.writes(nb))


def test_strip_notebook_keeps_only_what_is_tracked():
    nb = strip_notebook(_executed_notebook())
    code = nb["cells"][1]
    assert code["outputs"] == [] and code["execution_count"] is None and "".join(code["source"]) == "1 + 1"
    assert code["metadata"] == {"tags": ["parameters"]}  # session metadata gone, tags kept
    assert nb["metadata"] == {"jupytext": {"formats": "ipynb,py:percent"},
                              "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python",
                                             "name": "python3"}}


def _checkout(root, notebooks=("02_x",)):
    """A workbook checkout's skeleton under ``root``: tt_core/__init__.py, notebooks/ with each NN_name.py."""
    (root / "tt_core").mkdir(parents=True)
    (root / "tt_core" / "__init__.py").write_text("")
    (root / "notebooks").mkdir()
    for stem in notebooks:
        (root / "notebooks" / f"{stem}.py").write_text("# %%\n1 + 1\n")
    return root


def _saved(path, cm, root):
    model = {"type": "notebook", "content": _executed_notebook()}
    strip_on_save(model=model, path=str(path.relative_to(root)), contents_manager=cm)
    return model["content"]["cells"][1]["outputs"] != []  # True: the outputs are kept


def test_hook_strips_workbook_notebooks_only(tmp_path):
    clone = _checkout(tmp_path / "clone")
    cm = _FakeContentsManager(tmp_path)
    nb = clone / "notebooks"
    assert not _saved(nb / "02_x.ipynb", cm, tmp_path)              # a workbook notebook (NN_name + its .py)
    assert _saved(nb / "Untitled.ipynb", cm, tmp_path)              # a student's notebook in notebooks/
    assert _saved(nb / "02_x-Copy1.ipynb", cm, tmp_path)            # JupyterLab's copy of a workbook notebook
    assert _saved(nb / "03_mine.ipynb", cm, tmp_path)               # a workbook-like name without its .py
    assert _saved(clone / "mine" / "02_x.ipynb", cm, tmp_path)      # elsewhere
    text = {"type": "file", "content": "x = 1"}
    strip_on_save(model=text, path="clone/notebooks/02_x.py", contents_manager=cm)
    assert text == {"type": "file", "content": "x = 1"}


def test_in_a_git_checkout_only_tracked_notebooks_are_stripped(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    clone = _checkout(tmp_path / "clone", notebooks=("02_x", "17_new"))
    cm = _FakeContentsManager(tmp_path)
    nb = clone / "notebooks"
    assert not _saved(nb / "17_new.ipynb", cm, tmp_path)            # no repository: the name and the pair decide
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"]
    subprocess.run([*git, "init", "-q"], cwd=clone, check=True)
    (nb / "02_x.ipynb").write_text("{}")
    subprocess.run([*git, "add", "notebooks/02_x.ipynb", "notebooks/02_x.py"], cwd=clone, check=True)
    assert not _saved(nb / "02_x.ipynb", cm, tmp_path)              # tracked
    assert _saved(nb / "17_new.ipynb", cm, tmp_path)                # untracked (a user's 17_new + its .py)


def _jupytext_checkout(tmp_path):
    """A checkout with this project's pyproject.toml (its Jupytext settings), one workbook notebook and its
    script, served by Jupytext's contents manager (JupyterLab's) with the hook registered."""
    jupytext = pytest.importorskip("jupytext")
    clone = _checkout(tmp_path / "clone", notebooks=())
    shutil.copyfile(ROOT / "pyproject.toml", clone / "pyproject.toml")
    for ext in (".ipynb", ".py"):
        shutil.copyfile(ROOT / "notebooks" / f"{WORKBOOK}{ext}", clone / "notebooks" / f"{WORKBOOK}{ext}")
    cm = jupytext.TextFileContentsManager(root_dir=str(tmp_path))
    cm.pre_save_hook = strip_on_save
    return clone, cm


def _with_output(nb):
    """``nb`` (a NotebookNode) with an executed first code cell, and the session metadata JupyterLab adds."""
    cell = next(c for c in nb.cells if c.cell_type == "code")
    cell.execution_count = 3
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="kept\n")]
    nb.metadata["language_info"] = {"name": "python", "version": "3.11.7"}
    return nb


def test_saving_through_jupytext_a_user_notebook_keeps_outputs_and_gets_no_script(tmp_path):
    clone, cm = _jupytext_checkout(tmp_path)
    nb = clone / "notebooks"
    user = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print('kept')")],
                                    metadata={"kernelspec": {"display_name": "Python 3 (ipykernel)",
                                                             "language": "python", "name": "python3"}})
    cm.save({"type": "notebook", "content": _with_output(user)}, "clone/notebooks/Untitled.ipynb")
    on_disk = json.loads((nb / "Untitled.ipynb").read_text())
    assert "".join(on_disk["cells"][0]["outputs"][0]["text"]) == "kept\n" and on_disk["cells"][0]["execution_count"] == 3
    assert not (nb / "Untitled.py").exists()                                    # no paired script
    # the workbook notebook, saved from the same session with outputs: stripped, its script unchanged
    script = (nb / f"{WORKBOOK}.py").read_text()
    tracked = (nb / f"{WORKBOOK}.ipynb").read_text()
    model = cm.get(f"clone/notebooks/{WORKBOOK}.ipynb")
    cm.save({"type": "notebook", "content": _with_output(model["content"])}, f"clone/notebooks/{WORKBOOK}.ipynb")
    saved = json.loads((nb / f"{WORKBOOK}.ipynb").read_text())
    assert all(not c.get("outputs") for c in saved["cells"] if c["cell_type"] == "code")
    assert saved == json.loads(tracked)                                         # as tracked, byte for byte in JSON
    assert (nb / f"{WORKBOOK}.py").read_text() == script
    assert sorted(p.name for p in nb.iterdir() if not p.name.startswith(".")) == \
        sorted(["Untitled.ipynb", f"{WORKBOOK}.ipynb", f"{WORKBOOK}.py"])


def test_install_writes_a_config_the_jupyter_server_reads(tmp_path):
    conf = tmp_path / "etc" / "jupyter" / "jupyter_server_config.json"
    conf.parent.mkdir(parents=True)
    conf.write_text(json.dumps({"ServerApp": {"port": 9999}}))
    assert install(tmp_path) == conf
    assert json.loads(conf.read_text()) == {"ServerApp": {"port": 9999}, "ContentsManager": {"pre_save_hook": HOOK}}
    install(tmp_path)  # idempotent
    assert json.loads(conf.read_text())["ContentsManager"] == {"pre_save_hook": HOOK}
    code = ("from jupyter_server.serverapp import ServerApp\n"
            "app = ServerApp(); app.initialize(argv=['--allow-root', '--ServerApp.port=0'])\n"
            "print(app.contents_manager.pre_save_hook.__name__)\n")
    env = {"JUPYTER_CONFIG_PATH": str(conf.parent), "JUPYTER_CONFIG_DIR": str(tmp_path / "home"),
           "JUPYTER_RUNTIME_DIR": str(tmp_path / "rt"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.stdout.strip().splitlines()[-1] == "strip_on_save", out.stderr[-2000:]
    # an environment set up before the harness left tt_core: its hook's former name is replaced, nothing else
    conf.write_text(json.dumps({"ContentsManager": {"pre_save_hook": "tt_core.apps.notebook_hygiene.strip_on_save"},
                                "ServerApp": {"port": 9999}}))
    install(tmp_path)
    assert json.loads(conf.read_text()) == {"ContentsManager": {"pre_save_hook": HOOK}, "ServerApp": {"port": 9999}}
    conf.write_text(json.dumps({"ContentsManager": {"pre_save_hook": "other.hook"}}))
    with pytest.raises(ValueError, match="already sets ContentsManager.pre_save_hook = 'other.hook'"):
        install(tmp_path)
    conf.write_text("{not json")
    with pytest.raises(ValueError, match="is not valid JSON"):
        install(tmp_path)
