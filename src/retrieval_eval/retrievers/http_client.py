"""The one HTTP client reval speaks through (aiohttp): the ``http`` kind's searches and the
model-server calls (embeddings, rerank) share its session settings and its body reading.

- A session keeps up to ``max_connections`` connections open and reuses them. The proxy
  for a URL comes from the environment (``HTTPS_PROXY``, ``NO_PROXY``, ...), read once by
  ``proxy_for`` rather than on every request as aiohttp's ``trust_env`` would (two trips
  through a thread pool per request: most of a search's client CPU). The CA bundle is
  OpenSSL's default (``SSL_CERT_FILE`` applies).
- A body is read in pieces and never past ``limit`` bytes, decompressed or not: a small
  gzip answer that expands to a gigabyte costs ``limit`` bytes of memory and the time to
  decompress them, then fails as ``BodyTooLarge``. reval decodes ``gzip`` and
  ``deflate`` itself (and asks for nothing else), so the bound is reval's own.
- ``TRANSIENT_ERRORS``: what a dropped or refused connection raises, worth another
  attempt of a read-only call.

aiohttp was chosen by measurement: about 2.6x less client CPU per question than httpx2
against the same server (benchmarks/bench_kinds.py, docs/benchmarks.md).
"""

from __future__ import annotations

import email.utils
import time
import urllib.request
import zlib
from collections.abc import Mapping
from urllib.parse import urlsplit

import aiohttp

from retrieval_eval.retrievers.backoff import Verdict

#: Connection failures: refused, reset, closed while idle, cut off mid-body.
TRANSIENT_ERRORS: tuple[type[Exception], ...] = (
    aiohttp.ClientConnectionError,
    aiohttp.ClientPayloadError,
)
#: Any failure of the client itself (the transient ones included).
CLIENT_ERRORS: tuple[type[Exception], ...] = (aiohttp.ClientError,)
#: What reval decodes, and so asks for.
ACCEPT_ENCODING = "gzip, deflate"
_PIECE = 1 << 16


class BodyTooLarge(Exception):
    """A body went past its limit (``size``: at least this many bytes)."""

    def __init__(
        self, size: int, limit: int, encoding: str, pieces: list[bytes] | None = None
    ) -> None:
        compressed = f" once {encoding}-decoded" if encoding else ""
        super().__init__(f"more than {limit} bytes{compressed}")
        self.size = size
        self._pieces = pieces or []

    @property
    def start(self) -> bytes:
        """What was read before the limit stopped it."""
        return b"".join(self._pieces)


class BadEncoding(Exception):
    """A body in an encoding reval did not ask for, or that does not decode."""


def open_session(headers: Mapping[str, str], max_connections: int = 64) -> aiohttp.ClientSession:
    """A session on the running event loop; ``headers`` go with every request."""
    sent = dict(headers)
    if not any(name.lower() == "accept-encoding" for name in sent):
        sent["Accept-Encoding"] = ACCEPT_ENCODING
    return aiohttp.ClientSession(
        headers=sent,
        connector=aiohttp.TCPConnector(limit=max_connections, limit_per_host=max_connections),
        timeout=aiohttp.ClientTimeout(total=None),  # the caller's deadline covers the call
        auto_decompress=False,  # read_body decodes, within its limit
    )


def proxy_for(url: str) -> str | None:
    """The proxy the environment names for ``url`` (None: connect directly)."""
    parts = urlsplit(url)
    proxies = urllib.request.getproxies_environment()
    if not proxies or urllib.request.proxy_bypass(parts.hostname or ""):
        return None
    return proxies.get(parts.scheme) or proxies.get("all")


async def read_body(
    response: aiohttp.ClientResponse, limit: int, *, truncate: bool = False
) -> bytes:
    """The decoded body of ``response``, at most ``limit`` bytes: ``BodyTooLarge`` as soon
    as it would pass them, compressed or not (``truncate``: its first ``limit`` bytes
    instead, for a message); ``BadEncoding`` for a body reval cannot decode."""
    encoding = response.headers.get("Content-Encoding", "").strip().lower()
    length = response.content_length
    try:
        if encoding in ("", "identity"):
            if length is not None and length <= limit:  # the usual answer
                return await response.read()
            if length is not None and not truncate:
                raise BodyTooLarge(length, limit, "")
            return await _read_plain(response, limit)
        if encoding not in ("gzip", "x-gzip", "deflate"):
            raise BadEncoding(f"the body is {encoding}-encoded, which was not asked for")
        return await _read_decoded(response, limit, encoding)
    except BodyTooLarge as e:
        if not truncate:
            raise
        return e.start[:limit]


async def _read_plain(response: aiohttp.ClientResponse, limit: int) -> bytes:
    pieces: list[bytes] = []
    size = 0
    async for piece in response.content.iter_chunked(_PIECE):
        size += len(piece)
        pieces.append(piece)
        if size > limit:
            raise BodyTooLarge(size, limit, "", pieces)
    return b"".join(pieces)


async def _read_decoded(response: aiohttp.ClientResponse, limit: int, encoding: str) -> bytes:
    """Decode piece by piece, never asking zlib for more than one byte past the limit."""
    decoder = _decoder(encoding)
    pieces: list[bytes] = []
    size, fed = 0, False
    async for compressed in response.content.iter_chunked(_PIECE):
        data = compressed
        while data:
            try:
                piece = decoder.decompress(data, limit - size + 1)
            except zlib.error as e:
                if encoding == "deflate" and not fed:  # raw deflate, as some servers send
                    decoder, fed = zlib.decompressobj(-15), True
                    continue
                raise BadEncoding(f"the {encoding} body does not decode: {e}") from e
            fed = True
            size += len(piece)
            pieces.append(piece)
            if size > limit:
                raise BodyTooLarge(size, limit, encoding, pieces)
            if decoder.eof:  # a gzip stream of several members: each its own stream
                data, decoder, fed = decoder.unused_data, _decoder(encoding), False
            else:
                data = decoder.unconsumed_tail
    if fed and not decoder.eof:
        raise BadEncoding(f"the {encoding} body ends before its stream does")
    return b"".join(pieces)


def transport_verdict(error: Exception) -> Verdict | None:
    """The retry policy's view of a failure of this client (None: not the client's)."""
    if isinstance(error, TRANSIENT_ERRORS):
        return Verdict(transient=True)
    if isinstance(error, (*CLIENT_ERRORS, BodyTooLarge, BadEncoding)):
        return Verdict(transient=False)
    return None


def transport_problem(error: Exception) -> str:
    """One line for a failure of this client: ``cannot connect: Connection refused``."""
    if isinstance(error, aiohttp.ClientConnectorError):
        return f"cannot connect: {error.os_error.strerror or error.os_error}"
    if isinstance(error, BodyTooLarge | BadEncoding):
        return f"answer of {error}" if isinstance(error, BodyTooLarge) else str(error)
    return f"{type(error).__name__}: {error or 'connection dropped'}"


def _decoder(encoding: str) -> zlib._Decompress:
    # gzip: its header (32 + 15). deflate: a zlib stream, as the RFC says (servers that
    # send raw deflate are rare enough to be told so by the error).
    return zlib.decompressobj(47 if encoding in ("gzip", "x-gzip") else 15)


def retry_after_s(value: str | None) -> float | None:
    """Seconds a ``Retry-After`` header asks for (delta-seconds or an HTTP date), if any."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
