"""Search an index: embed the question with the index's own embedder, then exact search
(one float32 matrix product over the normalised rows) or the HNSW graph.

Safe to call from many threads at once (the gRPC server does): the matrix and the graph
are read-only; the embedder serialises what it must.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from retrieval_eval.plugin_api import (
    CHUNK_SEPARATOR,
    Embedder,
    EmbeddingError,
    Ranking,
    RetrieverDescription,
    RetrieverUnavailable,
    load_embedder,
)
from reval_dense.errors import DenseIndexError
from reval_dense.manifest import HNSW_FILE, IDS_FILE, VECTORS_FILE, Manifest, read_manifest
from reval_dense.version import __version__

IDENTIFIER = "dense"
_EMPTY = Ranking(())


class DenseRetriever:
    """A loaded index. ``retrieve`` is synchronous and thread-safe."""

    def __init__(
        self, path: Path, manifest: Manifest, vectors: Any, ids: list[str], embedder: Embedder
    ) -> None:
        self.path, self.manifest = path, manifest
        self.embedder = embedder
        self._vectors, self._ids = vectors, ids
        self._chunked = manifest.chunking is not None
        self._graph: Any = None
        if manifest.hnsw is not None:
            from usearch.index import Index

            self._graph = Index.restore(str(path / HNSW_FILE), view=True)
            self._graph.expansion_search = manifest.hnsw.expansion_search

    def embed_question(self, question: str) -> Any:
        """The question's unit vector; an embedder failure is this question's error."""
        try:
            return self.embedder.embed([question])[0]
        except EmbeddingError as e:
            raise RetrieverUnavailable(f"{IDENTIFIER}:{self.path}", str(e)) from e

    def retrieve(self, question: str, limit: int) -> Ranking:
        """The ``limit`` most similar chunks (or documents), best first; ties by row."""
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        if not question.strip():
            return _EMPTY
        query = self.embed_question(question)
        rows, scores = self.search(query, limit)
        ids = self._ids
        found = tuple([ids[r] for r in rows])
        return Ranking(found, tuple(scores), found if self._chunked else ())

    def search(self, query: Any, limit: int) -> tuple[list[int], list[float]]:
        """Row numbers and cosine similarities of the ``limit`` nearest rows."""
        import numpy as np

        if self._graph is not None:
            matches = self._graph.search(query, min(limit, len(self._ids)))
            keys = [int(k) for k in matches.keys]
            return keys, [float(1.0 - d) for d in matches.distances]
        # One matrix-vector product in numpy's own single-threaded loop, not BLAS: BLAS
        # threads per call fight the server's request threads (and, on a loaded machine,
        # turn a 0.1 ms product into tens of milliseconds).
        similarity = np.einsum("ij,j->i", self._vectors, query)
        count = min(limit, len(similarity))
        if count < len(similarity):
            top = np.argpartition(-similarity, count - 1)[:count]
        else:
            top = np.arange(len(similarity))
        order = top[np.lexsort((top, -similarity[top]))]
        return order.tolist(), similarity[order].tolist()

    def describe(self) -> RetrieverDescription:
        m = self.manifest
        e = m.embedder
        chunking = m.chunking.label() if m.chunking is not None else ""
        metadata = {
            "embedder": e.kind,
            "model": e.model,
            "weights_sha256": e.revision,
            "dimensions": str(e.dimensions),
            "search": m.search_label(),
            "documents": str(m.documents),
            "chunks": str(m.chunks),
        }
        if "url" in m.embedder_options:
            metadata["embedder_url"] = str(m.embedder_options["url"])
        return RetrieverDescription(
            identifier=IDENTIFIER,
            version=__version__,
            chunk_separator=CHUNK_SEPARATOR if m.chunking is not None else "",
            corpus_revision=m.corpus_fingerprint,
            model_revision=e.label(),
            chunking=chunking,
            pipeline=f"{e.label()} {m.search_label()}",
            metadata=metadata,
        )

    def close(self) -> None:
        self._vectors = None
        self._graph = None


def open_index(path: Path, *, embedder: Embedder | None = None) -> DenseRetriever:
    """Open the index at ``path``; its embedder is recreated from the manifest (or
    ``embedder`` is used) and must match what the index was built with."""
    import numpy as np

    path = Path(path)
    manifest = read_manifest(path)
    try:
        vectors = np.load(path / VECTORS_FILE, allow_pickle=False)
        ids = json.loads((path / IDS_FILE).read_text("utf-8"))
    except (OSError, ValueError) as e:
        raise DenseIndexError(f"{path}: corrupt or unreadable index files: {e}") from e
    expected = (manifest.chunks, manifest.embedder.dimensions)
    if vectors.shape != expected or vectors.dtype != np.float32 or len(ids) != manifest.chunks:
        raise DenseIndexError(
            f"{path}: index files do not match the manifest ({vectors.shape} {vectors.dtype}, "
            f"{len(ids)} ids; expected {expected} float32)"
        )
    if embedder is None:
        embedder = load_embedder(manifest.embedder.kind, manifest.embedder_options)
    built, now = manifest.embedder, embedder.identity
    if (built.kind, built.model, built.revision, built.dimensions) != (
        now.kind, now.model, now.revision, now.dimensions,
    ):  # fmt: skip
        raise DenseIndexError(
            f"{path}: built with {built.label()}, but the embedder is now {now.label()}; "
            "rebuild the index with 'reval dense index'"
        )
    return DenseRetriever(path, manifest, vectors, ids, embedder)
