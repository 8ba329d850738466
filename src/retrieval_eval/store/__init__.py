"""The run store: evaluation runs persisted with SQLAlchemy (SQLite by default,
PostgreSQL for shared history), schema managed by Alembic migrations."""

from __future__ import annotations

from retrieval_eval.store.store import RunStore
from retrieval_eval.store.summaries import RunSummary
from retrieval_eval.store.url import default_url, mask, resolve_url

__all__ = ["RunStore", "RunSummary", "default_url", "mask", "resolve_url"]
