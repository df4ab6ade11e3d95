"""tt_core.data.entries: the one set of file rules, checked on hand-made files."""

import hashlib
import json
import os
import stat

import numpy as np
import pyarrow as pa
import pytest

from tt_core.data import entries as E


def _writer(text):
    def write(value, tmp):
        with open(tmp, "w") as fh:
            fh.write(value)
    return write


def _read(path):
    with open(path) as fh:
        return fh.read()


def _ensure(entry, value, calls):
    def compute():
        calls.append(value)
        return value
    return entry.ensure(compute, _writer(value), _read)


def test_sidecar_records_settings_data_and_the_bytes_sha256(tmp_path):
    e = E.Entry(tmp_path / "a.csv", {"n": 3, "grid": [1, 2]}, {"sha256": "ab"})
    calls = []
    assert e.status() == ("missing", "")
    assert _ensure(e, "x,y\n1,2\n", calls) == ("x,y\n1,2\n", "computed")
    side = json.loads((tmp_path / "a.csv.entry.json").read_text())
    assert side["settings"] == {"n": 3, "grid": [1, 2]} and side["data"] == {"sha256": "ab"}
    assert side["content_sha256"] == hashlib.sha256(b"x,y\n1,2\n").hexdigest()
    # reused: compute is not called again; a tuple setting equals the stored list (JSON values)
    again = E.Entry(tmp_path / "a.csv", {"grid": (1, 2), "n": 3}, {"sha256": "ab"})
    assert again.status() == ("fresh", "") and _ensure(again, "other", calls) == ("x,y\n1,2\n", "reused")
    assert calls == ["x,y\n1,2\n"]


def test_a_mismatching_setting_is_recomputed_and_the_old_file_set_aside(tmp_path):
    path = tmp_path / "c.csv"
    calls = []
    _ensure(E.Entry(path, {"seed": 1}), "one", calls)
    with pytest.warns(UserWarning, match=r"other settings \(seed\).*moved to c.csv.mismatch and recomputed"):
        assert _ensure(E.Entry(path, {"seed": 2}), "two", calls) == ("two", "computed")
    assert (tmp_path / "c.csv.mismatch").read_text() == "one" and path.read_text() == "two"
    assert json.loads((tmp_path / "c.csv.entry.json.mismatch").read_text())["settings"] == {"seed": 1}
    # other data: also a mismatch; the earlier set-aside copy is kept, the next one is numbered
    with pytest.warns(UserWarning, match="other data.*moved to c.csv.mismatch.1"):
        _ensure(E.Entry(path, {"seed": 2}, {"sha256": "new"}), "three", calls)
    assert (tmp_path / "c.csv.mismatch").read_text() == "one" and (tmp_path / "c.csv.mismatch.1").read_text() == "two"
    assert (tmp_path / "c.csv.entry.json.mismatch.1").is_file() and calls == ["one", "two", "three"]


def test_a_flipped_byte_is_corrupt_and_set_aside(tmp_path):
    path = tmp_path / "w.pt"
    e = E.Entry(path, {"k": "v"})
    _ensure(e, "abcdef", [])
    raw = bytearray(path.read_bytes())
    raw[2] ^= 0x01                                                   # "c" (0x63) -> "b" (0x62)
    path.write_bytes(bytes(raw))
    assert e.status() == ("corrupt", "its bytes do not match its own checksum (edited or damaged)")
    (tmp_path / "w.pt.corrupt").write_text("an older copy")           # never overwritten
    with pytest.warns(UserWarning, match="checksum.*moved to w.pt.corrupt.1"):
        assert _ensure(e, "abcdef", []) == ("abcdef", "computed")
    assert (tmp_path / "w.pt.corrupt.1").read_bytes() == b"abbdef" and (tmp_path / "w.pt.corrupt").read_text() == "an older copy"
    assert (tmp_path / "w.pt.entry.json.corrupt.1").is_file() and e.status() == ("fresh", "")


def test_a_file_without_or_with_a_broken_sidecar_is_never_trusted(tmp_path):
    path = tmp_path / "old.csv"
    path.write_text("from an older workbook")
    e = E.Entry(path, {"a": 1})
    assert e.status()[0] == "mismatch" and "no metadata" in e.status()[1]
    with pytest.warns(UserWarning, match="moved to old.csv.mismatch"):
        assert _ensure(e, "new", [])[1] == "computed"
    e.sidecar.write_text("{not json")
    assert e.status()[0] == "corrupt"
    # a reader that cannot use a fresh file: set aside as corrupt, recomputed
    _ensure(E.Entry(tmp_path / "r.csv", {}), "fine", [])
    def refuse(path):
        raise ValueError("not usable")
    with pytest.warns(UserWarning, match=r"not readable: not usable.*r.csv.corrupt"):
        assert E.Entry(tmp_path / "r.csv", {}).ensure(lambda: "again", _writer("again"), refuse) == ("again", "computed")


@pytest.mark.parametrize("mask, mode", [(0o077, 0o600), (0o022, 0o644), (0o002, 0o664)])
def test_written_files_honour_the_umask(tmp_path, mask, mode):
    old = os.umask(mask)
    try:
        e = E.Entry(tmp_path / "m.csv", {"a": 1})
        _ensure(e, "x", [])
        E.write_parquet(pa.table({"v": [1, 2]}), tmp_path / "t.parquet", b"tt_x", {"a": 1})
    finally:
        os.umask(old)
    for p in (e.path, e.sidecar, tmp_path / "t.parquet"):
        assert stat.S_IMODE(p.stat().st_mode) == mode, p
    assert E.temporary_files(e.path) == [] and E.temporary_files(tmp_path / "t.parquet") == []


def test_parquet_metadata_carry_the_content_sha256(tmp_path):
    path = tmp_path / "t.parquet"
    table = pa.table({"v": np.array([1, 2, 3], dtype="int64")})
    E.write_parquet(table, path, b"tt_x", {"settings": {"a": 1}})
    meta = E.embedded_meta(path, b"tt_x")
    # the hash by hand: the column's name, type and length as JSON, then its little-endian int64 bytes
    want = hashlib.sha256(b'["v", "int64", 3]' + (1).to_bytes(8, "little") + (2).to_bytes(8, "little")
                          + (3).to_bytes(8, "little")).hexdigest()
    assert meta == {"settings": {"a": 1}, "content_sha256": want}
    assert E.embedded_meta(path, b"other") == {}


def test_set_aside_moves_companions_with_one_number(tmp_path):
    a, b = tmp_path / "f.csv", tmp_path / "f.csv.entry.json"
    a.write_text("1")
    b.write_text("2")
    (tmp_path / "f.csv.entry.json.corrupt").write_text("taken")     # only the sidecar's name is taken
    with pytest.warns(UserWarning, match="damaged; moved to f.csv.corrupt.1"):
        assert E.set_aside(a, "corrupt", "damaged", companions=[b]) == tmp_path / "f.csv.corrupt.1"
    assert (tmp_path / "f.csv.entry.json.corrupt.1").read_text() == "2" and not a.exists() and not b.exists()
    assert not (tmp_path / "f.csv.corrupt").exists()
