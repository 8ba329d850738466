"""Create and upgrade the schema with Alembic, safely when several processes open a new
database at once: the upgrade runs under a lock (SQLite ``BEGIN IMMEDIATE``, PostgreSQL
``pg_advisory_xact_lock``) and re-reads the version after taking it."""

from __future__ import annotations

import logging
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, text
from sqlalchemy.engine import URL

from retrieval_eval.errors import StoreError
from retrieval_eval.store.engine import BEGIN_MODE, with_retry
from retrieval_eval.store.url import mask

log = logging.getLogger(__name__)

MIGRATIONS = Path(__file__).with_name("migrations")
#: Our own version table, so that reval can share a PostgreSQL database with an
#: application that uses Alembic too.
VERSION_TABLE = "reval_alembic_version"
#: pg_advisory_xact_lock key (any fixed 64-bit value unique to reval migrations).
ADVISORY_LOCK_KEY = 0x5EF1_A3C0_9D2B_4E17


def alembic_config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("version_table", VERSION_TABLE)
    return config


def head_revision() -> str:
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"version_table": VERSION_TABLE})
        return context.get_current_revision()


def ensure_schema(engine: Engine, url: URL, lock_timeout_s: float) -> None:
    """Bring the database to the head revision; a no-op (one read) when it already is."""
    config = alembic_config()
    script = ScriptDirectory.from_config(config)
    head = script.get_current_head()
    current = with_retry(url, "reading the schema version", lock_timeout_s,
                         lambda: current_revision(engine))  # fmt: skip
    if current == head:
        return
    if current is not None and current not in {s.revision for s in script.walk_revisions()}:
        raise StoreError(
            f"run store {mask(url)} has schema revision {current!r}, newer than this reval "
            f"knows (head {head!r}): upgrade reval"
        )

    def upgrade() -> None:
        options = {BEGIN_MODE: "IMMEDIATE"}
        with engine.connect().execution_options(**options) as connection, connection.begin():
            if connection.dialect.name == "postgresql":
                connection.execute(text("SELECT pg_advisory_xact_lock(:key)"),
                                   {"key": ADVISORY_LOCK_KEY})  # fmt: skip
            config.attributes["connection"] = connection
            command.upgrade(config, "head")

    log.info("migrating run store %s from %s to %s", mask(url), current, head)
    with_retry(url, "migrating the schema", lock_timeout_s, upgrade)
