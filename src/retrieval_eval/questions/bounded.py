"""Reading set files within documented limits, so a small gzip file cannot take the
machine's memory or minutes of CPU (a decompression bomb).

Limits, counted on the text after decompression:

- a YAML or JSON set file (parsed as one document): at most ``MAX_DOCUMENT_BYTES``;
- a JSONL set file (read line by line): at most ``MAX_JSONL_BYTES`` in all and
  ``MAX_LINE_BYTES`` per line, so reading holds one bounded line at a time; runs of
  blank lines are skipped without splitting them, so ten million blank lines take
  seconds, not minutes.

Going over a limit is the file's one problem, naming the file and the limit.
"""

from __future__ import annotations

import codecs
import gzip
import re
from collections.abc import Iterator
from pathlib import Path
from typing import IO

MiB = 1024 * 1024
MAX_DOCUMENT_BYTES = 256 * MiB
MAX_JSONL_BYTES = 1024 * MiB
#: A question line: the contract's 16 KiB question, ids of up to 4 KiB each, with room.
MAX_LINE_BYTES = 8 * MiB
_CHUNK = 1 * MiB
#: Anything but ASCII whitespace: where a line with content is.
_CONTENT = re.compile(rb"[^ \t\r\n\x0b\x0c]")


class TooLarge(OSError):
    """A set file's (decompressed) text goes over a documented limit."""


def _size(limit: int) -> str:
    return f"{limit // MiB} MiB"


def open_set_file(path: Path) -> IO[bytes]:
    """The file's bytes, decompressed when it ends in ``.gz``."""
    if path.suffix.lower() == ".gz":
        return gzip.GzipFile(path, "rb")  # type: ignore[return-value]  # an IO[bytes]
    return path.open("rb")


def read_bounded(path: Path, limit: int = MAX_DOCUMENT_BYTES) -> bytes:
    """All of the file's (decompressed) bytes; ``TooLarge`` past ``limit``."""
    with open_set_file(path) as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise TooLarge(
            f"its text is larger than {_size(limit)}{_after(path)}, the limit for a YAML or "
            "JSON set file (a JSONL set is read line by line and may be larger)"
        )
    return data


def _after(path: Path) -> str:
    return " after decompression" if path.suffix.lower() == ".gz" else ""


def numbered_lines(
    f: IO[bytes],
    path: Path,
    *,
    limit: int = MAX_JSONL_BYTES,
    line_limit: int = MAX_LINE_BYTES,
) -> Iterator[tuple[int, str]]:
    """The file's non-blank lines with their numbers, decoded, split at ``\\n`` only;
    a decoding error's ``start`` is its byte offset in the file after a BOM.
    ``TooLarge`` past ``limit`` bytes in all or ``line_limit`` bytes in one line."""
    number = 1  # the number of the line that starts at the head of ``pending``
    offset = 0  # file offset (after a BOM) of the head of ``pending``
    total = 0
    pending = b""
    first = True
    while True:
        chunk = f.read(_CHUNK)
        total += len(chunk)
        if total > limit:
            raise TooLarge(
                f"its text is larger than {_size(limit)}{_after(path)}, the limit for a "
                "JSONL set file"
            )
        if first and chunk:
            first = False
            if chunk.startswith(codecs.BOM_UTF8):
                chunk = chunk[len(codecs.BOM_UTF8) :]
        data = pending + chunk if pending else chunk
        end = len(data) if not chunk else data.rfind(b"\n") + 1  # whole lines only
        position = 0
        found = _CONTENT.search(data, 0, end) if data[:end].strip() else None
        while found is not None:  # blank runs are skipped in C, never split
            start = data.rfind(b"\n", 0, found.start()) + 1
            stop = data.find(b"\n", found.start(), end)
            stop = end if stop < 0 else stop
            number += data.count(b"\n", position, start)
            if stop - start > line_limit:
                raise _long_line(number, line_limit)
            yield number, _decode(data[start:stop], offset + start)
            position = start
            found = _CONTENT.search(data, stop, end)
        number += data.count(b"\n", position, end)
        offset += end
        pending = data[end:]
        if len(pending) > line_limit:
            raise _long_line(number, line_limit)
        if not chunk:
            return


def _decode(line: bytes, offset: int) -> str:
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError as e:
        e.start += offset
        raise


def _long_line(number: int, limit: int) -> TooLarge:
    return TooLarge(f"line {number} is longer than {_size(limit)}, the limit for one line")
