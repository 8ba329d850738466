"""Grades and measures: each question row keeps the judgments it was scored against
(document id -> grade, zeros included, as compact JSON) and each run the IR measures'
means (``reval eval --measures``), their no-answer convention and the relevance level.
Columns only, nullable: a row stored before means what it always did (the expected ids
at grade 1, nothing else judged; no measures; level 1). Binary nDCG's key is renamed in
the stored figures and verdicts (``ndcg@K`` -> ``binary_ndcg@K``), so older runs compare
with newer ones on it.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


#: The run columns that hold metric keys (JSON objects and verdicts).
_METRIC_COLUMNS = ("metrics_json", "by_form_json", "by_hard_class_json", "verdict_json")


def _rename_key(old: str, new: str) -> None:
    """A key is always quoted in these JSON columns: ``"ndcg@10"`` never matches
    ``"binary_ndcg@10"`` or a graded ``"nDCG@10"`` (REPLACE is case-sensitive)."""
    for column in _METRIC_COLUMNS:
        op.execute(
            sa.text(f"UPDATE reval_runs SET {column} = REPLACE({column}, :old, :new)").bindparams(
                old=f'"{old}@', new=f'"{new}@'
            )
        )


def upgrade() -> None:
    _rename_key("ndcg", "binary_ndcg")
    with op.batch_alter_table("reval_runs") as batch:
        batch.add_column(sa.Column("measures_json", sa.Text(), nullable=True))
        batch.add_column(sa.Column("measure_convention", sa.String(20), nullable=True))
        batch.add_column(sa.Column("relevance_level", sa.Integer(), nullable=True))
    with op.batch_alter_table("reval_outcomes") as batch:
        batch.add_column(sa.Column("judgments", sa.Text(), nullable=True))


def downgrade() -> None:
    _rename_key("binary_ndcg", "ndcg")
    with op.batch_alter_table("reval_outcomes") as batch:
        batch.drop_column("judgments")
    with op.batch_alter_table("reval_runs") as batch:
        batch.drop_column("relevance_level")
        batch.drop_column("measure_convention")
        batch.drop_column("measures_json")
