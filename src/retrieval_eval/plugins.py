"""The one place that touches stevedore: discover and load entry-point plugins.

Namespaces (owned by reval):
- ``retrieval_eval.question_sets``: question-set providers
- ``retrieval_eval.retrievers``: in-process retrievers (e.g. ``bm25``)
- ``retrieval_eval.commands``: extra ``reval`` CLI commands contributed by plugins
- ``retrieval_eval.embedders``: text embedders (``EmbedderFactory``, e.g. ``wordllama``)
"""

from __future__ import annotations

import difflib
import logging
import os
from dataclasses import dataclass
from typing import Any

from retrieval_eval.errors import PluginError, UnknownNameError

log = logging.getLogger(__name__)

QUESTION_SETS = "retrieval_eval.question_sets"
RETRIEVERS = "retrieval_eval.retrievers"
COMMANDS = "retrieval_eval.commands"
EMBEDDERS = "retrieval_eval.embedders"


@dataclass(frozen=True, slots=True)
class PluginInfo:
    name: str
    namespace: str
    #: "module:attr" of the entry point, and the distribution that provides it.
    target: str
    distribution: str
    #: The distribution's one-line summary (filled by ``scan_plugins`` only).
    summary: str = ""


def list_plugins(namespace: str) -> list[PluginInfo]:
    """Every entry point registered in ``namespace``, without importing any of them."""
    from importlib.metadata import entry_points

    infos = []
    for ep in entry_points(group=namespace):
        dist = ep.dist.name if ep.dist is not None else "?"
        infos.append(PluginInfo(ep.name, namespace, ep.value, dist))
    return sorted(infos, key=lambda i: i.name)


def scan_plugins(namespace: str) -> list[PluginInfo]:
    """As ``list_plugins``, read straight from the ``entry_points.txt`` of each installed
    distribution on ``sys.path`` (the first of a name wins, as for imports), with the
    distribution's one-line summary. ``importlib.metadata`` costs more to import than
    ``reval --help`` has to spend; ``list_plugins`` stays the reference (a test checks
    that both find the same entry points)."""
    import sys

    infos: dict[str, PluginInfo] = {}
    seen: set[str] = set()
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in sorted(names):
            if not name.endswith((".dist-info", ".egg-info")):
                continue
            meta = os.path.join(entry or ".", name)
            dist = name.rpartition(".")[0].partition("-")[0]
            if _normal(dist) in seen:
                continue
            seen.add(_normal(dist))
            for ep_name, target in _entry_points(os.path.join(meta, "entry_points.txt"), namespace):
                info = PluginInfo(ep_name, namespace, target, dist, _summary(meta))
                infos.setdefault(ep_name, info)
    return sorted(infos.values(), key=lambda i: i.name)


def _normal(name: str) -> str:
    return name.lower().replace("-", "_").replace(".", "_")


def _entry_points(path: str, namespace: str) -> list[tuple[str, str]]:
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    found, inside = [], False
    for line in lines:
        line = line.strip()
        if line.startswith("["):
            inside = line == f"[{namespace}]"
        elif inside and "=" in line and not line.startswith(("#", ";")):
            name, _, target = line.partition("=")
            found.append((name.strip(), target.strip()))
    return found


def _summary(meta: str) -> str:
    """The distribution's ``Summary`` line, else its directory name."""
    for file in ("METADATA", "PKG-INFO"):
        try:
            with open(os.path.join(meta, file), encoding="utf-8") as f:
                for line in f:
                    if line.startswith("Summary:"):
                        return line[len("Summary:") :].strip()
                    if not line.strip():
                        break
        except OSError:
            continue
    return os.path.basename(meta)


def load_plugin(namespace: str, name: str, kind: str = "plugin") -> Any:
    """Import and return the object behind entry point ``name``.

    Raises ``UnknownNameError`` (with suggestions) or ``PluginError`` naming the entry
    point and the underlying import error.
    """
    from stevedore import NamedExtensionManager

    names = [p.name for p in scan_plugins(namespace)]  # the cheap reader: stevedore scans too
    if name not in names:
        raise UnknownNameError(kind, name, difflib.get_close_matches(name, names, n=3))
    errors: list[str] = []

    def on_failure(_manager: Any, entrypoint: Any, exc: BaseException) -> None:
        errors.append(f"{entrypoint.name} ({entrypoint.value}): {type(exc).__name__}: {exc}")

    # stevedore keeps a per-process list per namespace; drop it so that what loads matches
    # what list_plugins() just saw (distributions can appear on sys.path at run time).
    NamedExtensionManager.ENTRY_POINT_CACHE.pop(namespace, None)
    loaded = NamedExtensionManager(
        namespace=namespace,
        names=[name],
        invoke_on_load=False,
        on_load_failure_callback=on_failure,
    )
    if errors or name not in loaded.names():
        cause = errors[0] if errors else "entry point did not load"
        raise PluginError(f"{kind} plugin {name!r} in {namespace} failed to load: {cause}")
    return loaded[name].plugin
