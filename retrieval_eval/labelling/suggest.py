"""The suggested form of a drafted question, from the vocabulary-overlap measure of
``sets lint`` (one measure, one implementation): MATCH when the question shares enough
idf-weighted vocabulary with its best candidate, else GAP, with the overlap figure."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from retrieval_eval.labelling.draft import Suggester
from retrieval_eval.questions.corpus import CorpusDocument, read_corpus
from retrieval_eval.records import Form


def form_suggester(corpus: Path) -> Suggester | None:
    """A suggester weighting terms over ``corpus``; ``None`` without the lint measure."""
    try:
        from retrieval_eval.questions.lint.overlap import OverlapMeter, suggested_form
    except ImportError:
        return None
    meter = OverlapMeter.from_texts(f"{d.title}\n{d.text}" for d in read_corpus(corpus))

    def suggest(question: str, candidates: Sequence[CorpusDocument]) -> tuple[Form, float]:
        overlap = meter.overlap(question, [f"{d.title}\n{d.text}" for d in candidates])
        return suggested_form(overlap), overlap

    return suggest
