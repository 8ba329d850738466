"""Why a question has no ranking: a retrieval failure is recorded as an error, never
counted as a miss."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class FailureKind(StrEnum):
    """Why a retrieval failed (the ``kind`` of a ``RetrieverError``, or the coordinator's)."""

    TIMEOUT = "timeout"
    UNAVAILABLE = "unavailable"
    REJECTED = "rejected"
    UNAUTHENTICATED = "unauthenticated"
    INTERNAL = "internal"
    #: The answer broke the retriever contract (empty, blank or oversized id, too many results,
    #: an unparsable or oversized message); never retried, never a miss.
    CONTRACT = "contract"
    CANCELLED = "cancelled"
    #: Never asked: the run's failures had already exceeded its error budget, so the
    #: coordinator stopped asking (fail fast). An error like any other, never a miss.
    NOT_ASKED = "not_asked"


#: How a fused ranking's note names a member that failed and was left out:
#: ``"skipped member NAME: KIND: DETAILS"`` (a name never holds ": ").
SKIPPED_MEMBER_NOTE = "skipped member "


@dataclass(frozen=True, slots=True)
class RetrievalFailure:
    """Why a question has no ranking. Never a miss."""

    kind: FailureKind
    message: str
