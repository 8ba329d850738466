"""Near-duplicate documents: exact Jaccard similarity of word-shingle sets.

A document's shingles are its overlapping ``SHINGLE_WORDS``-word sequences (lowercased
tokens, stop words kept: they carry the phrasing), hashed to 64 bits. Shingles found in
many documents (``boilerplate_limit``: a footer, a navigation bar, a licence line) are
dropped first, or every short page of a site would look like every other. Similarity is
the Jaccard index of two documents' remaining shingle sets.

Only the expected documents' near-duplicates are wanted, so there is no all-pairs
comparison: an inverted index (every document's shingles sorted by hash) gives, for each
target, every document sharing at least one shingle and how many, which is the exact
Jaccard. With boilerplate gone the posting lists are short; at 100,000 documents this is
faster than computing MinHash signatures for the corpus (see ``benchmarks/bench_lint.py``),
and exact, so no near-duplicate is lost to an estimate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

SHINGLE_WORDS = 3
_U64 = np.uint64

U64Array = npt.NDArray[np.uint64]


def _mix(x: U64Array) -> U64Array:
    """splitmix64's finalizer: a well-spread 64-bit hash of 64-bit integers."""
    with np.errstate(over="ignore"):
        x = x ^ (x >> _U64(30))
        x = x * _U64(0xBF58476D1CE4E5B9)
        x = x ^ (x >> _U64(27))
        x = x * _U64(0x94D049BB133111EB)
        return x ^ (x >> _U64(31))


@dataclass(frozen=True, slots=True)
class ShingleSets:
    """Every document's shingle hashes, concatenated: document i owns
    ``hashes[offsets[i]:offsets[i + 1]]`` (sorted, distinct)."""

    hashes: U64Array
    offsets: npt.NDArray[np.int64]

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def of(self, doc: int) -> U64Array:
        return self.hashes[self.offsets[doc] : self.offsets[doc + 1]]

    def jaccard(self, a: int, b: int) -> float:
        x, y = self.of(a), self.of(b)
        if not len(x) or not len(y):
            return 0.0
        shared = len(np.intersect1d(x, y, assume_unique=True))
        return shared / (len(x) + len(y) - shared)


def shingle_sets(word_ids: npt.NDArray[np.int64], lengths: npt.NDArray[np.int64]) -> ShingleSets:
    """Shingle hashes of documents given as their word ids (same word, same id),
    concatenated: document i has the next ``lengths[i]`` ids."""
    flat = word_ids.astype(np.uint64)
    starts = np.concatenate(([0], np.cumsum(lengths)))
    word = _mix(flat + _U64(1))
    # A shingle starts at every position that has SHINGLE_WORDS - 1 words after it in the
    # same document; a shorter document is one shingle of all its words.
    counts = np.maximum(lengths - (SHINGLE_WORDS - 1), np.minimum(lengths, 1))
    doc_of = np.repeat(np.arange(len(lengths)), counts)
    first = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
    first = first + starts[:-1][doc_of]
    end = starts[1:][doc_of]
    h = np.zeros(len(first), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(SHINGLE_WORDS):
            pos = first + j
            inside = pos < end
            part = np.where(inside, word[np.minimum(pos, max(len(word) - 1, 0))], _U64(0))
            h = _mix(h * _U64(0x9E3779B97F4A7C15) + part + _U64(j))
    # Distinct shingles per document, sorted: sort by (document, hash) and drop repeats.
    order = np.lexsort((h, doc_of))
    h, doc_of = h[order], doc_of[order]
    keep = np.ones(len(h), dtype=bool)
    keep[1:] = (h[1:] != h[:-1]) | (doc_of[1:] != doc_of[:-1])
    h, doc_of = h[keep], doc_of[keep]
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(np.bincount(doc_of, minlength=len(lengths)), out=offsets[1:])
    return ShingleSets(h, offsets)


def boilerplate_limit(documents: int) -> int:
    """Shingles in more than this many documents are boilerplate: 1% of the corpus, and
    never fewer than 10 (so a small corpus keeps its genuinely repeated passages)."""
    return max(10, documents // 100)


def without_common(sets: ShingleSets, limit: int) -> ShingleSets:
    """``sets`` without the shingles found in more than ``limit`` documents."""
    _, inverse, counts = np.unique(sets.hashes, return_inverse=True, return_counts=True)
    keep = counts[inverse] <= limit
    doc_of = np.repeat(np.arange(len(sets)), np.diff(sets.offsets))
    offsets = np.zeros(len(sets) + 1, dtype=np.int64)
    np.cumsum(np.bincount(doc_of[keep], minlength=len(sets)), out=offsets[1:])
    return ShingleSets(sets.hashes[keep], offsets)


def near_duplicates(
    sets: ShingleSets, targets: Sequence[int], threshold: float, *, chunk: int = 2048
) -> dict[int, list[tuple[int, float]]]:
    """For each target document, the other documents whose Jaccard similarity is at least
    ``threshold`` (> 0), most similar first."""
    found: dict[int, list[tuple[int, float]]] = {t: [] for t in targets}
    wanted = np.unique(np.asarray(list(targets), dtype=np.int64))
    if not len(wanted) or len(sets) < 2:
        return found
    sizes = np.diff(sets.offsets)
    doc_of = np.repeat(np.arange(len(sets), dtype=np.int64), sizes)
    order = np.argsort(sets.hashes, kind="stable")
    hashes, owners = sets.hashes[order], doc_of[order]
    for start in range(0, len(wanted), chunk):
        part = wanted[start : start + chunk]
        for a, b, similarity in _similar(sets, part, hashes, owners, sizes, threshold):
            found[a].append((b, similarity))
    for hits in found.values():
        hits.sort(key=lambda pair: (-pair[1], pair[0]))
    return found


def _similar(
    sets: ShingleSets,
    part: npt.NDArray[np.int64],
    hashes: U64Array,
    owners: npt.NDArray[np.int64],
    sizes: npt.NDArray[np.int64],
    threshold: float,
) -> list[tuple[int, int, float]]:
    """(target, other, Jaccard) for targets in ``part`` and documents sharing shingles."""
    counts = sizes[part]
    mine = np.concatenate([sets.of(int(t)) for t in part]) if counts.sum() else hashes[:0]
    target = np.repeat(part, counts)
    lo = np.searchsorted(hashes, mine, side="left")
    hi = np.searchsorted(hashes, mine, side="right")
    spans = hi - lo
    first = np.repeat(lo - (np.cumsum(spans) - spans), spans)
    other = owners[first + np.arange(int(spans.sum()))]
    pairs = np.repeat(target, spans) * np.int64(len(sizes)) + other
    keys, shared = np.unique(pairs, return_counts=True)
    a, b = np.divmod(keys, np.int64(len(sizes)))
    jaccard = shared / (sizes[a] + sizes[b] - shared)
    keep = (a != b) & (jaccard >= threshold)
    return list(zip(a[keep].tolist(), b[keep].tolist(), jaccard[keep].tolist(), strict=True))
