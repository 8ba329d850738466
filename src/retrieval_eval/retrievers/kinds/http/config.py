"""``kind = "http"``: a JSON search endpoint, e.g. Elasticsearch or OpenSearch::

    [retrievers.search-api]
    kind = "http"
    url = "http://127.0.0.1:9200/docs/_search"
    method = "POST"                                   # the default; or "GET", "PUT"
    headers = { Authorization = "Bearer ${SEARCH_TOKEN}" }   # ${VAR}: from the environment
    body = { query = { match = { text = "{question}" } }, size = "{limit}" }
    params = { q = "{question}" }                     # URL query parameters (optional)
    ids = "hits.hits[*]._id"                          # JMESPath to the ranked ids
    scores = "hits.hits[*]._score"                    # optional
    chunk_ids = "hits.hits[*]._source.chunk"          # optional
    max_connections = 64                              # connections kept open (reused)

Templates follow ``template``'s rules. A secret belongs in an environment variable named
in a header (``${VAR}``): its value is read when the retriever opens, sent, and never
printed, fingerprinted or stored; a URL with a password in it is refused.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from retrieval_eval.retrievers.kinds.base import Common, KindEntry, TableReader
from retrieval_eval.retrievers.kinds.http.template import BodyTemplate
from retrieval_eval.retrievers.protocol import AsyncRetriever

if TYPE_CHECKING:
    from retrieval_eval.retrievers.kinds.http.paths import Search

KEYS = (
    "url",
    "method",
    "headers",
    "body",
    "params",
    "ids",
    "scores",
    "chunk_ids",
    "max_connections",
)
METHODS = ("POST", "GET", "PUT")
#: ``${NAME}`` in a header value: the environment variable NAME.
ENV_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True, slots=True)
class HttpConfig(KindEntry):
    common: Common
    url: str
    method: str
    ids: str
    scores: str | None = None
    chunk_ids: str | None = None
    #: Header name -> value template (``${VAR}`` references unexpanded).
    headers: Mapping[str, str] = field(default_factory=dict)
    body: BodyTemplate | None = None
    params: Mapping[str, str] = field(default_factory=dict)
    max_connections: int = 64

    def detail(self) -> str:
        parts = urlsplit(self.url)
        return f"http {self.method} {parts.netloc}{parts.path}"

    def identity(self) -> Mapping[str, object]:
        return {
            "url": self.url,
            "method": self.method,
            "headers": dict(self.headers),
            "body": self.body.text if self.body is not None else None,
            "params": dict(self.params),
            "ids": self.ids,
            "scores": self.scores,
            "chunk_ids": self.chunk_ids,
        }

    def paths(self) -> tuple[Search, Search | None, Search | None]:
        """The JMESPath expressions as functions of the parsed answer (checked when
        parsed)."""
        # the kind's paths and retriever load when it is opened, not when reval.toml is read
        from retrieval_eval.retrievers.kinds.http.paths import compile_path

        return (
            compile_path(self.ids),
            compile_path(self.scores) if self.scores else None,
            compile_path(self.chunk_ids) if self.chunk_ids else None,
        )

    def expanded_headers(self, environ: Mapping[str, str]) -> dict[str, str]:
        """``expand_headers`` of this entry."""
        return expand_headers(self, environ)

    def open(self, timeout_s: float | None) -> AsyncRetriever:
        from retrieval_eval.retrievers.kinds.http.retriever import HttpRetriever

        return HttpRetriever(self, timeout_s)


def parse(common: Common, reader: TableReader) -> HttpConfig:
    url = reader.string("url", required=True)
    _check_url(url, reader)
    method = reader.string("method", default="POST").upper()
    if method not in METHODS:
        raise reader.fail("method", f"must be one of {', '.join(METHODS)}, got {method!r}")
    body = None
    if reader.has("body"):
        if method == "GET":
            raise reader.fail("body", "a GET request has no body; use 'params' or POST")
        value = reader.table["body"]
        if not isinstance(value, dict | list | str):
            raise reader.fail("body", f"must be a table, an array or a string, got {value!r}")
        body = BodyTemplate.compile(value)
    headers = reader.string_table("headers")
    for name, value in headers.items():
        if not name.strip() or any(c in name for c in ":\r\n "):
            raise reader.fail("headers", f"{name!r} is not a header name")
        if "\r" in value or "\n" in value:
            raise reader.fail("headers", f"the value of header {name!r} spans lines")
    params = reader.string_table("params")
    in_params = any("{question}" in v for v in params.values())
    if not in_params and (body is None or not body.uses_question):
        key = "params" if method == "GET" else "body"
        raise reader.fail(key, "the question goes nowhere: put '{question}' in 'body' or 'params'")
    paths = {key: _path(reader, key) for key in ("ids", "scores", "chunk_ids")}
    ids = paths["ids"]
    if ids is None:
        raise reader.fail("ids", "missing: a JMESPath to the ranked ids, e.g. 'hits.hits[*]._id'")
    return HttpConfig(
        common=common,
        url=url,
        method=method,
        ids=ids,
        scores=paths["scores"],
        chunk_ids=paths["chunk_ids"],
        headers=headers,
        body=body,
        params=params,
        max_connections=reader.integer("max_connections", 64, low=1, high=10_000),
    )


def _check_url(url: str, reader: TableReader) -> None:
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a bad port
    except ValueError as e:
        raise reader.fail("url", f"{url!r} is not a URL: {e}") from e
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise reader.fail("url", f"{url!r} is not an http:// or https:// URL")
    if parts.password is not None or parts.username is not None:
        raise reader.fail(
            "url",
            "holds credentials; send them in a header read from the environment, "
            'e.g. headers = { Authorization = "Bearer ${TOKEN}" }',
        )


def _path(reader: TableReader, key: str) -> str | None:
    if not reader.has(key):
        return None
    expression = reader.string(key)
    # JMESPath only for a JMESPath expression
    import jmespath
    from jmespath.exceptions import JMESPathError

    try:
        jmespath.compile(expression)
    except JMESPathError as e:
        message = " ".join(str(e).split())
        raise reader.fail(key, f"{expression!r} is not a JMESPath expression: {message}") from e
    return expression


def header_variables(config: HttpConfig) -> list[tuple[str, str]]:
    """``(header, variable)`` for every environment variable the headers name."""
    return [
        (name, m.group(1))
        for name, value in config.headers.items()
        for m in ENV_REFERENCE.finditer(value)
    ]


def expand_headers(config: HttpConfig, environ: Mapping[str, str]) -> dict[str, str]:
    """The headers with ``${VAR}`` replaced by the environment's values; ``KeyError`` names
    the first variable that is unset (or empty)."""

    def value(m: re.Match[str]) -> str:
        found = environ.get(m.group(1))
        if not found:
            raise KeyError(m.group(1))
        return found

    return {name: ENV_REFERENCE.sub(value, template) for name, template in config.headers.items()}
