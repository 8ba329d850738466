"""Store each run's verdict (kind, baseline, the whole verdict as JSON) and each
question's retriever scores and notes (how an answer was made, e.g. a fused retriever's
skipped member).

Existing runs keep working: they have no stored verdict (shown as "no regression check
stored"), no scores (exports fall back to rank-derived scores) and no notes.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("reval_runs", sa.Column("verdict_kind", sa.String(20), nullable=True))
    op.add_column("reval_runs", sa.Column("baseline_run_id", sa.String(64), nullable=True))
    op.add_column("reval_runs", sa.Column("verdict_json", sa.Text(), nullable=True))
    op.add_column("reval_outcomes", sa.Column("raw_scores", sa.Text(), nullable=True))
    op.add_column("reval_outcomes", sa.Column("notes", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("reval_outcomes") as batch:
        batch.drop_column("notes")
        batch.drop_column("raw_scores")
    with op.batch_alter_table("reval_runs") as batch:
        batch.drop_column("verdict_json")
        batch.drop_column("baseline_run_id")
        batch.drop_column("verdict_kind")
