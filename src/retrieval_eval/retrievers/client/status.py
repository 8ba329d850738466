"""gRPC status codes -> our RetrieverError hierarchy, so callers never see grpc errors."""

from __future__ import annotations

import grpc

from retrieval_eval.errors import (
    RetrieverContractError,
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
#: What gRPC's own transport says when a message exceeds the receive limit. The status
#: code is RESOURCE_EXHAUSTED, the same a server sends when overloaded; only the server's
#: status carries the server's own details, so the transport's fixed text tells them apart.
TRANSPORT_TOO_LARGE = "Received message larger than max"


def over_size_limit(error: grpc.aio.AioRpcError) -> bool:
    """The call failed because the answer exceeded our receive limit (not an overload)."""
    return error.code() == _S.RESOURCE_EXHAUSTED and TRANSPORT_TOO_LARGE in (error.details() or "")


def retryable(error: grpc.aio.AioRpcError) -> bool:
    """A transient failure worth another attempt; an oversized answer never is."""
    return error.code() in RETRYABLE and not over_size_limit(error)


def error_from_rpc(target: str, error: grpc.aio.AioRpcError, note: str = "") -> RetrieverError:
    """Our exception for a failed call to ``target``, naming the code and details."""
    details = (error.details() or "(no details)") + note
    if over_size_limit(error):
        return RetrieverContractError(
            target, f"response over the contract's size limit: {details}", error.code().name
        )
    return error_from_status(target, error.code(), details)


def error_from_status(target: str, code: grpc.StatusCode, details: str) -> RetrieverError:
    """The ``RetrieverError`` subclass for ``code`` (``RetrieverInternal`` if unlisted)."""
    cls = ERROR_FOR_CODE.get(code, RetrieverInternal)
    return cls(target, details, code.name)
