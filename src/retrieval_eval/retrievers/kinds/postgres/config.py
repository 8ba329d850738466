"""``kind = "postgres"``: a SQL query that ranks documents, on a PostgreSQL server::

    [retrievers.pg-fts]
    kind = "postgres"
    dsn = "postgresql://reval@db.internal:5432/search"
    password_env = "SEARCH_DB_PASSWORD"   # optional; libpq's PGPASSWORD works too
    # dsn_env = "SEARCH_DB_URL"           # or the whole DSN from the environment
    query = '''
      SELECT id, ts_rank(tsv, plainto_tsquery('english', :question)) AS score
      FROM docs WHERE tsv @@ plainto_tsquery('english', :question)
      ORDER BY score DESC LIMIT :limit'''
    pool_size = 4                         # connections kept open

The query's first column is the document id (text), the optional second its score; rows
come in rank order. ``:question`` and ``:limit`` are bound as parameters (never spliced
into the SQL); ``::casts`` are left alone. A DSN that holds a password is refused: the
password comes from the environment (``password_env``, or a DSN read whole from
``dsn_env``, which may hold one and is never shown).

``:embedding`` is the question embedded by ``embedder`` (an embedder plugin, with
``embedder_options``, as the ``qdrant`` kind's), bound as a ``float8[]`` (``double
precision[]``) parameter of unit length; with pgvector, cast it: ``:embedding::vector``::

    query = '''
      SELECT id, 1 - (embedding <=> :embedding::vector) FROM docs
      ORDER BY embedding <=> :embedding::vector LIMIT :limit'''
    embedder = "wordllama"
    embedder_options = { dimensions = 64 }

A query that uses ``:embedding`` needs ``embedder``; an ``embedder`` the query does not
use is refused too (it would be loaded, and fingerprinted, for nothing).
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any

from retrieval_eval.errors import ConfigError
from retrieval_eval.retrievers.kinds.base import Common, KindEntry, TableReader, env_value
from retrieval_eval.version import install_extra

if TYPE_CHECKING:
    from retrieval_eval.retrievers.protocol import AsyncRetriever

KEYS = ("dsn", "dsn_env", "password_env", "query", "pool_size", "embedder", "embedder_options")
PARAMETER = re.compile(r"(?<![:\w]):(question|limit|embedding)\b")


@dataclass(frozen=True, slots=True)
class PostgresConfig(KindEntry):
    common: Common
    #: The DSN as written ("" when it comes from ``dsn_env``).
    dsn: str
    query: str
    dsn_env: str | None = None
    password_env: str | None = None
    pool_size: int = 4
    #: The embedder plugin that turns the question into ``:embedding`` ("" when unused).
    embedder: str = ""
    embedder_options: Mapping[str, Any] = field(default_factory=dict)

    def connection_string(self) -> str:
        """The DSN (read from ``dsn_env`` if that is how it is given); ``ConfigError``
        when the variable is unset."""
        if self.dsn_env is None:
            return self.dsn
        return env_value(self.common, "dsn_env", self.dsn_env)

    def detail(self) -> str:
        by = f" by {self.embedder}" if self.embedder else ""
        if self.dsn_env is not None and not os.environ.get(self.dsn_env):
            return f"postgres ${self.dsn_env}{by}"
        try:
            info = require_psycopg(self.where).conninfo_to_dict(self.connection_string())
        except Exception:
            return f"postgres ${self.dsn_env}{by}"
        where = f"{info.get('host', 'localhost')}:{info.get('port', 5432)}"
        return f"postgres {where}/{info.get('dbname', '')}{by}"

    def identity(self) -> Mapping[str, object]:
        source = {"dsn": self.dsn} if self.dsn_env is None else {"dsn_env": self.dsn_env}
        embedding = (
            {"embedder": self.embedder, "embedder_options": dict(self.embedder_options)}
            if self.embedder
            else {}
        )
        return {**source, "query": " ".join(self.query.split()), **embedding}

    def sql(self) -> str:
        """The query in psycopg's parameter style: ``%`` doubled, ``:name`` as
        ``%(name)s``."""
        return PARAMETER.sub(r"%(\1)s", self.query.replace("%", "%%"))

    def open(self, timeout_s: float | None) -> AsyncRetriever:
        require_psycopg(self.where)
        from retrieval_eval.retrievers.kinds.postgres.retriever import PostgresRetriever

        return PostgresRetriever(self, timeout_s)


def require_psycopg(where: str) -> ModuleType:
    """psycopg's ``conninfo`` module; ``ConfigError`` naming the extra that installs it when
    psycopg is missing (the core install has no PostgreSQL driver)."""
    try:
        return importlib.import_module("psycopg.conninfo")
    except ModuleNotFoundError as e:
        if e.name != "psycopg":
            raise
        raise ConfigError(
            f"{where}: the postgres kind needs the postgres extra (psycopg is missing): "
            f"{install_extra('postgres')}"
        ) from None


def parse(common: Common, reader: TableReader) -> PostgresConfig:
    if reader.has("dsn") == reader.has("dsn_env"):
        raise ConfigError(f"{reader.where}: give exactly one of 'dsn' and 'dsn_env'")
    dsn = reader.string("dsn") if reader.has("dsn") else ""
    conninfo = require_psycopg(reader.where)
    try:
        info = conninfo.conninfo_to_dict(dsn) if dsn else {}
    except Exception as e:
        raise reader.fail("dsn", f"not a PostgreSQL connection string: {e}") from None
    if info.get("password"):
        raise reader.fail(
            "dsn",
            "holds a password; name the environment variable that holds it in "
            "'password_env' instead",
        )
    query = reader.string("query", required=True)
    names = set(PARAMETER.findall(query))
    if not names & {"question", "embedding"}:
        raise reader.fail("query", "uses neither :question nor :embedding")
    embedder = reader.string("embedder")
    if "embedding" in names and not embedder:
        raise reader.fail(
            "query",
            "uses :embedding, which needs 'embedder' (an embedder plugin such as "
            '"wordllama") to embed the question',
        )
    if embedder and "embedding" not in names:
        raise reader.fail("embedder", "is given but the query does not use :embedding")
    options = reader.table.get("embedder_options", {})
    if not isinstance(options, dict):
        raise reader.fail("embedder_options", f"must be a table, got {options!r}")
    if options and not embedder:
        raise reader.fail("embedder_options", "is given without 'embedder'")
    return PostgresConfig(
        common=common,
        dsn=dsn,
        query=query,
        dsn_env=reader.env_name("dsn_env"),
        password_env=reader.env_name("password_env"),
        pool_size=reader.integer("pool_size", 4, low=1, high=256),
        embedder=embedder,
        embedder_options=dict(options),
    )
