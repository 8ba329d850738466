"""Reference BM25 retriever for reval, on tantivy.

from reval_bm25.index import build_index
from reval_bm25.retriever import open_index
build_index(Path("corpus.jsonl.gz"), Path("index/"))
retriever = open_index(Path("index/"))
retriever.retrieve("what causes scurvy?", limit=10)

``index`` builds and updates an index (``build_index``, ``update_index``), ``retriever``
opens and searches one (``open_index``, ``Bm25Retriever``), ``errors`` holds
``Bm25IndexError``; reval loads the ``bm25`` entry point (``plugin``) to search an index,
which needs neither the indexer nor the corpus reader.
"""

from __future__ import annotations

from reval_bm25.version import __version__

__all__ = ["__version__"]
