"""Hostile and careless inputs, round 3 (issue 34): the authors' code runs only as pinned, isolated; crafted
checkpoints are bounded before they are loaded; paths read from user input are regular files.

Each case ends in one line ``tt: error: ...`` with exit code 2 (or one warning and the correct result). The
known answers are independent of the code under test: a marker file the injected code would write (it must
not exist), the bytes of the user's files before and after, ``tracemalloc``'s peak against the file's size,
and a wall-clock timeout on every call that could block on a FIFO."""

from __future__ import annotations

import io
import json
import os
import shutil
import socket
import subprocess
import sys
import tarfile
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pytest

from conftest import assert_one_line_error, tt_cli
from tt_workbook import runs as ex
from tt_workbook.authors import oracle as A
from tt_workbook.runs import checkpoint as C
from tt_workbook.runs import store

SHARED = A.PROJECT_DIR.parent / "shared" / "authors_code"
TREES = (A.TRIMTUNER_DIR, A.ROBO_DIR)
needs_shared = pytest.mark.skipif(not all((SHARED / t).is_dir() for t in TREES),
                                  reason="../shared/authors_code/ (the pinned trees) not found")
#: No call below may take longer than this (a command blocked on a FIFO would).
TIMEOUT = 120


def tt_subprocess(*argv, cwd=None, env=None) -> tuple[int, str]:
    """``tt ARGV`` in a fresh process, killed after :data:`TIMEOUT` s (the test then fails, never hangs)."""
    done = subprocess.run([sys.executable, "-m", "tt_workbook.cli", *map(str, argv)], capture_output=True, text=True,
                          timeout=TIMEOUT, cwd=cwd or A.PROJECT_DIR, env=env,
                          stdin=subprocess.DEVNULL)
    return done.returncode, done.stderr


# =============================================================================== 1. the authors' code
def _tree_copy(tmp_path: Path) -> Path:
    code = tmp_path / "authors_code"
    for t in TREES:
        shutil.copytree(SHARED / t, code / t)
    return code


def _injected(marker: Path) -> bytes:
    """A line of Python that, if it ever ran, would leave ``marker`` behind (with what it could read)."""
    return f"\nimport os; open({str(marker)!r}, 'w').write(repr(dict(os.environ)))\n".encode()


@pytest.fixture
def no_install(monkeypatch):
    """``.venv-authors`` is not built: the interpreter running the tests stands in for it (if the checks below
    let the code through, it runs and imports their modules, writing the markers)."""
    monkeypatch.setattr(A, "ensure_env", lambda **kw: Path(sys.executable))


@needs_shared
def test_a_line_appended_to_a_pinned_file_never_runs(tmp_path, monkeypatch, capsys, no_install):
    code = _tree_copy(tmp_path)
    marker = tmp_path / "ran"
    target = code / A.ROBO_DIR / "robo" / "__init__.py"
    target.write_bytes(target.read_bytes() + _injected(marker))
    monkeypatch.setenv("TT_AUTHORS_CODE", str(code))
    code_, err = tt_cli(capsys, "authors", "run", "--benchmark", "rnn", "--seed", "1", "--residue", "zero",
                        "--iterations", "5")
    assert_one_line_error(code_, err, f"{A.ROBO_DIR}/robo/__init__.py differs from the pinned sha256",
                          "nothing was run", "tt authors fetch --force")
    assert not marker.exists()


@needs_shared
def test_an_unpinned_module_shadowing_a_library_never_runs(tmp_path, monkeypatch, capsys, no_install):
    code = _tree_copy(tmp_path)
    marker = tmp_path / "ran"
    (code / A.ROBO_DIR / "emcee.py").write_bytes(_injected(marker))          # first on sys.path: shadows emcee
    (code / A.TRIMTUNER_DIR / "trimtuner" / "numpy.py").write_bytes(_injected(marker))
    monkeypatch.setenv("TT_AUTHORS_CODE", str(code))
    code_, err = tt_cli(capsys, "authors", "run", "--benchmark", "rnn", "--seed", "1", "--residue", "zero",
                        "--iterations", "5")
    assert_one_line_error(code_, err, f"{A.ROBO_DIR}/emcee.py is not pinned",
                          f"{A.TRIMTUNER_DIR}/trimtuner/numpy.py is not pinned")
    assert not marker.exists()


@needs_shared
def test_a_pinned_file_replaced_by_a_symlink_or_fifo_is_refused_unopened(tmp_path, monkeypatch, capsys, no_install):
    code = _tree_copy(tmp_path)
    (code / A.ROBO_DIR / "robo" / "__init__.py").unlink()
    os.mkfifo(code / A.ROBO_DIR / "robo" / "__init__.py")        # reading it would block
    target = code / A.TRIMTUNER_DIR / "setup.py"
    target.unlink()
    target.symlink_to(SHARED / A.TRIMTUNER_DIR / "setup.py")   # same bytes, but not a file of the tree
    monkeypatch.setenv("TT_AUTHORS_CODE", str(code))
    code_, err = tt_cli(capsys, "authors", "run", "--benchmark", "rnn", "--seed", "1", "--residue", "zero",
                        "--iterations", "5")
    assert_one_line_error(code_, err, f"{A.ROBO_DIR}/robo/__init__.py is not a regular file",
                          f"{A.TRIMTUNER_DIR}/setup.py is not a regular file")


@needs_shared
def test_the_harness_itself_refuses_a_tree_with_unpinned_files_before_importing_it(tmp_path):
    """Second line of defence, in the process that runs their code: the harness checks the tree against the
    manifest before it is put on sys.path (here run directly, as tt would, on a tampered tree)."""
    code = _tree_copy(tmp_path)
    marker = tmp_path / "ran"
    (code / A.ROBO_DIR / "emcee.py").write_bytes(_injected(marker))
    manifest = tmp_path / "pinned.json"
    from tt_workbook.authors.manifest import FILES

    manifest.write_text(json.dumps({t: FILES[t] for t in TREES}))
    done = subprocess.run([sys.executable, "-s", str(A.HARNESS), "--code", str(code), "--manifest", str(manifest),
                           "--csv", str(tmp_path / "none.csv"), "--net", "rnn", "--seed", "1", "--residue", "zero",
                           "--out", str(tmp_path / "out.json")], capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode != 0
    assert "emcee.py is not pinned" in done.stderr and "refused to run" in done.stderr
    assert not marker.exists() and not (tmp_path / "out.json").exists()


@needs_shared
def test_the_harness_gets_a_private_copy_a_private_folder_and_a_minimal_environment(tmp_path, monkeypatch,
                                                                                    no_install):
    """What ``tt authors run`` hands the harness, seen by a stand-in for subprocess.run: a copy holding exactly
    the pinned files (not the installed tree), a working folder of its own (not the caller's), and no variable
    of the caller's environment but PATH and HOME."""
    from tt_workbook.authors.manifest import FILES

    code = _tree_copy(tmp_path)
    (code / A.TRIMTUNER_DIR / "trimtuner" / "__pycache__").mkdir()   # Python's own cache: ignored, not copied
    (code / A.TRIMTUNER_DIR / "trimtuner" / "__pycache__" / "x.pyc").write_bytes(b"\0")
    monkeypatch.setenv("TT_AUTHORS_CODE", str(code))
    monkeypatch.setenv("TT_TEST_SECRET", "hunter2")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    seen = {}

    def fake_run(cmd, **kw):
        copy = Path(cmd[cmd.index("--code") + 1])
        seen.update(cmd=cmd, env=kw["env"], cwd=Path(kw["cwd"]), copy=copy,
                    files={t: sorted(p.relative_to(copy / t).as_posix() for p in (copy / t).rglob("*") if p.is_file())
                           for t in TREES},
                    mode=copy.parent.stat().st_mode & 0o777)
        return subprocess.CompletedProcess(cmd, 1, stdout="", stderr="Traceback ...\nValueError: boom")

    monkeypatch.setattr(A.subprocess, "run", fake_run)
    with pytest.raises(A.AuthorsError, match=r"the authors' code stopped \(ValueError: boom\)"):
        A.run_authors("rnn", 1, residue="zero", iterations=5)
    assert seen["files"] == {t: sorted(FILES[t]) for t in TREES}
    assert not str(seen["copy"]).startswith(str(code)) and seen["mode"] == 0o700
    assert seen["cwd"] != tmp_path and seen["cwd"].parent == seen["copy"].parent
    env = seen["env"]
    assert "TT_TEST_SECRET" not in env and "PYTHONPATH" not in env
    assert set(env) <= {"PATH", "HOME", *A.THREAD_ENV, "PYTHONNOUSERSITE", "PYTHONHASHSEED", "PYTHONDONTWRITEBYTECODE",
                        "TMPDIR"}
    assert env["TMPDIR"] == str(seen["copy"].parent) and env["OPENBLAS_NUM_THREADS"] == "1"
    assert seen["cmd"][1] == "-s" and "--manifest" in seen["cmd"]
    assert not seen["copy"].parent.exists()            # the private folder is gone afterwards


@needs_shared
def test_a_broken_environment_says_which_part_and_to_delete_it(tmp_path, monkeypatch, capsys):
    code = _tree_copy(tmp_path)
    monkeypatch.setenv("TT_AUTHORS_CODE", str(code))
    venv = tmp_path / ".venv-authors"
    (venv / "bin").mkdir(parents=True)
    (venv / A.STAMP).write_text("\n".join(A.PINS) + "\n")
    (venv / "mine.txt").write_text("keep me")
    monkeypatch.setattr(A, "VENV_DIR", venv)
    args = ("authors", "run", "--benchmark", "rnn", "--seed", "1", "--residue", "zero", "--iterations", "5")
    assert_one_line_error(*tt_cli(capsys, *args), f"the authors' environment {venv} is incomplete: it has no "
                          "bin/python", f"delete it (rm -r {venv})")
    assert (venv / "mine.txt").read_text() == "keep me"          # never cleared
    (venv / "bin" / "python").symlink_to(sys.executable)
    (venv / "lib" / "python3.11" / "site-packages" / "numpy").mkdir(parents=True)
    assert_one_line_error(*tt_cli(capsys, *args), "incomplete: its site-packages lacks scipy", "delete it")
    # complete on disk, but a package cannot be imported when it runs: the same message, not "the code stopped"
    for m in A.PIN_MODULES:
        (venv / "lib" / "python3.11" / "site-packages" / m).mkdir(exist_ok=True)
    monkeypatch.setattr(A.subprocess, "run", lambda cmd, **kw: subprocess.CompletedProcess(
        cmd, 1, "", "Traceback (most recent call last):\nModuleNotFoundError: No module named 'scipy'"))
    code_, err = tt_cli(capsys, *args)
    assert_one_line_error(code_, err, "incomplete", "No module named 'scipy'", "delete it")
    assert "stopped" not in err


@needs_shared
def test_a_symlinked_environment_is_refused_and_its_target_untouched(tmp_path, monkeypatch, capsys):
    code = _tree_copy(tmp_path)
    monkeypatch.setenv("TT_AUTHORS_CODE", str(code))
    target = tmp_path / "precious"
    target.mkdir()
    (target / "thesis.tex").write_text("years of work")
    link = tmp_path / ".venv-authors"
    link.symlink_to(target)
    monkeypatch.setattr(A, "VENV_DIR", link)
    ran = []
    monkeypatch.setattr(A.subprocess, "run", lambda *a, **k: ran.append(a))   # nothing may be run at all
    code_, err = tt_cli(capsys, "authors", "run", "--benchmark", "rnn", "--seed", "1", "--residue", "zero",
                        "--iterations", "5")
    assert_one_line_error(code_, err, f"{link} is a symlink", "remove the link", "its target is left alone")
    assert ran == [] and link.is_symlink()
    assert [p.name for p in target.iterdir()] == ["thesis.tex"] and (target / "thesis.tex").read_text() == "years of work"
    with pytest.raises(A.AuthorsError, match="is a symlink"):
        A.ensure_env(link, progress=lambda line: None, python=sys.executable)
    assert [p.name for p in target.iterdir()] == ["thesis.tex"]


def test_an_environment_that_cannot_be_created_does_not_blame_the_network(tmp_path):
    venv = tmp_path / "venv"
    with pytest.raises(A.AuthorsError) as info:
        A.ensure_env(venv, progress=lambda line: None, python=str(tmp_path / "no-python"))
    msg = str(info.value)
    assert "could not create it with" in msg and "network" not in msg and "-m venv" in msg
    assert not venv.exists()        # the half-made folder tt created is not left behind


# ------------------------------------------------------------------------------- tt authors fetch
def _archives(src: Path, extra_member=None):
    from test_authors_fetch import _archive

    for t in TREES:
        _archive(src, t, extra=[extra_member] if (extra_member and t == A.ROBO_DIR) else ())
    return src.as_uri() + "/{repo}-{commit}.tar.gz"


@needs_shared
def test_fetch_over_a_changed_tree_loses_no_file(tmp_path, capsys):
    dest = tmp_path / "dest"
    template = _archives(tmp_path / "mirror")
    code_, _ = tt_cli(capsys, "authors", "fetch", "--dest", str(dest), "--url-template", template)
    assert code_ == 0
    edited = dest / A.ROBO_DIR / "robo" / "__init__.py"
    edited.write_bytes(edited.read_bytes() + b"# my note\n")
    (dest / A.ROBO_DIR / "my_experiment.py").write_text("results = 42\n")
    before = {p.relative_to(dest).as_posix(): p.read_bytes() for p in dest.rglob("*") if p.is_file()}
    code_, err = tt_cli(capsys, "authors", "fetch", "--dest", str(dest), "--url-template", template)
    err = "\n".join(ln for ln in err.splitlines() if not ln.startswith("authors fetch: "))
    assert_one_line_error(code_, err, f"{A.ROBO_DIR}/robo/__init__.py differs", f"{A.ROBO_DIR}/my_experiment.py is "
                          "not pinned", "nothing changed", "--force")
    after = {p.relative_to(dest).as_posix(): p.read_bytes() for p in dest.rglob("*") if p.is_file()}
    assert after == before
    # --force: the pinned tree installed, the changed one kept aside with every file as it was
    code_, err = tt_cli(capsys, "authors", "fetch", "--dest", str(dest), "--url-template", template, "--force")
    assert code_ == 0, err
    aside = dest / f"{A.ROBO_DIR}.aside"
    assert f"kept aside as {aside}" in err
    kept = {p.relative_to(aside).as_posix(): p.read_bytes() for p in aside.rglob("*") if p.is_file()}
    assert kept == {k.removeprefix(f"{A.ROBO_DIR}/"): v for k, v in before.items() if k.startswith(A.ROBO_DIR + "/")}
    assert A.inspect_tree(dest / A.ROBO_DIR, A.ROBO_DIR)[0] == []
    assert A.inspect_tree(dest / A.TRIMTUNER_DIR, A.TRIMTUNER_DIR)[0] == []
    # a second --force never overwrites the first copy kept aside
    edited.write_bytes(b"# again\n")
    assert tt_cli(capsys, "authors", "fetch", "--dest", str(dest), "--url-template", template, "--force")[0] == 0
    assert (dest / f"{A.ROBO_DIR}.aside.1" / "robo" / "__init__.py").read_bytes() == b"# again\n"
    assert (aside / "my_experiment.py").read_text() == "results = 42\n"


@needs_shared
def test_fetch_from_a_fifo_url_is_one_line_and_never_blocks(tmp_path):
    src = tmp_path / "mirror"
    src.mkdir()
    for repo in ("TrimTuner", "RoBO"):
        os.mkfifo(src / f"{repo}.tar.gz")
    code_, err = tt_subprocess("authors", "fetch", "--dest", tmp_path / "dest", "--url-template",
                               src.as_uri() + "/{repo}.tar.gz")
    assert_one_line_error(code_, "\n".join(ln for ln in err.splitlines() if not ln.startswith("authors fetch: ")),
                          f"{src / 'TrimTuner.tar.gz'}", "is not a regular file (a FIFO)")
    assert not (tmp_path / "dest").exists()


@needs_shared
def test_fetch_of_an_archive_with_an_inflating_member_never_holds_it(tmp_path, monkeypatch):
    """A 64 MiB member of zeros (about 64 kB compressed) beside the pinned files: installed without reading it
    into memory; and refused, without reading it, when the members add up to more than the bound."""
    from tt_workbook.authors import fetch as F

    class Zeros(io.RawIOBase):
        def __init__(self, n):
            self.left = n

        def readable(self):
            return True

        def readinto(self, b):
            k = min(len(b), self.left)
            b[:k] = bytes(k)
            self.left -= k
            return k

    from test_authors_fetch import _archive

    from tt_workbook.authors.fetch import SOURCES

    src = tmp_path / "mirror"
    _archive(src, A.TRIMTUNER_DIR)
    top = f"RoBO-{'0' * 40}"
    path = src / f"RoBO-{SOURCES[A.ROBO_DIR][2]}.tar.gz"
    with tarfile.open(path, "w:gz", compresslevel=1) as tar:
        for p in sorted((SHARED / A.ROBO_DIR).rglob("*")):
            if p.is_file():
                tar.add(p, f"{top}/{p.relative_to(SHARED / A.ROBO_DIR).as_posix()}")
        info = tarfile.TarInfo(f"{top}/data/big.bin")
        info.size = 64 * 2**20
        tar.addfile(info, io.BufferedReader(Zeros(info.size)))
    assert path.stat().st_size < 2 * 2**20
    template = src.as_uri() + "/{repo}-{commit}.tar.gz"
    tracemalloc.start()
    try:
        F.fetch(tmp_path / "dest", url_template=template)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 24 * 2**20, peak
    assert not (tmp_path / "dest" / A.ROBO_DIR / "data").exists()
    monkeypatch.setattr(F, "MAX_MEMBER_BYTES", 32 * 2**20)
    with pytest.raises(A.AuthorsError, match="members add up to more than 32 MB"):
        F.fetch(tmp_path / "dest2", url_template=template)


def test_a_padded_url_template_gives_a_short_message(tmp_path, capsys):
    template = (tmp_path / "none").as_uri() + "/" + "x" * 200_000 + "{repo}.tar.gz"
    code_, err = tt_cli(capsys, "authors", "fetch", "--dest", str(tmp_path / "dest"), "--url-template", template)
    lines = [ln for ln in err.splitlines() if ln.startswith("tt: error")]
    assert code_ == 2 and len(lines) == 1 and len(lines[0]) < 2000 and "could not download" in lines[0]
    assert all(len(ln) < 2000 for ln in err.splitlines())


# =============================================================================== 2. crafted checkpoints
def _spec():
    return ex.RunSpec("rnn", "random", 2, iterations=8)


def _write_npz(path: Path, members: dict[str, bytes], compression=zipfile.ZIP_STORED) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", compression) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def _npy(array: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, array, allow_pickle=False)
    return buf.getvalue()


def _npy_declaring(shape, dtype: str, payload: bytes = b"\0" * 16) -> bytes:
    """An .npy member whose header declares ``shape`` and ``dtype`` but holds only ``payload``."""
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": dtype, "fortran_order": False, "shape": tuple(shape)})
    return buf.getvalue() + payload


def _state_blob(spec, root, header_extra=None) -> bytes:
    header = {**store._checkpoint_header(spec), "wall_s": 0.0, **(header_extra or {})}
    state = json.dumps({"format": C.FORMAT, "root": root})
    return json.dumps({"header": header, "state": state}).encode()


def _checkpoint(tmp_path, spec, root=None, arrays=None, header_extra=None, blob=None) -> Path:
    blob = blob if blob is not None else _state_blob(spec, root or {"t": "dict", "i": 0, "v": []}, header_extra)
    members = {"__state__.npy": _npy(np.frombuffer(blob, dtype=np.uint8)), **(arrays or {})}
    return _write_npz(store.checkpoint_path(spec, tmp_path / "runs"), members)


def _not_used(spec, ckpt: Path, *words) -> None:
    """Loading ``ckpt`` gives exactly one warning (the checkpoint is not used, the run starts from the beginning,
    naming the file and ``words``) and no replay: never an exception."""
    import warnings

    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        assert store._load_checkpoint(spec, ckpt) == (None, 0.0)
    msgs = [str(w.message) for w in got]
    assert len(msgs) == 1, msgs
    assert msgs[0].startswith(f"{ckpt}: checkpoint not used because ") and "starts from the beginning" in msgs[0]
    assert "\n" not in msgs[0]
    for w in words:
        assert w in msgs[0], (w, msgs[0])


def _peak(fn) -> int:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_huge_declared_array_shape_is_refused_before_allocating(tmp_path):
    spec = _spec()
    ckpt = _checkpoint(tmp_path, spec, arrays={"a0.npy": _npy_declaring((10**6, 10**6), "<f8")})
    size = ckpt.stat().st_size
    _not_used(spec, ckpt, "declares shape (1000000, 1000000)", "holds")
    assert _peak(lambda: pytest.raises(C.CheckpointError, C.read, ckpt)) < 10 * size + 2**20


def test_a_huge_string_scalar_is_refused_before_allocating(tmp_path):
    """A 780-byte-like checkpoint declaring a ``<U500000000`` scalar (2 GB) in its state, and one declaring it
    as an array member: both refused, allocating a small multiple of the file."""
    spec = _spec()
    root = {"t": "object", "i": 0, "module": "tt_core.replay.driver", "class": "Replay",
            "fields": [["x", {"t": "npscalar", "dtype": "<U500000000", "v": "a"}]]}
    ckpt = _checkpoint(tmp_path, spec, root=root)
    _not_used(spec, ckpt, "dtype <U500000000", "for a value of at most 4 bytes")
    header, text, arrays = C.read(ckpt)
    fresh = spec.replay()
    assert _peak(lambda: pytest.raises(C.CheckpointError, C.decode, text, arrays, fresh)) < 10 * ckpt.stat().st_size + 2**20
    ckpt2 = _checkpoint(tmp_path / "b", spec, arrays={"a0.npy": _npy_declaring((), "<U500000000", b"a\0\0\0")})
    _not_used(spec, ckpt2, "<U500000000", "holds")


def test_a_zip_bomb_checkpoint_is_refused_from_its_directory(tmp_path):
    spec = _spec()
    ckpt = store.checkpoint_path(spec, tmp_path / "runs")
    ckpt.parent.mkdir(parents=True)
    blob = _state_blob(spec, {"t": "dict", "i": 0, "v": []})
    with zipfile.ZipFile(ckpt, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("__state__.npy", _npy(np.frombuffer(blob, dtype=np.uint8)))
        with zf.open("a0.npy", "w") as member:           # 200 MB of zeros, about 200 kB on disk
            member.write(_npy_declaring((200 * 2**20,), "|u1", b""))
            chunk = bytes(2**20)
            for _ in range(200):
                member.write(chunk)
    size = ckpt.stat().st_size
    assert size < 2 * 2**20
    _not_used(spec, ckpt, "expand to", "more than 10 times its size", "zip bomb")
    assert _peak(lambda: pytest.raises(C.CheckpointError, C.read, ckpt)) < 10 * size + 2**20


@pytest.mark.parametrize("where", ["header", "state"])
def test_deeply_nested_json_is_refused_without_recursion(tmp_path, where):
    spec = _spec()
    deep = "[" * 100_000 + "]" * 100_000
    if where == "header":
        blob = b'{"header": ' + deep.encode() + b', "state": ""}'
    else:
        header = {**store._checkpoint_header(spec), "wall_s": 0.0}
        blob = json.dumps({"header": header, "state": '{"format": 1, "root": ' + deep + "}"}).encode()
    ckpt = _checkpoint(tmp_path, spec, blob=blob)
    _not_used(spec, ckpt, f"its {where} nests 100001 levels deep", f"at most {C.MAX_DEPTH}")


@pytest.mark.parametrize("root, words", [
    ({"t": "dict", "i": 0, "v": []}, "its root is a dict, not the run's replay (tt_core.replay.driver.Replay)"),
    ([1, 2], "its root is a list"),
    ({"t": "object", "i": 0, "module": "tt_core.bo.history", "class": "History", "fields": []},
     "its root is tt_core.bo.history.History, not the run's replay"),
    ({"t": "fresh", "i": 0, "fp": None}, "its root is a fresh"),
])
def test_a_root_that_is_not_the_runs_replay_is_refused(tmp_path, root, words):
    spec = _spec()
    _not_used(spec, _checkpoint(tmp_path, spec, root=root), words)


def _replay_with(field):
    return {"t": "object", "i": 0, "module": "tt_core.replay.driver", "class": "Replay",
            "fields": [["x", field]]}


@pytest.mark.parametrize("field, words", [
    # a tt_core class a replay of a random search never holds (a model of another optimiser, the run store's spec)
    ({"t": "object", "i": 1, "module": "tt_core.models.matern_gp", "class": "MaternGP", "fields": []},
     "tt_core.models.matern_gp.MaternGP, which a replay of this run does not hold"),
    # a class of the harness (the run store's spec): no replay holds one, refused by its package
    ({"t": "object", "i": 1, "module": "tt_workbook.runs.store", "class": "RunSpec", "fields": []},
     "names a class outside tt_core ('tt_workbook.runs.store', 'RunSpec')"),
    # a module whose import runs code (the tt command itself): refused by name, never imported
    ({"t": "object", "i": 1, "module": "tt_workbook.cli.__main__", "class": "sys", "fields": []},
     "names a class outside tt_core ('tt_workbook.cli.__main__', 'sys')"),
    ({"t": "object", "i": 1, "module": "tt_core.__main__", "class": "sys", "fields": []},
     "tt_core.__main__.sys, which a replay of this run does not hold"),
    # a method the replay's class has but a replay never binds
    ({"t": "method", "i": 1, "self": {"t": "ref", "i": 0}, "name": "run"},
     "binds the method Replay.run, which a replay of this run does not hold"),
    ({"t": "npscalar", "dtype": "<U500000000", "v": "a"}, "dtype <U500000000"),
    ({"t": "seedseq", "i": 1, "entropy": 1, "spawn_key": {"t": "list", "i": 2, "v": []}, "pool_size": 10**12,
      "children": 0}, "malformed pool size"),
    ({"t": "list", "i": 1, "v": [{"t": "array", "i": 2, "k": "a0"}, {"t": "array", "i": 3, "k": "a0"}]},
     "uses the array a0 twice"),
    ({"t": "generator", "i": 1, "bg": "PCG64", "seed_seq": None, "state": {"t": "dict", "i": 2, "v": []}},
     "its state is malformed"),
])
def test_a_state_may_build_only_what_a_replay_of_that_run_holds(tmp_path, field, words):
    spec = _spec()
    before = "tt_workbook.cli.__main__" in sys.modules
    ckpt = _checkpoint(tmp_path, spec, root=_replay_with(field), arrays={"a0.npy": _npy(np.arange(3.0))})
    _not_used(spec, ckpt, words)
    assert ("tt_workbook.cli.__main__" in sys.modules) == before


def test_the_allow_list_comes_from_the_spec():
    """A random search holds no model; a tree-based TrimTuner's replay builds its trees (and the size offset of
    its cost model) at its first fit: both are allowed for that spec only, and every class a real checkpoint
    of either names is in its allow-list."""
    rnd, _ = C.allowed_types(ex.RunSpec("rnn", "random", 2).replay())
    dt, dt_methods = C.allowed_types(ex.RunSpec("rnn", "trimtuner-dt", 2).replay())
    models = {("tt_core.models.trees", "ExtraTreesEnsemble"), ("tt_core.models.size_offset", "SizeOffset")}
    assert models <= set(dt) and not models & set(rnd)
    assert ("tt_core.replay.driver", "Replay") in rnd and ("tt_workbook.runs.store", "RunSpec") not in dt
    assert all(name != "run" for _, name in dt_methods)


def test_an_implausible_wall_time_is_refused(tmp_path):
    spec = _spec()
    _not_used(spec, _checkpoint(tmp_path, spec, header_extra={"wall_s": 1e308}), "wall time 1e+308",
              "[0, 31622400]")
    _not_used(spec, _checkpoint(tmp_path / "b", spec, header_extra={"data": [1]}), "header's data is not a mapping")


def test_a_crafted_checkpoint_leaves_the_run_correct(tmp_path):
    """The whole path: a run whose checkpoint is crafted warns once and computes the same trajectory as a run
    without one."""
    spec = _spec()
    _checkpoint(tmp_path, spec, root=_replay_with({"t": "object", "i": 1, "module": "tt_core.models.matern_gp",
                                                   "class": "MaternGP", "fields": []}))
    with pytest.warns(UserWarning, match="checkpoint not used because it names the class"):
        path = ex.run_one(spec, tmp_path / "runs")
    got = ex.read_run(path)[0]
    want = spec.run()
    assert got["config_id"].tolist() == want["config_id"].tolist()
    assert got["incumbent"].tolist() == want["incumbent"].tolist()


# =============================================================================== 3. regular files only
def _fifo_checkpoint_reader(path: Path) -> str:
    return ("import sys\nfrom tt_workbook.runs import checkpoint as C\n"
            f"try:\n    C.read({str(path)!r})\nexcept C.CheckpointError as e:\n    print(e)\n")


def test_a_fifo_checkpoint_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "x.checkpoint.npz"
    os.mkfifo(fifo)
    done = subprocess.run([sys.executable, "-c", _fifo_checkpoint_reader(fifo)], capture_output=True, text=True,
                          timeout=TIMEOUT, cwd=A.PROJECT_DIR)
    assert done.returncode == 0 and done.stdout.strip() == "it is not a regular file (a FIFO)", done.stderr


@pytest.mark.parametrize("kind", ["fifo", "socket", "device"])
def test_a_summary_table_that_is_not_a_regular_file_is_one_line_and_never_blocks(tmp_path, kind):
    figures = tmp_path / "figures"
    figures.mkdir()
    bad = figures / "summary_01_x.csv"
    if kind == "fifo":
        os.mkfifo(bad)
    elif kind == "socket":
        sock = socket.socket(socket.AF_UNIX)
        try:
            sock.bind(str(bad))
        except OSError as exc:  # a path too long for a socket address
            pytest.skip(f"cannot bind a socket here: {exc}")
    else:
        bad.symlink_to("/dev/zero")        # reading it would never end
    what = {"fifo": "a FIFO", "socket": "a socket", "device": "a character device"}[kind]
    try:
        code_, err = tt_subprocess("summary", "--figures", figures)
    finally:
        if kind == "socket":
            sock.close()
    assert_one_line_error(code_, err, f"summary table '{bad}' is not a regular file ({what})", "remove it")


def test_a_fifo_price_trace_and_history_are_one_line_and_never_block(tmp_path):
    fifo = tmp_path / "prices.csv"
    os.mkfifo(fifo)
    code_, err = tt_subprocess("spot", "simulate", "--workload", "cnn/t2.small-x8", "--prices", fifo)
    assert_one_line_error(code_, err, str(fifo), "is not a regular file (a FIFO")
    history = tmp_path / "history.tsv"          # a post-2017 history: another reader
    os.mkfifo(history)
    code_, err = tt_subprocess("spot", "simulate", "--workload", "cnn/t2.small-x8", "--prices", history,
                               "--billing", "aws-today")
    assert_one_line_error(code_, err, str(history), "is not a regular file (a FIFO")


def test_a_fifo_benchmark_csv_is_one_line_and_never_blocks(tmp_path):
    fifo = tmp_path / "bench.csv"
    os.mkfifo(fifo)
    code_, err = tt_subprocess("optimize", "--benchmark", fifo, "--optimizer", "random", "--seed", "1", "--iterations", "4")
    assert_one_line_error(code_, err, str(fifo), "is not a regular file (a FIFO")
    from tt_workbook.bench import read_bench_csv
    from tt_core.data.io import NotAFileError

    with pytest.raises(NotAFileError, match=r"bench_recommend table '.*bench.csv' is not a regular file \(a FIFO\); give"):
        read_bench_csv(fifo)


def test_the_regular_file_helper(tmp_path):
    from tt_core.data.io import NotAFileError, check_regular, open_regular

    f = tmp_path / "a.csv"
    f.write_text("x\n")
    assert check_regular(f) == f and check_regular(tmp_path, folder=True) == tmp_path
    with open_regular(f) as fh:
        assert fh.read() == b"x\n"
    fifo = tmp_path / "p"
    os.mkfifo(fifo)
    for call, words in [(lambda: check_regular(fifo, "price trace", fix="give a CSV"),
                         f"price trace '{fifo}' is not a regular file (a FIFO); give a CSV"),
                        (lambda: open_regular(fifo), f"file '{fifo}' is not a regular file (a FIFO)"),
                        (lambda: check_regular(tmp_path), "is a folder, not a file"),
                        (lambda: check_regular(f, folder=True), "is not a folder (a file)"),
                        (lambda: check_regular(tmp_path / "none"), "does not exist")]:
        with pytest.raises(NotAFileError) as info:
            call()
        assert str(info.value) == words or words in str(info.value), str(info.value)


def _find_objects(node, cls: str, out: list) -> list:
    if isinstance(node, dict):
        if node.get("t") == "object" and node.get("class") == cls:
            out.append(node)
        for v in node.values():
            _find_objects(v, cls, out)
    elif isinstance(node, list):
        for v in node:
            _find_objects(v, cls, out)
    return out


def test_a_replay_with_missing_or_mistyped_fields_is_refused(tmp_path):
    """A root of the right class whose fields a replay's code reads are missing (AttributeError when the run
    resumed) or of another type: refused when loaded, the run computed from the start."""
    spec = _spec()
    root = {"t": "object", "i": 0, "module": "tt_core.replay.driver", "class": "Replay", "fields": []}
    _not_used(spec, _checkpoint(tmp_path, spec, root=root), "its Replay lacks the field 'optimizer'")
    part = spec.replay()
    for _ in range(3):
        part.step()
    text, arrays = C.encode(part)
    doc = json.loads(text)
    for pair in doc["root"]["fields"]:
        if pair[0] == "rows":
            pair[1] = {"t": "dict", "i": 10**6, "v": []}
    with pytest.raises(C.CheckpointError, match="its Replay.rows is a dict, where a replay of this run holds a list"):
        C.decode(json.dumps(doc), arrays, spec.replay())
    C.decode(text, arrays, spec.replay())          # the untouched state loads


def test_a_model_to_refit_on_too_many_rows_is_refused():
    """A tree model whose stored training data has more rows than any run tests (refitting a GP on them could
    take hours): refused before fitting."""
    spec = ex.RunSpec("rnn", "trimtuner-dt", 2, iterations=12)
    part = spec.replay()
    for _ in range(6):
        part.step()
    text, arrays = C.encode(part)
    node = _find_objects(json.loads(text)["root"], "ExtraTreesEnsemble", [])[0]
    fields = dict((k, v) for k, v in node["fields"])
    X, y = arrays[fields["X_"]["k"]], arrays[fields["y_"]["k"]]
    arrays = {**arrays, fields["X_"]["k"]: np.zeros((C.MAX_REFIT_ROWS + 1, X.shape[1])),
              fields["y_"]["k"]: np.zeros(C.MAX_REFIT_ROWS + 1)}
    with pytest.raises(C.CheckpointError, match=f"no training data to refit on \\(at most {C.MAX_REFIT_ROWS} rows\\)"):
        C.decode(text, arrays, spec.replay())
    assert len(X) == len(y) <= 12


def test_a_fifo_where_the_checkpoint_belongs_never_blocks_the_run(tmp_path):
    code = f"""
import os, warnings
from tt_workbook import runs as ex
from tt_workbook.runs import store
spec = ex.RunSpec("rnn", "random", 2, iterations=8)
ckpt = store.checkpoint_path(spec, {str(tmp_path / "runs")!r})
ckpt.parent.mkdir(parents=True)
os.mkfifo(ckpt)
with warnings.catch_warnings(record=True) as got:
    warnings.simplefilter("always")
    print(len(ex.read_run(ex.run_one(spec, {str(tmp_path / "runs")!r}))[0]))
print(*[w.message for w in got], sep="\\n")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=TIMEOUT,
                          cwd=A.PROJECT_DIR)
    assert done.returncode == 0, done.stderr
    rows, *said = done.stdout.strip().splitlines()
    assert rows == "8"
    ckpt = store.checkpoint_path(_spec(), tmp_path / "runs")
    assert said == [f"{ckpt}: checkpoint not used because it is not a regular file (a FIFO); the run starts from "
                    "the beginning"]


@needs_shared
def test_a_padded_pinned_file_is_refused_unread(tmp_path, monkeypatch, capsys, no_install):
    """A pinned file padded to 2 GiB (sparse: nothing on disk) is named, never read into memory."""
    code = _tree_copy(tmp_path)
    target = code / A.TRIMTUNER_DIR / "trimtuner" / "models" / "trimtuner_dt.py"
    with open(target, "r+b") as fh:
        fh.truncate(2 * 2**30)
    monkeypatch.setenv("TT_AUTHORS_CODE", str(code))
    args = ("authors", "run", "--benchmark", "rnn", "--seed", "1", "--residue", "zero", "--iterations", "5")
    peak = _peak(lambda: assert_one_line_error(*tt_cli(capsys, *args), f"{A.TRIMTUNER_DIR}/trimtuner/models/"
                                               f"trimtuner_dt.py differs from the pinned sha256 ({2 * 2**30} bytes, "
                                               "never read)"))
    assert peak < 64 * 2**20, peak


@pytest.mark.parametrize("argv, words", [
    (["--seed", "2000000"], "--seed must be at most 1000000, got '2000000'"),     # as the help says: 1 to 1000000
    (["--seed", "1", "--residue", "zero", "--dh-seed", "3"], "--dh-seed 3 applies to --residue empirical only"),
    (["--seed", "1", "--runs-dir", "elsewhere"], "--runs-dir elsewhere applies with --store only"),
    (["--seed", "1", "--filter", "nofilter", "--beta", "0.5"], "--beta 0.5 applies to --filter cea only"),
])
def test_authors_run_options_that_do_not_apply_are_refused(argv, words, capsys, monkeypatch):
    ran = []
    monkeypatch.setattr(A, "run_authors", lambda *a, **k: ran.append(a))
    assert_one_line_error(*tt_cli(capsys, "authors", "run", "--benchmark", "rnn", *argv), words)
    assert ran == []


def test_an_empty_benchmark_is_called_empty(capsys):
    assert_one_line_error(*tt_cli(capsys, "authors", "run", "--benchmark", " ", "--seed", "1"),
                          "the benchmark is empty; the authors' code runs rnn or cnn")
