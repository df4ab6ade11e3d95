"""``tt authors fetch``: the authors' code trees downloaded (here from local archives made from the shared copy,
served by file:// and by a local HTTP server), checked against the pinned hashes, installed atomically.

Known answers: the tree hashes are recomputed here from ``../shared/authors_code/`` with hashlib alone; a
tampered, unsafe or foreign archive must leave the destination without any tree."""

from __future__ import annotations

import functools
import hashlib
import http.server
import io
import os
import tarfile
import threading
from pathlib import Path

import pytest

from conftest import assert_one_line_error
from conftest import tt_cli as _tt_cli
from tt_workbook.authors import oracle as A
from tt_workbook.authors import fetch as F

SHARED = A.PROJECT_DIR.parent / "shared" / "authors_code"
TREES = (A.TRIMTUNER_DIR, A.ROBO_DIR)
REPO = {A.TRIMTUNER_DIR: "TrimTuner", A.ROBO_DIR: "RoBO"}

pytestmark = pytest.mark.skipif(not all((SHARED / t).is_dir() for t in TREES),
                                reason="../shared/authors_code/ (the source of the test archives) not found")


def tt_cli(capsys, *argv):
    """``tt ARGV``'s exit code and stderr without the command's progress lines (``authors fetch: ...``)."""
    code, err = _tt_cli(capsys, *argv)
    return code, "\n".join(ln for ln in err.splitlines() if not ln.startswith("authors fetch: "))


def _tree_hash_by_hand(folder: Path) -> str:
    lines = []
    for dirpath, _, names in os.walk(folder):
        for n in names:
            p = Path(dirpath) / n
            rel = p.relative_to(folder).as_posix()
            lines.append((rel, hashlib.sha256(p.read_bytes()).hexdigest()))
    return hashlib.sha256("".join(f"{r}\0{h}\n" for r, h in sorted(lines)).encode()).hexdigest()


def _archive(out: Path, tree: str, top: str | None = None, edit=None, extra=()) -> Path:
    """A GitHub-like tar.gz of the shared copy of ``tree`` under one top folder, optionally with one file
    changed (``edit``: (relative path, new bytes)) and extra members (``extra``: TarInfo, bytes)."""
    top = top or f"{REPO[tree]}-{'0' * 40}"
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for p in sorted((SHARED / tree).rglob("*")):
            if not p.is_file():
                continue
            rel = p.relative_to(SHARED / tree).as_posix()
            data = edit[1] if edit and edit[0] == rel else p.read_bytes()
            info = tarfile.TarInfo(f"{top}/{rel}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        data = b"a,b\n1,2\n"                     # a file of theirs the workbook does not pin (their data)
        info = tarfile.TarInfo(f"{top}/files/rnn.csv")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
        for info, data in extra:
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{REPO[tree]}-{F.SOURCES[tree][2]}.tar.gz"
    path.write_bytes(buf.getvalue())
    return path


def _template(folder: Path) -> str:
    return folder.as_uri() + "/{repo}-{commit}.tar.gz"


def test_pinned_tree_hashes_are_those_of_the_shared_copy():
    for t in TREES:
        assert F.TREE_SHA256[t] == _tree_hash_by_hand(SHARED / t)
        assert F.tree_sha256(F.FILES[t]) == F.TREE_SHA256[t]


def test_fetch_from_file_urls_installs_and_locate_code_finds_it(tmp_path, monkeypatch):
    src = tmp_path / "mirror"
    for t in TREES:
        _archive(src, t)
    cache = tmp_path / "cache"
    monkeypatch.setattr(F, "default_dest", lambda: cache / "authors_code")
    monkeypatch.delenv("TT_AUTHORS_CODE", raising=False)
    said = []
    dest = F.fetch(url_template=_template(src), say=said.append)
    assert dest == cache / "authors_code"
    for t in TREES:
        assert _tree_hash_by_hand(dest / t) == F.TREE_SHA256[t]      # exactly the pinned files, nothing else
        assert not (dest / t / "files").exists()
    assert sorted(p.name for p in dest.iterdir()) == sorted(TREES)  # no staging folder left behind
    assert sum("installed" in line for line in said) == 2
    # locate_code looks in the data cache (before ../shared)
    import tt_core.data.benchmarks as B

    monkeypatch.setattr(B, "cache_dir", lambda: cache)
    assert A.locate_code() == dest
    # a second fetch downloads nothing
    said.clear()
    F.fetch(url_template="file:///nonexistent/{repo}.tar.gz", say=said.append)
    assert all("already installed" in line for line in said) and len(said) == 2


def test_fetch_over_http_from_a_local_server(tmp_path):
    src = tmp_path / "served"
    for t in TREES:
        _archive(src, t)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(src))
    handler.log_message = lambda *a, **k: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/{{repo}}-{{commit}}.tar.gz"
        dest = F.fetch(tmp_path / "out", url_template=url)
    finally:
        server.shutdown()
        server.server_close()
    assert all(_tree_hash_by_hand(dest / t) == F.TREE_SHA256[t] for t in TREES)


def _assert_nothing_installed(dest: Path):
    assert not dest.exists() or not any(p for p in dest.iterdir()), list(dest.iterdir())


def test_a_tampered_file_is_one_line_exit_2_and_nothing_installed(tmp_path, capsys):
    src = tmp_path / "mirror"
    _archive(src, A.TRIMTUNER_DIR)
    rel = "trimtuner/models/trimtuner_dt.py"
    original = (SHARED / A.ROBO_DIR / "robo" / "__init__.py").read_bytes()
    _archive(src, A.ROBO_DIR, edit=("robo/__init__.py", original + b"\n# changed\n"))
    dest = tmp_path / "dest"
    code, err = tt_cli(capsys, "authors", "fetch", "--dest", str(dest), "--url-template", _template(src))
    assert_one_line_error(code, err, f"{A.ROBO_DIR}/robo/__init__.py has sha256", "nothing installed")
    _assert_nothing_installed(dest)      # the good TrimTuner archive was not installed either
    # a missing pinned file: named too
    _archive(src, A.TRIMTUNER_DIR, top="TrimTuner-x", edit=None)
    bad = src / "TrimTuner-a9dec1f.tar.gz"
    with tarfile.open(bad) as tar:
        kept = [(m, tar.extractfile(m).read()) for m in tar.getmembers() if not m.name.endswith(rel)]
    with tarfile.open(bad, "w:gz") as tar:
        for m, data in kept:
            tar.addfile(m, io.BytesIO(data))
    code, err = tt_cli(capsys, "authors", "fetch", "--dest", str(dest), "--url-template", _template(src))
    assert_one_line_error(code, err, f"lacks {A.TRIMTUNER_DIR}/{rel}")
    _assert_nothing_installed(dest)


@pytest.mark.parametrize("name, kind, link, words", [
    ("../evil.py", tarfile.REGTYPE, "", "outside the destination"),
    ("/tmp/evil.py", tarfile.REGTYPE, "", "outside the destination"),
    ("{top}/robo/link", tarfile.SYMTYPE, "../../../etc/passwd", "links outside its folder"),
    ("{top}/robo/abs", tarfile.SYMTYPE, "/etc/passwd", "links outside its folder"),
    ("{top}/robo/hard", tarfile.LNKTYPE, "etc/passwd", "links outside its folder"),
    ("{top}/robo/dev", tarfile.CHRTYPE, "", "device or special file"),
])
def test_unsafe_archives_are_refused(tmp_path, capsys, name, kind, link, words):
    top = f"RoBO-{'0' * 40}"
    info = tarfile.TarInfo(name.format(top=top))
    info.type, info.linkname = kind, link
    data = None
    if kind == tarfile.REGTYPE:
        data = b"print('hi')\n"
        info.size = len(data)
    src = tmp_path / "mirror"
    _archive(src, A.TRIMTUNER_DIR)
    _archive(src, A.ROBO_DIR, top=top, extra=[(info, data)])
    dest = tmp_path / "dest"
    code, err = tt_cli(capsys, "authors", "fetch", "--dest", str(dest), "--url-template", _template(src))
    assert_one_line_error(code, err, words)
    _assert_nothing_installed(dest)
    assert not (tmp_path / "evil.py").exists()


def test_unreachable_or_foreign_download_is_one_line(tmp_path, capsys):
    dest = tmp_path / "dest"
    code, err = tt_cli(capsys, "authors", "fetch", "--dest", str(dest), "--url-template",
                       (tmp_path / "none").as_uri() + "/{repo}.tar.gz")
    assert_one_line_error(code, err, "could not download", "TT_AUTHORS_CODE")
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "TrimTuner.tar.gz").write_bytes(b"<html>not found</html>")
    code, err = tt_cli(capsys, "authors", "fetch", "--dest", str(dest), "--url-template",
                       (tmp_path / "junk").as_uri() + "/{repo}.tar.gz")
    assert_one_line_error(code, err, "not a readable tar archive")
    code, err = tt_cli(capsys, "authors", "fetch", "--dest", str(dest), "--url-template", "x/{nope}")
    assert_one_line_error(code, err, "cannot be filled", "{owner}")
    _assert_nothing_installed(dest)


def test_missing_code_names_tt_authors_fetch(tmp_path, monkeypatch, capsys):
    import tt_core.data.benchmarks as B

    monkeypatch.delenv("TT_AUTHORS_CODE", raising=False)
    monkeypatch.setattr(B, "cache_dir", lambda: tmp_path / "cache")
    monkeypatch.setattr(A, "PROJECT_DIR", tmp_path / "wb")      # no ../shared beside it
    with pytest.raises(A.AuthorsError, match="run `tt authors fetch`"):
        A.locate_code()
    code, err = tt_cli(capsys, "authors", "run", "--benchmark", "rnn", "--seed", "1")
    assert_one_line_error(code, err, "tt authors fetch")
