"""Initial schema: runs, their labels and per-question outcomes.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "reval_runs",
        sa.Column("pk", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("run_id", sa.String(64), nullable=False),
        sa.Column("set_name", sa.Text(), nullable=False),
        sa.Column("set_fingerprint", sa.Text(), nullable=False),
        sa.Column("retriever_identifier", sa.Text(), nullable=False),
        sa.Column("retriever_version", sa.Text(), nullable=False),
        sa.Column("retriever_target", sa.Text(), nullable=False),
        sa.Column("state", sa.String(20), nullable=False),
        sa.Column("started_at", sa.String(64), nullable=False),
        sa.Column("finished_at", sa.String(64), nullable=False),
        sa.Column("started_ts", sa.Double(), nullable=False),
        sa.Column("finished_ts", sa.Double(), nullable=False),
        sa.Column("question_count", sa.Integer(), nullable=False),
        sa.Column("error_count", sa.Integer(), nullable=False),
        sa.Column("underfilled_count", sa.Integer(), nullable=False),
        sa.Column("top1_hit_rate", sa.Double(), nullable=True),
        sa.Column("top3_hit_rate", sa.Double(), nullable=True),
        sa.Column("pinned", sa.Boolean(), nullable=False),
        sa.Column("retriever_json", sa.Text(), nullable=False),
        sa.Column("parameters_json", sa.Text(), nullable=False),
        sa.Column("metrics_json", sa.Text(), nullable=False),
        sa.Column("by_form_json", sa.Text(), nullable=False),
        sa.Column("by_hard_class_json", sa.Text(), nullable=False),
        sa.Column("latency_json", sa.Text(), nullable=True),
        sa.UniqueConstraint("run_id"),
    )
    op.create_index(
        "ix_reval_runs_set_retriever", "reval_runs", ["set_name", "retriever_identifier"]
    )
    op.create_table(
        "reval_run_labels",
        sa.Column(
            "run_pk",
            sa.Integer(),
            sa.ForeignKey("reval_runs.pk", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("key", sa.Text(), primary_key=True),
        sa.Column("value", sa.Text(), nullable=False),
    )
    op.create_index("ix_reval_run_labels_key_value", "reval_run_labels", ["key", "value"])
    op.create_table(
        "reval_outcomes",
        sa.Column(
            "run_pk",
            sa.Integer(),
            sa.ForeignKey("reval_runs.pk", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("position", sa.Integer(), primary_key=True),
        sa.Column("question_id", sa.Text(), nullable=False),
        sa.Column("form", sa.String(20), nullable=False),
        sa.Column("hard_class", sa.Text(), nullable=True),
        sa.Column("expected_ids", sa.Text(), nullable=False),
        sa.Column("raw_ids", sa.Text(), nullable=False),
        sa.Column("ranked_ids", sa.Text(), nullable=False),
        sa.Column("hits", sa.Text(), nullable=False),
        sa.Column("latency_ms", sa.Double(), nullable=True),
        sa.Column("error_kind", sa.Text(), nullable=True),
        sa.Column("error_message", sa.Text(), nullable=True),
        sa.Column("underfilled", sa.Boolean(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("reval_outcomes")
    op.drop_index("ix_reval_run_labels_key_value", table_name="reval_run_labels")
    op.drop_table("reval_run_labels")
    op.drop_index("ix_reval_runs_set_retriever", table_name="reval_runs")
    op.drop_table("reval_runs")
