"""Read a TREC run file into the rankings it holds, ranked as trec_eval ranks them.

A line is ``topic Q0 document rank score tag``, whitespace-separated; columns after the
tag are ignored (as trec_eval ignores them), and so are ``Q0`` and the rank column:
each topic's documents are ranked by score, highest first, ties broken by document id
in descending order (trec_eval's order, byte-wise). A document listed twice for a topic
stays twice in the ranking (trec_eval refuses such a file; reval's scoring counts the
document once, at its best place). Gzip by suffix; the file is read a line at a time,
within ``MAX_RUN_BYTES`` and ``MAX_LINE_BYTES``. The fingerprint is the SHA-256 of the
(decompressed) text.
"""

from __future__ import annotations

import gzip
import hashlib
import math
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from retrieval_eval.errors import InputError
from retrieval_eval.retrievers.contract.limits import MAX_ID_BYTES

MiB = 1024 * 1024
#: A run's text (after decompression) and one line of it: bounded, so a small gzip file
#: cannot take the machine's memory; a run of 7,000 topics x 1,000 lines is a tenth of it.
MAX_RUN_BYTES = 4096 * MiB
MAX_LINE_BYTES = 1 * MiB
#: Distinct run tags kept for the description (a run normally has one).
MAX_TAGS = 5


@dataclass(frozen=True, slots=True)
class RunFile:
    """The rankings of one run file."""

    #: topic id -> (document ids, scores), best first.
    rankings: dict[str, tuple[tuple[str, ...], tuple[float, ...]]]
    #: ``sha256:<hex>`` of the file's text.
    sha256: str
    #: The run tags seen, in order of first appearance (at most ``MAX_TAGS``).
    tags: tuple[str, ...]
    lines: int


def read_run(path: Path) -> RunFile:
    """The run at ``path``; ``InputError`` naming ``file:line`` for the first bad line,
    or the file for one that cannot be read."""
    entries: dict[str, list[tuple[float, str]]] = {}
    tags: list[str] = []
    digest = hashlib.sha256()
    count = total = 0
    try:
        with _open(path) as f:
            for number, raw in enumerate(iter(lambda: f.readline(MAX_LINE_BYTES + 1), b""), 1):
                total += len(raw)
                if len(raw) > MAX_LINE_BYTES or total > MAX_RUN_BYTES:
                    raise InputError(f"{path}:{number}: {_too_long(len(raw) > MAX_LINE_BYTES)}")
                digest.update(raw)
                line = _decoded(path, number, raw)
                if not line.strip():
                    continue
                topic, doc, score, tag = _parse(path, number, line)
                entries.setdefault(topic, []).append((score, doc))
                if tag not in tags and len(tags) < MAX_TAGS:
                    tags.append(tag)
                count += 1
    except (OSError, EOFError, zlib.error) as e:
        gz = path.suffix.lower() == ".gz"
        what = getattr(e, "strerror", None) or (f"not a valid gzip file ({e})" if gz else e)
        raise InputError(f"{path}: cannot read: {what}") from None
    rankings = {}
    for topic, found in entries.items():
        found.sort(reverse=True)  # score descending, then document id descending
        rankings[topic] = (tuple([d for _, d in found]), tuple([s for s, _ in found]))
    return RunFile(rankings, "sha256:" + digest.hexdigest(), tuple(tags), count)


def _open(path: Path) -> IO[bytes]:
    if path.suffix.lower() == ".gz":
        return gzip.GzipFile(path, "rb")  # type: ignore[return-value]  # an IO[bytes]
    return path.open("rb")


def _too_long(line: bool) -> str:
    if line:
        return f"line longer than {MAX_LINE_BYTES // MiB} MiB; is this a TREC run file?"
    return f"the run's text is larger than {MAX_RUN_BYTES // MiB} MiB"


def _decoded(path: Path, number: int, raw: bytes) -> str:
    try:
        return raw.decode("utf-8-sig" if number == 1 else "utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"{path}:{number}: not UTF-8 text (byte {e.start} of the line)") from None


def _parse(path: Path, number: int, line: str) -> tuple[str, str, float, str]:
    columns = line.split()
    if len(columns) < 6:
        raise InputError(
            f"{path}:{number}: expected 6 columns (topic Q0 document rank score tag), "
            f"got {len(columns)}"
        )
    topic, _, doc, _, score_text, tag = columns[:6]
    try:
        score = float(score_text)
    except ValueError:
        raise InputError(f"{path}:{number}: score {score_text[:40]!r} is not a number") from None
    if math.isnan(score):
        raise InputError(f"{path}:{number}: score is NaN, which has no rank")
    size = len(doc.encode("utf-8", "surrogatepass"))
    if size > MAX_ID_BYTES:
        raise InputError(
            f"{path}:{number}: document id of {size:,} bytes, over the retriever "
            f"contract's {MAX_ID_BYTES:,}-byte limit"
        )
    return topic, doc, score, tag
