"""Vocabulary overlap between a question and the documents that answer it.

The methodology's MATCH shares vocabulary with its target; GAP rewords it. The overlap
measure makes that a number in [0, 1]:

    overlap(q, d) = sum of idf(t) for question terms t found in d
                    / sum of idf(t) for all question terms

over distinct analyzed terms (see ``analyzer``; the question's function words, such as
"what" or "my", are left out), with BM25's idf
``ln(1 + (N - df + 0.5) / (df + 0.5))`` over the corpus: a term every page carries
(navigation, a footer) weighs almost nothing, a term no page carries weighs most. With
several expected documents the best one counts (any one answers the question).

``DEFAULT_MATCH_CUTOFF`` splits MATCH from GAP; how it was calibrated is in
docs/reference/lint-findings.md ("The form check").
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence, Set
from dataclasses import dataclass
from itertools import pairwise

from retrieval_eval.questions.lint.analyzer import FUNCTION_WORDS, TermAnalyzer
from retrieval_eval.questions.lint.options import DEFAULT_MATCH_CUTOFF
from retrieval_eval.records.outcome import Form


@dataclass(frozen=True, slots=True)
class TermWeights:
    """Inverse document frequencies over a corpus of ``documents`` documents."""

    documents: int
    frequencies: Counter[str]

    @classmethod
    def from_term_sets(cls, term_sets: Iterable[Set[str]]) -> TermWeights:
        """Weights from each document's distinct terms."""
        frequencies: Counter[str] = Counter()
        count = 0
        for terms in term_sets:
            frequencies.update(terms)
            count += 1
        return cls(count, frequencies)

    def idf(self, term: str) -> float:
        df = self.frequencies.get(term, 0)
        return math.log(1 + (self.documents - df + 0.5) / (df + 0.5))


def vocabulary_overlap(
    question_terms: Set[str], document_terms: Iterable[Set[str]], weights: TermWeights
) -> float:
    """The idf-weighted share of the question's terms found in the best document (0 when
    the question has no terms or there is no document)."""
    total = sum(weights.idf(t) for t in question_terms)
    if total <= 0:
        return 0.0
    best = 0.0
    for terms in document_terms:
        shared = sum(weights.idf(t) for t in question_terms & terms)
        best = max(best, shared / total)
    return best


def suggested_form(overlap: float, cutoff: float = DEFAULT_MATCH_CUTOFF) -> Form:
    """MATCH when the overlap reaches the cutoff, else GAP."""
    return Form.MATCH if overlap >= cutoff else Form.GAP


class OverlapMeter:
    """Overlap of question texts with documents of one corpus, by document text."""

    def __init__(self, weights: TermWeights, analyzer: TermAnalyzer | None = None) -> None:
        self.weights = weights
        self.analyzer = analyzer or TermAnalyzer()

    @classmethod
    def from_texts(cls, texts: Iterable[str]) -> OverlapMeter:
        """Weights from every document text of the corpus (title and body)."""
        analyzer = TermAnalyzer()
        weights = TermWeights.from_term_sets(set(analyzer.terms(t)) for t in texts)
        return cls(weights, analyzer)

    def question_terms(self, question: str) -> set[str]:
        return set(self.analyzer.terms(question, drop=FUNCTION_WORDS))

    def overlap(self, question: str, documents: Iterable[str]) -> float:
        """The overlap of a question text with the best of ``documents`` (texts)."""
        docs = [set(self.analyzer.terms(d)) for d in documents]
        return vocabulary_overlap(self.question_terms(question), docs, self.weights)


def best_cutoff(labelled: Sequence[tuple[float, Form]]) -> tuple[float, int]:
    """The cut-off that puts most (overlap, form) pairs on their labelled side, and how
    many: the midpoint of the widest gap among the best splits (only MATCH and GAP count)."""
    points = sorted((o, f) for o, f in labelled if f in (Form.MATCH, Form.GAP))
    if not points:
        return DEFAULT_MATCH_CUTOFF, 0
    edges = [0.0, *sorted({o for o, _ in points}), 1.0 + 1e-9]
    best: tuple[int, float, float] = (-1, 0.0, DEFAULT_MATCH_CUTOFF)
    for low, high in pairwise(edges):
        cut = (low + high) / 2 if high > low else high
        right = sum((f is Form.MATCH) == (o >= cut) for o, f in points)
        best = max(best, (right, high - low, cut))
    return best[2], best[0]
