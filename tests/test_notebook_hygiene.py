"""Saving a workbook notebook in JupyterLab must not dirty the git tree."""

import json
import subprocess
import sys

import nbformat
import pytest

from tt_core.apps.notebook_hygiene import HOOK, install, strip_notebook, strip_on_save


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


def test_hook_strips_workbook_notebooks_only(tmp_path):
    checkout = tmp_path / "clone"
    (checkout / "tt_core").mkdir(parents=True)
    (checkout / "tt_core" / "__init__.py").write_text("")
    (checkout / "notebooks").mkdir()
    cm = _FakeContentsManager(tmp_path)
    inside = {"type": "notebook", "content": _executed_notebook()}
    strip_on_save(model=inside, path="clone/notebooks/x.ipynb", contents_manager=cm)
    assert inside["content"]["cells"][1]["outputs"] == []
    elsewhere = {"type": "notebook", "content": _executed_notebook()}
    strip_on_save(model=elsewhere, path="clone/mine/x.ipynb", contents_manager=cm)  # a user's own notebook
    assert elsewhere["content"]["cells"][1]["outputs"] != []
    text = {"type": "file", "content": "x = 1"}
    strip_on_save(model=text, path="clone/notebooks/x.py", contents_manager=cm)
    assert text == {"type": "file", "content": "x = 1"}


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
    conf.write_text(json.dumps({"ContentsManager": {"pre_save_hook": "other.hook"}}))
    with pytest.raises(ValueError, match="already sets ContentsManager.pre_save_hook = 'other.hook'"):
        install(tmp_path)
    conf.write_text("{not json")
    with pytest.raises(ValueError, match="is not valid JSON"):
        install(tmp_path)
