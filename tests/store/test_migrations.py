"""The schema is made by the Alembic migrations alone, and matches the table definitions."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, inspect, text
from support.factory import make_run

from retrieval_eval.errors import StoreError
from retrieval_eval.store.models import metadata
from retrieval_eval.store.schema import HEAD, VERSION_TABLE, head_revision
from retrieval_eval.store.store import RunStore


def test_migration_from_an_empty_database(store_url):
    engine = create_engine(store_url)
    try:
        assert not inspect(engine).get_table_names()
        RunStore.open(store_url).close()
        tables = set(inspect(engine).get_table_names())
        assert tables == {"reval_runs", "reval_run_labels", "reval_outcomes", VERSION_TABLE}
        with engine.connect() as conn:
            version = conn.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).scalar()
            assert version == head_revision()
            context = MigrationContext.configure(conn, opts={"version_table": VERSION_TABLE})
            assert compare_metadata(context, metadata) == []
    finally:
        engine.dispose()


def test_reopening_keeps_data_and_does_not_migrate_again(store_url):
    with RunStore.open(store_url) as store:
        run_id = store.save(make_run("13"))
    with RunStore.open(store_url) as store:
        assert store.get(run_id).questions[1].hits == {1: False, 3: True}


def test_a_schema_newer_than_this_reval_is_refused(store_url):
    RunStore.open(store_url).close()
    engine = create_engine(store_url)
    with engine.begin() as conn:
        conn.execute(text(f"UPDATE {VERSION_TABLE} SET version_num = '9999_future'"))
    engine.dispose()
    with pytest.raises(StoreError, match="schema revision '9999_future', newer than this reval"):
        RunStore.open(store_url)


def test_sqlite_store_uses_write_ahead_logging(tmp_path):
    path = tmp_path / "runs.sqlite"
    RunStore.open(str(path)).close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_the_known_head_is_the_newest_migration():
    assert head_revision() == HEAD


OPEN_AND_REPORT = """
import sys
from retrieval_eval.store.store import RunStore
with RunStore.open(sys.argv[1]) as store:
    store.list_runs()
print(sorted(m for m in ("alembic", "mako") if m in sys.modules))
"""


def test_opening_an_up_to_date_store_leaves_alembic_unimported(store_url):
    """Start-up cost: an up-to-date store is recognised with one query; only a store
    that needs migrating loads Alembic."""

    def imported() -> str:
        done = subprocess.run([sys.executable, "-c", OPEN_AND_REPORT, store_url],
                              capture_output=True, text=True, check=True, timeout=120)  # fmt: skip
        return done.stdout.strip()

    assert imported() == "['alembic', 'mako']"  # creates the schema
    assert imported() == "[]"
