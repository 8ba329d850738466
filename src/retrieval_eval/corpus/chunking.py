"""Split documents into overlapping word windows; chunk ids are ``<doc id>#<n>``.

The evaluator maps a chunk id back to its document by cutting at the LAST ``#``, so
document ids may themselves contain ``#``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from retrieval_eval.errors import InputError

CHUNK_SEPARATOR = "#"


@dataclass(frozen=True, slots=True)
class Chunking:
    """Window of ``words`` words, consecutive windows sharing ``overlap`` words."""

    words: int
    overlap: int = 0

    def __post_init__(self) -> None:
        if self.words < 1:
            raise InputError(f"--chunk-words must be at least 1, got {self.words}")
        if not 0 <= self.overlap < self.words:
            raise InputError(
                f"--chunk-overlap must be between 0 and --chunk-words - 1 "
                f"({self.words - 1}), got {self.overlap}"
            )

    def label(self) -> str:
        """Identity of the chunking for Describe, e.g. ``words=200,overlap=50``."""
        return f"words={self.words},overlap={self.overlap}"

    def split(self, doc_id: str, title: str, text: str) -> Iterator[tuple[str, str]]:
        """Yield ``(chunk id, chunk body)``; the title leads every chunk.

        A document shorter than one window (or empty) gives exactly one chunk, ``#0``.
        """
        words = text.split()
        step = self.words - self.overlap
        start, n = 0, 0
        while True:
            window = " ".join(words[start : start + self.words])
            yield f"{doc_id}{CHUNK_SEPARATOR}{n}", f"{title}\n{window}" if title else window
            if start + self.words >= len(words):
                return
            start, n = start + step, n + 1
