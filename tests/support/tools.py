"""The project's scripts under ``tools/`` as modules, for the tests that drive them."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

from support.env import REPO_ROOT


def load_tool(name: str) -> ModuleType:
    """``tools/<name>.py``, imported by path (``tools/`` is not a package)."""
    if name in sys.modules:
        return sys.modules[name]
    path = REPO_ROOT / "tools" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while being built
    spec.loader.exec_module(module)
    return module
