"""The store's read queries: listings, baselines, id prefixes and retention victims."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Select, select

from retrieval_eval.records import RunResult, RunState
from retrieval_eval.store.models import LabelRow, RunRow
from retrieval_eval.store.serialize import epoch, variant_from_row
from retrieval_eval.store.summaries import RunSummary

BATCH = 500  # ids per IN (...) clause
_NEWEST_FIRST = (RunRow.started_ts.desc(), RunRow.pk.desc())


def list_query(
    set_name: str | None,
    retriever: str | None,
    labels: Mapping[str, str] | None,
    state: RunState | None,
    limit: int | None,
    verdict: str | None = None,
) -> Select[Any]:
    query = select(RunRow)
    if set_name is not None:
        query = query.where(RunRow.set_name == set_name)
    if retriever is not None:
        query = query.where(
            (RunRow.retriever_identifier == retriever) | (RunRow.retriever_target == retriever)
        )
    if state is not None:
        query = query.where(RunRow.state == state.value)
    if verdict is not None:
        # "" selects runs saved without a regression check.
        query = (
            query.where(RunRow.verdict_kind == verdict)
            if verdict
            else query.where((RunRow.verdict_kind == "") | RunRow.verdict_kind.is_(None))
        )
    for key, value in (labels or {}).items():
        labelled = select(LabelRow.run_pk).where(LabelRow.key == key, LabelRow.value == value)
        query = query.where(RunRow.pk.in_(labelled))
    query = query.order_by(*_NEWEST_FIRST)
    return query if limit is None else query.limit(limit)


def baseline_queries(run: RunResult) -> tuple[Select[Any], Select[Any]]:
    """(pinned, latest complete) run-id queries for the same set and retriever
    identifier, never ``run`` itself; latest means started no later than ``run``."""
    same = (RunRow.set_name == run.set_name) & (
        RunRow.retriever_identifier == run.retriever.identifier
    )
    if run.run_id is not None:
        same = same & (RunRow.run_id != run.run_id)
    pinned = select(RunRow.run_id).where(same, RunRow.pinned.is_(True))
    latest = select(RunRow.run_id).where(
        same,
        RunRow.state == RunState.COMPLETE.value,
        RunRow.started_ts <= epoch(run.started_at),
    )
    return pinned.order_by(*_NEWEST_FIRST).limit(1), latest.order_by(*_NEWEST_FIRST).limit(1)


def ids_matching(conn: Connection, prefix: str) -> list[str]:
    """The exact id if stored, else up to six ids starting with ``prefix`` (literally)."""
    exact = conn.scalar(select(RunRow.run_id).where(RunRow.run_id == prefix))
    if exact is not None:
        return [exact]
    pattern = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    query = select(RunRow.run_id).where(RunRow.run_id.like(pattern + "%", escape="\\"))
    return list(conn.scalars(query.order_by(RunRow.run_id).limit(6)))


def prune_victims(conn: Connection, keep: int) -> list[int]:
    """Primary keys of runs beyond the ``keep`` newest of their set x retriever, pins
    excepted."""
    rows = conn.execute(
        select(RunRow.pk, RunRow.set_name, RunRow.retriever_identifier, RunRow.pinned)
        .order_by(*_NEWEST_FIRST)
    ).all()  # fmt: skip
    seen: dict[tuple[str, str], int] = {}
    victims = []
    for pk, set_name, retriever, pinned in rows:
        rank = seen[(set_name, retriever)] = seen.get((set_name, retriever), 0) + 1
        if rank > keep and not pinned:
            victims.append(pk)
    return victims


def summaries(conn: Connection, query: Select[Any]) -> list[RunSummary]:
    rows = conn.execute(query).mappings().all()
    labels: dict[int, dict[str, str]] = {}
    pks = [r["pk"] for r in rows]
    for i in range(0, len(pks), BATCH):
        chunk = select(LabelRow.run_pk, LabelRow.key, LabelRow.value).where(
            LabelRow.run_pk.in_(pks[i : i + BATCH])
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
        )
        for r in rows
    ]
