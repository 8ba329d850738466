"""The index directory's layout and its metadata, validated on every open.

DIR/metadata.json   format version, parameters, corpus fingerprint, counts, versions
DIR/documents.json  document id -> content hash (what ``--update`` compares against)
DIR/tantivy/        the engine's files (memory-mapped when searching)
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from retrieval_eval.plugin_api import Chunking, read_index_file
from reval_bm25.analyzer import AnalyzerSettings
from reval_bm25.errors import Bm25IndexError

FORMAT = "reval-bm25-index"
#: Bumped when the layout, the schema or the meaning of a field changes; an index with
#: another version is refused with a clear error (rebuild it).
FORMAT_VERSION = 1
METADATA_FILE = "metadata.json"
DOCUMENTS_FILE = "documents.json"
ENGINE_DIR = "tantivy"


@dataclass(frozen=True, slots=True)
class IndexMetadata:
    analyzer: AnalyzerSettings
    chunking: Chunking | None
    tantivy_version: str
    plugin_version: str
    corpus_fingerprint: str
    documents: int
    chunks: int
    corpus_source: str = ""
    built_at: str = ""
    updated_at: str = ""

    def to_dict(self) -> dict[str, Any]:
        chunking = self.chunking
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "tantivy_version": self.tantivy_version,
            "plugin_version": self.plugin_version,
            "analyzer": self.analyzer.to_dict(),
            "chunking": None
            if chunking is None
            else {"words": chunking.words, "overlap": chunking.overlap},
            "corpus": {
                "fingerprint": self.corpus_fingerprint,
                "source": self.corpus_source,
                "documents": self.documents,
            },
            "chunks": self.chunks,
            "built_at": self.built_at,
            "updated_at": self.updated_at,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> IndexMetadata:
        chunking = data["chunking"]
        corpus = data["corpus"]
        return cls(
            analyzer=AnalyzerSettings.from_dict(data["analyzer"]),
            chunking=None if chunking is None else Chunking(chunking["words"], chunking["overlap"]),
            tantivy_version=str(data["tantivy_version"]),
            plugin_version=str(data.get("plugin_version", "")),
            corpus_fingerprint=str(corpus["fingerprint"]),
            documents=int(corpus["documents"]),
            chunks=int(data["chunks"]),
            corpus_source=str(corpus.get("source", "")),
            built_at=str(data.get("built_at", "")),
            updated_at=str(data.get("updated_at", "")),
        )


def write_metadata(directory: Path, meta: IndexMetadata, hashes: dict[str, str]) -> None:
    """Write both files as new inodes (temp + rename): an update stages its copy of the
    index as hard links, so writing in place would change the live index too."""
    _replace(directory / DOCUMENTS_FILE, json.dumps(hashes, ensure_ascii=False))
    _replace(directory / METADATA_FILE, json.dumps(meta.to_dict(), indent=2) + "\n")


def _replace(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(text, "utf-8")
    os.replace(temporary, path)


def read_metadata(directory: Path) -> IndexMetadata:
    """Validated metadata of the index at ``directory``; ``Bm25IndexError`` otherwise."""
    return read_index_file(
        directory, METADATA_FILE, plugin="bm25", fmt=FORMAT, version=FORMAT_VERSION,
        what="metadata", parse=IndexMetadata.from_dict, error=Bm25IndexError,
    )  # fmt: skip


def read_hashes(directory: Path) -> dict[str, str]:
    path = directory / DOCUMENTS_FILE
    try:
        hashes = json.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise Bm25IndexError(f"{path}: corrupt or missing document list: {e}") from e
    if not isinstance(hashes, dict):
        raise Bm25IndexError(f"{path}: corrupt document list (expected an object)")
    return hashes
