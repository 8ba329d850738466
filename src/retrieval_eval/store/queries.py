"""The store's read queries: listings, baselines, id prefixes and retention victims."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import ColumnElement, Connection, Select, select

from retrieval_eval.records.run import RunResult, RunState
from retrieval_eval.store.models import label_table, run_table
from retrieval_eval.store.serialize import (
    acceptance_from_row,
    accepted_from_row,
    epoch,
    run_lineage,
    variant_from_row,
)

if TYPE_CHECKING:  # listings load it; judging a run does not
    from retrieval_eval.store.summaries import RunSummary

BATCH = 500  # ids per IN (...) clause
_NEWEST_FIRST = (run_table.c.started_ts.desc(), run_table.c.pk.desc())


def list_query(
    set_name: str | None,
    retriever: str | None,
    labels: Mapping[str, str] | None,
    state: RunState | None,
    limit: int | None,
    verdict: str | None = None,
) -> Select[Any]:
    query = select(run_table)
    if set_name is not None:
        query = query.where(run_table.c.set_name == set_name)
    if retriever is not None:
        from retrieval_eval.retrievers.lineage import lineage_of

        query = query.where(
            (run_table.c.retriever_identifier == retriever)
            | (run_table.c.retriever_target == retriever)
            | (run_table.c.lineage == lineage_of(retriever, retriever))
        )
    if state is not None:
        query = query.where(run_table.c.state == state.value)
    if verdict is not None:
        # "" selects runs saved without a regression check.
        query = (
            query.where(run_table.c.verdict_kind == verdict)
            if verdict
            else query.where((run_table.c.verdict_kind == "") | run_table.c.verdict_kind.is_(None))
        )
    for key, value in (labels or {}).items():
        labelled = select(label_table.c.run_pk).where(
            label_table.c.key == key, label_table.c.value == value
        )
        query = query.where(run_table.c.pk.in_(labelled))
    query = query.order_by(*_NEWEST_FIRST)
    return query if limit is None else query.limit(limit)


def accepted_clause() -> ColumnElement[bool]:
    """Runs that may be a baseline without a pin (``store.stored_run.is_accepted``):
    complete and explicitly accepted (``accepted_how``), never by a verdict alone."""
    return (run_table.c.state == RunState.COMPLETE.value) & run_table.c.accepted_how.is_not(None)


def lineage_taken(run: RunResult) -> Select[Any]:
    """The newest accepted or pinned complete run of ``run``'s set and lineage, whenever
    it started: a first run of the lineage must find none (``RunStore.save``)."""
    taken = same_lineage(run) & (
        accepted_clause()
        | (run_table.c.pinned.is_(True) & (run_table.c.state == RunState.COMPLETE.value))
    )
    return select(run_table.c.run_id).where(taken).order_by(*_NEWEST_FIRST).limit(1)


def same_lineage(run: RunResult) -> ColumnElement[bool]:
    """Runs of the same set and lineage as ``run``, never ``run`` itself."""
    same = (run_table.c.set_name == run.set_name) & (run_table.c.lineage == run_lineage(run))
    if run.run_id is not None:
        same = same & (run_table.c.run_id != run.run_id)
    return same


def baseline_queries(run: RunResult) -> tuple[Select[Any], Select[Any]]:
    """(pinned, newest accepted) run-id queries for the same set and lineage, never
    ``run`` itself; newest means started no later than ``run``."""
    same = same_lineage(run)
    pinned = select(run_table.c.run_id).where(same, run_table.c.pinned.is_(True))
    latest = select(run_table.c.run_id).where(
        same, accepted_clause(), run_table.c.started_ts <= epoch(run.started_at)
    )
    return pinned.order_by(*_NEWEST_FIRST).limit(1), latest.order_by(*_NEWEST_FIRST).limit(1)


def drift_reference_query(run: RunResult) -> Select[Any]:
    """The accepted run of ``run``'s lineage with the best top-1 rate since the newest
    run a person accepted (inclusive; else since the lineage began), started no later
    than ``run``: what slow drift is measured from."""
    same = same_lineage(run) & accepted_clause() & (run_table.c.started_ts <= epoch(run.started_at))
    since = (
        select(run_table.c.started_ts)
        .where(same, run_table.c.accepted_at.is_not(None))
        .order_by(*_NEWEST_FIRST)
        .limit(1)
        .scalar_subquery()
    )
    floor = select(run_table.c.run_id).where(same, run_table.c.top1_hit_rate.is_not(None))
    floor = floor.where((run_table.c.started_ts >= since) | since.is_(None))
    return floor.order_by(run_table.c.top1_hit_rate.desc(), *_NEWEST_FIRST).limit(1)


def ids_matching(conn: Connection, prefix: str) -> list[str]:
    """The exact id if stored, else up to six ids starting with ``prefix`` (literally)."""
    exact = conn.scalar(select(run_table.c.run_id).where(run_table.c.run_id == prefix))
    if exact is not None:
        return [exact]
    pattern = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    query = select(run_table.c.run_id).where(run_table.c.run_id.like(pattern + "%", escape="\\"))
    return list(conn.scalars(query.order_by(run_table.c.run_id).limit(6)))


#: Why ``prune`` keeps a run beyond the ``keep`` newest of its lineage.
KEPT_PINNED = "pinned baseline"
KEPT_ACCEPTED = "newest accepted run (the baseline)"


def prune_plan(conn: Connection, keep: int) -> tuple[list[int], dict[int, str]]:
    """(victims, kept beyond ``keep``): primary keys of runs beyond the ``keep`` newest of
    their set x lineage, except each lineage's pinned run and newest accepted run (its
    baseline, which pruning must never remove); those are returned with the reason."""
    run = run_table.c
    accepted = accepted_clause().label("accepted")
    rows = conn.execute(
        select(
            run.pk, run.set_name, run.lineage, run.retriever_identifier, run.pinned, accepted
        ).order_by(*_NEWEST_FIRST)
    ).all()
    seen: dict[tuple[str, str], int] = {}
    has_accepted: set[tuple[str, str]] = set()
    victims: list[int] = []
    kept: dict[int, str] = {}
    for pk, set_name, lineage, identifier, pinned, is_accepted in rows:
        key = (set_name, lineage or identifier)
        rank = seen[key] = seen.get(key, 0) + 1
        newest_accepted = bool(is_accepted) and key not in has_accepted
        if is_accepted:
            has_accepted.add(key)
        if rank <= keep:
            continue
        if pinned:
            kept[pk] = KEPT_PINNED
        elif newest_accepted:
            kept[pk] = KEPT_ACCEPTED
        else:
            victims.append(pk)
    return victims, kept


def prune_victims(conn: Connection, keep: int) -> list[int]:
    """Primary keys of the runs ``prune_plan`` deletes."""
    return prune_plan(conn, keep)[0]


def summaries(conn: Connection, query: Select[Any]) -> list[RunSummary]:
    # the listings' records only when listing
    from retrieval_eval.store.summaries import RunSummary

    rows = conn.execute(query).mappings().all()
    labels: dict[int, dict[str, str]] = {}
    pks = [r["pk"] for r in rows]
    for i in range(0, len(pks), BATCH):
        chunk = select(label_table.c.run_pk, label_table.c.key, label_table.c.value).where(
            label_table.c.run_pk.in_(pks[i : i + BATCH])
        )
        for run_pk, key, value in conn.execute(chunk):
            labels.setdefault(run_pk, {})[key] = value
    return [
        RunSummary(
            run_id=r["run_id"],
            set_name=r["set_name"],
            set_fingerprint=r["set_fingerprint"],
            retriever_identifier=r["retriever_identifier"],
            retriever_version=r["retriever_version"],
            retriever_target=r["retriever_target"],
            state=RunState(r["state"]),
            started_at=datetime.fromisoformat(r["started_at"]),
            finished_at=datetime.fromisoformat(r["finished_at"]),
            question_count=r["question_count"],
            error_count=r["error_count"],
            top1_hit_rate=r["top1_hit_rate"],
            top3_hit_rate=r["top3_hit_rate"],
            pinned=bool(r["pinned"]),
            labels=labels.get(r["pk"], {}),
            variant=variant_from_row(r),
            verdict_kind=r["verdict_kind"] or "",
            baseline_run_id=r["baseline_run_id"],
            lineage=r["lineage"] or "",
            acceptance=acceptance_from_row(r),
            how_accepted=accepted_from_row(r),
        )
        for r in rows
    ]
