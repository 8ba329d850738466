"""Reference dense retriever for reval.

from reval_dense.index import build_index
from reval_dense.retriever import open_index
build_index(Path("corpus.jsonl.gz"), Path("index/"))          # offline WordLlama, 256 dims
retriever = open_index(Path("index/"))
retriever.retrieve("what causes scurvy?", limit=10)

``index`` builds an index (``build_index``), ``retriever`` opens and searches one
(``open_index``, ``DenseRetriever``), ``errors`` holds ``DenseIndexError``.
"""

from __future__ import annotations

from reval_dense.version import __version__

__all__ = ["__version__"]
