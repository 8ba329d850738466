"""reval: measure retrieval quality against golden question sets.

Public API entry points are imported lazily so that importing the package stays cheap.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

_LAZY = {
    "serve": "retrieval_eval.retrievers.server.sdk",
    "ServerTls": "retrieval_eval.retrievers.server.sdk",
    "load_question_set": "retrieval_eval.questions.loading",
    "evaluate": "retrieval_eval.evaluation.coordinator",
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'retrieval_eval' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
