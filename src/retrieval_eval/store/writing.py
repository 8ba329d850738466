"""Writing a run: its ``reval_runs`` row, then its per-question rows and labels; outcomes
in batches (a big run is never encoded whole at once), each with the judgments its
question was scored against. A run accepted as its lineage's first is written only if
no run of the lineage was accepted first (``insert_first_run``)."""

from __future__ import annotations

import hashlib
from typing import Any

from sqlalchemy import Connection, insert, text
from sqlalchemy.exc import IntegrityError

from retrieval_eval.records.run import RunResult
from retrieval_eval.store import graded, queries, serialize
from retrieval_eval.store.bulk import insert_rows
from retrieval_eval.store.models import label_table, outcome_table, run_table
from retrieval_eval.store.stored_run import FirstRunRaced

#: Outcome rows encoded and sent per batch.
SAVE_BATCH = 5_000
COLUMNS = ("run_pk", "position", *serialize.OUTCOME_ROW_COLUMNS, "judgments")


def insert_run_rows(conn: Connection, pk: int, run: RunResult) -> None:
    """The outcome and label rows of the run stored under primary key ``pk``."""
    questions = run.questions
    for start in range(0, len(questions), SAVE_BATCH):
        batch = serialize.outcome_rows(questions[start : start + SAVE_BATCH])
        judged = graded.judgments_column(run, (outcome[0] for outcome in batch))
        rows = [
            (pk, start + i, *outcome, grades)
            for i, (outcome, grades) in enumerate(zip(batch, judged, strict=True))
        ]
        insert_rows(conn, outcome_table.name, COLUMNS, rows)
    if run.labels:
        labels = [{"run_pk": pk, "key": k, "value": v} for k, v in run.labels.items()]
        conn.execute(insert(label_table), labels)


def insert_run(conn: Connection, row: dict[str, Any], run: RunResult) -> None:
    key = conn.execute(insert(run_table), row).inserted_primary_key
    assert key is not None
    insert_run_rows(conn, key[0], run)


def insert_first_run(conn: Connection, row: dict[str, Any], run: RunResult) -> None:
    """Insert a run accepted as the first of its lineage, unless one was stored first.

    The check and the insert are one transaction under the lineage's lock (SQLite: the
    store's ``BEGIN IMMEDIATE`` write lock; PostgreSQL: a transaction-level advisory lock
    on the set and lineage), so of two first runs at once exactly one is accepted as such.
    """
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"),
                     {"key": _lineage_lock_key(run.set_name, row["lineage"])})  # fmt: skip
    winner = conn.scalar(queries.lineage_taken(run))
    if winner is not None:
        raise FirstRunRaced(str(winner))
    insert_run(conn, row, run)


def _lineage_lock_key(set_name: str, lineage: str) -> int:
    """A signed 64-bit advisory-lock key for one set x lineage."""
    digest = hashlib.sha256(f"reval-lineage\0{set_name}\0{lineage}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def id_taken(error: IntegrityError) -> bool:
    """Whether ``error`` says the run id is already stored."""
    message = str(error.orig).lower()
    return "run_id" in message or "reval_runs" in message
