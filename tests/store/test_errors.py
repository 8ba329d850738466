"""Database failures become one clear StoreError naming the URL, password masked."""

from __future__ import annotations

import socket
import sqlite3
import threading

import pytest
from support.factory import make_run

from retrieval_eval.errors import InfrastructureError, StoreError
from retrieval_eval.store.store import RunStore


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_text_file_posing_as_the_database(tmp_path):
    path = tmp_path / "runs.sqlite"
    path.write_text("these are my notes, not a database\n" * 100)
    with pytest.raises(StoreError) as caught:
        RunStore.open(str(path))
    message = str(caught.value)
    assert f"run store sqlite:///{path} is corrupted or not a reval database" in message
    assert "file is not a database" in message
    assert isinstance(caught.value, InfrastructureError)
    assert "\n" not in message


def test_a_truncated_database_file(tmp_path):
    path = tmp_path / "runs.sqlite"
    with RunStore.open(str(path)) as store:
        store.save(make_run("13" * 50))
    data = path.read_bytes()
    path.write_bytes(data[:100] + b"\x00garbage" * 64)
    with pytest.raises(StoreError, match="corrupted or not a reval database"):
        RunStore.open(str(path))


def test_an_unreachable_server_masks_the_password():
    url = f"postgresql://reval:hunter2@127.0.0.1:{free_port()}/history"
    with pytest.raises(StoreError) as caught:
        RunStore.open(url)
    message = str(caught.value)
    assert message.startswith("cannot reach run store postgresql+psycopg://reval:***@127.0.0.1:"), (
        message
    )
    assert "hunter2" not in message and "hunter2" not in repr(caught.value.__cause__ or "")


@pytest.mark.postgres
def test_an_unknown_postgres_database(postgres_url):
    from sqlalchemy.engine import make_url

    url = make_url(postgres_url).set(database="no_such_database_here")
    with pytest.raises(StoreError, match="no_such_database_here"):
        RunStore.open(url.render_as_string(hide_password=False))


def test_locked_beyond_the_timeout(tmp_path):
    path = tmp_path / "runs.sqlite"
    RunStore.open(str(path)).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another writer that never lets go
    try:
        with RunStore.open(str(path), lock_timeout_s=0.3) as store:
            with pytest.raises(StoreError) as caught:
                store.save(make_run("13"))
            assert f"run store sqlite:///{path} is locked" in str(caught.value)
            assert store.list_runs() == []  # readers are not blocked (WAL)
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_a_writer_that_lets_go_in_time_is_waited_for(tmp_path):
    path = tmp_path / "runs.sqlite"
    RunStore.open(str(path)).close()
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    release = threading.Timer(0.3, lambda: holder.execute("COMMIT"))
    release.start()
    try:
        with RunStore.open(str(path), lock_timeout_s=10) as store:
            run_id = store.save(make_run("13"))
            assert store.get(run_id).run_id == run_id
    finally:
        release.join()
        holder.close()


@pytest.mark.postgres
def test_postgres_migration_lock_held_beyond_the_timeout(pg_schema_url):
    import psycopg
    from sqlalchemy.engine import make_url

    from retrieval_eval.store.schema import ADVISORY_LOCK_KEY

    libpq = make_url(pg_schema_url).set(drivername="postgresql").render_as_string(False)
    with psycopg.connect(libpq) as holder:  # a process stuck inside its migration
        holder.execute("SELECT pg_advisory_xact_lock(%s)", (ADVISORY_LOCK_KEY,))
        with pytest.raises(StoreError, match="is locked: migrating the schema gave up"):
            RunStore.open(pg_schema_url, lock_timeout_s=0.3)
    RunStore.open(pg_schema_url).close()  # released: the migration goes through
