"""Documented exit codes of every ``reval`` command (see docs/reference/exit-codes.md)."""

from __future__ import annotations

import signal

from retrieval_eval.errors import InfrastructureError, InputError, Interrupted, RevalError

OK = 0
REGRESSION = 1  # a regression (or an incomparable baseline) with --fail-on-regression
FINDINGS = 1  # `reval sets lint --strict` found problems in the set
BAD_INPUT = 2  # usage error or bad input: malformed set, unknown name, bad option
FAILURE = 3  # retriever or infrastructure failure, incl. a run with too many errors
INTERRUPTED = 130  # Ctrl-C (SIGINT); what was measured is kept
TERMINATED = 143  # SIGTERM (docker stop, CI cancellation); what was measured is kept


def for_signal(signum: int | None) -> int:
    """130 for SIGINT (or unknown), 143 for SIGTERM."""
    return TERMINATED if signum == signal.SIGTERM else INTERRUPTED


def for_error(error: RevalError) -> int:
    if isinstance(error, Interrupted):
        return for_signal(error.signum)
    if isinstance(error, InputError):
        return BAD_INPUT
    if isinstance(error, InfrastructureError):
        return FAILURE
    return FAILURE
