"""A bare machine: the measurements are fetched when they are not found (issue 35, item 1).

``../shared`` is hidden the documented way (``TT_DATA_NO_SHARED=1``; in a temporary copy of the package it is
simply not beside it), ``TT_DATA_DIR`` is unset and the download cache is a temporary folder. A local mirror
holding copies of the authors' files is served through an address template (``TT_DATA_URL``), by ``file://``
and by a local HTTP server, as ``tt authors fetch`` is tested. Known answers: the pinned sha256 of the
files (recomputed here with hashlib); a tampered copy must be refused with nothing kept; offline is one line
naming ``TT_DATA_DIR`` and the manual route, exit code 2.
"""

from __future__ import annotations

import functools
import hashlib
import http.server
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import assert_one_line_error, tt_cli
from tt_core.data import benchmarks as bm

FILES = ("cnn.csv", "rnn.csv")


def _find_source() -> Path | None:
    try:
        return bm.locate("rnn")[0].parent
    except bm.BenchmarkError:
        return None


SOURCE = _find_source()  # found when the module is imported, before a test hides anything


def _source() -> Path:
    """The folder of the authors' files on this machine (the mirror's source)."""
    if SOURCE is None:
        pytest.skip("the measurements (the source of the test mirror) are not on this machine")
    return SOURCE


@pytest.fixture
def mirror(tmp_path) -> Path:
    src = _source()
    out = tmp_path / "mirror"
    out.mkdir()
    for f in FILES:
        shutil.copyfile(src / f, out / f)
    return out


@pytest.fixture
def bare(tmp_path, monkeypatch) -> Path:
    """This process as on a bare machine: ../shared hidden, TT_DATA_DIR unset, an empty cache (returned)."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("TT_DATA_NO_SHARED", "1")
    monkeypatch.delenv("TT_DATA_DIR", raising=False)
    monkeypatch.delenv("TT_DATA_URL", raising=False)
    monkeypatch.setattr(bm, "cache_dir", lambda: cache)
    return cache


def _template(folder: Path) -> str:
    return folder.as_uri() + "/{file}"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _err_lines(err: str) -> list[str]:
    return [ln for ln in err.splitlines() if ln.strip()]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # no request log on the test's stderr
        pass


def _serve(folder: Path) -> http.server.ThreadingHTTPServer:
    """A local HTTP server of ``folder`` on a free port, in a thread (``shutdown()`` it)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # nothing listens there once the socket is closed


def test_pinned_sizes_and_sha256_are_those_of_the_files():
    src = _source()
    for name in ("cnn", "rnn"):
        spec = bm.REGISTRY[name]
        assert (src / spec.file).stat().st_size == spec.size
        assert _sha(src / spec.file) == spec.sha256


def test_hiding_shared_leaves_it_out_of_every_search(monkeypatch, tmp_path):
    from tt_workbook.studies.fig1_fig2 import paper_figures

    monkeypatch.delenv("TT_DATA_DIR", raising=False)
    monkeypatch.setenv("TT_DATA_NO_SHARED", "0")
    assert "shared" in [label for label, _ in bm.search_dirs()]
    monkeypatch.setenv("TT_DATA_NO_SHARED", "1")
    assert [label for label, _ in bm.search_dirs()] == ["cache"]
    assert "shared" not in {label for label, _ in paper_figures.search_paths()}
    monkeypatch.setattr(bm, "cache_dir", lambda: tmp_path)
    with pytest.raises(bm.BenchmarkError, match="tt data fetch rnn"):
        bm.locate("rnn")


def test_a_command_fetches_from_a_file_mirror_once_with_its_size(bare, mirror, monkeypatch, capsys):
    monkeypatch.setenv("TT_DATA_URL", _template(mirror))
    code, err = tt_cli(capsys, "feasibility", "--benchmark", "rnn")
    assert code == 0, err
    assert sorted(os.listdir(bare)) == ["rnn.csv"]                       # only what the command needs
    assert _sha(bare / "rnn.csv") == bm.REGISTRY["rnn"].sha256
    said = _err_lines(err)
    assert said[0].startswith("tt: data: downloading rnn.csv (2.1 MB) from file://") and "not found in" in said[0]
    assert "TT_DATA_DIR (unset)" in said[0] and str(bare) in said[0]
    assert "2.1 MB in" in said[1] and "sha256 verified" in said[1]
    capsys.readouterr()
    code, err = tt_cli(capsys, "feasibility", "--benchmark", "rnn")         # found now: nothing downloaded
    assert code == 0 and "tt: data:" not in err
    assert bm.locate("rnn") == (bare / "rnn.csv", "cache")


def test_reproduce_fetches_every_benchmark_before_any_notebook_runs(bare, mirror, monkeypatch, capsys):
    from tt_workbook.report import reproduce

    monkeypatch.setenv("TT_DATA_URL", _template(mirror))
    seen = []

    def fake_run(**kwargs):  # the notebooks' runner: what is on disk when it starts
        seen.append(sorted(os.listdir(bare)))
        return Path("index.html"), []

    monkeypatch.setattr(reproduce, "run", fake_run)
    code, err = tt_cli(capsys, "reproduce", "--only", "02")
    assert code == 0, err
    assert seen == [["cnn.csv", "rnn.csv"]]
    assert sum(ln.startswith("tt: data: downloading") for ln in err.splitlines()) == 2


def test_optimize_fetches_over_http_from_a_local_mirror(bare, mirror, monkeypatch, capsys):
    server = _serve(mirror)
    try:
        monkeypatch.setenv("TT_DATA_URL", f"http://127.0.0.1:{server.server_port}/{{file}}")
        code, err = tt_cli(capsys, "optimize", "--benchmark", "rnn", "--optimizer", "random", "--seed", "1",
                           "--iterations", "5")
    finally:
        server.shutdown()
        server.server_close()
    assert code == 0, err
    assert _sha(bare / "rnn.csv") == bm.REGISTRY["rnn"].sha256
    assert any(ln.startswith("tt: data: downloading rnn.csv (2.1 MB) from http://127.0.0.1") for ln in err.splitlines())


def test_a_tampered_mirror_file_is_refused_and_nothing_is_kept(bare, mirror, monkeypatch, capsys):
    data = (mirror / "rnn.csv").read_bytes()
    (mirror / "rnn.csv").write_bytes(data.replace(b"0.9", b"0.8", 1))   # one digit changed, same size
    monkeypatch.setenv("TT_DATA_URL", _template(mirror))
    code, err = tt_cli(capsys, "optimize", "--benchmark", "rnn", "--optimizer", "random", "--seed", "1")
    err = "\n".join(ln for ln in err.splitlines() if not ln.startswith("tt: data:"))
    assert_one_line_error(code, err, "rnn.csv", "sha256", bm.REGISTRY["rnn"].sha256, "not saved", "TT_DATA_URL")
    assert not bare.exists() or list(bare.iterdir()) == []               # no file, no temporary file


@pytest.mark.parametrize("where", ["closed port", "missing file", "fifo"])
def test_offline_is_one_line_naming_the_manual_route(bare, tmp_path, monkeypatch, capsys, where):
    if where == "closed port":
        template = f"http://127.0.0.1:{_closed_port()}/{{file}}"
    elif where == "missing file":
        template = _template(tmp_path / "nowhere")
    else:  # a FIFO where the file should be: refused unopened (opening it would block)
        (tmp_path / "fifo").mkdir()
        os.mkfifo(tmp_path / "fifo" / "rnn.csv")
        template = _template(tmp_path / "fifo")
    monkeypatch.setenv("TT_DATA_URL", template)
    start = time.monotonic()
    code, err = tt_cli(capsys, "optimize", "--benchmark", "rnn", "--optimizer", "random", "--seed", "1")
    assert time.monotonic() - start < 20
    assert_one_line_error(code, err, "rnn.csv is not on this machine", "TT_DATA_DIR", "tt data fetch",
                          "tt_core/data/benchmarks.py fetch", "TRIMTUNER_URL", bm.REGISTRY["rnn"].url, "TT_DATA_URL",
                          "2.1 MB", "Offline?")
    assert len(_err_lines(err)) == 1                                      # nothing announced before the error
    assert not bare.exists() or list(bare.iterdir()) == []


def test_a_server_that_never_answers_times_out(bare, monkeypatch):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)                                                    # accepts, never answers
    try:
        monkeypatch.setenv("TT_DATA_URL", f"http://127.0.0.1:{listener.getsockname()[1]}/{{file}}")
        start = time.monotonic()
        with pytest.raises(bm.BenchmarkError, match=r"could not download .*timed out.*TT_DATA_DIR"):
            bm.ensure(["rnn"], timeout=1.0)
        assert time.monotonic() - start < 10
    finally:
        listener.close()


@pytest.mark.parametrize("template, needle", [("file:///srv/mirror/", "has no {file} placeholder"),
                                              ("ftp://host/{file}", "has the scheme 'ftp'")])
def test_a_bad_mirror_template_is_one_line(bare, monkeypatch, capsys, template, needle):
    monkeypatch.setenv("TT_DATA_URL", template)
    code, err = tt_cli(capsys, "feasibility", "--benchmark", "cnn")
    assert_one_line_error(code, err, "TT_DATA_URL=", needle, "file:///path/to/folder/{file}")


def test_commands_fetch_only_the_registered_benchmarks_they_load(bare, monkeypatch, tmp_path):
    from tt_workbook.cli import needed_benchmarks, parser_for

    def needed(*argv):
        return needed_benchmarks(parser_for(list(argv)).parse_args(list(argv)))

    assert needed("optimize", "--benchmark", "RNN", "--optimizer", "eic", "--seed", "1") == ["RNN"]
    assert needed("optimize", "--benchmark", str(tmp_path / "mine.csv"), "--optimizer", "eic", "--seed", "1") == []
    assert needed("reproduce", "--only", "02") == ["cnn", "rnn"]
    assert needed("runs", "--benchmarks", "cnn", "mine.csv") == ["cnn"]
    assert needed("runs", "--profile", "quick") == ["cnn", "rnn"]
    assert needed("runs", "--profile", "quick", "--report") == []
    assert needed("data", "list") == [] and needed("summary") == []


def test_a_copy_with_nothing_beside_it_fetches_and_runs(tmp_path, mirror):
    """The package copied to a temporary folder (its ../shared does not exist), run as ``tt`` from another
    working directory, TT_DATA_DIR unset and TT_DATA_NO_SHARED unset: the mirror delivers the file into the
    copy's data/ cache and the optimisation runs on it."""
    root = Path(bm.PROJECT_DIR)
    ws = tmp_path / "workbook"
    shutil.copytree(root / "tt_core", ws / "tt_core", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copyfile(root / "pyproject.toml", ws / "pyproject.toml")
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("TT_DATA_DIR", "TT_DATA_NO_SHARED", "TT_DATA_URL")}
    env.update(PYTHONPATH=str(ws), TT_DATA_URL=_template(mirror), OPENBLAS_NUM_THREADS="1")
    argv = [sys.executable, "-m", "tt_workbook.cli", "optimize", "--benchmark", "rnn", "--optimizer", "random",
            "--seed", "2", "--iterations", "6"]
    done = subprocess.run(argv, capture_output=True, text=True, cwd=cwd, env=env, timeout=300, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"into {ws / 'data'}" in done.stderr and "sha256 verified" in done.stderr
    assert str(tmp_path / "shared" / "data" / "trimtuner") in done.stderr   # searched, and absent
    assert _sha(ws / "data" / "rnn.csv") == bm.REGISTRY["rnn"].sha256
    assert "random on rnn, 6 tests" in done.stdout
    env["TT_DATA_URL"] = _template(tmp_path / "nowhere")                  # found now: the mirror is not asked
    again = subprocess.run(argv, capture_output=True, text=True, cwd=cwd, env=env, timeout=300, stdin=subprocess.DEVNULL)
    assert again.returncode == 0 and "tt: data:" not in again.stderr
    assert again.stdout.strip().splitlines()[-1] == done.stdout.strip().splitlines()[-1]  # the same recommendation


def test_a_mirror_file_larger_than_the_published_one_is_refused_unread(bare, mirror, monkeypatch, capsys):
    with open(mirror / "rnn.csv", "ab") as fh:
        fh.truncate(200 * 2**20)                                          # padded to 200 MiB (sparse)
    monkeypatch.setenv("TT_DATA_URL", _template(mirror))
    code, err = tt_cli(capsys, "feasibility", "--benchmark", "rnn")
    assert_one_line_error(code, err, "more than the published 2118230", "not the data", "TT_DATA_DIR")
    assert not bare.exists() or list(bare.iterdir()) == []


def test_a_mirror_without_the_file_is_one_line_naming_the_http_error(bare, mirror, monkeypatch, capsys):
    (mirror / "cnn.csv").unlink()
    server = _serve(mirror)
    try:
        monkeypatch.setenv("TT_DATA_URL", f"http://127.0.0.1:{server.server_port}/{{file}}")
        code, err = tt_cli(capsys, "feasibility", "--benchmark", "cnn")
    finally:
        server.shutdown()
        server.server_close()
    assert_one_line_error(code, err, "cnn.csv is not on this machine", "HTTP Error 404", "TT_DATA_DIR")
