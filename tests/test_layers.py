"""The layers hold without holes: the import-linter contracts (``.importlinter``) are the
ones derived from ``tools/layers.py``, a forbidden import planted in any package (in a copy
of the tree, never in the tree) breaks ``lint-imports``, and no module imports itself in a
cycle."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import ClassVar

import grimp
from support.tools import load_tool

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = str(Path(sys.executable).parent / "lint-imports")

layers = load_tool("layers")


def test_the_contracts_in_importlinter_are_derived_from_the_layer_list():
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "layers.py"), "--check"],
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stdout


def test_every_package_of_the_tree_is_in_the_layer_list():
    on_disk = {
        p.stem if p.suffix == ".py" else p.name
        for p in (ROOT / "src" / "retrieval_eval").iterdir()
        if not p.name.startswith(("_", ".")) and (p.suffix == ".py" or (p / "__init__.py").exists())
    }
    assert on_disk == set(layers.packages())


def _copy_tree(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "src" / "retrieval_eval", tree / "retrieval_eval", ignore=ignore)
    for plugin in layers.PLUGINS:  # reval_bm25 lives in plugins/bm25, reval_dense in plugins/dense
        source = ROOT / "plugins" / plugin.removeprefix("reval_") / plugin
        shutil.copytree(source, tree / plugin, ignore=ignore)
    shutil.copy(ROOT / ".importlinter", tree / ".importlinter")
    return tree


def _lint(tree: Path) -> subprocess.CompletedProcess[str]:
    env = {"PATH": str(Path(sys.executable).parent), "PYTHONPATH": str(tree)}
    return subprocess.run([LINT_IMPORTS, "--no-cache"], cwd=tree, env=env, capture_output=True,
                          text=True, timeout=300)  # fmt: skip


def _plant(module: Path, line: str) -> None:
    text = module.read_text(encoding="utf-8")
    head, marker, rest = text.partition("from __future__ import annotations\n")
    module.write_text(head + marker + line + "\n" + rest if marker else line + "\n" + text)


def _a_module_of(tree: Path, package: str) -> tuple[Path, str]:
    path = tree / "retrieval_eval" / package
    if path.is_dir():
        modules = [p for p in sorted(path.glob("*.py")) if p.name != "__init__.py"]
        if not modules:
            return path / "__init__.py", f"retrieval_eval.{package}"
        return modules[0], f"retrieval_eval.{package}.{modules[0].stem}"
    return path.with_suffix(".py"), f"retrieval_eval.{package}"


def test_a_forbidden_import_planted_in_any_package_breaks_lint_imports(tmp_path):
    tree = _copy_tree(tmp_path)
    clean = _lint(tree)
    assert clean.returncode == 0, clean.stdout + clean.stderr  # the copy alone passes

    planted: list[tuple[str, str]] = []
    for package in layers.packages():
        module, name = _a_module_of(tree, package)
        forbidden = "click" if package == "store" else "sqlalchemy"
        _plant(module, f"import {forbidden}  # planted")
        planted.append((name, forbidden))
    # Every owned dependency, each planted in a package that does not own it (a different
    # one each time, so the plants spread over the tree).
    turn = 0
    for _, modules, owners in layers.OWNERS:
        others = [p for p in layers.packages() if p not in owners]
        for forbidden in modules:
            module, name = _a_module_of(tree, others[turn % len(others)])
            turn += 1
            _plant(module, f"import {forbidden}  # planted")
            planted.append((name, forbidden))
    # Independent siblings and the order of the layers are checked too.
    module, name = _a_module_of(tree, "comparison")
    _plant(module, "import retrieval_eval.tuning.grid  # planted")
    planted.append((name, "retrieval_eval.tuning"))
    module, name = _a_module_of(tree, "stats")
    _plant(module, "import retrieval_eval.report.plural  # planted")
    planted.append((name, "retrieval_eval.report"))
    # A package's inner layers (``INNER``): a label check reaching up to the header's.
    validate = tree / "retrieval_eval" / "questions" / "validate"
    _plant(validate / "labels.py", "import retrieval_eval.questions.validate.header  # planted")
    planted.append(("retrieval_eval.questions.validate.labels",
                    "retrieval_eval.questions.validate.header"))  # fmt: skip
    _plant(tree / "reval_bm25" / "__init__.py", "import retrieval_eval.store  # planted")
    planted.append(("reval_bm25", "retrieval_eval.store"))
    # The plugins reach reval through its plugin API only: not a module it re-exports
    # from, nor the package root.
    _plant(tree / "reval_dense" / "errors.py", "import retrieval_eval.errors  # planted")
    planted.append(("reval_dense.errors", "retrieval_eval.errors"))
    _plant(tree / "reval_bm25" / "retriever.py", "from retrieval_eval import Ranking  # planted")
    planted.append(("reval_bm25.retriever", "retrieval_eval"))

    broken = _lint(tree)
    assert broken.returncode != 0
    report = " ".join(broken.stdout.split())  # a long import line wraps in the report
    missed = [f"{name} -> {target}" for name, target in planted
              if f"{name} -> {target}" not in report]  # fmt: skip
    assert missed == [], report[-3000:]


def test_no_import_cycle_in_the_package_or_the_reference_plugins():
    """Strongly connected modules; a cycle is two or more modules that reach each other.
    Imports under ``if TYPE_CHECKING`` do not count: they never run, and a module may
    name the types of the module that opens it."""
    graph = grimp.build_graph(
        "retrieval_eval", *layers.PLUGINS, cache_dir=None, exclude_type_checking_imports=True
    )
    ours = {m for m in graph.modules if m.split(".")[0] in ("retrieval_eval", *layers.PLUGINS)}
    cycles = [sorted(c) for c in _strongly_connected(graph, ours) if len(c) > 1]
    assert cycles == []


def test_the_cycle_finder_finds_cycles():
    class Graph:
        edges: ClassVar[dict[str, set[str]]] = {
            "a": {"b"},
            "b": {"c"},
            "c": {"a", "d"},
            "d": set(),
            "e": {"e"},
        }

        def find_modules_directly_imported_by(self, module: str) -> set[str]:
            return self.edges[module]

    found = _strongly_connected(Graph(), set(Graph.edges))  # type: ignore[arg-type]
    assert sorted(sorted(c) for c in found if len(c) > 1) == [["a", "b", "c"]]


def _strongly_connected(graph: grimp.ImportGraph, nodes: set[str]) -> list[set[str]]:
    """Tarjan's algorithm, iterative (the import graph is deep)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    counter = 0
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root) & nodes)))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append(
                        (nxt, iter(sorted(graph.find_modules_directly_imported_by(nxt) & nodes)))
                    )
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    found.append(component)
    return found
