"""The package's layers: each module imports only from its own layer or the layers below (no cycle).

:data:`LAYER_ORDER` is the one written order (docs/design.md and the package docstring state it, and a
test checks that they do); a comma joins layers of the same rank.

A system's sub-package (``tt_core/spot/``, SpotTune) spans several layers: :data:`SUBPACKAGES` maps each
of its modules to the layer it belongs to, and the same rule applies to it module by module.

The imports are read from the source with ``ast`` (module-level and function-level imports alike), so
a lazy import inside a function counts too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "tt_core"
#: The layers from the bottom up: each imports only from its own rank or the ranks before it.
LAYER_ORDER = "data < models, bo < acquisitions < optimizers < experiments < analysis < reporting < plotting < apps < cli"
RANK = {name: rank for rank, level in enumerate(LAYER_ORDER.split(" < ")) for name in level.split(", ")}
#: Sub-packages whose modules sit in different layers: package -> {module: layer}. Every module of the
#: package must be listed (``__init__`` is the package docstring and imports nothing).
SUBPACKAGES = {
    "spot": {"__init__": "data", "catalogue": "data", "rules": "data", "traces": "data", "market": "data", "workloads": "data", "curves": "data",
             "step_times": "data", "curve_losses": "data", "shipped": "data", "measuring": "analysis",
             "history": "data", "staged": "data", "revocation": "models", "revpred": "models", "earlycurve": "models", "provisioner": "optimizers", "simulator": "experiments",
             "grids": "analysis", "intervals": "analysis", "earlycurve_study": "analysis",
             "streams": "data",
             "market_study": "analysis", "revpred_study": "analysis", "sensitivity": "analysis", "overhead": "analysis",
             "settings_tables": "analysis", "timing": "analysis", "readings": "analysis", "report": "reporting", "figures": "plotting"},
    # adapters to other tools' loops: the Optuna sampler drives an optimiser over a data-layer space
    "integrations": {"__init__": "data", "optuna": "optimizers"},
}


def _layer(module: str) -> str | None:
    parts = module.split(".")
    if len(parts) > 1 and parts[0] == "tt_core" and parts[1] in SUBPACKAGES:
        return SUBPACKAGES[parts[1]].get(parts[2] if len(parts) > 2 else "__init__", "data")
    return parts[1] if len(parts) > 1 and parts[0] == "tt_core" else None


def _imports(path: Path) -> list[tuple[int, str]]:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    pkg = list(rel.parts[:-1]) if path.name != "__init__.py" else list(rel.parts[:-1])
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg[: len(pkg) - (node.level - 1)]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            # "from tt_core.spot import history" imports the module tt_core.spot.history: each imported name is
            # kept under its package, and the cycle test resolves it to a module or to the package's __init__
            if name == "tt_core" or name.startswith("tt_core."):
                out += [(node.lineno, f"{name}.{a.name}") for a in node.names]
        elif isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names if a.name.startswith("tt_core.")]
    return out


def _modules():
    return sorted(p for p in PACKAGE.rglob("*.py") if p.parent != PACKAGE)


def test_every_module_belongs_to_a_layer():
    top = sorted(p.name for p in PACKAGE.iterdir() if p.suffix == ".py" and p.name != "__init__.py")
    assert top == [], f"modules outside the layers: {top}"
    dirs = sorted(p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__")
    assert set(dirs) <= set(RANK) | set(SUBPACKAGES), f"unknown layer folder(s): {sorted(set(dirs) - set(RANK))}"
    for sub, layers in SUBPACKAGES.items():
        found = {p.stem for p in (PACKAGE / sub).glob("*.py")}
        assert found == set(layers), (f"tt_core/{sub}: modules without a layer {sorted(found - set(layers))}, "
                                      f"listed but missing {sorted(set(layers) - found)} (edit SUBPACKAGES)")
        assert not [d for d in (PACKAGE / sub).iterdir() if d.is_dir() and d.name != "__pycache__"]
        assert set(layers.values()) <= set(RANK)


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_imports_from_a_layer_above(path):
    own = path.relative_to(PACKAGE).parts[0]
    if own in SUBPACKAGES:
        own = SUBPACKAGES[own][path.stem]
    upward = [(line, mod) for line, mod in _imports(path)
              if _layer(mod) in RANK and RANK[_layer(mod)] > RANK[own]]
    assert not upward, f"{path.relative_to(PACKAGE)} ({own}) imports from above: {upward}"


def test_no_import_cycle_between_modules():
    """Depth-first search over the module graph (edges: module -> imported tt_core module)."""
    graph = {}
    for p in PACKAGE.rglob("*.py"):
        rel = p.relative_to(PACKAGE.parent).with_suffix("")
        name = ".".join(rel.parts[:-1] if p.name == "__init__.py" else rel.parts)
        graph[name] = {m for _, m in _imports(p)}
    known = set(graph)

    def target(mod):  # "tt_core.x.y" may name a module or a symbol in module (or package) "tt_core.x"
        while mod and mod not in known:
            mod = mod.rsplit(".", 1)[0] if "." in mod else ""
        return mod or None

    edges = {m: {t for d in deps if (t := target(d)) and t != m and not m.startswith(t + ".")}
             for m, deps in graph.items()}
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
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def test_the_layer_order_is_written_once():
    """docs/design.md and the package docstring state :data:`LAYER_ORDER` word for word."""
    import tt_core

    assert RANK["data"] == 0 and RANK["models"] == RANK["bo"] == 1 and max(RANK, key=RANK.get) == "cli"
    design = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    assert f"`{LAYER_ORDER}`" in design.splitlines(), "docs/design.md: give the layer order on a line of its own"
    assert LAYER_ORDER in _one_line(tt_core.__doc__), "tt_core/__init__.py: state the layer order as LAYER_ORDER"
