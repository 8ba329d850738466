"""Moving and finding baselines: pinning, unpinning and accepting a run; the baseline and
the drift reference a verdict on a run is measured against.

A lineage's baseline is its pinned run, else its newest accepted run (``queries.
baseline_queries``); unpinning takes back an acceptance that was the pin alone.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Connection, case, update

from retrieval_eval.records.run import RunResult
from retrieval_eval.store import queries, serialize
from retrieval_eval.store.loading import load_run
from retrieval_eval.store.models import run_table
from retrieval_eval.store.stored_run import Accepted, HowAccepted

#: Unpinning takes back an acceptance that was the pin alone (``HowAccepted.PINNED``).
_UNPINNED = {
    "accepted_how": case(
        (run_table.c.accepted_how == HowAccepted.PINNED.value, None),
        else_=run_table.c.accepted_how,
    )
}


def pin(conn: Connection, run_id: str, set_name: str, lineage: str) -> None:
    """Pin ``run_id`` in place of any other pinned run of its set x lineage; a run not
    accepted otherwise is accepted by its pin (``HowAccepted.PINNED``)."""
    same = (run_table.c.set_name == set_name) & (run_table.c.lineage == lineage)
    pinned = same & (run_table.c.pinned.is_(True))
    conn.execute(update(run_table).where(pinned).values(pinned=False, **_UNPINNED))
    this = run_table.c.run_id == run_id
    conn.execute(update(run_table).where(this).values(pinned=True))
    conn.execute(
        update(run_table)
        .where(this, run_table.c.accepted_how.is_(None))
        .values(serialize.accepted_columns(Accepted(HowAccepted.PINNED)))
    )


def unpin(conn: Connection, run_id: str) -> None:
    conn.execute(
        update(run_table).where(run_table.c.run_id == run_id).values(pinned=False, **_UNPINNED)
    )


def accept(conn: Connection, run_id: str, reason: str, by: str, at: datetime) -> None:
    """Record that ``by`` accepted ``run_id`` at ``at`` for ``reason`` (replacing any
    earlier acceptance)."""
    values = {
        "accepted_at": at.isoformat(),
        "accepted_by": by,
        "accepted_reason": reason,
        **serialize.accepted_columns(Accepted(HowAccepted.PERSON)),
    }
    conn.execute(update(run_table).where(run_table.c.run_id == run_id).values(**values))


def drift_reference(conn: Connection, run: RunResult) -> RunResult | None:
    """``RunStore.drift_reference``: none while a run of the lineage is pinned."""
    pinned, _ = queries.baseline_queries(run)
    if conn.scalar(pinned) is not None:
        return None
    found = conn.scalar(queries.drift_reference_query(run))
    return None if found is None else load_run(conn, str(found))


def judging_runs(
    conn: Connection, run: RunResult, drift: bool
) -> tuple[RunResult | None, RunResult | None]:
    """``RunStore.judging_runs`` without a named baseline: each run loaded once."""
    pinned, latest = queries.baseline_queries(run)
    found = conn.scalar(pinned)
    if found is not None:  # a pinned baseline is the drift reference itself
        return load_run(conn, str(found)), None
    found = conn.scalar(latest)
    if found is None:
        return None, None
    baseline = load_run(conn, str(found))
    reference = conn.scalar(queries.drift_reference_query(run)) if drift else None
    if reference is None or str(reference) == baseline.run_id:
        return baseline, None if reference is None else baseline
    return baseline, load_run(conn, str(reference), outcomes=False)
