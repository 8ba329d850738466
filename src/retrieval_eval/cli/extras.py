"""Commands of optional extras check their modules first: a missing one is one line naming
the pip command, exit 2 (bad usage of this installation), never a traceback."""

from __future__ import annotations

import importlib.util

from retrieval_eval.errors import PluginError
from retrieval_eval.version import install_extra

#: extra -> the modules it installs (top-level import names).
EXTRAS = {"ui": ("starlette", "uvicorn"), "lint": ("numpy", "Stemmer")}


def require_extra(extra: str, command: str) -> None:
    """Raise ``PluginError`` (exit 2) naming the pip command when a module of ``extra`` is
    not importable."""
    for module in EXTRAS[extra]:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):  # a broken or shadowed installation
            found = False
        if not found:
            raise PluginError(
                f"{command} needs the {extra} extra ({module} is missing): {install_extra(extra)}"
            )
