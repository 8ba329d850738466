"""The ``postgres`` kind across a server restart, on a PostgreSQL cluster of the test's own
(stopped and restarted here; the shared test server never is): pooled connections the
restart closed are replaced within the call, so no question fails once the server is
back; while it is down a question is ``unavailable`` after a bounded number of attempts,
and the next one after it is back is answered."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from support.own_postgres import OwnPostgres

from retrieval_eval.errors import RetrieverUnavailable
from retrieval_eval.retrievers.kinds.postgres.retriever import MAX_ATTEMPTS, PostgresRetriever
from retrieval_eval.retrievers.opening import open_retriever

#: Question ``dN`` -> documents ``dN`` and ``dN-twin``: every answer checkable by eye.
QUERY = "SELECT id FROM docs WHERE id IN (:question, :question || '-twin') ORDER BY id LIMIT :limit"


@pytest.fixture(scope="module")
def server() -> Iterator[OwnPostgres]:
    cluster = OwnPostgres()
    cluster.start()
    try:
        with psycopg.connect(cluster.dsn, autocommit=True) as db:
            db.execute("CREATE TABLE docs (id text PRIMARY KEY)")
            for n in range(50):
                db.execute("INSERT INTO docs VALUES (%s), (%s)", (f"d{n}", f"d{n}-twin"))
        yield cluster
    finally:
        cluster.remove()


def open_pg(server: OwnPostgres, tmp_path: Path) -> PostgresRetriever:
    path = tmp_path / "reval.toml"
    path.write_text(
        f'[retrievers.pg]\nkind = "postgres"\ndsn = "{server.dsn}"\nquery = "{QUERY}"\n'
        "pool_size = 4\ntimeout = 20\n",
        encoding="utf-8",
    )
    retriever = open_retriever("pg", config_path=path)
    assert isinstance(retriever, PostgresRetriever)
    return retriever


async def ask(retriever: PostgresRetriever, numbers: range) -> list[tuple[str, ...]]:
    rankings = await asyncio.gather(*(retriever.retrieve(f"d{n}", 5) for n in numbers))
    return [r.document_ids for r in rankings]


async def test_pooled_connections_closed_by_a_restart_are_replaced(
    server: OwnPostgres, tmp_path: Path
) -> None:
    retriever = open_pg(server, tmp_path)
    try:
        assert await ask(retriever, range(8)) == [(f"d{n}", f"d{n}-twin") for n in range(8)]
        assert len(retriever._idle) == 4  # the pool is full of connections to the old server
        server.restart()
        assert await ask(retriever, range(20)) == [(f"d{n}", f"d{n}-twin") for n in range(20)]
    finally:
        await retriever.close()


async def test_a_server_that_is_down_is_unavailable_after_bounded_attempts(
    server: OwnPostgres, tmp_path: Path
) -> None:
    retriever = open_pg(server, tmp_path)
    try:
        assert await ask(retriever, range(2)) == [("d0", "d0-twin"), ("d1", "d1-twin")]
        server.stop()
        try:
            with pytest.raises(RetrieverUnavailable, match=f"after {MAX_ATTEMPTS} attempts"):
                await retriever.retrieve("d3", 5)
        finally:
            server.start()
        assert await ask(retriever, range(3, 6)) == [(f"d{n}", f"d{n}-twin") for n in range(3, 6)]
    finally:
        await retriever.close()
