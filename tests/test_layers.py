"""The package layout keeps the data flow's order (issue 17): no import cycle, no import from a stage
to a later one, no private name imported across packages. Module-level and function-level imports
both count: a lazy import is still a dependency."""
from __future__ import annotations

import ast
from pathlib import Path

import rulekit

ROOT = Path(rulekit.__file__).parent

# The stages in data-flow order; a module may import its own stage and earlier ones only.
STAGES = ["core", "data", "readers", "language", "llm", "engine", "metrics", "run", "report", "generate",
          "adapters", "api", "cli"]


def stage_of(module: str) -> str:
    """rulekit.core.errors → core; rulekit (the public API in __init__) → api; cli and __main__ → cli."""
    parts = module.split(".")
    if module == "rulekit":
        return "api"
    if parts[1] in ("cli", "__main__"):
        return "cli"
    return parts[1]


def _modules() -> dict[str, Path]:
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def imports() -> dict[str, list[tuple[str, list[str], int]]]:
    """module → [(imported rulekit module, names imported from it, line)]."""
    modules = _modules()
    graph: dict[str, list[tuple[str, list[str], int]]] = {m: [] for m in modules}
    for module, path in modules.items():
        package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                if not target.startswith("rulekit"):
                    continue
                names = [a.name for a in node.names]
                subs = [f"{target}.{n}" for n in names if f"{target}.{n}" in modules]
                for sub in subs:
                    graph[module].append((sub, [], node.lineno))
                rest = [n for n in names if f"{target}.{n}" not in modules]
                if rest and target in modules:
                    graph[module].append((target, rest, node.lineno))
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("rulekit") and alias.name in modules:
                        graph[module].append((alias.name, [], node.lineno))
    return graph


def test_every_module_belongs_to_a_known_stage():
    unknown = sorted({m for m in _modules() if stage_of(m) not in STAGES})
    assert unknown == [], f"add a stage for {unknown} to STAGES (and to CONTRIBUTING.md)"


def test_no_import_points_to_a_later_stage():
    upward = []
    for module, edges in imports().items():
        for target, _, line in edges:
            if STAGES.index(stage_of(target)) > STAGES.index(stage_of(module)):
                upward.append(f"{module}:{line} imports {target} ({stage_of(module)} → {stage_of(target)})")
    assert upward == []


def test_there_is_no_import_cycle():
    graph = {m: {t for t, _, _ in edges if t != m} for m, edges in imports().items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert cycles == []


def test_no_private_name_is_imported_across_packages():
    leaks = []
    for module, edges in imports().items():
        for target, names, line in edges:
            if stage_of(target) == stage_of(module):
                continue
            leaks += [f"{module}:{line} imports {target}.{n}" for n in names if n.startswith("_") and n != "__version__"]
    assert leaks == []


def test_the_checker_sees_function_level_imports():
    """`rulekit eval` imports the judge's prefetch inside a function: the graph has that edge."""
    assert any(t == "rulekit.run.judging" for t, _, _ in imports()["rulekit.cli"])
