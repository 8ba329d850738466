"""Every store test runs on a SQLite file and on PostgreSQL (fixtures in ``support.store``)."""

from __future__ import annotations

from support.store import pg_schema_url, store, store_url

__all__ = ["pg_schema_url", "store", "store_url"]
