"""The run store: evaluation runs persisted with SQLAlchemy (SQLite by default,
PostgreSQL for shared history), schema managed by Alembic migrations.

``store`` holds ``RunStore``, ``url`` the database URL (default, masking, resolving),
``summaries`` what run listings return.
"""
