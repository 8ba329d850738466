"""Near-duplicate documents: exact Jaccard similarity of word-shingle sets.

A document's shingles are its overlapping ``SHINGLE_WORDS``-word sequences (lowercased
tokens, stop words kept: they carry the phrasing), hashed to 64 bits; a shorter document
is one shingle. Shingles found in more than ``boilerplate_limit`` documents (a footer, a
navigation bar, a licence line) are dropped, or every short page of a site would look like
every other. Similarity is the Jaccard index of two documents' remaining shingle sets.

Only the expected documents' near-duplicates are wanted, so there is no all-pairs
comparison. Every (shingle, document) pair is packed into one 64-bit key (the shingle's
top bits, then the document number) and the keys are sorted once: equal shingles are then
adjacent, which gives each shingle's documents (an inverted index), its document count
(for boilerplate) and, for each target, every document sharing a shingle with it and how
many: the exact Jaccard. Packing keeps 64 - log2(documents) bits of each hash (47 at
100,000 documents), so two distinct shingles of a corpus collide about once in 10^13
pairs. At 100,000 documents this takes seconds (``benchmarks/bench_lint.py``), less than
computing MinHash signatures, and no near-duplicate is lost to an estimate.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

SHINGLE_WORDS = 3
_U64 = np.uint64

U64Array = npt.NDArray[np.uint64]
I64Array = npt.NDArray[np.int64]


def _mix(x: U64Array) -> U64Array:
    """splitmix64's finalizer: a well-spread 64-bit hash of 64-bit integers."""
    with np.errstate(over="ignore"):
        x = x ^ (x >> _U64(30))
        x = x * _U64(0xBF58476D1CE4E5B9)
        x = x ^ (x >> _U64(27))
        x = x * _U64(0x94D049BB133111EB)
        return x ^ (x >> _U64(31))


def boilerplate_limit(documents: int) -> int:
    """Shingles in more than this many documents are boilerplate: 1% of the corpus, and
    never fewer than 10 (so a small corpus keeps its genuinely repeated passages)."""
    return max(10, documents // 100)


def shingle_hashes(word_ids: I64Array, lengths: I64Array) -> tuple[U64Array, I64Array]:
    """(hash, document) of every shingle of documents given as concatenated word ids."""
    words = _mix(word_ids.astype(np.uint64) + _U64(1))
    n = len(words)
    starts = np.concatenate(([0], np.cumsum(lengths)))[:-1]
    doc_of_word = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    width = SHINGLE_WORDS
    h = np.zeros(max(n - width + 1, 0), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(width):
            h = _mix(h * _U64(0x9E3779B97F4A7C15) + words[j : j + len(h)] + _U64(j))
    # A full shingle starts where the document still has SHINGLE_WORDS words left.
    full = doc_of_word[: len(h)] == doc_of_word[width - 1 : width - 1 + len(h)]
    hashes, docs = h[full], doc_of_word[: len(h)][full]
    short = np.flatnonzero((lengths > 0) & (lengths < width))
    if len(short):  # a document shorter than a shingle is one shingle of all its words
        extra = np.zeros(len(short), dtype=np.uint64)
        with np.errstate(over="ignore"):
            for j in range(width - 1):
                inside = j < lengths[short]
                word = words[np.minimum(starts[short] + j, n - 1)]
                extra = np.where(inside, _mix(extra * _U64(0x9E3779B97F4A7C15) + word), extra)
        hashes, docs = np.concatenate((hashes, extra)), np.concatenate((docs, short))
    return hashes, docs


class ShingleIndex:
    """Every document's distinct non-boilerplate shingles, as sorted packed keys."""

    def __init__(self, hashes: U64Array, docs: I64Array, documents: int, limit: int | None):
        self.documents = documents
        self._bits = max(1, int(documents).bit_length())
        low = _U64((1 << self._bits) - 1)
        keys = np.sort((hashes & ~low) | docs.astype(np.uint64))
        if len(keys):
            keys = keys[np.concatenate(([True], keys[1:] != keys[:-1]))]
        shingle = keys >> _U64(self._bits)
        run_start = np.flatnonzero(np.concatenate(([True], shingle[1:] != shingle[:-1])))
        run_length = np.diff(np.append(run_start, len(keys)))
        if limit is not None:
            keep = np.repeat(run_length <= limit, run_length)
            keys, shingle = keys[keep], shingle[keep]
            run_start = np.flatnonzero(np.concatenate(([True], shingle[1:] != shingle[:-1])))
            run_length = np.diff(np.append(run_start, len(keys)))
        self._docs = (keys & low).astype(np.int64)
        # For every entry, the bounds of its shingle's run (the documents sharing it).
        self._lo = np.repeat(run_start, run_length)
        self._hi = self._lo + np.repeat(run_length, run_length)
        self.sizes = np.bincount(self._docs, minlength=documents)

    def jaccard(self, a: int, b: int) -> float:
        """Exact Jaccard of two documents' shingle sets (0 when either has none)."""
        found = self.similar([a], 0.0).get(a, [])
        return next((s for other, s in found if other == b), 0.0)

    def similar(
        self, targets: Sequence[int], threshold: float, *, batch: int = 2048
    ) -> dict[int, list[tuple[int, float]]]:
        """For each target, the other documents with Jaccard >= ``threshold`` (and > 0),
        most similar first. Targets are taken ``batch`` at a time to bound memory."""
        found: dict[int, list[tuple[int, float]]] = {int(t): [] for t in targets}
        wanted = np.unique(np.asarray(list(targets), dtype=np.int64))
        for start in range(0, len(wanted), batch):
            mask = np.zeros(self.documents, dtype=bool)
            mask[wanted[start : start + batch]] = True
            entries = np.flatnonzero(mask[self._docs])
            for a, b, s in self._pairs(entries, threshold):
                found[a].append((b, s))
        for hits in found.values():
            hits.sort(key=lambda pair: (-pair[1], pair[0]))
        return found

    def _pairs(self, batch: I64Array, threshold: float) -> list[tuple[int, int, float]]:
        lo, hi = self._lo[batch], self._hi[batch]
        spans = hi - lo
        index = np.repeat(lo - (np.cumsum(spans) - spans), spans) + np.arange(int(spans.sum()))
        n = np.int64(self.documents)
        pairs = np.repeat(self._docs[batch], spans) * n + self._docs[index]
        if not len(pairs):
            return []
        pairs.sort()
        first = np.flatnonzero(np.concatenate(([True], pairs[1:] != pairs[:-1])))
        keys, shared = pairs[first], np.diff(np.append(first, len(pairs)))
        a, b = np.divmod(keys, n)
        jaccard = shared / (self.sizes[a] + self.sizes[b] - shared)
        keep = (a != b) & (jaccard >= threshold) & (jaccard > 0)
        return list(zip(a[keep].tolist(), b[keep].tolist(), jaccard[keep].tolist(), strict=True))


def shingle_index(
    word_ids: I64Array, lengths: I64Array, *, drop_boilerplate: bool = True
) -> ShingleIndex:
    """The shingle index of documents given as concatenated word ids and their lengths."""
    hashes, docs = shingle_hashes(word_ids, lengths)
    limit = boilerplate_limit(len(lengths)) if drop_boilerplate else None
    return ShingleIndex(hashes, docs, len(lengths), limit)
