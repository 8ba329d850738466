"""Search an index: questions become a disjunction of term queries over the analyzer's
tokens, never a query-parser string (questions contain ``:``, ``(``, ``"``, ``-``).

Safe to call from many threads at once (the gRPC server does): the tantivy searcher is
shared and immutable; each thread analyses with its own analyzer.
"""

from __future__ import annotations

import threading
from pathlib import Path

import tantivy

from retrieval_eval.plugin_api import CHUNK_SEPARATOR, Ranking, RetrieverDescription
from reval_bm25.engine import BODY, ID, open_engine
from reval_bm25.metadata import IndexMetadata, read_metadata
from reval_bm25.version import __version__

IDENTIFIER = "bm25"
#: tantivy's BM25 parameters (fixed by the engine).
BM25_K1, BM25_B = 1.2, 0.75
_SHOULD, _TERM, _BOOLEAN = (
    tantivy.Occur.Should,
    tantivy.Query.term_query,
    tantivy.Query.boolean_query,
)


_EMPTY = Ranking(())


class Bm25Retriever:
    """A loaded, memory-mapped index. ``retrieve`` is synchronous and thread-safe."""

    def __init__(self, path: Path, meta: IndexMetadata, index: tantivy.Index) -> None:
        self.path, self.meta = path, meta
        index.config_reader(reload_policy="manual")  # a snapshot: no reloads mid-run
        self._index = index
        self._schema = index.schema
        self._searcher = index.searcher()
        self._local = threading.local()
        self._chunked = meta.chunking is not None

    @property
    def segments(self) -> int:
        """Segments searched (1 for a freshly built static corpus)."""
        return int(self._searcher.num_segments)

    def tokens(self, question: str) -> list[str]:
        """The analyzer's tokens for ``question`` (repeats kept: they weigh the term)."""
        try:
            analyzer = self._local.analyzer
        except AttributeError:
            analyzer = self._local.analyzer = self.meta.analyzer.build()
        return analyzer.analyze(question)  # type: ignore[no-any-return]

    def retrieve(self, question: str, limit: int) -> Ranking:
        """The ``limit`` best chunks (or documents), best first, as columns (no record per
        result); an empty ranking when no token remains."""
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        tokens = self.tokens(question)
        if not tokens:
            return _EMPTY
        schema, should, term = self._schema, _SHOULD, _TERM
        query = _BOOLEAN([(should, term(schema, BODY, t, index_option="freq")) for t in tokens])
        searcher = self._searcher
        hits = searcher.search(query, limit=limit, count=False).hits
        doc = searcher.doc
        rows = [(doc(address).get_first(ID), score) for score, address in hits]
        if not rows:
            return _EMPTY
        ids, scores = zip(*rows, strict=True)  # one pass over the hits, split in C
        return Ranking(ids, scores, ids if self._chunked else ())

    def describe(self) -> RetrieverDescription:
        meta = self.meta
        analyzer = meta.analyzer.label()
        chunking = meta.chunking.label() if meta.chunking is not None else ""
        return RetrieverDescription(
            identifier=IDENTIFIER,
            version=__version__,
            chunk_separator=CHUNK_SEPARATOR if meta.chunking is not None else "",
            corpus_revision=meta.corpus_fingerprint,
            chunking=chunking,
            pipeline=f"tantivy-{meta.tantivy_version} bm25(k1={BM25_K1},b={BM25_B}) {analyzer}",
            metadata={
                "analyzer": analyzer,
                "tantivy_version": meta.tantivy_version,
                "documents": str(meta.documents),
                "chunks": str(meta.chunks),
            },
        )

    def close(self) -> None:
        """Release the searcher (the mapped files are unmapped once unreferenced)."""
        self._searcher = None  # type: ignore[assignment]
        self._index = None  # type: ignore[assignment]


def open_index(path: Path) -> Bm25Retriever:
    """Open the index at ``path`` for searching; ``Bm25IndexError`` when it is missing,
    corrupt or from an incompatible version."""
    path = Path(path)
    meta = read_metadata(path)
    index = open_engine(path, meta)
    return Bm25Retriever(path, meta, index)
