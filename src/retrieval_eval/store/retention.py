"""Retention: which runs ``prune`` deletes, and deleting them with their rows.

Each set x lineage keeps its ``keep`` newest runs, plus its pinned run and its newest
accepted run (its baseline), whatever their age (``queries.prune_plan``).
"""

from __future__ import annotations

from sqlalchemy import Connection, delete, select

from retrieval_eval.store import queries
from retrieval_eval.store.models import label_table, outcome_table, run_table


def delete_old_runs(conn: Connection, keep: int) -> int:
    """Delete what ``prune(keep)`` removes; how many runs that was."""
    doomed = queries.prune_victims(conn, keep)
    for i in range(0, len(doomed), queries.BATCH):
        chunk = doomed[i : i + queries.BATCH]
        conn.execute(delete(outcome_table).where(outcome_table.c.run_pk.in_(chunk)))
        conn.execute(delete(label_table).where(label_table.c.run_pk.in_(chunk)))
        conn.execute(delete(run_table).where(run_table.c.pk.in_(chunk)))
    return len(doomed)


def prune_plan(conn: Connection, keep: int) -> tuple[list[str], list[tuple[str, str]]]:
    """(deleted, kept): the run ids ``prune(keep)`` would delete, and those beyond
    ``keep`` it keeps with the reason, newest first."""
    doomed, kept = queries.prune_plan(conn, keep)
    wanted = [*doomed, *kept]
    found: dict[int, str] = {}
    for i in range(0, len(wanted), queries.BATCH):
        chunk = wanted[i : i + queries.BATCH]
        rows = conn.execute(
            select(run_table.c.pk, run_table.c.run_id).where(run_table.c.pk.in_(chunk))
        )
        found.update((pk, run_id) for pk, run_id in rows)
    return [found[pk] for pk in doomed], [(found[pk], why) for pk, why in kept.items()]
