"""Run ids people can type: eight random characters, e.g. ``k3f9x2mq``.

Like git's short hashes: 40 random bits (Crockford base32, no i/l/o/u) make the first
six characters unique in practice (two runs share a 6-character prefix with probability
about n² / 2·10⁹ among n runs), and any unique prefix names a run. Order comes from the
stored start time, not the id. Ids from older stores (``261130-093355-k3f9``) keep
working, by full id or unique prefix. The store's unique constraint catches the rare
collision and a new id is drawn.
"""

from __future__ import annotations

import secrets

_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"
RUN_ID_LENGTH = 8


def new_run_id() -> str:
    return "".join(secrets.choice(_ALPHABET) for _ in range(RUN_ID_LENGTH))
