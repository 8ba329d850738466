"""grpcs:// with every TLS key of reval.toml, through a real mutual-TLS server."""

from __future__ import annotations

from pathlib import Path

from support.certificates import issue, write_pair

from retrieval_eval.retrievers.contract.check import check_contract
from retrieval_eval.retrievers.opening import open_retriever
from retrieval_eval.retrievers.server.sdk import ServerTls


async def test_grpcs_config_entry_with_mutual_tls_and_server_name(
    serve_retriever, tiny_retriever, tmp_path: Path
) -> None:
    certs = tmp_path / "certs"
    certs.mkdir()
    ca_cert, ca_key = issue("test CA", ca=True)
    write_pair(certs, "ca", ca_cert, ca_key)
    # The server certificate names only retriever.test, not 127.0.0.1: the override matters.
    write_pair(
        certs, "server", *issue("server", (ca_cert.subject, ca_key), dns=("retriever.test",))
    )
    write_pair(certs, "client", *issue("client", (ca_cert.subject, ca_key)))
    tls = ServerTls(certs / "server.crt", certs / "server.key", client_ca=certs / "ca.crt")
    handle = serve_retriever(tiny_retriever, tls=tls)
    path = tmp_path / "reval.toml"
    entry = f'address = "grpcs://{handle.address}"\ntls_ca = "certs/ca.crt"\n'
    entry += 'tls_server_name = "retriever.test"\n'
    client = 'tls_cert = "certs/client.crt"\ntls_key = "certs/client.key"\n'
    path.write_text(f"[retrievers.mtls]\n{entry}{client}[retrievers.no-client-cert]\n{entry}")

    retriever = open_retriever("mtls", config_path=path, timeout_s=3)
    try:
        assert (await retriever.retrieve("cats purr", 1))[0].document_id == "cats"
    finally:
        await retriever.close()
    assert [r.name for r in await check_contract("mtls", config_path=path) if not r.passed] == []
    refused = await check_contract("no-client-cert", config_path=path, timeout_s=1)
    assert [(r.name, r.passed) for r in refused] == [("reachable", False)]
