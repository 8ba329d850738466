"""Store each run's lineage (which runs are "the same retriever", see
``retrieval_eval.retrievers.lineage``) and who accepted it as a baseline, when and why.

Existing runs keep working: their lineage is computed from the stored target and
identifier (a plugin's relative index path kept as typed: the directory it was typed in
is unknown), and their stored verdicts decide which of them are accepted (pass,
no-baseline, or saved without a check); none was accepted by a person.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from retrieval_eval.retrievers.lineage import lineage_of

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

_runs = sa.table(
    "reval_runs",
    sa.column("pk", sa.Integer),
    sa.column("retriever_target", sa.Text),
    sa.column("retriever_identifier", sa.Text),
    sa.column("lineage", sa.Text),
)


def upgrade() -> None:
    op.add_column("reval_runs", sa.Column("lineage", sa.Text(), nullable=True))
    op.add_column("reval_runs", sa.Column("accepted_at", sa.String(64), nullable=True))
    op.add_column("reval_runs", sa.Column("accepted_by", sa.Text(), nullable=True))
    op.add_column("reval_runs", sa.Column("accepted_reason", sa.Text(), nullable=True))
    conn = op.get_bind()
    rows = conn.execute(
        sa.select(_runs.c.pk, _runs.c.retriever_target, _runs.c.retriever_identifier)
    ).all()
    for pk, target, identifier in rows:
        lineage = lineage_of(target, identifier, resolve_paths=False)
        conn.execute(sa.update(_runs).where(_runs.c.pk == pk).values(lineage=lineage))
    op.create_index(
        "ix_reval_runs_set_lineage_started",
        "reval_runs",
        ["set_name", "lineage", "started_ts", "pk"],
    )


def downgrade() -> None:
    op.drop_index("ix_reval_runs_set_lineage_started", table_name="reval_runs")
    with op.batch_alter_table("reval_runs") as batch:
        batch.drop_column("accepted_reason")
        batch.drop_column("accepted_by")
        batch.drop_column("accepted_at")
        batch.drop_column("lineage")
