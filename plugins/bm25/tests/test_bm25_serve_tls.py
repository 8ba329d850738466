"""``reval bm25 serve --tls-cert/--tls-key``: a TLS server that reval's client verifies."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from support.certificates import issue, write_pair

from retrieval_eval.errors import RetrieverUnavailable
from retrieval_eval.retrievers.client.channel import TlsConfig
from retrieval_eval.retrievers.client.grpc_client import ClientOptions, GrpcRetrieverClient

QUICK = {"timeout_s": 5, "max_attempts": 1}


def _certificates(directory: Path) -> tuple[Path, Path, Path]:
    """A throwaway CA and a server certificate for 127.0.0.1: (ca, cert, key)."""
    ca_cert, ca_key = issue("bm25 test CA", ca=True)
    cert, key = issue("127.0.0.1", (ca_cert.subject, ca_key), ips=("127.0.0.1",))
    ca, _ = write_pair(directory, "ca", ca_cert, ca_key)
    return (ca, *write_pair(directory, "server", cert, key))


async def test_serve_with_tls(index_dir: Path, tmp_path: Path) -> None:
    ca, cert, key = _certificates(tmp_path)
    command = [sys.executable, "-c", "from retrieval_eval.cli.main import main; main()"]
    args = ["bm25", "serve", str(index_dir), "--tls-cert", str(cert), "--tls-key", str(key)]
    process = subprocess.Popen([*command, *args], stdout=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline() if process.stdout else ""
        found = re.search(r" on (127\.0\.0\.1:\d+) with TLS;", line)
        assert found, line
        options = ClientOptions(tls=TlsConfig(ca_cert=ca), **QUICK)
        async with GrpcRetrieverClient(found.group(1), options) as client:
            items = await client.retrieve("thiamine", 3)
            assert items[0].document_id == "beriberi"
            assert (await client.describe()).identifier == "bm25"
        async with GrpcRetrieverClient(found.group(1), ClientOptions(**QUICK)) as plain:
            with pytest.raises(RetrieverUnavailable):
                await plain.retrieve("thiamine", 3)  # plaintext against a TLS server
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=10) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
