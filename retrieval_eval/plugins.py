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
from dataclasses import dataclass
from typing import Any

from stevedore import NamedExtensionManager

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


def list_plugins(namespace: str) -> list[PluginInfo]:
    """Every entry point registered in ``namespace``, without importing any of them."""
    from importlib.metadata import entry_points

    infos = []
    for ep in entry_points(group=namespace):
        dist = ep.dist.name if ep.dist is not None else "?"
        infos.append(PluginInfo(ep.name, namespace, ep.value, dist))
    return sorted(infos, key=lambda i: i.name)


def load_plugin(namespace: str, name: str, kind: str = "plugin") -> Any:
    """Import and return the object behind entry point ``name``.

    Raises ``UnknownNameError`` (with suggestions) or ``PluginError`` naming the entry
    point and the underlying import error.
    """
    names = [p.name for p in list_plugins(namespace)]
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
