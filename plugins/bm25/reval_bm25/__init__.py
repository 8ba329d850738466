"""Reference BM25 retriever for reval, on tantivy.

from reval_bm25 import build_index, open_index
build_index(Path("corpus.jsonl.gz"), Path("index/"))
retriever = open_index(Path("index/"))
retriever.retrieve("what causes scurvy?", limit=10)

Names are imported on first use: reval loads the ``bm25`` entry point (``plugin.py``)
to search an index, which needs neither the indexer nor the corpus reader.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from reval_bm25.version import __version__

if TYPE_CHECKING:
    from reval_bm25.errors import Bm25IndexError, CorpusError
    from reval_bm25.index import IndexInfo, build_index, update_index
    from reval_bm25.retriever import Bm25Retriever, open_index

_LAZY = {
    "Bm25IndexError": "reval_bm25.errors",
    "CorpusError": "reval_bm25.errors",
    "IndexInfo": "reval_bm25.index",
    "build_index": "reval_bm25.index",
    "update_index": "reval_bm25.index",
    "Bm25Retriever": "reval_bm25.retriever",
    "open_index": "reval_bm25.retriever",
}

__all__ = [
    "Bm25IndexError",
    "Bm25Retriever",
    "CorpusError",
    "IndexInfo",
    "__version__",
    "build_index",
    "open_index",
    "update_index",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'reval_bm25' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # looked up once
    return value
