"""The equation index in ``tt_core.__doc__``: every listed name exists, every equation has a function."""

from __future__ import annotations

import importlib
import inspect
import re

import pytest

import tt_core

ROLE = re.compile(r":(func|class|meth|mod):`~?((?:tt_core|tt_spotsim|tt_workbook)(?:\.\w+)*)`")
ENTRY = re.compile(r"^(Eqs?|Alg)\. ([\d.]+)(?:-([\d.]+))?,", re.MULTILINE)

#: What the index must cover, per document (section title -> labels).
REQUIRED = {
    "TrimTuner paper": {f"Eq. {i}" for i in range(1, 8)} | {"Alg. 1"},
    "Nephele / Fabulinus thesis": {"Eq. 2.15", "Eq. 2.17", "Eq. 3.1", "Eq. 3.2", "Eq. 6.1", "Eq. 6.2", "Eq. 7.1",
                                   "Eq. 4.1", "Eq. 4.3", "Eq. 4.4", "Eq. 4.5", "Alg. 2", "Alg. 3", "Alg. 4", "Alg. 5"},
    "SpotTune paper": {f"Eq. {i}" for i in range(1, 8)} | {"Alg. 1", "Alg. 2"},
}


def _index() -> str:
    doc = tt_core.__doc__ or ""
    assert "Equation index" in doc, "tt_core.__doc__ has no 'Equation index' section"
    return doc[doc.index("Equation index"):]


def _sections(index: str) -> dict[str, str]:
    """``{title: text}`` of the RST sections (a title line underlined with ``---``)."""
    parts = re.split(r"^(.+)\n-{3,}\n", index, flags=re.MULTILINE)
    return {parts[i].strip(): parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def _entries(text: str) -> dict[str, str]:
    """``{"Eq. 5": bullet text, ...}`` of one section's bullets (``Eqs. a-b`` gives both ends)."""
    out = {}
    for bullet in re.split(r"^\* ", text, flags=re.MULTILINE)[1:]:
        m = ENTRY.match(bullet)
        assert m, f"index bullet does not start with 'Eq. N,' / 'Alg. N,': {bullet[:60]!r}"
        kind = "Alg" if m.group(1) == "Alg" else "Eq"
        for number in filter(None, (m.group(2), m.group(3))):
            out[f"{kind}. {number.rstrip('.')}"] = bullet
    return out


def _resolve(dotted: str):
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        module_name = ".".join(parts[:i])
        try:
            obj = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name is not None and module_name.startswith(exc.name) and exc.name.startswith(("tt_core", "tt_spotsim", "tt_workbook")):
                continue  # not a module: an attribute path below a shorter prefix
            raise
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


def _names():
    return ROLE.findall(_index())


def test_index_lists_enough_names():
    assert len({name for _, name in _names()}) >= 30


@pytest.mark.parametrize("role,name", sorted(set(_names())), ids=lambda v: v)
def test_index_name_resolves(role, name):
    obj = _resolve(name)
    if role == "class":
        assert inspect.isclass(obj), f"{name} is listed as a class"
    elif role == "mod":
        assert inspect.ismodule(obj), f"{name} is listed as a module"
    else:
        assert callable(obj) and not inspect.isclass(obj), f"{name} is listed as a function/method"


def test_index_covers_every_equation_and_algorithm():
    sections = _sections(_index())
    for title, labels in REQUIRED.items():
        assert title in sections, f"no section {title!r} in the equation index; sections: {list(sections)}"
        entries = _entries(sections[title])
        missing = labels - set(entries)
        assert not missing, f"{title}: no index entry for {sorted(missing)}"
        for label, text in entries.items():
            assert ROLE.search(text), f"{title}, {label}: names no function"
    assert "reconstruction" in sections["SpotTune paper"]   # the lost equations are flagged as reconstructed
