"""The ``http`` kind reads an answer in pieces and never past the contract's size: a gzip
bomb is a ``contract`` error within the call's deadline and bounded memory (measured in a
child process), and so is a plain body that goes on too long; compressed answers that
fit are decoded exactly."""

from __future__ import annotations

import gzip
import json
import struct
import subprocess
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import kinds
from support.http_servers import ScriptedServer

from retrieval_eval.errors import RetrieverContractError, RetrieverUnavailable
from retrieval_eval.retrievers.contract.limits import MAX_RESPONSE_BYTES

ES_HITS = {"hits": {"hits": [{"_id": "a", "_score": 2.0}, {"_id": "b", "_score": 1.0}]}}
MIB = 1 << 20

CHILD = """
import asyncio, sys
from pathlib import Path
from retrieval_eval.errors import RetrieverError
from retrieval_eval.retrievers.opening import open_retriever

async def ask():
    retriever = open_retriever("search-api", config_path=Path(sys.argv[1]))
    try:
        await retriever.retrieve("restore a deleted file", 5)
        return "answered", ""
    except RetrieverError as e:
        return e.kind, e.details
    finally:
        await retriever.close()

kind, details = asyncio.run(ask())
peak = next(l for l in open("/proc/self/status") if l.startswith("VmHWM:")).split()[1]
print(kind, peak, details)
"""


def gzip_bomb(mib: int = 1024) -> bytes:
    """A valid single-stream gzip of ``mib`` MiB of zeros (1 GiB: about 1 MiB): blocks each
    ended by a full flush (so every block compresses to the same bytes), then the trailer
    (CRC and size) of the whole."""
    zeros = bytes(MIB)
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    first = packer.compress(zeros) + packer.flush(zlib.Z_FULL_FLUSH)
    block = packer.compress(zeros) + packer.flush(zlib.Z_FULL_FLUSH)
    final = packer.flush()[:-8]  # the last (empty) block without the trailer of 2 MiB
    crc = 0
    for _ in range(mib):
        crc = zlib.crc32(zeros, crc)
    trailer = struct.pack("<II", crc, (mib * MIB) & 0xFFFFFFFF)
    return first + block * (mib - 1) + final + trailer


def config(tmp_path: Path, url: str, extra: str = "") -> Path:
    path = tmp_path / "reval.toml"
    path.write_text(
        "[retrievers.search-api]\n"
        'kind = "http"\n'
        f'url = "{url}/docs/_search"\n'
        'body = { query = { match = { text = "{question}" } }, size = "{limit}" }\n'
        'ids = "hits.hits[*]._id"\n'
        'scores = "hits.hits[*]._score"\n' + extra + "\n"
    )
    return path


def test_a_gzip_bomb_is_a_contract_error_in_bounded_memory_within_the_deadline(
    tmp_path: Path,
) -> None:
    bomb = gzip_bomb()
    assert len(bomb) < 2 * MIB
    server = ScriptedServer(lambda r: (200, bomb, {"Content-Encoding": "gzip"}))
    path = config(tmp_path, server.url, "timeout = 3")
    with server:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, timeout=120
        )
    assert done.returncode == 0, done.stderr
    kind, peak_kib, details = done.stdout.strip().split(" ", 2)
    # contract, not timeout: the read stopped at the limit, well inside the 3 s deadline.
    assert kind == "contract", done.stdout
    assert f"more than {MAX_RESPONSE_BYTES} bytes once gzip-decoded" in details
    # A correctness bound (the whole body decompressed is 1 GiB), not a timing.
    assert int(peak_kib) < 300 * 1024, f"peak RSS {int(peak_kib) // 1024} MiB"
    assert len(server.requests) == 1  # an oversized answer is not retried


async def test_a_plain_body_sent_chunked_past_the_limit_is_a_contract_error(
    tmp_path: Path,
) -> None:
    sent: list[int] = []

    def endless() -> Iterator[bytes]:
        for _ in range(64):  # 64 MiB if read to the end
            sent.append(1)
            yield b" " * MIB

    server = ScriptedServer(lambda r: (200, endless()))
    with server, pytest.raises(RetrieverContractError, match="more than 16777216 bytes, over"):
        await kinds.ask("search-api", config(tmp_path, server.url))
    assert len(sent) < 64  # the client stopped reading


async def test_a_declared_length_past_the_limit_is_refused_unread(tmp_path: Path) -> None:
    big = b" " * (MAX_RESPONSE_BYTES + 1)
    server = ScriptedServer(lambda r: (200, big))
    with server, pytest.raises(RetrieverContractError, match="over the contract's limit"):
        await kinds.ask("search-api", config(tmp_path, server.url))


@pytest.mark.parametrize(
    ("encoding", "encode"),
    [
        ("gzip", gzip.compress),
        ("deflate", zlib.compress),
        ("deflate", lambda b: zlib.compress(b, wbits=-15)),  # raw, as some servers send it
        # Several gzip members are one body (RFC 1952): each is decoded in turn.
        ("gzip", lambda b: gzip.compress(b[:10]) + gzip.compress(b[10:])),
    ],
)
async def test_compressed_answers_are_decoded(tmp_path: Path, encoding: str, encode) -> None:  # type: ignore[no-untyped-def]
    body = encode(json.dumps(ES_HITS).encode())
    server = ScriptedServer(lambda r: (200, body, {"Content-Encoding": encoding}))
    with server:
        ranking = await kinds.ask("search-api", config(tmp_path, server.url))
    assert ranking.document_ids == ("a", "b")  # type: ignore[attr-defined]
    assert server.requests[0].headers["accept-encoding"] == "gzip, deflate"


async def test_an_encoding_not_asked_for_or_broken_is_a_contract_error(tmp_path: Path) -> None:
    server = ScriptedServer(lambda r: (200, b"\x0b\x02\x80{}\x03", {"Content-Encoding": "br"}))
    with server, pytest.raises(RetrieverContractError, match="br-encoded, which was not asked"):
        await kinds.ask("search-api", config(tmp_path, server.url))
    server = ScriptedServer(lambda r: (200, b"not gzip at all", {"Content-Encoding": "gzip"}))
    with server, pytest.raises(RetrieverContractError, match="gzip body does not decode"):
        await kinds.ask("search-api", config(tmp_path, server.url))
    cut = gzip.compress(json.dumps(ES_HITS).encode())[:-12]
    server = ScriptedServer(lambda r: (200, cut, {"Content-Encoding": "gzip"}))
    with server, pytest.raises(RetrieverContractError, match="ends before its stream does"):
        await kinds.ask("search-api", config(tmp_path, server.url))


async def test_an_error_status_quotes_the_decoded_start_of_its_body(tmp_path: Path) -> None:
    reason = gzip.compress(b'{"error": "index closed"}' + b" " * 10_000)
    server = ScriptedServer(lambda r: (503, reason, {"Content-Encoding": "gzip"}))
    with server, pytest.raises(RetrieverUnavailable) as raised:
        await kinds.ask("search-api", config(tmp_path, server.url))
    assert 'HTTP 503: \'{"error": "index closed"}' in raised.value.details
    assert "(after 3 attempts)" in raised.value.details


def test_the_bomb_is_what_it_claims() -> None:
    """The fixture's construction, checked whole (CRC and size included) at 8 MiB, where
    decoding all of it is quick."""
    assert gzip.decompress(gzip_bomb(8)) == bytes(8 * MIB)
    assert len(gzip_bomb(8)) < 16 * 1024
