"""A run saved without a regression check (no verdict) is no longer a baseline by itself:
nothing says it did not regress. Before this revision it was, so that the runs stored
before verdicts existed (revision 0002), and any a script saved with ``RunStore.save``
since, were baselines.

So that upgrading changes no baseline, every complete run stored without a verdict and
not yet accepted is accepted here, explicitly and visibly: ``reval runs show`` says it
was accepted by ``LEGACY_ACCEPTED_BY`` with ``LEGACY_REASON``. Runs saved without a
verdict after this revision are unjudged: shown, compared and kept, but a baseline only
once a person accepts (``reval runs accept``) or pins it. Downgrading takes back exactly
these acceptances.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

#: Who accepted the unjudged runs kept as baselines (``Acceptance.by``).
LEGACY_ACCEPTED_BY = "the run store upgrade"
LEGACY_REASON = (
    "saved without a regression check, when such runs were baselines (before revision 0006)"
)

_runs = sa.table(
    "reval_runs",
    sa.column("state", sa.String),
    sa.column("verdict_kind", sa.String),
    sa.column("accepted_at", sa.String),
    sa.column("accepted_by", sa.Text),
    sa.column("accepted_reason", sa.Text),
)


def upgrade() -> None:
    unjudged = (_runs.c.verdict_kind.is_(None)) | (_runs.c.verdict_kind == "")
    op.get_bind().execute(
        sa.update(_runs)
        .where(_runs.c.state == "complete", unjudged, _runs.c.accepted_at.is_(None))
        .values(
            accepted_at=datetime.now(UTC).isoformat(),
            accepted_by=LEGACY_ACCEPTED_BY,
            accepted_reason=LEGACY_REASON,
        )
    )


def downgrade() -> None:
    op.get_bind().execute(
        sa.update(_runs)
        .where(_runs.c.accepted_by == LEGACY_ACCEPTED_BY, _runs.c.accepted_reason == LEGACY_REASON)
        .values(accepted_at=None, accepted_by=None, accepted_reason=None)
    )
