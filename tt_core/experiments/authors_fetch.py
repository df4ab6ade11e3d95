"""``tt authors fetch``: download the TrimTuner authors' code trees, check them, install them in the data cache.

Outside this workplace the authors' code is not in ``../shared/authors_code/``; this module downloads the two
trees :mod:`tt_core.experiments.authors` runs (github pedrogbmendes/TrimTuner and automl/RoBO at the pinned
commits) from GitHub's archive service, checks every file against :mod:`tt_core.experiments.authors_manifest`
and installs the trees where :func:`tt_core.experiments.authors.locate_code` looks (``<data cache>/authors_code/``,
the folder ``tt data fetch`` fills).

Only short commit hashes are known here (a9dec1f, 91366b1: ``../shared/authors_code/SOURCE.md`` gives no
longer ones), so the download address is a setting: :data:`URL_TEMPLATE` with ``{owner}``, ``{repo}`` and
``{commit}`` (``--url-template``; a ``file://`` address works too). Whatever the address, what is installed is
what the manifest pins: the archive is read, never executed; every member name is checked (no absolute path,
no ``..``, no link leading out of its folder, no device file) before anything is written; the pinned files are
written to a temporary folder beside the destination, checked (each file's sha256 and the tree hash
:func:`tree_sha256`), and only then renamed into place. A failed check installs nothing.
"""

from __future__ import annotations

import hashlib
import io
import os
import posixpath
import shutil
import tarfile
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

from tt_core.experiments.authors import ROBO_DIR, TRIMTUNER_DIR, AuthorsError
from tt_core.experiments.authors_manifest import FILES, TREE_SHA256

#: Where each tree comes from: folder name -> (GitHub owner, repository, commit as known here).
SOURCES = {TRIMTUNER_DIR: ("pedrogbmendes", "TrimTuner", "a9dec1f"), ROBO_DIR: ("automl", "RoBO", "91366b1")}
#: GitHub's archive service (the issue's address; a short commit hash as the only one known here).
URL_TEMPLATE = "https://codeload.github.com/{owner}/{repo}/tar.gz/{commit}"
#: Largest archive read (the two trees are well under 1 MB of code; their repositories under 50 MB).
MAX_BYTES = 200 * 1024 * 1024


def default_dest() -> Path:
    """``<data cache>/authors_code``: the folder :func:`tt_core.experiments.authors.locate_code` searches."""
    from tt_core.data.benchmarks import cache_dir

    return cache_dir() / "authors_code"


def tree_sha256(files: dict) -> str:
    """The tree hash of ``{relative posix path: sha256 hex of the file}``: sha256 over the sorted paths,
    each as ``path NUL sha256 LF``."""
    h = hashlib.sha256()
    for rel in sorted(files):
        h.update(f"{rel}\0{files[rel]}\n".encode())
    return h.hexdigest()


def folder_files(folder: Path) -> dict:
    """``{relative posix path: sha256}`` of every regular file under ``folder``."""
    out = {}
    for path in sorted(Path(folder).rglob("*")):
        if path.is_file() and not path.is_symlink():
            out[path.relative_to(folder).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def tree_ok(folder: Path, name: str) -> bool:
    """Whether ``folder`` holds every pinned file of tree ``name`` with its pinned sha256."""
    have = folder_files(folder) if folder.is_dir() else {}
    return all(have.get(rel) == sha for rel, sha in FILES[name].items())


def _download(url: str, timeout: float, dest: Path) -> bytes:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            data = resp.read(MAX_BYTES + 1)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise AuthorsError(f"could not download {url} ({exc}); offline? copy the folders {TRIMTUNER_DIR}/ and "
                           f"{ROBO_DIR}/ into {dest} or point TT_AUTHORS_CODE at them") from None
    if len(data) > MAX_BYTES:
        raise AuthorsError(f"{url} is larger than {MAX_BYTES // 2**20} MB; not the authors' code archive (check "
                           "--url-template)")
    return data


def _members(data: bytes, url: str) -> dict:
    """``{path inside the archive's one top folder: bytes}`` of its regular files, after checking every member."""
    try:
        tar = tarfile.open(fileobj=io.BytesIO(data), mode="r:*")
        members = tar.getmembers()
    except (tarfile.TarError, EOFError, OSError) as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0].rstrip(":")
        raise AuthorsError(f"{url} is not a readable tar archive ({first}); check --url-template") from None
    tops = set()
    for m in members:
        name = m.name
        parts = [p for p in name.split("/") if p not in ("", ".")]
        if name.startswith("/") or (len(name) > 1 and name[1] == ":") or ".." in parts:
            raise AuthorsError(f"{url}: refused, member {name!r} would be written outside the destination")
        if m.islnk() or m.issym():
            target = posixpath.normpath(posixpath.join(posixpath.dirname(name), m.linkname)) if m.issym() \
                else posixpath.normpath(m.linkname)
            if m.linkname.startswith("/") or target.startswith("..") or target.split("/")[0] != (parts or [""])[0]:
                raise AuthorsError(f"{url}: refused, member {name!r} links outside its folder ({m.linkname!r})")
        elif not (m.isfile() or m.isdir()) and m.type != tarfile.XGLTYPE:
            raise AuthorsError(f"{url}: refused, member {name!r} is a device or special file")
        if parts and m.type not in (tarfile.XGLTYPE, tarfile.XHDTYPE) and name != "pax_global_header":
            tops.add(parts[0])
    if len(tops) != 1:
        raise AuthorsError(f"{url}: expected one top folder in the archive, found {len(tops)}; check --url-template")
    top = tops.pop()
    out = {}
    for m in members:
        if m.isfile():
            parts = [p for p in m.name.split("/") if p not in ("", ".")]
            if len(parts) > 1 and parts[0] == top:
                out["/".join(parts[1:])] = tar.extractfile(m).read()
    return out


def _check(name: str, files: dict, url: str) -> None:
    """Every pinned file of tree ``name`` present with its pinned sha256, and the tree hash as pinned."""
    got = {}
    for rel, sha in FILES[name].items():
        if rel not in files:
            raise AuthorsError(f"{url} lacks {name}/{rel}; it is not {name} (check --url-template); nothing installed")
        got[rel] = hashlib.sha256(files[rel]).hexdigest()
        if got[rel] != sha:
            raise AuthorsError(f"{url}: {name}/{rel} has sha256 {got[rel][:12]}..., pinned {sha[:12]}...; the "
                               "download is not the pinned code (check --url-template); nothing installed")
    if tree_sha256(got) != TREE_SHA256[name]:  # the manifest itself, checked against its pinned hash
        raise AuthorsError(f"the pinned manifest of {name} does not match its tree hash; reinstall the workbook")


def fetch(dest: Path | None = None, url_template: str = URL_TEMPLATE, force: bool = False,
          timeout: float = 60.0, say=None) -> Path:
    """Download, check and install both trees into ``dest`` (default :func:`default_dest`); return ``dest``.

    A tree already installed with the pinned contents is kept (``force`` re-downloads it). Both archives are
    downloaded and checked before either tree is moved into place.
    """
    say = say or (lambda line: None)
    dest = Path(dest) if dest is not None else default_dest()
    todo = [n for n in SOURCES if force or not tree_ok(dest / n, n)]
    for n in SOURCES:
        if n not in todo:
            say(f"{n}: already installed in {dest} (pinned contents)")
    if not todo:
        return dest
    checked = {}
    for n in todo:
        owner, repo, commit = SOURCES[n]
        try:
            url = url_template.format(owner=owner, repo=repo, commit=commit, folder=n)
        except (KeyError, IndexError, ValueError) as exc:
            raise AuthorsError(f"--url-template {url_template!r} cannot be filled ({exc}); use the fields {{owner}}, "
                               "{repo}, {commit} (or {folder})") from None
        say(f"{n}: downloading {url}")
        files = _members(_download(url, timeout, dest), url)
        _check(n, files, url)
        checked[n] = files
    dest.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".tt-authors-fetch-", dir=dest))
    try:
        for n, files in checked.items():
            for rel in FILES[n]:
                target = staging / n / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(files[rel])
            if not tree_ok(staging / n, n):  # what is on disk, read back
                raise AuthorsError(f"{n} did not read back as written in {staging}; check the disk; nothing installed")
        for n in checked:
            final = dest / n
            if final.exists() or final.is_symlink():
                old = staging / f"{n}.old"
                os.replace(final, old)
            os.replace(staging / n, final)
            say(f"{n}: installed in {final} (tree sha256 {TREE_SHA256[n][:12]}...)")
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return dest
