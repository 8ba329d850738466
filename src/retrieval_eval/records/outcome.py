"""One question's outcome in a run, and the groups questions are reported in: their form
(MATCH, GAP, UNLABELLED) and hard class (``UNCLASSIFIED`` when it has none)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from retrieval_eval.records.failures import RetrievalFailure

#: The hard-class group of questions that have none, in breakdowns and set summaries.
UNCLASSIFIED = "unclassified"


class Form(StrEnum):
    """How a question relates to the corpus.

    MATCH: phrased close to the text that answers it. GAP: phrased in the user's words,
    far from the text. UNLABELLED: the source never said (e.g. an imported BEIR set);
    reported apart, never passed off as MATCH or GAP.
    """

    MATCH = "MATCH"
    GAP = "GAP"
    UNLABELLED = "UNLABELLED"


@dataclass(frozen=True, slots=True)
class QuestionOutcome:
    """One question's result in a run: its ranking (distinct documents), hits at each
    cut-off, latency, or the retrieval error that kept it from being scored (an error is
    never a miss)."""

    question_id: str
    form: Form
    hard_class: str | None
    expected_document_ids: tuple[str, ...]
    #: Result ids exactly as returned (chunk ids included), rank order.
    raw_ids: tuple[str, ...] = ()
    #: Distinct document ids after mapping and duplicate collapse, rank order.
    ranked_document_ids: tuple[str, ...] = ()
    #: k -> hit within the k best distinct documents. Empty when ``error`` is set.
    hits: Mapping[int, bool] = field(default_factory=dict)
    latency_ms: float | None = None
    error: RetrievalFailure | None = None
    #: The overfetched ranking held fewer distinct documents than the deepest k although
    #: the retriever returned a full ``limit``: the overfetch multiplier was too small.
    underfilled: bool = False
    #: The retriever's scores, aligned with ``raw_ids`` (None where a result had none);
    #: empty when it gave no scores at all.
    raw_scores: tuple[float | None, ...] = ()
    #: How the answer was made when that matters to reading it, e.g. a fused retriever's
    #: member skipped under ``on_member_error = "skip"``. Never changes the scoring.
    notes: tuple[str, ...] = ()
    #: What was asked: the question set's own string (shared, not copied). None for a
    #: run stored before question texts were kept.
    question_text: str | None = None

    @property
    def answered(self) -> bool:
        return self.error is None

    @property
    def top1_hit(self) -> bool | None:
        return self.hits.get(1) if self.answered else None

    @property
    def top3_hit(self) -> bool | None:
        return self.hits.get(3) if self.answered else None
