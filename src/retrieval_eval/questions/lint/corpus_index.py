"""One pass over the corpus, keeping only what the checks need.

From every document: its terms' document frequencies (for overlap weights) and its
shingles (for near-duplicates, boilerplate dropped). From expected documents only: their
term sets and whether they have any text. Word ids are shared by all documents so that
shingles of the same words hash alike.
"""

from __future__ import annotations

from array import array
from collections import Counter, defaultdict
from collections.abc import Iterable, Set
from dataclasses import dataclass
from itertools import count

import numpy as np
import numpy.typing as npt

from retrieval_eval.questions.corpus import CorpusDocument
from retrieval_eval.questions.lint.analyzer import TermAnalyzer, tokens
from retrieval_eval.questions.lint.overlap import TermWeights
from retrieval_eval.questions.lint.shingles import ShingleIndex, shingle_index


@dataclass(frozen=True, slots=True)
class CorpusIndex:
    ids: tuple[str, ...]
    position: dict[str, int]
    weights: TermWeights
    #: Distinct terms of each expected document (title and text).
    target_terms: dict[str, frozenset[str]]
    #: Expected documents whose text has no words.
    empty: frozenset[str]
    shingles: ShingleIndex
    analyzer: TermAnalyzer

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self.position


def index_corpus(documents: Iterable[CorpusDocument], targets: Set[str]) -> CorpusIndex:
    """Index ``documents``, keeping term sets for the ``targets`` ids only.

    Python touches each word once (tokenize, look up its number); document frequencies and
    shingles are then computed over the word numbers with numpy.
    """
    analyzer = TermAnalyzer()
    vocabulary: defaultdict[str, int] = defaultdict(count().__next__)
    word_ids = array("q")
    lengths = array("q")
    ids: list[str] = []
    target_terms: dict[str, frozenset[str]] = {}
    empty: set[str] = set()
    for doc in documents:
        words = tokens(f"{doc.title}\n{doc.text}" if doc.title else doc.text)
        ids.append(doc.id)
        word_ids.extend(map(vocabulary.__getitem__, words))
        lengths.append(len(words))
        if doc.id in targets:
            target_terms[doc.id] = frozenset(analyzer.term_set(set(words)))
            if not tokens(doc.text):
                empty.add(doc.id)
    flat = np.frombuffer(word_ids, np.int64) if word_ids else np.zeros(0, np.int64)
    sizes = np.frombuffer(lengths, np.int64) if lengths else np.zeros(0, np.int64)
    return CorpusIndex(
        ids=tuple(ids),
        position={doc_id: i for i, doc_id in enumerate(ids)},
        weights=_weights(analyzer, list(vocabulary), flat, sizes),
        target_terms=target_terms,
        empty=frozenset(empty),
        shingles=shingle_index(flat, sizes),
        analyzer=analyzer,
    )


def _weights(
    analyzer: TermAnalyzer,
    words: list[str],
    flat: npt.NDArray[np.int64],
    lengths: npt.NDArray[np.int64],
) -> TermWeights:
    """Document frequency of every term: distinct (document, term) pairs, counted."""
    term_numbers: dict[str, int] = {}
    term_of_word = np.fromiter(
        (-1 if (t := analyzer.term(w)) is None else term_numbers.setdefault(t, len(term_numbers))
         for w in words),
        dtype=np.int64, count=len(words),
    )  # fmt: skip
    terms = term_of_word[flat]
    docs = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    real = terms >= 0
    pairs = np.sort(docs[real] * np.int64(len(term_numbers) + 1) + terms[real])
    pairs = pairs[np.concatenate(([True], pairs[1:] != pairs[:-1]))] if len(pairs) else pairs
    counts = np.bincount(pairs % np.int64(len(term_numbers) + 1), minlength=len(term_numbers))
    return TermWeights(len(lengths), Counter(dict(zip(term_numbers, counts.tolist(), strict=True))))
