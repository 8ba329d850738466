"""Run ids: short, readable, sortable by start time, e.g. ``261130-093355-k3f9``.

The UTC start time to the second, then four random characters (Crockford base32), so
runs started in the same second by different processes still get distinct ids; the
store's unique constraint catches the rare collision and a new id is drawn.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime

_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"


def new_run_id(started_at: datetime) -> str:
    if started_at.tzinfo is not None:
        started_at = started_at.astimezone(UTC)
    suffix = "".join(secrets.choice(_ALPHABET) for _ in range(4))
    return f"{started_at:%y%m%d-%H%M%S}-{suffix}"
