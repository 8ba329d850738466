"""``reval bm25 serve --tls-cert/--tls-key``: a TLS server that reval's client verifies."""

from __future__ import annotations

import datetime as dt
import ipaddress
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from retrieval_eval.errors import RetrieverUnavailable
from retrieval_eval.retrievers.client import ClientOptions, GrpcRetrieverClient, TlsConfig

QUICK = {"timeout_s": 5, "max_attempts": 1}


def _certificates(directory: Path) -> tuple[Path, Path, Path]:
    """A throwaway CA and a server certificate for 127.0.0.1: (ca, cert, key)."""
    now = dt.datetime.now(dt.UTC)

    def issue(name: str, signer: ec.EllipticCurvePrivateKey | None, ca_name=None, **ext):
        key = ec.generate_private_key(ec.SECP256R1())
        subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
        builder = (
            x509.CertificateBuilder()
            .subject_name(subject)
            .issuer_name(ca_name or subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(minutes=5))
            .not_valid_after(now + dt.timedelta(hours=1))
            .add_extension(x509.BasicConstraints(ca=ca_name is None, path_length=None), True)
        )
        if "ip" in ext:
            sans = x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(ext["ip"]))])
            builder = builder.add_extension(sans, critical=False)
        return builder.sign(signer or key, hashes.SHA256()), key

    ca_cert, ca_key = issue("bm25 test CA", None)
    cert, key = issue("127.0.0.1", ca_key, ca_cert.subject, ip="127.0.0.1")
    paths = directory / "ca.crt", directory / "server.crt", directory / "server.key"
    paths[0].write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    paths[2].write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return paths


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
