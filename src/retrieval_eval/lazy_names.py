"""A package's public names imported on first use, so that importing the package stays
cheap (start-up: ``reval --help`` loads no store, gRPC or web code).

A package lists where each name lives and keeps the same names under ``if TYPE_CHECKING:``
for type checkers; its module ``__getattr__`` (PEP 562) is built here. The bottom layer:
it imports nothing of reval.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_getattr(namespace: dict[str, Any], where: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for the module whose ``globals()`` is ``namespace``: a name
    of ``where`` is imported from the module it maps to when first asked for and kept in
    ``namespace`` (later lookups are plain attribute reads); any other name is an
    ``AttributeError`` naming the module."""
    module_name = namespace["__name__"]

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    return __getattr__
