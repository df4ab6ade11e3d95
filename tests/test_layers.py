"""The packages' layers: each module imports only from its own layer or the layers below (no cycle).

Three packages, in this order (each imports only from itself and the packages before it):
:data:`PACKAGE_ORDER`. Inside each, its folders (or, for the flat :mod:`tt_spotsim`, its modules) sit in
layers: :data:`LAYER_ORDER` (the library; docs/design.md and the package docstring state it, and a test
checks that they do), :data:`SPOTSIM_LAYERS` and :data:`WORKBOOK_ORDER`. A comma joins layers of the
same rank.

The imports are read from the source with ``ast`` (module-level and function-level imports alike), so a
lazy import inside a function counts too; ``from pkg import module`` counts as an import of the module.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("tt_core", "tt_spotsim", "tt_workbook")
#: The library, SpotTune's simulator, the workbook's harness.
PACKAGE_ORDER = "tt_core < tt_spotsim < tt_workbook"
#: The library's folders from the bottom up.
LAYER_ORDER = "data < models, bo < acquisitions < optimizers, integrations < replay"
#: SpotTune's simulator (one flat package): each module's layer, from the bottom up.
SPOTSIM_ORDER = "data < models < provisioner < simulator < measuring"
SPOTSIM_LAYERS = {
    "__init__": "data", "catalogue": "data", "rules": "data", "streams": "data", "traces": "data", "history": "data",
    "market": "data", "workloads": "data", "curves": "data", "step_times": "data", "curve_losses": "data",
    "shipped": "data", "staged": "data",
    "revocation": "models", "revpred": "models", "earlycurve": "models",
    "provisioner": "provisioner", "simulator": "simulator",
    # making the shipped tables trains the curves: above them, run only by an explicit command
    "measuring": "measuring",
}
#: The harness's folders (``bench`` is a module) from the bottom up; the paper studies share one rank.
WORKBOOK_ORDER = "paper_values, plotting < runs, authors < bench < report < studies < apps < plan < cli"
#: Imports allowed against :data:`WORKBOOK_ORDER`, each with its reason: (importing module, imported module).
WORKBOOK_EXCEPTIONS: set[tuple[str, str]] = set()


def _ranks(order: str) -> dict[str, int]:
    return {name: rank for rank, level in enumerate(order.split(" < ")) for name in level.split(", ")}


RANK = _ranks(LAYER_ORDER)
PACKAGE_RANK = _ranks(PACKAGE_ORDER)
SPOTSIM_RANK = _ranks(SPOTSIM_ORDER)
WORKBOOK_RANK = _ranks(WORKBOOK_ORDER)


def _name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    return ".".join(rel.parts[:-1] if path.name == "__init__.py" else rel.parts)


def _imports(path: Path) -> list[tuple[int, str]]:
    """``(line, dotted name)`` of every import of one of :data:`PACKAGES`; ``from a.b import c`` gives
    ``a.b.c`` (a module or a name in ``a.b``: :func:`_target` tells which)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if node.module.split(".")[0] in PACKAGES:
                out += [(node.lineno, f"{node.module}.{a.name}") for a in node.names]
        elif isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names if a.name.split(".")[0] in PACKAGES]
    return out


def _modules() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


KNOWN = {_name(p) for p in _modules()}


def _target(mod: str) -> str | None:
    """The module a dotted import names: itself, else the module (or package) that holds the name."""
    while mod and mod not in KNOWN:
        mod = mod.rsplit(".", 1)[0] if "." in mod else ""
    return mod or None


def _place(module: str) -> tuple[int, int]:
    """(package rank, layer rank inside the package) of a module."""
    parts = module.split(".")
    pkg = parts[0]
    if len(parts) == 1:
        return PACKAGE_RANK[pkg], -1
    if pkg == "tt_core":
        return PACKAGE_RANK[pkg], RANK[parts[1]]
    if pkg == "tt_spotsim":
        return PACKAGE_RANK[pkg], SPOTSIM_RANK[SPOTSIM_LAYERS[parts[1]]]
    return PACKAGE_RANK[pkg], WORKBOOK_RANK[parts[1]]


def test_every_module_belongs_to_a_layer():
    core = ROOT / "tt_core"
    assert sorted(p.name for p in core.glob("*.py")) == ["__init__.py"], "tt_core: modules outside the layers"
    dirs = {p.name for p in core.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert dirs == set(RANK), f"tt_core: folders {sorted(dirs)} vs layers {sorted(RANK)} (edit LAYER_ORDER)"
    spot = {p.stem for p in (ROOT / "tt_spotsim").glob("*.py")}
    assert spot == set(SPOTSIM_LAYERS), (f"tt_spotsim: modules without a layer {sorted(spot - set(SPOTSIM_LAYERS))}, "
                                         f"listed but missing {sorted(set(SPOTSIM_LAYERS) - spot)} (edit SPOTSIM_LAYERS)")
    assert not [d for d in (ROOT / "tt_spotsim").iterdir() if d.is_dir() and d.name != "__pycache__"]
    assert set(SPOTSIM_LAYERS.values()) == set(SPOTSIM_RANK)
    wb = ROOT / "tt_workbook"
    found = {p.stem for p in wb.iterdir() if (p.suffix == ".py" and p.name != "__init__.py")
             or (p.is_dir() and p.name != "__pycache__")}
    assert found == set(WORKBOOK_RANK), f"tt_workbook: {sorted(found)} vs layers {sorted(WORKBOOK_RANK)} (edit WORKBOOK_ORDER)"


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_imports_from_a_layer_above(path):
    own = _name(path)
    mine = _place(own)
    upward = []
    for line, dotted in _imports(path):
        t = _target(dotted)
        if t is None or t == own or (own, t) in WORKBOOK_EXCEPTIONS:
            continue
        theirs = _place(t)
        if theirs[0] > mine[0] or (theirs[0] == mine[0] and theirs[1] > mine[1] and mine[1] >= 0):
            upward.append((line, t))
    assert not upward, f"{path.relative_to(ROOT)} imports from above: {upward}"


def test_the_exceptions_are_still_needed():
    """An exception no longer used is removed, so the list shows only what is left to untangle."""
    used = {(_name(p), t) for p in _modules() for _, d in _imports(p) if (t := _target(d))}
    assert WORKBOOK_EXCEPTIONS <= used, f"exceptions no longer needed: {sorted(WORKBOOK_EXCEPTIONS - used)}"


def _graph() -> dict[str, set[str]]:
    edges = {}
    for p in _modules():
        m = _name(p)
        edges[m] = {t for _, d in _imports(p) if (t := _target(d)) and t != m and not m.startswith(t + ".")}
    return edges


def _cycles(edges: dict[str, set[str]]) -> list[str]:
    state, stack, cycles = {}, [], []

    def visit(m):
        state[m] = "open"
        stack.append(m)
        for n in sorted(edges.get(m, ())):
            if state.get(n) == "open":
                cycles.append(" -> ".join(stack[stack.index(n):] + [n]))
            elif n not in state:
                visit(n)
        stack.pop()
        state[m] = "done"

    for m in sorted(edges):
        if m not in state:
            visit(m)
    return cycles


def test_no_import_cycle_between_modules():
    """Depth-first search over the module graph (edges: module -> imported module of the three packages)."""
    cycles = _cycles(_graph())
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def test_the_cycle_search_sees_from_package_import_module(tmp_path):
    """A hand-made circle written as ``from pkg import module`` (the form that hid one before) is found."""
    assert _target("tt_spotsim.market") == "tt_spotsim.market"
    assert _target("tt_spotsim.market.PriceTrace") == "tt_spotsim.market"
    edges = {"tt_spotsim.market": {_target("tt_spotsim.history")}, "tt_spotsim.history": {_target("tt_spotsim.market")}}
    assert _cycles(edges) == ["tt_spotsim.history -> tt_spotsim.market -> tt_spotsim.history"]


def _one_line(text: str) -> str:
    return " ".join(text.split())


def test_the_layer_order_is_written_once():
    """docs/design.md and the package docstring state :data:`LAYER_ORDER` word for word."""
    import tt_core

    assert RANK["data"] == 0 and RANK["models"] == RANK["bo"] == 1 and max(RANK, key=RANK.get) == "replay"
    design = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    for order in (LAYER_ORDER, PACKAGE_ORDER, WORKBOOK_ORDER):
        assert f"`{order}`" in design.splitlines(), f"docs/design.md: give the order {order!r} on a line of its own"
    assert LAYER_ORDER in _one_line(tt_core.__doc__), "tt_core/__init__.py: state the layer order as LAYER_ORDER"
