"""Create and upgrade the schema with Alembic, safely when several processes open a new
database at once: the upgrade runs under a lock (SQLite ``BEGIN IMMEDIATE``, PostgreSQL
``pg_advisory_xact_lock``) and re-reads the version after taking it.

Opening a store that is already up to date is one plain query and never imports Alembic
(a large share of a short command's start-up otherwise)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Engine, text
from sqlalchemy.engine import URL
from sqlalchemy.exc import OperationalError, ProgrammingError

from retrieval_eval.errors import StoreError
from retrieval_eval.store.engine import BEGIN_MODE, with_retry
from retrieval_eval.store.url import mask

if TYPE_CHECKING:
    from alembic.config import Config

log = logging.getLogger(__name__)

MIGRATIONS = Path(__file__).with_name("migrations")
#: Our own version table, so that reval can share a PostgreSQL database with an
#: application that uses Alembic too.
VERSION_TABLE = "reval_alembic_version"
#: pg_advisory_xact_lock key (any fixed 64-bit value unique to reval migrations).
ADVISORY_LOCK_KEY = 0x5EF1_A3C0_9D2B_4E17
#: The newest migration's revision (a test checks that it is Alembic's head).
HEAD = "0003"


def alembic_config() -> Config:
    # Alembic only to migrate: a store at head opens without it
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("version_table", VERSION_TABLE)
    return config


def head_revision() -> str:
    # Alembic only to migrate: a store at head opens without it
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


def current_revision(engine: Engine) -> str | None:
    # Alembic only to migrate: a store at head opens without it
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"version_table": VERSION_TABLE})
        return context.get_current_revision()


def recorded_revision(engine: Engine) -> str | None:
    """The revision in the version table, read with plain SQL; None when the database has
    no version table yet. Other failures propagate (``with_retry`` names them)."""
    try:
        with engine.connect() as connection:
            found = connection.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).all()
    except (OperationalError, ProgrammingError) as e:
        if isinstance(e, ProgrammingError) or "no such table" in str(e.orig).lower():
            return None
        raise
    return str(found[0][0]) if len(found) == 1 else None


def ensure_schema(engine: Engine, url: URL, lock_timeout_s: float) -> None:
    """Bring the database to the head revision; a no-op (one read) when it already is."""
    recorded = with_retry(url, "reading the schema version", lock_timeout_s,
                          lambda: recorded_revision(engine))  # fmt: skip
    if recorded == HEAD:
        return
    _migrate(engine, url, lock_timeout_s)


def _migrate(engine: Engine, url: URL, lock_timeout_s: float) -> None:
    # Alembic only to migrate: a store at head opens without it
    from alembic import command
    from alembic.script import ScriptDirectory

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
