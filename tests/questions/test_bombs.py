"""Decompression bombs: small gzip files whose text is far beyond the documented limits
are refused with one line naming the file and the limit (exit 2) by the installed
``reval`` executable; a JSONL set is read in bounded pieces, and blank lines are cheap.
Time and memory are figures of ``benchmarks/bench_bombs.py``, not assertions here."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

from retrieval_eval.questions.bounded import MAX_DOCUMENT_BYTES, MAX_JSONL_BYTES, MAX_LINE_BYTES

REVAL = Path(sys.executable).parent / "reval"
MiB = 1024 * 1024
QUESTION = {"id": "q1", "question": "Where?", "form": "MATCH", "expected_document_ids": ["d1"]}


def gzip_file(path: Path, *pieces: tuple[bytes, int]) -> Path:
    """``path`` gzipped from ``(block, times)`` pieces, written a block at a time."""
    with gzip.open(path, "wb", compresslevel=1) as f:
        for block, times in pieces:
            for _ in range(times):
                f.write(block)
    return path


def validate(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(REVAL), "sets", "validate", str(path)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_COLOR": "1"},
    )


def refused(done: subprocess.CompletedProcess[str], path: Path, what: str) -> None:
    assert done.returncode == 2, done.stdout + done.stderr
    text = done.stdout + done.stderr
    assert "Traceback" not in text
    lines = [line for line in text.splitlines() if what in line]
    assert len(lines) == 1 and str(path) in lines[0], text


def test_a_yaml_bomb_is_refused_at_the_document_limit(tmp_path: Path) -> None:
    block = b"- {id: x, question: y, expected_document_ids: [z]}\n" * 20_000  # ~1 MiB
    path = gzip_file(tmp_path / "bomb.yaml.gz", (block, MAX_DOCUMENT_BYTES // len(block) + 2))
    assert path.stat().st_size < MAX_DOCUMENT_BYTES // 100
    refused(validate(path), path, f"larger than {MAX_DOCUMENT_BYTES // MiB} MiB")


def test_a_jsonl_line_beyond_the_line_limit_is_refused(tmp_path: Path) -> None:
    path = gzip_file(
        tmp_path / "long.jsonl.gz",
        (json.dumps(QUESTION).encode() + b"\n", 1),
        (b'{"id": "q2", "question": "', 1),
        (b"a" * MiB, MAX_LINE_BYTES // MiB + 1),
    )
    refused(validate(path), path, f"line 2 is longer than {MAX_LINE_BYTES // MiB} MiB")


def test_a_blank_line_bomb_is_refused_at_the_jsonl_limit(tmp_path: Path) -> None:
    path = gzip_file(tmp_path / "blank.jsonl.gz", (b"\n" * MiB, MAX_JSONL_BYTES // MiB + 1))
    refused(validate(path), path, f"larger than {MAX_JSONL_BYTES // MiB} MiB")


def test_blank_lines_within_the_limit_are_skipped_and_lines_still_counted(
    tmp_path: Path,
) -> None:
    blanks = 64 * MiB
    bad = {**QUESTION, "id": "q2", "form": "SIDEWAYS"}
    path = gzip_file(
        tmp_path / "sparse.jsonl.gz",
        (json.dumps(QUESTION).encode() + b"\n", 1),
        (b"\n \r\n\t\n\n" * (MiB // 4), blanks // MiB),
        (json.dumps(bad).encode() + b"\n", 1),
    )
    done = validate(path)
    assert done.returncode == 2, done.stdout + done.stderr
    line = 1 + 4 * (MiB // 4) * (blanks // MiB) + 1
    assert f"{path}:{line}" in done.stdout + done.stderr and "SIDEWAYS" in done.stdout
