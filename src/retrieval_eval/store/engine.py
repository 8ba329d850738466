"""Engines for the run store and the translation of database failures into StoreError.

SQLite: WAL journal (readers never block the writer), a busy timeout, and transactions
that reval begins itself, ``BEGIN IMMEDIATE`` for writes so that concurrent writers queue
on the lock instead of failing half-way. PostgreSQL: psycopg 3 with a connect timeout.

SQLite files that must not be written stay untouched:

- A file on a read-only file system (a mounted snapshot, an archive disc) is opened
  read-only and immutable (SQLite then needs no ``-wal``/``-shm`` file, which it could
  not create there), and a file reval may not write is opened read-only: listing and
  showing its runs work; a write is one line saying the store is read-only.
- Before a process first writes to a file (its first ``BEGIN IMMEDIATE``: a save, a pin,
  a migration), ``PRAGMA quick_check`` reads every page once; a corrupted file is then
  refused with one line instead of receiving runs and judging against what it holds.
  (``quick_check`` leaves out ``integrity_check``'s index-against-table comparison, which
  costs several times more; see docs/benchmarks.md for the figures.)
"""

from __future__ import annotations

import logging
import os
import random
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import URL
from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from retrieval_eval.errors import InputError, StoreError
from retrieval_eval.store.url import is_default_location, mask, sqlite_path

log = logging.getLogger(__name__)
T = TypeVar("T")

#: Execution option read by the SQLite ``begin`` hook: "DEFERRED" or "IMMEDIATE".
BEGIN_MODE = "reval_sqlite_begin"
CONNECT_TIMEOUT_S = 10


def create_store_engine(url: URL, lock_timeout_s: float) -> Engine:
    if url.get_backend_name() == "sqlite":
        return _sqlite_engine(url, lock_timeout_s)
    return _postgres_engine(url, lock_timeout_s)


def _postgres_engine(url: URL, lock_timeout_s: float) -> Engine:
    connect_args: dict[str, Any] = {"connect_timeout": CONNECT_TIMEOUT_S}
    engine = create_engine(url, pool_pre_ping=True, connect_args=connect_args)
    lock_ms = max(1, int(lock_timeout_s * 1000))

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Waiting on a lock (e.g. the migration lock of a stuck process) ends in an error
        # that ``with_retry`` reports as "locked", instead of hanging forever.
        with dbapi_connection.cursor() as cursor:
            cursor.execute(f"SET lock_timeout = {lock_ms}")
        dbapi_connection.commit()

    return engine


def _sqlite_engine(url: URL, lock_timeout_s: float) -> Engine:
    path = sqlite_path(url)
    access = sqlite_access(path)
    connect_args: dict[str, Any] = {"timeout": lock_timeout_s}
    if path is not None and access != WRITABLE:
        read_only = f"file:{quote(str(path))}?mode=ro" + (
            "&immutable=1" if access == FROZEN else ""
        )
        connect_args["uri"] = True
        engine = create_engine(
            url, connect_args=connect_args, creator=_opener(read_only, connect_args)
        )
    else:
        engine = create_engine(url, connect_args=connect_args)
    busy_ms = int(lock_timeout_s * 1000)
    checked: list[bool] = []  # whether this engine's file passed its integrity check

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # the "begin" hook below emits BEGIN
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {busy_ms}")
            cursor.execute("PRAGMA foreign_keys = ON")
            if path is not None and access == WRITABLE:  # a read-only file keeps its mode
                cursor.execute("PRAGMA journal_mode = WAL")
                cursor.execute("PRAGMA synchronous = NORMAL")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        mode = connection.get_execution_options().get(BEGIN_MODE, "DEFERRED")
        if mode == "IMMEDIATE" and path is not None and not checked:
            _check_integrity(connection, url)
            checked.append(True)
        connection.exec_driver_sql(f"BEGIN {mode}")

    return engine


#: How reval may open a SQLite file: write it, only read it, or read it as immutable
#: (on a read-only file system, where nothing can change it).
WRITABLE, READ_ONLY, FROZEN = "writable", "read-only", "frozen"


def sqlite_access(path: Path | None) -> str:
    """``WRITABLE`` for a file reval may write (or one still to be created, or memory)."""
    if path is None or not path.exists():
        return WRITABLE
    try:
        if os.statvfs(path).f_flag & os.ST_RDONLY:
            return FROZEN
    except OSError:  # pragma: no cover - statvfs of an existing file
        return WRITABLE
    writable = os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)
    return WRITABLE if writable else READ_ONLY


def _opener(uri: str, connect_args: dict[str, Any]) -> Callable[[], Any]:
    def connect() -> Any:
        return sqlite3.connect(uri, timeout=connect_args["timeout"], uri=True,
                               check_same_thread=False)  # fmt: skip

    return connect


def _check_integrity(connection: Connection, url: URL) -> None:
    """Refuse to write to a file whose pages do not hold together (``quick_check``)."""
    found = [str(row[0]) for row in connection.exec_driver_sql("PRAGMA quick_check(1)")]
    if found != ["ok"]:
        said = " ".join(" ".join(found).replace("*** in database main ***", "").split())
        raise StoreError(
            f"run store {mask(url)} is corrupted (SQLite's quick_check: {said[:160]}); "
            "nothing was written: restore it from a backup or choose another with --db / "
            "REVAL_DATABASE_URL"
        )


def is_locked(error: BaseException) -> bool:
    text = str(getattr(error, "orig", error)).lower()
    needles = ("database is locked", "database is busy", "sqlite_busy", "lock timeout")
    return any(n in text for n in needles)


def store_error(url: URL, error: BaseException, action: str) -> StoreError:
    """One clear line naming the database (password masked) and what went wrong."""
    where = mask(url)
    orig = getattr(error, "orig", None) or error
    detail = str(orig).strip().splitlines()[0] if str(orig).strip() else type(orig).__name__
    lowered = detail.lower()
    if is_locked(error):
        return StoreError(
            f"run store {where} is locked: {action} gave up waiting for another writer ({detail})"
        )
    if "readonly database" in lowered or "read-only" in lowered:
        return StoreError(
            f"run store {where} is read-only: {action} needs to write ({detail}); "
            "reading it (runs list, show, history) works as it is"
        )
    if "not a database" in lowered or "malformed" in lowered or "corrupt" in lowered:
        return StoreError(
            f"run store {where} is corrupted or not a reval database ({detail}); "
            "move the file away or choose another with --db / REVAL_DATABASE_URL"
        )
    if (isinstance(error, DBAPIError) and error.connection_invalidated) or _unreachable(lowered):
        return StoreError(f"cannot reach run store {where}: {detail}")
    return StoreError(f"run store {where}: {action} failed: {detail}")


def _unreachable(lowered: str) -> bool:
    needles = ("connection refused", "could not connect", "connection failed", "timeout expired",
               "failed to resolve host", "could not translate host", "unable to open database",
               "server closed")  # fmt: skip
    return any(n in lowered for n in needles)


@contextmanager
def translated(url: URL, action: str) -> Iterator[None]:
    """Turn any database failure inside the block into a StoreError."""
    try:
        yield
    except StoreError:
        raise
    except (SQLAlchemyError, OSError) as e:
        raise store_error(url, e, action) from e


def with_retry(url: URL, action: str, lock_timeout_s: float, work: Callable[[], T]) -> T:
    """Run ``work`` (one whole transaction), retrying while the database is locked.

    SQLite already waits ``busy_timeout`` inside each statement; this loop also covers the
    cases where SQLite reports busy without waiting, until ``lock_timeout_s`` is spent.
    """
    deadline = time.monotonic() + lock_timeout_s
    delay = 0.01
    while True:
        try:
            with translated(url, action):
                return work()
        except StoreError as e:
            if not (e.__cause__ and is_locked(e.__cause__)) or time.monotonic() >= deadline:
                raise
            log.debug("run store %s locked during %s; retrying", mask(url), action)
            time.sleep(min(delay * (1 + random.random()), max(0.0, deadline - time.monotonic())))
            delay = min(delay * 2, 0.5)


def prepare_directory(url: URL, path: Path) -> None:
    """Create the default store's directory on first use; an explicit path's directory
    must exist (a typo should not silently create a tree)."""
    with translated(url, "creating the store directory"):
        if is_default_location(url):
            path.parent.mkdir(parents=True, exist_ok=True)
        elif not path.parent.is_dir():
            raise InputError(
                f"directory {str(path.parent)!r} of run store {mask(url)} does not exist"
            )
