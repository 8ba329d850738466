"""Alembic migrations of the run store, run programmatically by ``RunStore.open``."""
