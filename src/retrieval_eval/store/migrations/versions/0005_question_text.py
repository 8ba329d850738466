"""Keep each question's text with its outcome, so that every report can show what was
asked instead of an id alone. Runs stored before this revision keep a null text; reports
show their ids and say the text was not stored.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("reval_outcomes", sa.Column("question_text", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("reval_outcomes") as batch:
        batch.drop_column("question_text")
