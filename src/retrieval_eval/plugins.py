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
import sys
from typing import Any, NamedTuple

from retrieval_eval.errors import PluginError, UnknownNameError

log = logging.getLogger(__name__)

QUESTION_SETS = "retrieval_eval.question_sets"
RETRIEVERS = "retrieval_eval.retrievers"
COMMANDS = "retrieval_eval.commands"
EMBEDDERS = "retrieval_eval.embedders"


class PluginInfo(NamedTuple):
    """One entry point, read from the installed metadata. (A named tuple: every command
    line lists plugins, and a frozen dataclass costs several times more to create.)"""

    name: str
    namespace: str
    #: "module:attr" of the entry point, and the distribution that provides it.
    target: str
    distribution: str
    #: The distribution's one-line summary (filled by ``scan_plugins`` only).
    summary: str = ""


def list_plugins(namespace: str) -> list[PluginInfo]:
    """Every entry point registered in ``namespace``, without importing any of them."""
    # importlib.metadata only to list: a scan reads entry points without it
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
    found = _installed().get(namespace, {})
    return [
        PluginInfo(name, namespace, target, dist, _summary(meta))
        for name, (target, dist, meta) in sorted(found.items())
    ]


#: (sys.path with each entry's modification time, what ``_installed`` read there).
_scanned: tuple[tuple[tuple[str, float], ...], dict[str, dict[str, tuple[str, str, str]]]] = (
    (),
    {},
)


def _installed() -> dict[str, dict[str, tuple[str, str, str]]]:
    """namespace -> entry point name -> (target, distribution, metadata directory), for
    every distribution on ``sys.path``. Read once per process and again only when
    ``sys.path`` or one of its directories changes (a distribution installed meanwhile):
    one command asks several times (its own lookup, then the plugin's loading)."""
    global _scanned

    key = tuple((entry, _mtime(entry or ".")) for entry in sys.path)
    if key == _scanned[0]:
        return _scanned[1]
    found: dict[str, dict[str, tuple[str, str, str]]] = {}
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
            for namespace, ep_name, target in _entry_points(os.path.join(meta, "entry_points.txt")):
                found.setdefault(namespace, {}).setdefault(ep_name, (target, dist, meta))
    _scanned = (key, found)
    return found


def _mtime(path: str) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return -1.0


def _normal(name: str) -> str:
    return name.lower().replace("-", "_").replace(".", "_")


def _entry_points(path: str) -> list[tuple[str, str, str]]:
    """(namespace, name, target) of every entry point in one ``entry_points.txt``."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    found, section = [], ""
    for line in lines:
        line = line.strip()
        if line.startswith("["):
            section = line[1:].partition("]")[0].strip()
        elif section and "=" in line and not line.startswith(("#", ";")):
            name, _, target = line.partition("=")
            found.append((section, name.strip(), target.strip()))
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
    # stevedore and importlib.metadata only to load a plugin
    from importlib.metadata import EntryPoint

    from stevedore import NamedExtensionManager

    found = _installed().get(namespace, {})
    if name not in found:
        raise UnknownNameError(kind, name, difflib.get_close_matches(name, list(found), n=3))
    errors: list[str] = []

    def on_failure(_manager: Any, entrypoint: Any, exc: BaseException) -> None:
        errors.append(f"{entrypoint.name} ({entrypoint.value}): {type(exc).__name__}: {exc}")

    # stevedore keeps a per-process list of each namespace's entry points: it gets the ones
    # just read, so that what loads is what scan_plugins() sees (distributions can appear
    # on sys.path at run time), and it need not hash sys.path and read its own cache.
    NamedExtensionManager.ENTRY_POINT_CACHE[namespace] = [
        EntryPoint(ep_name, target, namespace) for ep_name, (target, _, _) in found.items()
    ]
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
