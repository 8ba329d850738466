"""Reference dense retriever for reval.

from reval_dense import build_index, open_index
build_index(Path("corpus.jsonl.gz"), Path("index/"))          # offline WordLlama, 256 dims
retriever = open_index(Path("index/"))
retriever.retrieve("what causes scurvy?", limit=10)
"""

from __future__ import annotations

__version__ = "0.1.0"

from reval_dense.errors import DenseIndexError
from reval_dense.index import IndexInfo, build_index
from reval_dense.retriever import DenseRetriever, open_index

__all__ = [
    "DenseIndexError",
    "DenseRetriever",
    "IndexInfo",
    "__version__",
    "build_index",
    "open_index",
]
