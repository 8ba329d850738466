"""Index the run listings: newest first overall, within a set, and within a set x
retriever identifier (history and baseline look-ups), so that a page of a store of
thousands of runs reads only the rows it shows instead of sorting the whole table.

The (set, retriever identifier, started) index replaces the (set, retriever identifier)
one, which it contains.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from __future__ import annotations

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

#: name -> columns; the trailing ``pk`` matches the listings' tie-break, so an index
#: gives the order without a sort.
INDEXES = {
    "ix_reval_runs_started": ["started_ts", "pk"],
    "ix_reval_runs_set_started": ["set_name", "started_ts", "pk"],
    "ix_reval_runs_set_retriever_started": [
        "set_name",
        "retriever_identifier",
        "started_ts",
        "pk",
    ],
}


def upgrade() -> None:
    op.drop_index("ix_reval_runs_set_retriever", table_name="reval_runs")
    for name, columns in INDEXES.items():
        op.create_index(name, "reval_runs", columns)


def downgrade() -> None:
    for name in reversed(INDEXES):
        op.drop_index(name, table_name="reval_runs")
    op.create_index(
        "ix_reval_runs_set_retriever", "reval_runs", ["set_name", "retriever_identifier"]
    )
