"""``kind = "qdrant"``: a Qdrant collection, searched by the question's embedding::

    [retrievers.vectors]
    kind = "qdrant"
    collection = "help_pages"
    id_key = "doc_id"                   # the payload key that holds the document id
    url = "http://127.0.0.1:6333"       # a server, or
    # path = "qdrant-data"              # qdrant-client's embedded local mode (a folder)
    # api_key_env = "QDRANT_API_KEY"    # a server's API key, from the environment
    # vector = "text"                   # the named vector to search (default: the only one)
    embedder = "wordllama"              # an embedder plugin (retrieval_eval.embedders)
    embedder_options = { dimensions = 256 }

The question is embedded with the same embedder (and options) the collection was built
with; the points' payload ``id_key`` is the document id and Qdrant's score the score.
Needs the ``qdrant`` extra (``pip install 'reval-ir[qdrant]'``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from retrieval_eval.errors import ConfigError
from retrieval_eval.retrievers.kinds.base import Common, KindEntry, TableReader
from retrieval_eval.retrievers.protocol import AsyncRetriever
from retrieval_eval.version import install_extra

KEYS = (
    "collection",
    "id_key",
    "url",
    "path",
    "api_key_env",
    "vector",
    "embedder",
    "embedder_options",
)
INSTALL = install_extra("qdrant")


@dataclass(frozen=True, slots=True)
class QdrantConfig(KindEntry):
    common: Common
    collection: str
    id_key: str
    embedder: str
    #: A server's URL, or "" for the embedded mode at ``path``.
    url: str = ""
    path: Path | None = None
    api_key_env: str | None = None
    vector: str = ""
    embedder_options: Mapping[str, Any] = field(default_factory=dict)

    def detail(self) -> str:
        where = (urlsplit(self.url).netloc or self.url) if self.url else str(self.path)
        return f"qdrant {where}/{self.collection} by {self.embedder}"

    def identity(self) -> Mapping[str, object]:
        return {
            "where": self.url or str(self.path),
            "collection": self.collection,
            "vector": self.vector,
            "id_key": self.id_key,
            "embedder": self.embedder,
            "embedder_options": dict(self.embedder_options),
        }

    def open(self, timeout_s: float | None) -> AsyncRetriever:
        try:
            # the Qdrant client and the kind's retriever load when it is opened
            import qdrant_client  # noqa: F401
        except ImportError:
            raise ConfigError(f"{self.where}: qdrant-client is not installed; {INSTALL}") from None
        from retrieval_eval.retrievers.kinds.qdrant.retriever import QdrantRetriever

        return QdrantRetriever(self, timeout_s)


def parse(common: Common, reader: TableReader) -> QdrantConfig:
    if reader.has("url") == reader.has("path"):
        raise ConfigError(f"{reader.where}: give exactly one of 'url' and 'path'")
    url = reader.string("url")
    if url and urlsplit(url).scheme not in ("http", "https"):
        raise reader.fail("url", f"must be an http:// or https:// URL, got {url!r}")
    if urlsplit(url).password:
        raise reader.fail("url", "holds a password; give the API key in 'api_key_env'")
    options = reader.table.get("embedder_options", {})
    if not isinstance(options, dict):
        raise reader.fail("embedder_options", f"must be a table, got {options!r}")
    return QdrantConfig(
        common=common,
        collection=reader.string("collection", required=True),
        id_key=reader.string("id_key", required=True),
        embedder=reader.string("embedder", required=True),
        url=url,
        path=reader.directory("path") if reader.has("path") else None,
        api_key_env=reader.env_name("api_key_env"),
        vector=reader.string("vector"),
        embedder_options=dict(options),
    )
