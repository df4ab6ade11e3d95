"""A change that moves a reference trajectory bumps tt_core.RESULTS_VERSION.

``reference_versions.json`` records, for each results version, the sha256 of the reference-trajectory files
written with it. When a reference is rewritten (because the numerics moved) without a new version, the
recorded hash of the current version no longer matches and this test fails: bump ``RESULTS_VERSION`` in
``tt_core/__init__.py`` and add the new hashes under the new version (``python tests/test_results_version.py
--record``), so that stored results of the old numerics are recomputed, not reused.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RECORD = HERE / "reference_versions.json"
REFERENCES = ("trajectories_all.json", "kernel_trajectories.json", "study_trajectories.json")


def _hashes() -> dict:
    return {name: hashlib.sha256((HERE / name).read_bytes()).hexdigest() for name in REFERENCES}


def test_references_belong_to_the_current_results_version():
    from tt_core import RESULTS_VERSION

    record = json.loads(RECORD.read_text())
    assert str(RESULTS_VERSION) in record, (f"RESULTS_VERSION = {RESULTS_VERSION} has no recorded references; "
                                            "run `python tests/test_results_version.py --record`")
    now = _hashes()
    moved = [n for n in REFERENCES if record[str(RESULTS_VERSION)].get(n) != now[n]]
    assert not moved, (f"{moved} changed but RESULTS_VERSION is still {RESULTS_VERSION}: bump it in tt_core/__init__.py "
                       "and record the new references (`python tests/test_results_version.py --record`)")


def test_each_version_has_its_own_references():
    """No two versions share a reference file's hash: a bump records references that actually moved."""
    record = json.loads(RECORD.read_text())
    versions = sorted(record, key=int)
    assert versions == [str(v) for v in range(int(versions[0]), int(versions[-1]) + 1)]
    for a, b in zip(versions, versions[1:]):
        assert record[a] != record[b], f"versions {a} and {b} record the same references"


if __name__ == "__main__":
    if sys.argv[1:] != ["--record"]:
        sys.exit("usage: python tests/test_results_version.py --record")
    sys.path.insert(0, str(HERE.parent))
    from tt_core import RESULTS_VERSION

    record = json.loads(RECORD.read_text()) if RECORD.exists() else {}
    if str(RESULTS_VERSION) in record and record[str(RESULTS_VERSION)] != _hashes():
        sys.exit(f"version {RESULTS_VERSION} already records other references: bump RESULTS_VERSION first")
    record[str(RESULTS_VERSION)] = _hashes()
    RECORD.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    print(f"recorded the references of results version {RESULTS_VERSION}")
