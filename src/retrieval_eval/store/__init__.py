"""The run store: evaluation runs persisted with SQLAlchemy (SQLite by default,
PostgreSQL for shared history), schema managed by Alembic migrations."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from retrieval_eval.store.store import RunStore
from retrieval_eval.store.url import default_url, mask, resolve_url

if TYPE_CHECKING:
    from retrieval_eval.store.summaries import RunSummary

__all__ = ["RunStore", "RunSummary", "default_url", "mask", "resolve_url"]


def __getattr__(name: str) -> Any:
    """``RunSummary`` is imported when first used (listings): evaluating does not need it."""
    if name != "RunSummary":
        raise AttributeError(f"module 'retrieval_eval.store' has no attribute {name!r}")
    from retrieval_eval.store.summaries import RunSummary

    return RunSummary
