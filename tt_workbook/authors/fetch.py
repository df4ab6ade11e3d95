"""``tt authors fetch``: download the TrimTuner authors' code trees, check them, install them in the data cache.

Outside this workplace the authors' code is not in ``../shared/authors_code/``; this module downloads the two
trees :mod:`tt_workbook.authors.oracle` runs (github pedrogbmendes/TrimTuner and automl/RoBO at the pinned
commits) from GitHub's archive service, checks every file against :mod:`tt_workbook.authors.manifest`
and installs the trees where :func:`tt_workbook.authors.oracle.locate_code` looks (``<data cache>/authors_code/``,
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

from tt_workbook.authors.oracle import ROBO_DIR, TRIMTUNER_DIR, AuthorsError
from tt_workbook.authors.manifest import FILES, TREE_SHA256

#: Where each tree comes from: folder name -> (GitHub owner, repository, commit as known here).
SOURCES = {TRIMTUNER_DIR: ("pedrogbmendes", "TrimTuner", "a9dec1f"), ROBO_DIR: ("automl", "RoBO", "91366b1")}
#: GitHub's archive service (the issue's address; a short commit hash as the only one known here).
URL_TEMPLATE = "https://codeload.github.com/{owner}/{repo}/tar.gz/{commit}"
#: Largest archive read (the two trees are well under 1 MB of code; their repositories under 50 MB).
MAX_BYTES = 200 * 1024 * 1024
#: Largest total of the archive's members, as their headers declare them, read through before refusing it
#: (an archive inflating beyond this is not the authors' code); only pinned members are ever read into memory.
MAX_MEMBER_BYTES = 500 * 1024 * 1024
#: Most members an archive may hold (their repositories hold a few hundred files).
MAX_MEMBERS = 20000
#: Largest pinned file (their largest is under 100 kB).
MAX_FILE_BYTES = 10 * 1024 * 1024


def _short(text: str, most: int = 200) -> str:
    """``text`` cut to ``most`` characters for a message (an address may be padded to any length)."""
    return text if len(text) <= most else text[:most] + f"... ({len(text)} characters)"


def default_dest() -> Path:
    """``<data cache>/authors_code``: the folder :func:`tt_workbook.authors.oracle.locate_code` searches."""
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


def _local_path(url: str) -> Path | None:
    """The file a ``file://`` address names, or None for another scheme."""
    import urllib.parse

    parts = urllib.parse.urlsplit(url)
    if parts.scheme.lower() != "file":
        return None
    return Path(urllib.request.url2pathname(parts.path))


def _download(url: str, timeout: float, dest: Path) -> bytes:
    """The bytes at ``url``, read in chunks up to :data:`MAX_BYTES` (a larger download is refused, never held)."""
    offline = (f"offline? copy the folders {TRIMTUNER_DIR}/ and {ROBO_DIR}/ into {_short(str(dest))} or point "
               "TT_AUTHORS_CODE at them")
    local = _local_path(url)
    if local is not None:  # never opened unless a regular file: a FIFO or device would block the read
        from tt_core.data.io import NotAFileError, check_regular

        try:
            os.stat(local)
        except FileNotFoundError:
            pass            # urllib's own message below
        except OSError as exc:
            raise AuthorsError(f"could not download {_short(url)} ({exc.strerror}); {offline}") from None
        else:
            try:
                check_regular(local, "--url-template's file", fix="give the path of a downloaded .tar.gz archive")
            except NotAFileError as exc:
                raise AuthorsError(f"could not download {_short(url)}: {_short(str(exc), 400)}") from None
    chunks, got = [], 0
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            while got <= MAX_BYTES:
                chunk = resp.read(min(2**20, MAX_BYTES + 1 - got))
                if not chunk:
                    break
                chunks.append(chunk)
                got += len(chunk)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise AuthorsError(f"could not download {_short(url)} ({_short(str(exc))}); {offline}") from None
    if got > MAX_BYTES:
        raise AuthorsError(f"{_short(url)} is larger than {MAX_BYTES // 2**20} MB; not the authors' code archive "
                           "(check --url-template)")
    return b"".join(chunks)


def _members(data: bytes, url: str, wanted=None) -> dict:
    """``{path inside the archive's one top folder: bytes}`` of its regular files named in ``wanted`` (all when
    None), after checking every member. Members are listed from their headers (the archive is read through,
    never held inflated); only wanted members of at most :data:`MAX_FILE_BYTES` are read into memory, and an
    archive whose members add up to more than :data:`MAX_MEMBER_BYTES` is refused."""
    url = _short(url)
    members, declared = [], 0
    try:
        tar = tarfile.open(fileobj=io.BytesIO(data), mode="r:*")
        for m in tar:
            declared += max(0, m.size)
            if declared > MAX_MEMBER_BYTES:
                raise AuthorsError(f"{url}: refused, its members add up to more than {MAX_MEMBER_BYTES // 2**20} MB "
                                   "(not the authors' code; check --url-template)")
            members.append(m)
            if len(members) > MAX_MEMBERS:
                raise AuthorsError(f"{url}: refused, it holds more than {MAX_MEMBERS} members (not the authors' code; "
                                   "check --url-template)")
    except (tarfile.TarError, EOFError, OSError, zlib_error()) as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0].rstrip(":")
        raise AuthorsError(f"{url} is not a readable tar archive ({_short(first)}); check --url-template") from None
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
            rel = "/".join(parts[1:])
            if len(parts) > 1 and parts[0] == top and (wanted is None or rel in wanted):
                if m.size > MAX_FILE_BYTES:
                    raise AuthorsError(f"{url}: refused, {rel} declares {m.size} bytes (a pinned file is under "
                                       f"{MAX_FILE_BYTES // 2**20} MB); check --url-template")
                try:
                    out[rel] = tar.extractfile(m).read(MAX_FILE_BYTES + 1)
                except (tarfile.TarError, EOFError, OSError, zlib_error()) as exc:
                    raise AuthorsError(f"{url} is not a readable tar archive ({type(exc).__name__} in {rel}); check "
                                       "--url-template") from None
    return out


def zlib_error():
    import zlib

    return zlib.error



def _check(name: str, files: dict, url: str) -> None:
    """Every pinned file of tree ``name`` present with its pinned sha256, and the tree hash as pinned."""
    url = _short(url)
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


def _installed(final: Path, name: str) -> list[str] | None:
    """None when ``final`` holds no tree; else what in it is not exactly the pinned files ([] when it is)."""
    from tt_workbook.authors.oracle import inspect_tree

    if final.is_symlink():
        return [f"{name} is a symlink (to {os.readlink(final)})"]
    if not final.exists():
        return None
    if not final.is_dir():
        return [f"{name} is not a folder"]
    return inspect_tree(final, name)[0]


def aside_name(final: Path) -> Path:
    """A free name beside ``final`` to keep a replaced tree under: ``<name>.aside``, ``<name>.aside.1``, ..."""
    cand, k = final.with_name(final.name + ".aside"), 0
    while cand.exists() or cand.is_symlink():
        k += 1
        cand = final.with_name(f"{final.name}.aside.{k}")
    return cand


def fetch(dest: Path | None = None, url_template: str = URL_TEMPLATE, force: bool = False,
          timeout: float = 60.0, say=None) -> Path:
    """Download, check and install both trees into ``dest`` (default :func:`default_dest`); return ``dest``.

    A tree already installed with exactly the pinned files is kept (``force`` downloads it again). A tree that
    differs (a changed, missing or extra file, a link) is never deleted: without ``force`` nothing is done and
    the error names the files; with ``force`` it is kept aside as ``<tree>.aside`` (``.aside.1``, ...) and the
    pinned tree installed. Both archives are downloaded and checked before either tree is moved into place.
    """
    say = say or (lambda line: None)
    dest = Path(dest) if dest is not None else default_dest()
    state = {n: _installed(dest / n, n) for n in SOURCES}
    differing = {n: p for n, p in state.items() if p}
    if differing and not force:
        problems = [x for p in differing.values() for x in p]
        from tt_workbook.authors.oracle import listed

        raise AuthorsError(f"{dest} already holds {' and '.join(differing)} that differ from the pinned code "
                           f"({listed(problems)}); nothing changed: move your changes away, or run `tt authors fetch "
                           "--force` (keeps the present tree aside as <tree>.aside and installs the pinned one)")
    todo = [n for n in SOURCES if force or state[n] != []]
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
        except (KeyError, IndexError, ValueError, AttributeError) as exc:
            raise AuthorsError(f"--url-template {_short(url_template)!r} cannot be filled ({_short(str(exc))}); use "
                               "the fields {owner}, {repo}, {commit} (or {folder})") from None
        say(f"{n}: downloading {_short(url)}")
        files = _members(_download(url, timeout, dest), url, wanted=set(FILES[n]))
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
                if state[n]:   # differs from the pinned code: kept, under a new name
                    aside = aside_name(final)
                    os.replace(final, aside)
                    say(f"{n}: the tree there differed from the pinned code; kept aside as {aside}")
                else:          # exactly the pinned files: nothing of anyone's is lost
                    os.replace(final, staging / f"{n}.old")
            os.replace(staging / n, final)
            say(f"{n}: installed in {final} (tree sha256 {TREE_SHA256[n][:12]}...)")
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return dest
