"""The import-linter contracts, derived from one list of the layers.

Every contract in ``.importlinter`` (the file ``lint-imports`` reads) is written from
``LAYERS``, ``OWNERS``, ``INNER`` and ``PLUGIN_API`` below, so no package can be left out
of one: the layers contract is exhaustive (a package missing from ``LAYERS`` fails it), each "only X
imports Y" contract forbids Y to every package of ``LAYERS`` but its owners, and the
reference plugins may import reval's plugin API module and nothing else of reval.
``tests/test_layers.py`` fails when ``.importlinter`` and this file disagree.

    python tools/layers.py          # rewrite .importlinter
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
    "plugin_api",
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
    "metric_keys | text",
)

#: Third-party (or generated) code and the only packages that may import it directly.
OWNERS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("grpc, protobuf and the generated code only in retrievers/",
     ("grpc", "grpc_health", "grpc_reflection", "google", "retrieval_eval.v1"),
     ("retrievers", "v1")),
    ("stevedore only in plugins.py", ("stevedore",), ("plugins",)),
    ("SQLAlchemy and Alembic only in store/", ("sqlalchemy", "alembic"), ("store",)),
    ("click only in cli/ (and the plugin API's command scaffolding)", ("click",),
     ("cli", "plugin_api")),
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

#: Layers inside one package, top down, where its modules split one job: (package, name,
#: layers). The package's ``__init__`` (its entry point) may import any of them.
INNER: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("questions.validate", "Set validation: field checks over label checks over the findings",
     ("fields | header | storable", "labels", "findings | keys")),
)  # fmt: skip

#: The reference plugins, and the one module of reval they may import.
PLUGINS = ("reval_bm25", "reval_dense")
PLUGIN_API = "plugin_api"
CONFIG = ROOT / ".importlinter"


def packages() -> list[str]:
    """Every package of ``LAYERS``, in order."""
    return [p.strip() for layer in LAYERS for p in layer.split("|")]


def plugin_modules() -> list[str]:
    """Every module of the reference plugins (``plugins/bm25/reval_bm25/...``)."""
    found = []
    for plugin in PLUGINS:
        base = ROOT / "plugins" / plugin.removeprefix("reval_")
        for path in sorted((base / plugin).rglob("*.py")):
            parts = path.relative_to(base).with_suffix("").parts
            found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


def _list(name: str, items: list[str]) -> str:
    return f"{name} =\n" + "".join(f"    {i}\n" for i in items)


def _contract(key: str, name: str, kind: str, body: str) -> str:
    return f"\n[importlinter:contract:{key}]\nname = {name}\ntype = {kind}\n{body}"


def section() -> str:
    """The whole of ``.importlinter``."""
    qualified = [f"{PACKAGE}.{p}" for p in packages()]
    text = (
        "# Written by tools/layers.py from its LAYERS, OWNERS, INNER and PLUGIN_API: edit those,\n"
        "# then run it. Read by lint-imports (.ci/run).\n"
        "[importlinter]\n" + _list("root_packages", [PACKAGE, *PLUGINS])
        + "include_external_packages = True\n"
    )  # fmt: skip
    text += _contract(
        "layers", "Layers, top down (| separates independent siblings)", "layers",
        f"containers = {PACKAGE}\nexhaustive = True\n" + _list("layers", list(LAYERS)),
    )  # fmt: skip
    for number, (name, modules, owners) in enumerate(OWNERS, 1):
        sources = [q for p, q in zip(packages(), qualified, strict=True) if p not in owners]
        text += _contract(
            f"owner-{number}", name, "forbidden",
            _list("source_modules", sources) + _list("forbidden_modules", list(modules))
            + "# direct imports: the owning layer is the way in\n"
            "allow_indirect_imports = True\n",
        )  # fmt: skip
    for package, name, inner in INNER:
        text += _contract(
            f"inner-{package}", name, "layers",
            f"containers = {PACKAGE}.{package}\nexhaustive = True\n" + _list("layers", list(inner)),
        )  # fmt: skip
    others = [q for p, q in zip(packages(), qualified, strict=True) if p != PLUGIN_API]
    text += _contract(
        "plugins", f"The reference plugins import reval only from {PACKAGE}.{PLUGIN_API}",
        "forbidden",
        _list("source_modules", list(PLUGINS)) + _list("forbidden_modules", others)
        + "allow_indirect_imports = True\n",
    )  # fmt: skip
    text += _contract(
        "plugins-root", f"The reference plugins do not import {PACKAGE}'s root names either",
        "forbidden",
        _list("source_modules", plugin_modules()) + _list("forbidden_modules", [PACKAGE])
        + "as_packages = False\nallow_indirect_imports = True\n",
    )  # fmt: skip
    return text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when out of date")
    check = parser.parse_args().check
    current = CONFIG.read_text(encoding="utf-8") if CONFIG.exists() else ""
    wanted = section()
    if check:
        if wanted != current:
            print(".importlinter is out of date: run tools/layers.py")
            return 1
        return 0
    CONFIG.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
