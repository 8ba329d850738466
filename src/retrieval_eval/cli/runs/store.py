"""The run store as the ``runs`` commands use it: opened for one command, then closed."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from retrieval_eval.store.store import RunStore


@contextmanager
def open_run_store(db_url: str | None) -> Iterator[RunStore]:
    from retrieval_eval.store.store import RunStore

    store = RunStore.open(db_url)
    try:
        yield store
    finally:
        store.close()
