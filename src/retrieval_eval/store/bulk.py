"""Bulk insertion of per-question rows, the one hot path of the store.

Rows are plain tuples handed straight to the driver: ``executemany`` on SQLite, ``COPY``
on PostgreSQL. Going through SQLAlchemy's per-row parameter processing doubled the time
to save a 100,000-question run (see benchmarks/bench_store.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection


def insert_rows(
    conn: Connection, table: str, columns: Sequence[str], rows: Sequence[tuple[Any, ...]]
) -> None:
    if not rows:
        return
    names = ", ".join(columns)
    if conn.dialect.name == "postgresql":
        driver_connection: Any = conn.connection.driver_connection
        with (
            driver_connection.cursor() as cursor,
            cursor.copy(f"COPY {table} ({names}) FROM STDIN") as copy,
        ):
            for row in rows:
                copy.write_row(row)
        return
    marks = ", ".join("?" * len(columns))
    conn.exec_driver_sql(f"INSERT INTO {table} ({names}) VALUES ({marks})", list(rows))
