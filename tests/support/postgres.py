"""A database of its own on the test PostgreSQL server, created from
``REVAL_TEST_POSTGRES_URL`` and dropped afterwards.

Each pytest process (each pytest-xdist worker, and a serial run) works in a database of
its own, so tests running at the same time never meet: not in a table, a schema, a
listing nor an advisory lock (those are per database: a test that holds the migration
lock would stall every other worker's migrations in a shared one).
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator

#: PostgreSQL truncates identifiers longer than this; names stay within it.
MAX_NAME = 63


def database_name(base: str, worker: str) -> str:
    """``BASE_WORKER_RANDOM``: unique per process, and telling whose it is if one is left
    behind (a worker killed before its session ended)."""
    suffix = f"_{worker}_{uuid.uuid4().hex[:8]}"
    return f"{base[: MAX_NAME - len(suffix)]}{suffix}"


@contextlib.contextmanager
def own_database(server_url: str) -> Iterator[str]:
    """A new, empty database on the server of ``server_url`` (a SQLAlchemy URL); yields
    its URL in the same form, and drops it (closing any connection left open) on exit."""
    import psycopg
    from sqlalchemy.engine import make_url

    url = make_url(server_url)
    admin = url.set(drivername="postgresql").render_as_string(hide_password=False)
    name = database_name(url.database or "reval", os.environ.get("PYTEST_XDIST_WORKER", "main"))
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    try:
        yield url.set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(admin, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
