"""The index directory's layout and its manifest, validated on every open.

DIR/manifest.json   format version, embedder (kind, model, weights checksum, dimensions,
                    options without secrets), chunking, corpus revision, search, counts
DIR/vectors.npy     float32 (chunks x dimensions), rows L2-normalised: exact search
DIR/ids.json        the result id of each row (a chunk id when chunked)
DIR/hnsw.usearch    the HNSW graph, when built with --hnsw
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from retrieval_eval.plugin_api import Chunking, EmbedderIdentity, read_index_file
from reval_dense.errors import DenseIndexError

FORMAT = "reval-dense-index"
#: Bumped when the layout or a field's meaning changes; other versions are refused.
FORMAT_VERSION = 1
MANIFEST_FILE = "manifest.json"
VECTORS_FILE = "vectors.npy"
IDS_FILE = "ids.json"
HNSW_FILE = "hnsw.usearch"


@dataclass(frozen=True, slots=True)
class HnswSettings:
    """usearch's graph parameters: ``connectivity`` (M), build and search beam widths."""

    connectivity: int = 16
    expansion_add: int = 128
    expansion_search: int = 128

    def label(self) -> str:
        return (
            f"hnsw(M={self.connectivity},ef_add={self.expansion_add},"
            f"ef_search={self.expansion_search})"
        )


@dataclass(frozen=True, slots=True)
class Manifest:
    embedder: EmbedderIdentity
    #: Options to recreate the embedder for questions (URL, model, key's variable name).
    embedder_options: dict[str, Any]
    chunking: Chunking | None
    corpus_fingerprint: str
    documents: int
    chunks: int
    plugin_version: str
    hnsw: HnswSettings | None = None
    usearch_version: str = ""
    corpus_source: str = ""
    built_at: str = ""
    extra: dict[str, str] = field(default_factory=dict)

    def search_label(self) -> str:
        if self.hnsw is None:
            return "exact cosine (float32 matrix product)"
        return f"{self.hnsw.label()} cosine usearch-{self.usearch_version}"

    def to_dict(self) -> dict[str, Any]:
        e, c, h = self.embedder, self.chunking, self.hnsw
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "plugin_version": self.plugin_version,
            "embedder": {
                "kind": e.kind,
                "model": e.model,
                "revision": e.revision,
                "dimensions": e.dimensions,
                "options": self.embedder_options,
            },
            "chunking": None if c is None else {"words": c.words, "overlap": c.overlap},
            "corpus": {
                "fingerprint": self.corpus_fingerprint,
                "source": self.corpus_source,
                "documents": self.documents,
            },
            "chunks": self.chunks,
            "search": {"kind": "exact"}
            if h is None
            else {
                "kind": "hnsw",
                "connectivity": h.connectivity,
                "expansion_add": h.expansion_add,
                "expansion_search": h.expansion_search,
                "usearch_version": self.usearch_version,
            },
            "built_at": self.built_at,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Manifest:
        e, c, corpus, search = data["embedder"], data["chunking"], data["corpus"], data["search"]
        hnsw = None
        if search["kind"] == "hnsw":
            hnsw = HnswSettings(
                int(search["connectivity"]),
                int(search["expansion_add"]),
                int(search["expansion_search"]),
            )
        return cls(
            embedder=EmbedderIdentity(
                str(e["kind"]), str(e["model"]), str(e["revision"]), int(e["dimensions"])
            ),
            embedder_options=dict(e.get("options") or {}),
            chunking=None if c is None else Chunking(int(c["words"]), int(c["overlap"])),
            corpus_fingerprint=str(corpus["fingerprint"]),
            documents=int(corpus["documents"]),
            chunks=int(data["chunks"]),
            plugin_version=str(data.get("plugin_version", "")),
            hnsw=hnsw,
            usearch_version=str(search.get("usearch_version", "")),
            corpus_source=str(corpus.get("source", "")),
            built_at=str(data.get("built_at", "")),
        )


def write_manifest(directory: Path, manifest: Manifest) -> None:
    text = json.dumps(manifest.to_dict(), indent=2) + "\n"
    (directory / MANIFEST_FILE).write_text(text, "utf-8")


def read_manifest(directory: Path) -> Manifest:
    """The validated manifest of the index at ``directory``; ``DenseIndexError`` otherwise."""
    return read_index_file(
        directory, MANIFEST_FILE, plugin="dense", fmt=FORMAT, version=FORMAT_VERSION,
        what="manifest", parse=Manifest.from_dict, error=DenseIndexError,
    )  # fmt: skip
