"""The import-linter contracts, derived from one list of the layers.

Every contract in ``[tool.importlinter]`` of pyproject.toml is written from ``LAYERS`` and
``OWNERS`` below, so no package can be left out of one: the layers contract is exhaustive
(a package missing from ``LAYERS`` fails it), and each "only X imports Y" contract forbids
Y to every package of ``LAYERS`` but its owners. ``tests/test_layers.py`` fails when
pyproject.toml and this file disagree.

    python tools/layers.py          # rewrite the section in pyproject.toml
    python tools/layers.py --check  # exit 1 when it is out of date
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "retrieval_eval"

#: The layers, top down: each imports only from below. ``|`` separates siblings that
#: must not import each other.
LAYERS: tuple[str, ...] = (
    "cli | pytest_plugin",
    "quickstart",
    "web",
    "report",
    "comparison | tuning",
    "regression",
    "store | labelling",
    "evaluation",
    "scoring",
    "questions | retrievers",
    "plugins | example_data | v1 | corpus",
    "stats",
    "outcomes",
    "records | errors | version | atomic",
    "metric_keys | text | lazy_names",
)

#: Third-party (or generated) code and the only packages that may import it directly.
OWNERS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("grpc, protobuf and the generated code only in retrievers/",
     ("grpc", "grpc_health", "grpc_reflection", "google", "retrieval_eval.v1"),
     ("retrievers", "v1")),
    ("stevedore only in plugins.py", ("stevedore",), ("plugins",)),
    ("SQLAlchemy and Alembic only in store/", ("sqlalchemy", "alembic"), ("store",)),
    ("click only in cli/", ("click",), ("cli",)),
    ("the web framework and server only in web/", ("starlette", "uvicorn"), ("web",)),
    ("Jinja2 only in report/", ("jinja2", "markupsafe"), ("report",)),
    ("rich only in report/ and cli/", ("rich",), ("report", "cli")),
    ("vector-database and framework clients only in retrievers/ (their kinds)",
     ("qdrant_client", "langchain_core", "llama_index"), ("retrievers",)),
    ("the HTTP client and JMESPath only in retrievers/ (the http kind)",
     ("aiohttp", "jmespath"), ("retrievers",)),
    ("psycopg only in retrievers/ (the postgres kind); store/ reaches it through SQLAlchemy",
     ("psycopg",), ("retrievers",)),
)  # fmt: skip

#: What the reference plugins may use: the package root's names and these modules (the
#: shared corpus reader, chunker and revision; the Embedder interface and the JSON-over-HTTP
#: client embedders share; for a plugin's commands, the shared options and progress).
PLUGINS = ("reval_bm25", "reval_dense")
PUBLIC = (
    "errors",
    "records",
    "version",
    "corpus",
    "retrievers.protocol",
    "retrievers.embedding",
    "retrievers.http_json",
    "cli.options",
    "cli.progress",
)


def packages() -> list[str]:
    """Every package of ``LAYERS``, in order."""
    return [p.strip() for layer in LAYERS for p in layer.split("|")]


def children(package: str) -> list[str]:
    """The modules and packages directly inside ``src/retrieval_eval/<package>/``."""
    found = []
    for path in sorted((ROOT / "src" / PACKAGE / package).iterdir()):
        if path.name.startswith(("_", ".")):
            continue
        if path.suffix == ".py":
            found.append(f"{package}.{path.stem}")
        elif (path / "__init__.py").exists():
            found.append(f"{package}.{path.name}")
    return found


def plugin_forbidden() -> list[str]:
    """Everything but ``PUBLIC``: whole packages, or the private parts of a package that
    has public modules."""
    partly_public = {p.split(".")[0] for p in PUBLIC if "." in p}
    forbidden: list[str] = []
    for package in packages():
        if package in PUBLIC:
            continue
        if package in partly_public:
            forbidden += [c for c in children(package) if c not in PUBLIC]
        else:
            forbidden.append(package)
    return forbidden


def _quoted(items: list[str]) -> str:
    return "[" + ", ".join(f'"{i}"' for i in items) + "]"


def _list(name: str, items: list[str], indent: str = "") -> str:
    body = "".join(f'{indent}    "{i}",\n' for i in items)
    return f"{indent}{name} = [\n{body}{indent}]\n"


def section() -> str:
    """The ``[tool.importlinter]`` section, as pyproject.toml holds it."""
    qualified = [f"{PACKAGE}.{p}" for p in packages()]
    text = (
        "[tool.importlinter]\n"
        "# Written by tools/layers.py from its LAYERS and OWNERS: edit those, then run it.\n"
        f"root_packages = {_quoted([PACKAGE, *PLUGINS])}\n"
        "include_external_packages = true\n"
        "\n[[tool.importlinter.contracts]]\n"
        'name = "Layers, top down (| separates independent siblings)"\n'
        'type = "layers"\n'
        f'containers = ["{PACKAGE}"]\n'
        "exhaustive = true\n" + _list("layers", list(LAYERS))
    )
    for name, modules, owners in OWNERS:
        sources = [q for p, q in zip(packages(), qualified, strict=True) if p not in owners]
        text += (
            f'\n[[tool.importlinter.contracts]]\nname = "{name}"\ntype = "forbidden"\n'
            + _list("source_modules", sources)
            + _list("forbidden_modules", list(modules))
            + "allow_indirect_imports = true  # direct imports: the owning layer is the way in\n"
        )
    text += (
        "\n[[tool.importlinter.contracts]]\n"
        'name = "The reference plugins use the public API only"\n'
        f"# Public to plugins: the package root's names and {', '.join(PUBLIC)}.\n"
        'type = "forbidden"\n'
        f"source_modules = {_quoted(list(PLUGINS))}\n"
        + _list("forbidden_modules", [f"{PACKAGE}.{m}" for m in plugin_forbidden()])
        + "allow_indirect_imports = true\n"
    )
    return text


def replaced(pyproject: str) -> str:
    start = pyproject.index("[tool.importlinter]\n")
    end = pyproject.index("\n[tool.", start + 1) + 1
    return pyproject[:start] + section() + "\n" + pyproject[end:]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when out of date")
    check = parser.parse_args().check
    path = ROOT / "pyproject.toml"
    current = path.read_text(encoding="utf-8")
    wanted = replaced(current)
    if check:
        if wanted != current:
            print("pyproject.toml's [tool.importlinter] is out of date: run tools/layers.py")
            return 1
        return 0
    path.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
