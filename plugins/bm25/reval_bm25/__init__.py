"""Reference BM25 retriever for reval, on tantivy.

from reval_bm25 import build_index, open_index
build_index(Path("corpus.jsonl.gz"), Path("index/"))
retriever = open_index(Path("index/"))
retriever.retrieve("what causes scurvy?", limit=10)
"""

from __future__ import annotations

from reval_bm25.errors import Bm25IndexError, CorpusError
from reval_bm25.index import IndexInfo, build_index, update_index
from reval_bm25.retriever import Bm25Retriever, open_index
from reval_bm25.version import __version__

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
