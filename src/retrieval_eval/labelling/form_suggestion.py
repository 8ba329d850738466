"""The suggested form of a drafted question, from the vocabulary-overlap measure of
``sets lint`` (one measure, one implementation): MATCH when the question shares enough
idf-weighted vocabulary with its best candidate, else GAP, with the overlap figure.

The measure stems with PyStemmer (the ``lint`` extra); without it drafts carry no
suggestion rather than a different one.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from retrieval_eval.labelling.draft import Suggester
from retrieval_eval.questions.corpus import CorpusDocument, read_corpus
from retrieval_eval.questions.lint.overlap import OverlapMeter, suggested_form
from retrieval_eval.records.outcome import Form
from retrieval_eval.version import install_extra

log = logging.getLogger(__name__)


def _text(document: CorpusDocument) -> str:
    return f"{document.title}\n{document.text}"


def form_suggester(corpus: Path) -> Suggester | None:
    """A suggester with idf weights over ``corpus``; ``None`` without the lint extra."""
    try:
        meter = OverlapMeter.from_texts(_text(d) for d in read_corpus(corpus))
    except ModuleNotFoundError as e:
        log.warning("no suggested forms: %s is missing (%s)", e.name, install_extra("lint"))
        return None

    def suggest(question: str, candidates: Sequence[CorpusDocument]) -> tuple[Form, float]:
        overlap = meter.overlap(question, [_text(d) for d in candidates])
        return suggested_form(overlap), overlap

    return suggest
