"""The shipped JupyterLab settings (issue 35): the news toast is off where JupyterLab reads its defaults.

JupyterLab's own settings reader (``jupyterlab_server.settings_utils.get_settings``, what the server answers
the browser with) is asked for the notification plugin's settings of an environment set up by
:func:`tt_workbook.apps.lab_settings.install`."""

import json
import sys
from pathlib import Path

from jupyterlab.commands import get_app_dir
from jupyterlab_server.settings_utils import get_settings

from tt_workbook.apps import lab_settings

PLUGIN = "@jupyterlab/apputils-extension:notification"
SCHEMAS = str(Path(get_app_dir()) / "schemas")


def _notification(app_settings_dir: Path, user_dir: Path) -> dict:
    """The notification plugin's settings as JupyterLab serves them: the schema's defaults (with the overrides
    merged in) and the user's own values."""
    got, _ = get_settings(str(app_settings_dir), SCHEMAS, str(user_dir), schema_name=PLUGIN)
    return got


def test_install_turns_the_news_off_for_jupyterlab(tmp_path):
    users = tmp_path / "user"
    users.mkdir()
    before = _notification(lab_settings.settings_dir(tmp_path), users)["schema"]["properties"]
    assert before["fetchNews"]["default"] == "none"            # JupyterLab's own default: ask, with a toast
    path = lab_settings.install(tmp_path)
    assert path == tmp_path / "share" / "jupyter" / "lab" / "settings" / "overrides.d" / "tt-workbook.json"
    assert json.loads(path.read_text()) == {PLUGIN: {"fetchNews": "false", "checkForUpdates": False}}
    after = _notification(lab_settings.settings_dir(tmp_path), users)["schema"]["properties"]
    assert after["fetchNews"]["default"] == "false" and after["checkForUpdates"]["default"] is False
    # a user's own choice still wins (JupyterLab keeps it in the user settings, over the defaults)
    user_file = users / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    user_file.parent.mkdir(parents=True)
    user_file.write_text('{"fetchNews": "true"}')
    assert _notification(lab_settings.settings_dir(tmp_path), users)["settings"] == {"fetchNews": "true"}


def test_install_keeps_a_users_overrides_json_and_is_idempotent(tmp_path):
    settings = lab_settings.settings_dir(tmp_path)
    settings.mkdir(parents=True)
    (settings / "overrides.json").write_text('{"@jupyterlab/apputils-extension:themes": {"theme": "JupyterLab Dark"}}')
    first = lab_settings.install(tmp_path).read_bytes()
    assert lab_settings.install(tmp_path).read_bytes() == first
    assert json.loads((settings / "overrides.json").read_text()) == {
        "@jupyterlab/apputils-extension:themes": {"theme": "JupyterLab Dark"}}
    assert sorted(p.name for p in (settings / "overrides.d").iterdir()) == ["tt-workbook.json"]


def test_this_environment_ships_it():
    """`make setup` installed it into the environment the tests run in (the one JupyterLab runs from)."""
    assert lab_settings.settings_dir() == Path(get_app_dir()) / "settings"
    props = _notification(lab_settings.settings_dir(), Path(sys.prefix) / "no-user-settings")["schema"]["properties"]
    assert props["fetchNews"]["default"] == "false"
