"""Read a corpus: BEIR-style JSONL (``_id``, ``title``, ``text``; gzip accepted) or a
directory of ``.txt`` / ``.md`` files (id = path relative to the directory).

The one reader of the reference plugins (BM25, dense): equal input gives equal documents
and the same corpus revision in both, so their runs on one corpus compare. Documents are
streamed (texts are never all held in memory); an index build validates while it writes
into a staging directory that is thrown away on the first problem.
"""

from __future__ import annotations

import gzip
import io
import json
import sys
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, cast

from retrieval_eval.corpus import revision
from retrieval_eval.corpus.revision import corpus_fingerprint
from retrieval_eval.errors import CorpusError

TEXT_SUFFIXES = (".txt", ".md", ".markdown")


@dataclass(frozen=True, slots=True)
class CorpusDocument:
    id: str
    title: str
    text: str
    #: Where it came from, for messages: ``file:line`` or the file path.
    location: str

    @property
    def content_hash(self) -> str:
        """Stable hash of what is indexed; ``--update`` replaces a document when it changes."""
        return revision.content_hash(self.title, self.text)

    @property
    def body(self) -> str:
        """What an unchunked index holds for the document: the title leads the text."""
        return f"{self.title}\n{self.text}" if self.title else self.text


@dataclass(frozen=True, slots=True)
class CorpusScan:
    """What a validated corpus holds: id -> content hash, and the corpus fingerprint."""

    hashes: dict[str, str]
    fingerprint: str

    @property
    def documents(self) -> int:
        return len(self.hashes)


def scan_corpus(path: Path) -> CorpusScan:
    """Validate the whole corpus; raise ``CorpusError`` on the first problem."""
    hashes: dict[str, str] = {}
    for doc in iter_documents(path):
        if doc.id in hashes:
            raise duplicate_error(path, doc)
        hashes[doc.id] = doc.content_hash
    if not hashes:
        raise empty_error(path)
    return CorpusScan(hashes, corpus_fingerprint(hashes))


def duplicate_error(path: Path, doc: CorpusDocument) -> CorpusError:
    """Names both places; the first is found by a second look (rare) rather than by
    holding every document's location in memory."""
    first = next(d.location for d in iter_documents(path) if d.id == doc.id)
    return CorpusError(f"duplicate document id {doc.id!r}: {first} and {doc.location}")


def empty_error(path: Path) -> CorpusError:
    return CorpusError(f"{path}: empty corpus, no documents to index")


def count_documents(path: Path) -> int:
    """A cheap count for progress bars: lines of a JSONL file, files of a directory."""
    if path.is_dir():
        return sum(1 for _ in _text_files(path))
    if not path.is_file():
        raise CorpusError(f"corpus not found: {path}")
    count, last = 0, b"\n"
    try:
        with _open_binary(path) as data:
            for block in iter(lambda: data.read(1 << 20), b""):
                count += block.count(b"\n")
                last = block[-1:]
    except (gzip.BadGzipFile, EOFError, zlib.error) as e:
        raise CorpusError(f"{path}: corrupt gzip file: {e}") from e
    return count + (last != b"\n")


def iter_documents(path: Path) -> Iterator[CorpusDocument]:
    """Every document of the corpus at ``path`` (a JSONL file or a directory)."""
    if path.is_dir():
        yield from _iter_directory(path)
    elif path.is_file():
        yield from _iter_jsonl(path)
    else:
        raise CorpusError(f"corpus not found: {path}")


def _open_binary(path: Path) -> IO[bytes]:
    with path.open("rb") as probe:
        gzipped = probe.read(2) == b"\x1f\x8b"
    if gzipped:
        return cast(IO[bytes], gzip.GzipFile(path, "rb"))  # typeshed: GzipFile is no IO
    return path.open("rb")


def _open_text(path: Path) -> IO[str]:
    return io.TextIOWrapper(_open_binary(path), encoding="utf-8", newline=None)


def _iter_jsonl(path: Path) -> Iterator[CorpusDocument]:
    try:
        with _open_text(path) as lines:
            for number, line in enumerate(lines, start=1):
                if line.strip():
                    yield _parse_line(line, f"{path}:{number}")
    except UnicodeDecodeError as e:
        raise CorpusError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from e
    except (gzip.BadGzipFile, EOFError, zlib.error) as e:
        raise CorpusError(f"{path}: corrupt gzip file: {e}") from e


def _parse_line(line: str, location: str) -> CorpusDocument:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as e:
        raise CorpusError(f"{location}: malformed JSON: {e.msg} (column {e.colno})") from e
    except RecursionError:
        raise CorpusError(f"{location}: malformed JSON: nested too deeply to read") from None
    except ValueError as e:  # an integer over Python's digit limit
        limit = sys.get_int_max_str_digits()
        raise CorpusError(f"{location}: malformed JSON: a number over {limit} digits") from e
    if not isinstance(record, dict):
        raise CorpusError(f"{location}: expected a JSON object with '_id' and 'text'")
    doc_id = record.get("_id", record.get("id"))
    if isinstance(doc_id, int) and not isinstance(doc_id, bool):
        doc_id = str(doc_id)
    if not isinstance(doc_id, str) or not doc_id:
        raise CorpusError(f"{location}: missing or empty '_id' (a non-empty string)")
    title, text = record.get("title") or "", record.get("text")
    if not isinstance(text, str):
        raise CorpusError(f"{location}: document {doc_id!r}: 'text' must be a string")
    if not isinstance(title, str):
        raise CorpusError(f"{location}: document {doc_id!r}: 'title' must be a string")
    return CorpusDocument(doc_id, title, text, location)


def _text_files(root: Path) -> list[Path]:
    """Text and Markdown files under ``root``, hidden files and folders left out."""
    return sorted(
        p
        for p in root.rglob("*")
        if p.is_file()
        and p.suffix.lower() in TEXT_SUFFIXES
        and not any(part.startswith(".") for part in p.relative_to(root).parts)
    )


def _iter_directory(root: Path) -> Iterator[CorpusDocument]:
    for file in _text_files(root):
        try:
            text = file.read_text(encoding="utf-8")
        except UnicodeDecodeError as e:
            raise CorpusError(f"{file}: not UTF-8 text ({e.reason} at byte {e.start})") from e
        yield CorpusDocument(file.relative_to(root).as_posix(), "", text, str(file))
