"""Initial schema: runs, their labels and per-question outcomes.

The schema before the first release, in one revision; later changes are revisions of
their own on top of it, each with its downgrade.

Revision ID: 0001
Revises:
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

#: name -> columns; the trailing ``pk`` matches the listings' tie-break (newest first),
#: so an index gives the order without a sort.
RUN_INDEXES = {
    "ix_reval_runs_started": ["started_ts", "pk"],
    "ix_reval_runs_set_started": ["set_name", "started_ts", "pk"],
    "ix_reval_runs_set_retriever_started": [
        "set_name",
        "retriever_identifier",
        "started_ts",
        "pk",
    ],
    "ix_reval_runs_set_lineage_started": ["set_name", "lineage", "started_ts", "pk"],
}


def _run_pk() -> sa.Column[int]:
    return sa.Column(
        "run_pk",
        sa.Integer(),
        sa.ForeignKey("reval_runs.pk", ondelete="CASCADE"),
        primary_key=True,
    )


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
        sa.Column("verdict_kind", sa.String(20), nullable=True),
        sa.Column("baseline_run_id", sa.String(64), nullable=True),
        sa.Column("verdict_json", sa.Text(), nullable=True),
        sa.Column("lineage", sa.Text(), nullable=True),
        sa.Column("accepted_at", sa.String(64), nullable=True),
        sa.Column("accepted_by", sa.Text(), nullable=True),
        sa.Column("accepted_reason", sa.Text(), nullable=True),
        sa.Column("accepted_how", sa.String(20), nullable=True),
        sa.Column("accepted_thresholds_json", sa.Text(), nullable=True),
        sa.Column("accepted_baseline", sa.Text(), nullable=True),
        sa.UniqueConstraint("run_id"),
    )
    for name, columns in RUN_INDEXES.items():
        op.create_index(name, "reval_runs", columns)
    op.create_table(
        "reval_run_labels",
        _run_pk(),
        sa.Column("key", sa.Text(), primary_key=True),
        sa.Column("value", sa.Text(), nullable=False),
    )
    op.create_index("ix_reval_run_labels_key_value", "reval_run_labels", ["key", "value"])
    op.create_table(
        "reval_outcomes",
        _run_pk(),
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
        sa.Column("raw_scores", sa.Text(), nullable=True),
        sa.Column("notes", sa.Text(), nullable=True),
        sa.Column("question_text", sa.Text(), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("reval_outcomes")
    op.drop_index("ix_reval_run_labels_key_value", table_name="reval_run_labels")
    op.drop_table("reval_run_labels")
    for name in reversed(RUN_INDEXES):
        op.drop_index(name, table_name="reval_runs")
    op.drop_table("reval_runs")
