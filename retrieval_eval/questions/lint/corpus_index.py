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

from retrieval_eval.questions.corpus import CorpusDocument
from retrieval_eval.questions.lint.analyzer import TermAnalyzer, tokens
from retrieval_eval.questions.lint.overlap import TermWeights
from retrieval_eval.questions.lint.shingles import (
    ShingleSets,
    boilerplate_limit,
    shingle_sets,
    without_common,
)


@dataclass(frozen=True, slots=True)
class CorpusIndex:
    ids: tuple[str, ...]
    position: dict[str, int]
    weights: TermWeights
    #: Distinct terms of each expected document (title and text).
    target_terms: dict[str, frozenset[str]]
    #: Expected documents whose text has no words.
    empty: frozenset[str]
    shingles: ShingleSets
    analyzer: TermAnalyzer

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self.position


def index_corpus(documents: Iterable[CorpusDocument], targets: Set[str]) -> CorpusIndex:
    """Index ``documents``, keeping term sets for the ``targets`` ids only."""
    analyzer = TermAnalyzer()
    frequencies: Counter[str] = Counter()
    vocabulary: defaultdict[str, int] = defaultdict(count().__next__)
    word_ids = array("q")
    lengths = array("q")
    ids: list[str] = []
    target_terms: dict[str, frozenset[str]] = {}
    empty: set[str] = set()
    for doc in documents:
        words = tokens(f"{doc.title}\n{doc.text}" if doc.title else doc.text)
        terms = analyzer.term_set(set(words))
        frequencies.update(terms)
        ids.append(doc.id)
        word_ids.extend(map(vocabulary.__getitem__, words))
        lengths.append(len(words))
        if doc.id in targets:
            target_terms[doc.id] = frozenset(terms)
            if not tokens(doc.text):
                empty.add(doc.id)
    sets = shingle_sets(
        np.frombuffer(word_ids, dtype=np.int64), np.frombuffer(lengths, dtype=np.int64)
    )
    return CorpusIndex(
        ids=tuple(ids),
        position={doc_id: i for i, doc_id in enumerate(ids)},
        weights=TermWeights(len(ids), frequencies),
        target_terms=target_terms,
        empty=frozenset(empty),
        shingles=without_common(sets, boilerplate_limit(len(ids))),
        analyzer=analyzer,
    )
