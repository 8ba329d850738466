"""Acceptance becomes explicit: each run records how it became a baseline (``accepted_how``)
and under what (``accepted_thresholds_json``, ``accepted_baseline``). From this revision a
verdict of pass or no-baseline no longer makes a run a baseline by itself: ``reval eval``
records an acceptance only for a pass under thresholds no looser than the lineage's own
against a baseline of the lineage, or for the first run of a lineage.

Older rows get the "how" their stored verdict and acceptance say, so that upgrading
changes no baseline: a run a person accepted (``accepted_at``, the store upgrade of 0006
included) is ``person``; a complete run judged pass is ``judged-pass`` with the thresholds
its verdict recorded and its baseline; a complete run judged no-baseline is ``first-run``;
any other pinned run is ``pinned``.
Those older passes may have been judged under loosened options (nothing then refused it);
``reval runs show`` now shows the thresholds they were judged with. Downgrading drops the
columns (the rule of 0006, pass or no-baseline, then applies again).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02
"""

from __future__ import annotations

import json
from fractions import Fraction

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

_runs = sa.table(
    "reval_runs",
    sa.column("pk", sa.Integer),
    sa.column("state", sa.String),
    sa.column("verdict_kind", sa.String),
    sa.column("verdict_json", sa.Text),
    sa.column("baseline_run_id", sa.String),
    sa.column("accepted_at", sa.String),
    sa.column("pinned", sa.Boolean),
    sa.column("accepted_how", sa.String),
    sa.column("accepted_thresholds_json", sa.Text),
    sa.column("accepted_baseline", sa.Text),
)


def upgrade() -> None:
    op.add_column("reval_runs", sa.Column("accepted_how", sa.String(20), nullable=True))
    op.add_column("reval_runs", sa.Column("accepted_thresholds_json", sa.Text(), nullable=True))
    op.add_column("reval_runs", sa.Column("accepted_baseline", sa.Text(), nullable=True))
    conn = op.get_bind()
    conn.execute(
        sa.update(_runs).where(_runs.c.accepted_at.is_not(None)).values(accepted_how="person")
    )
    judged = conn.execute(
        sa.select(_runs.c.pk, _runs.c.verdict_kind, _runs.c.verdict_json, _runs.c.baseline_run_id)
        .where(
            _runs.c.accepted_at.is_(None),
            _runs.c.state == "complete",
            _runs.c.verdict_kind.in_(("pass", "no-baseline")),
        )
        .order_by(_runs.c.pk)
    ).all()
    conn.execute(
        sa.update(_runs)
        .where(_runs.c.accepted_how.is_(None), _runs.c.pinned.is_(True))
        .values(accepted_how="pinned")
    )
    for pk, kind, document, baseline in judged:
        thresholds = _thresholds(document)
        conn.execute(
            sa.update(_runs)
            .where(_runs.c.pk == pk)
            .values(
                accepted_how="judged-pass" if kind == "pass" else "first-run",
                accepted_thresholds_json=(
                    None if thresholds is None else json.dumps(thresholds, sort_keys=True)
                ),
                accepted_baseline=baseline if kind == "pass" else None,
            )
        )


def _thresholds(document: str | None) -> dict[str, object] | None:
    if not document:
        return None
    try:
        found = json.loads(document).get("thresholds")
    except (ValueError, AttributeError):
        return None
    if not isinstance(found, dict):
        return None
    budget = found.get("max_errors")
    if isinstance(budget, dict):  # as ``Thresholds`` stores it; an acceptance keeps its text
        percent = budget.get("percent")
        found["max_errors"] = (
            f"{float(Fraction(percent)):g}%" if percent is not None else str(budget.get("count", 0))
        )
    return found


def downgrade() -> None:
    with op.batch_alter_table("reval_runs") as batch:
        batch.drop_column("accepted_baseline")
        batch.drop_column("accepted_thresholds_json")
        batch.drop_column("accepted_how")
