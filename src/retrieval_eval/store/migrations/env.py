"""Alembic environment: always given an open connection by the run store (see
``retrieval_eval.store.schema``), which holds the migration lock around it."""

from __future__ import annotations

from alembic import context

from retrieval_eval.store.models import metadata

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("reval migrations run through RunStore.open(), which passes a connection")

context.configure(
    connection=connection,
    target_metadata=metadata,
    version_table=context.config.get_main_option("version_table") or "reval_alembic_version",
    render_as_batch=connection.dialect.name == "sqlite",
)
with context.begin_transaction():
    context.run_migrations()
