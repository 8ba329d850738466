"""Build an index directory: read and chunk the corpus (reval's shared reader and chunker),
embed in batches, write vectors, ids and manifest; nothing half-written, ever.

Everything is written into a hidden sibling directory that replaces the target by rename
only once complete; on any error (Ctrl-C included) it is removed and the target is left
as it was.
"""

from __future__ import annotations

import json
import os
import shutil
import time
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from retrieval_eval.plugin_api import (
    Chunking,
    CorpusDocument,
    Embedder,
    corpus_fingerprint,
    count_documents,
    duplicate_error,
    empty_error,
    iter_documents,
    load_embedder,
)
from reval_dense.errors import DenseIndexError
from reval_dense.manifest import (
    HNSW_FILE,
    IDS_FILE,
    MANIFEST_FILE,
    VECTORS_FILE,
    HnswSettings,
    Manifest,
    write_manifest,
)
from reval_dense.version import __version__

DEFAULT_EMBEDDER = "wordllama"
#: Texts embedded per call while indexing.
BATCH = 512


class Progress(Protocol):
    """The evaluation engine's progress shape: a task per phase, advanced per document."""

    def start(self, label: str, total: int) -> object: ...

    def advance(self, task: object, n: int = 1) -> None: ...


@dataclass(frozen=True, slots=True)
class IndexInfo:
    path: Path
    documents: int
    chunks: int
    corpus_revision: str
    chunking: Chunking | None
    embedder: str
    search: str
    seconds: float


def build_index(
    corpus: Path,
    out: Path,
    *,
    chunk_words: int | None = None,
    chunk_overlap: int = 0,
    embedder: str = DEFAULT_EMBEDDER,
    embedder_options: Mapping[str, Any] | None = None,
    hnsw: HnswSettings | None = None,
    progress: Progress | None = None,
) -> IndexInfo:
    """Embed ``corpus`` into ``out`` (replacing an existing dense index there) with the
    embedder plugin ``embedder`` (``wordllama`` by default: offline, 256 dimensions)."""
    import numpy as np

    started = time.perf_counter()
    if chunk_words is None and chunk_overlap:
        raise DenseIndexError("--chunk-overlap needs --chunk-words")
    chunking = Chunking(chunk_words, chunk_overlap) if chunk_words is not None else None
    corpus, out = Path(corpus), Path(out)
    _check_target(out)
    options = dict(embedder_options or {})
    model = load_embedder(embedder, options)
    total = count_documents(corpus)
    hashes: dict[str, str] = {}
    ids: list[str] = []
    blocks: list[Any] = []
    task = progress.start("embedding", total) if progress is not None else None
    pending: list[str] = []
    for doc in _checked(corpus, hashes):
        for chunk_id, body in _pieces(doc, chunking):
            ids.append(chunk_id)
            pending.append(body)
        if len(pending) >= BATCH:
            blocks.append(_embed(model, pending))
            pending = []
        if progress is not None:
            progress.advance(task)
    if pending:
        blocks.append(_embed(model, pending))
    if not hashes:
        raise empty_error(corpus)
    vectors = np.ascontiguousarray(np.concatenate(blocks), dtype=np.float32)
    manifest = Manifest(
        embedder=model.identity,
        embedder_options=options,
        chunking=chunking,
        corpus_fingerprint=corpus_fingerprint(hashes),
        documents=len(hashes),
        chunks=len(ids),
        plugin_version=__version__,
        hnsw=hnsw,
        usearch_version=_usearch_version() if hnsw is not None else "",
        corpus_source=str(corpus),
        built_at=datetime.now(UTC).isoformat(timespec="seconds"),
    )
    with _staging(out) as stage:
        np.save(stage / VECTORS_FILE, vectors)
        (stage / IDS_FILE).write_text(json.dumps(ids, ensure_ascii=False), "utf-8")
        if hnsw is not None:
            build_hnsw(vectors, hnsw).save(str(stage / HNSW_FILE))
        write_manifest(stage, manifest)
    return IndexInfo(
        out, manifest.documents, manifest.chunks, manifest.corpus_fingerprint, chunking,
        model.identity.label(), manifest.search_label(), time.perf_counter() - started,
    )  # fmt: skip


def build_hnsw(vectors: Any, settings: HnswSettings) -> Any:
    """A usearch HNSW graph over the (normalised) rows, keys = row numbers; inner product
    on unit vectors is cosine similarity."""
    import numpy as np
    from usearch.index import Index

    index = Index(
        ndim=vectors.shape[1],
        metric="ip",
        dtype="f32",
        connectivity=settings.connectivity,
        expansion_add=settings.expansion_add,
        expansion_search=settings.expansion_search,
    )
    index.add(np.arange(len(vectors), dtype=np.uint64), vectors, threads=1)
    return index


def _usearch_version() -> str:
    from importlib.metadata import version

    return version("usearch")


def _checked(corpus: Path, hashes: dict[str, str]) -> Iterator[CorpusDocument]:
    for doc in iter_documents(corpus):
        if doc.id in hashes:
            raise duplicate_error(corpus, doc)
        hashes[doc.id] = doc.content_hash
        yield doc


def _pieces(doc: CorpusDocument, chunking: Chunking | None) -> Iterator[tuple[str, str]]:
    if chunking is None:
        yield doc.id, doc.body
    else:
        yield from chunking.split(doc.id, doc.title, doc.text)


def _embed(model: Embedder, texts: list[str]) -> Any:
    matrix = model.embed(texts)
    if matrix.shape != (len(texts), model.identity.dimensions):
        raise DenseIndexError(
            f"embedder {model.identity.label()} returned shape {matrix.shape} for "
            f"{len(texts)} texts"
        )
    return matrix


def _check_target(out: Path) -> None:
    """Refuse to replace anything but an empty directory or an existing dense index."""
    if out.exists() and not out.is_dir():
        raise DenseIndexError(f"--out {out}: exists and is not a directory")
    if out.is_dir() and any(out.iterdir()) and not (out / MANIFEST_FILE).is_file():
        raise DenseIndexError(f"--out {out}: directory is not empty and not a dense index")


@contextmanager
def _staging(target: Path) -> Iterator[Path]:
    """A hidden sibling of ``target`` that replaces it by rename on success."""
    target.parent.mkdir(parents=True, exist_ok=True)
    stage = target.parent / f".{target.name}.build-{uuid.uuid4().hex[:8]}"
    stage.mkdir()
    try:
        yield stage
        if target.is_dir() and any(target.iterdir()):
            retired = target.parent / f".{target.name}.old-{uuid.uuid4().hex[:8]}"
            os.rename(target, retired)
            os.rename(stage, target)
            shutil.rmtree(retired, ignore_errors=True)
        else:
            if target.is_dir():
                target.rmdir()
            os.rename(stage, target)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
