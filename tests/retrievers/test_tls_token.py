"""TLS (server-only and mutual) and bearer tokens, with certificates made in the test."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from support.certificates import issue, write_pair

from retrieval_eval.errors import ConfigError, RetrieverUnauthenticated, RetrieverUnavailable
from retrieval_eval.retrievers.client.channel import TlsConfig
from retrieval_eval.retrievers.client.grpc_client import ClientOptions, GrpcRetrieverClient
from retrieval_eval.retrievers.server.sdk import ServerHandle, ServerTls

Serve = Callable[..., ServerHandle]
QUICK = {"timeout_s": 5, "max_attempts": 2, "initial_backoff_s": 0.01, "max_backoff_s": 0.02}


@dataclass(frozen=True)
class Pki:
    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path
    rogue_ca: Path
    rogue_client_cert: Path
    rogue_client_key: Path


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    d = tmp_path_factory.mktemp("pki")
    ca_cert, ca_key = issue("reval test CA", ca=True)
    rogue_cert, rogue_key = issue("rogue CA", ca=True)
    server = issue("localhost", (ca_cert.subject, ca_key), dns=("localhost",), ips=("127.0.0.1",))
    client = issue("reval client", (ca_cert.subject, ca_key))
    rogue_client = issue("rogue client", (rogue_cert.subject, rogue_key))
    ca, _ = write_pair(d, "ca", ca_cert, ca_key)
    rogue_ca, _ = write_pair(d, "rogue-ca", rogue_cert, rogue_key)
    return Pki(
        ca,
        *write_pair(d, "server", *server),
        *write_pair(d, "client", *client),
        rogue_ca,
        *write_pair(d, "rogue-client", *rogue_client),
    )


async def first_id(target: str, **options: Any) -> str:
    async with GrpcRetrieverClient(target, ClientOptions(**{**QUICK, **options})) as client:
        return (await client.retrieve("cats purr", 1))[0].document_id


async def test_tls_with_the_right_ca(serve_retriever: Serve, tiny_retriever: Any, pki: Pki) -> None:
    handle = serve_retriever(tiny_retriever, tls=ServerTls(pki.server_cert, pki.server_key))
    assert await first_id(handle.address, tls=TlsConfig(ca_cert=pki.ca)) == "cats"
    # The certificate names localhost too: a server-name override is honoured.
    via_name = TlsConfig(ca_cert=pki.ca, server_name="localhost")
    assert await first_id(handle.address, tls=via_name) == "cats"


@pytest.mark.parametrize("how", ["plaintext", "wrong-ca", "wrong-name"])
async def test_tls_refused(serve_retriever: Serve, tiny_retriever: Any, pki: Pki, how: str) -> None:
    handle = serve_retriever(tiny_retriever, tls=ServerTls(pki.server_cert, pki.server_key))
    tls = {
        "plaintext": None,
        "wrong-ca": TlsConfig(ca_cert=pki.rogue_ca),
        "wrong-name": TlsConfig(ca_cert=pki.ca, server_name="elsewhere.example"),
    }[how]
    with pytest.raises(RetrieverUnavailable, match=f"retriever {handle.address}: unavailable"):
        await first_id(handle.address, tls=tls)


async def test_mutual_tls(serve_retriever: Serve, tiny_retriever: Any, pki: Pki) -> None:
    server_tls = ServerTls(pki.server_cert, pki.server_key, client_ca=pki.ca)
    address = serve_retriever(tiny_retriever, tls=server_tls).address
    good = TlsConfig(pki.ca, pki.client_cert, pki.client_key)
    assert await first_id(address, tls=good) == "cats"
    for refused in (
        TlsConfig(pki.ca),  # no client certificate
        TlsConfig(pki.ca, pki.rogue_client_cert, pki.rogue_client_key),  # not signed by the CA
    ):
        with pytest.raises((RetrieverUnavailable, RetrieverUnauthenticated)):
            await first_id(address, tls=refused)


@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_token_accepted_and_refused(
    serve_retriever: Serve, tiny_retriever: Any, kind: str
) -> None:
    class AsyncTiny:
        async def retrieve(self, question: str, limit: int) -> Any:
            return tiny_retriever.retrieve(question, limit)

    retriever = AsyncTiny() if kind == "async" else tiny_retriever
    address = serve_retriever(retriever, token="s3cret").address
    assert await first_id(address, token="s3cret") == "cats"
    for token in (None, "wrong", "s3cret "):
        with pytest.raises(RetrieverUnauthenticated, match=r"\[UNAUTHENTICATED\]: .*bearer token"):
            await first_id(address, token=token)
    async with GrpcRetrieverClient(address, ClientOptions(**QUICK)) as client:
        with pytest.raises(RetrieverUnauthenticated):
            await client.describe()
        assert await client.health() == "SERVING"  # probes need no token


async def test_token_over_mutual_tls(serve_retriever: Serve, tiny_retriever: Any, pki: Pki) -> None:
    server_tls = ServerTls(pki.server_cert, pki.server_key, client_ca=pki.ca)
    address = serve_retriever(tiny_retriever, tls=server_tls, token="t").address
    tls = TlsConfig(pki.ca, pki.client_cert, pki.client_key)
    assert await first_id(address, tls=tls, token="t") == "cats"
    with pytest.raises(RetrieverUnauthenticated):
        await first_id(address, tls=tls, token="not-t")


def test_unreadable_tls_files_name_the_file(tmp_path: Path, tiny_retriever: Any, pki: Pki) -> None:
    from retrieval_eval.retrievers.server.sdk import serve

    missing = tmp_path / "nope.key"
    with pytest.raises(ConfigError, match=f"cannot read TLS private key {missing}"):
        serve(tiny_retriever, tls=ServerTls(pki.server_cert, missing))
    not_pem = tmp_path / "junk.crt"
    not_pem.write_text("hello\n")
    with pytest.raises(ConfigError, match=f"TLS CA certificate {not_pem} is not a PEM file"):
        TlsConfig(ca_cert=not_pem).credentials()
    with pytest.raises(ConfigError, match="both a client certificate and a client key"):
        TlsConfig(ca_cert=pki.ca, client_cert=pki.client_cert).credentials()
