"""gRPC status codes -> our RetrieverError hierarchy, so callers never see grpc errors."""

from __future__ import annotations

import grpc

from retrieval_eval.errors import (
    RetrieverError,
    RetrieverInternal,
    RetrieverRejected,
    RetrieverTimeout,
    RetrieverUnauthenticated,
    RetrieverUnavailable,
)

_S = grpc.StatusCode
ERROR_FOR_CODE: dict[grpc.StatusCode, type[RetrieverError]] = {
    _S.UNAVAILABLE: RetrieverUnavailable,
    _S.DEADLINE_EXCEEDED: RetrieverTimeout,
    _S.INVALID_ARGUMENT: RetrieverRejected,
    _S.OUT_OF_RANGE: RetrieverRejected,
    _S.FAILED_PRECONDITION: RetrieverRejected,
    _S.NOT_FOUND: RetrieverRejected,
    _S.UNIMPLEMENTED: RetrieverRejected,
    _S.UNAUTHENTICATED: RetrieverUnauthenticated,
    _S.PERMISSION_DENIED: RetrieverUnauthenticated,
}

#: Transient codes: the only ones the client retries.
RETRYABLE = frozenset({_S.UNAVAILABLE, _S.RESOURCE_EXHAUSTED})


def error_from_rpc(target: str, error: grpc.aio.AioRpcError, note: str = "") -> RetrieverError:
    """Our exception for a failed call to ``target``, naming the code and details."""
    return error_from_status(target, error.code(), (error.details() or "(no details)") + note)


def error_from_status(target: str, code: grpc.StatusCode, details: str) -> RetrieverError:
    """The ``RetrieverError`` subclass for ``code`` (``RetrieverInternal`` if unlisted)."""
    cls = ERROR_FOR_CODE.get(code, RetrieverInternal)
    return cls(target, details, code.name)
