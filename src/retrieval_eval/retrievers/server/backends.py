"""The two ways a retriever is served, chosen by ``serve()`` for throughput.

- A plain ``retrieve`` runs on a sync ``grpc.server`` whose ``max_concurrency`` worker
  threads call user code directly: no event-loop hop per call.
- An ``async def retrieve`` runs on a ``grpc.aio`` server with its own event loop in a
  background thread.

Both register standard health checking (SERVING for "" and the Retriever service) and
server reflection, and refuse to share a busy port.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
from typing import Any, Protocol

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from retrieval_eval.errors import InfrastructureError
from retrieval_eval.retrievers.convert import SERVICE_NAME
from retrieval_eval.v1 import retriever_pb2_grpc as pb_grpc

_HEALTH_NAME = health_pb2.DESCRIPTOR.services_by_name["Health"].full_name
#: Fail on a busy port instead of silently sharing it (gRPC enables SO_REUSEPORT).
_OPTIONS = (("grpc.so_reuseport", 0),)
_SERVING = health_pb2.HealthCheckResponse.SERVING
_SPARE_THREADS = 4


class Backend(Protocol):
    port: int

    def stop(self, grace: float | None) -> None: ...

    def join(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds; True once the server has terminated."""
        ...


def _register(server: Any, servicer: Any, health_servicer: Any) -> None:
    pb_grpc.add_RetrieverServicer_to_server(servicer, server)
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    names = (SERVICE_NAME, _HEALTH_NAME, reflection.SERVICE_NAME)
    reflection.enable_server_reflection(names, server)


def _bind(server: Any, address: str, credentials: grpc.ServerCredentials | None) -> int:
    try:
        if credentials is None:
            return int(server.add_insecure_port(address))
        return int(server.add_secure_port(address, credentials))
    except RuntimeError as e:
        raise InfrastructureError(f"cannot listen on {address}: {e}") from e


class SyncBackend:
    """A sync ``grpc.server`` with a pool of worker threads (the servicer bounds how many
    are inside user code at once)."""

    def __init__(
        self,
        servicer: Any,
        address: str,
        credentials: grpc.ServerCredentials | None,
        max_concurrency: int,
    ) -> None:
        # Spare threads for health and reflection streams, which hold a thread each.
        workers = max_concurrency + _SPARE_THREADS
        self._pool = concurrent.futures.ThreadPoolExecutor(workers, "reval-retrieve")
        self._server = grpc.server(self._pool, options=_OPTIONS)
        self._health = health.HealthServicer()
        _register(self._server, servicer, self._health)
        try:
            self.port = _bind(self._server, address, credentials)
        except InfrastructureError:
            self._pool.shutdown(wait=False)
            raise
        self._server.start()
        self._health.set("", _SERVING)
        self._health.set(SERVICE_NAME, _SERVING)
        self._terminated = threading.Event()

    def stop(self, grace: float | None) -> None:
        self._health.enter_graceful_shutdown()
        self._server.stop(grace).wait()
        self._pool.shutdown(wait=False)
        self._terminated.set()

    def join(self, timeout: float) -> bool:
        return self._terminated.wait(timeout)


class AioBackend:
    """A ``grpc.aio`` server on its own event loop in a background thread."""

    def __init__(
        self,
        servicer: Any,
        address: str,
        credentials: grpc.ServerCredentials | None,
    ) -> None:
        started: concurrent.futures.Future[int] = concurrent.futures.Future()
        self._loop = asyncio.new_event_loop()
        self._stop_requested: asyncio.Future[float | None] = self._loop.create_future()
        self._thread = threading.Thread(
            target=self._run,
            args=(servicer, address, credentials, started),
            name=f"reval-server-{address}",
            daemon=True,
        )
        self._thread.start()
        self.port = started.result()

    def stop(self, grace: float | None) -> None:
        # RuntimeError: the loop already closed, the server thread has ended.
        with contextlib.suppress(RuntimeError):
            self._loop.call_soon_threadsafe(self._request_stop, grace)
        self._thread.join()

    def join(self, timeout: float) -> bool:
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _request_stop(self, grace: float | None) -> None:
        if not self._stop_requested.done():
            self._stop_requested.set_result(grace)

    def _run(
        self,
        servicer: Any,
        address: str,
        credentials: grpc.ServerCredentials | None,
        started: concurrent.futures.Future[int],
    ) -> None:
        try:
            self._loop.run_until_complete(self._main(servicer, address, credentials, started))
        except BaseException as e:  # a startup failure goes to the caller of serve()
            if started.done():
                raise
            started.set_exception(e)
        finally:
            self._loop.close()

    async def _main(
        self,
        servicer: Any,
        address: str,
        credentials: grpc.ServerCredentials | None,
        started: concurrent.futures.Future[int],
    ) -> None:
        server = grpc.aio.server(options=_OPTIONS)
        health_servicer = health.aio.HealthServicer()
        _register(server, servicer, health_servicer)
        port = _bind(server, address, credentials)
        await server.start()
        await health_servicer.set("", _SERVING)
        await health_servicer.set(SERVICE_NAME, _SERVING)
        started.set_result(port)
        grace = await self._stop_requested
        await health_servicer.enter_graceful_shutdown()
        await server.stop(grace)
