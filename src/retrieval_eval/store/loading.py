"""Whole runs out of the store, many at a time: the runs a query selects, their labels
and their outcomes in a few queries (batches of ids), not a round trip per run.

Outcomes are packed by column as they are read (``outcomes.CompactOutcomes``), so a
reloaded run (a baseline, ``runs show``) takes the memory of the run that was saved."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, Select, select

from retrieval_eval.errors import UnknownNameError
from retrieval_eval.outcomes.compact import CompactOutcomeBuilder, CompactOutcomes
from retrieval_eval.records.run import RunResult
from retrieval_eval.store import graded, queries, serialize
from retrieval_eval.store.models import label_table, outcome_table, run_table
from retrieval_eval.store.stored_run import StoredRun

#: Outcome rows fetched from the database at a time: a big run's rows are never all
#: in the driver's buffers at once.
_ROWS_AT_ONCE = 10_000
_OUTCOME_COLUMNS = [outcome_table.c[c] for c in serialize.OUTCOME_COLUMNS]


def stored_runs(conn: Connection, query: Select[Any], outcomes: bool = True) -> list[StoredRun]:
    """Every run ``query`` (a ``select(run_table)``) returns, in its order, with labels,
    outcomes in question order (none read without ``outcomes``), stored verdict and pin."""
    rows = conn.execute(query).mappings().all()
    pks = [row["pk"] for row in rows]
    labels = _labels(conn, pks)
    packed, judged = _outcomes(conn, pks) if outcomes else ({}, {})
    return [
        StoredRun(
            serialize.run_from_row(row, labels.get(pk, {}), _built(packed.get(pk)), judged.get(pk)),
            row["verdict_json"],
            bool(row["pinned"]),
            row["lineage"] or "",
            serialize.acceptance_from_row(row),
            serialize.accepted_from_row(row),
            None if outcomes else (row["question_count"], row["error_count"]),
            serialize.rescored_from_row(row),
        )
        for pk, row in zip(pks, rows, strict=True)
    ]


def _built(packed: CompactOutcomeBuilder | None) -> CompactOutcomes:
    return (packed or CompactOutcomeBuilder()).build()


def _chunks(pks: Sequence[int]) -> list[Sequence[int]]:
    size = queries.BATCH
    return [pks[i : i + size] for i in range(0, len(pks), size)]


def _labels(conn: Connection, pks: Sequence[int]) -> dict[int, dict[str, str]]:
    found: dict[int, dict[str, str]] = {}
    for chunk in _chunks(pks):
        query = select(label_table.c.run_pk, label_table.c.key, label_table.c.value)
        for run_pk, key, value in conn.execute(query.where(label_table.c.run_pk.in_(chunk))):
            found.setdefault(run_pk, {})[key] = value
    return found


Judged = dict[str, tuple[tuple[str, int], ...]]


def _outcomes(
    conn: Connection, pks: Sequence[int]
) -> tuple[dict[int, CompactOutcomeBuilder], dict[int, Judged]]:
    """Each run's outcomes, and its questions' stored judgments (``RunResult.judgments``)."""
    found: dict[int, CompactOutcomeBuilder] = {}
    judged: dict[int, Judged] = {}
    for chunk in _chunks(pks):
        query = (
            select(outcome_table.c.run_pk, *_OUTCOME_COLUMNS, outcome_table.c.judgments)
            .where(outcome_table.c.run_pk.in_(chunk))
            .order_by(outcome_table.c.run_pk, outcome_table.c.position)
            .execution_options(yield_per=_ROWS_AT_ONCE)  # PostgreSQL: a server-side cursor
        )
        for row in conn.execute(query):
            packed = found.get(row[0])
            if packed is None:
                packed = found[row[0]] = CompactOutcomeBuilder()
            packed.add(serialize.outcome_from_tuple(row[1:-1]))
            grades = graded.decode_judgments(row[-1])
            if grades is not None:
                judged.setdefault(row[0], {})[row[1]] = grades
    return found, judged


def load_run(conn: Connection, run_id: str, outcomes: bool = True) -> RunResult:
    """The run stored as ``run_id`` exactly; without ``outcomes``, its questions are not
    read (an empty sequence)."""
    found = stored_runs(conn, select(run_table).where(run_table.c.run_id == run_id), outcomes)
    if not found:  # deleted (pruned) since its id was found
        raise UnknownNameError("run", run_id)
    return found[0].run
