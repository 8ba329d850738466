"""Rescored runs: a run scored again on newer labels (``reval runs rescore``) names its
source run and the label fingerprint the source was scored on. Columns only, nullable:
every run stored before is a run of its own.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("reval_runs") as batch:
        batch.add_column(sa.Column("rescored_from", sa.String(64), nullable=True))
        batch.add_column(sa.Column("rescored_from_fingerprint", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("reval_runs") as batch:
        batch.drop_column("rescored_from_fingerprint")
        batch.drop_column("rescored_from")
