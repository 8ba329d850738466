"""One run in progress: the responses of one set against one retriever, then its record.

The coordinator's workers only store raw responses here (the hot path stays a few
attribute writes); scoring, metrics and latency are computed once, in ``result``.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime

from retrieval_eval.evaluation.latency import run_latency
from retrieval_eval.evaluation.results import (
    QuestionOutcome,
    RetrievalFailure,
    RunParameters,
    RunResult,
    RunState,
)
from retrieval_eval.questions.model import GoldenQuestionSet
from retrieval_eval.retrievers.types import RetrievedItem, RetrieverDescription
from retrieval_eval.scoring.metrics import breakdowns, summarize
from retrieval_eval.scoring.protocol import score_question

#: What a worker records for one question: results (or None) and a failure (or None).
Response = tuple[list[RetrievedItem] | None, RetrievalFailure | None, float]


class RunAccumulator:
    """Collects one (set, retriever) pair's responses, in any order, by question index."""

    __slots__ = ("description", "done", "qs", "responses", "started_at", "target", "task")

    def __init__(
        self, qs: GoldenQuestionSet, target: str, description: RetrieverDescription
    ) -> None:
        self.qs = qs
        self.target = target
        self.description = description
        self.responses: list[Response | None] = [None] * len(qs.questions)
        self.done = 0
        self.started_at = datetime.now(UTC)
        #: The progress handle returned by ``Progress.start`` (None without progress).
        self.task: object = None

    @property
    def finished(self) -> bool:
        return self.done == len(self.responses)

    def result(self, parameters: RunParameters, labels: Mapping[str, str]) -> RunResult:
        """Score what was measured. A run stopped before its last question is INTERRUPTED
        and holds only the measured questions; one with failures is INCOMPLETE."""
        outcomes: list[QuestionOutcome] = []
        for question, response in zip(self.qs.questions, self.responses, strict=True):
            if response is None:
                continue
            items, failure, latency_ms = response
            outcomes.append(
                score_question(
                    question,
                    items,
                    ks=parameters.ks,
                    limit=parameters.limit,
                    separator=parameters.doc_id_separator,
                    latency_ms=latency_ms,
                    error=failure,
                )
            )
        if not self.finished:
            state = RunState.INTERRUPTED
        elif any(o.error is not None for o in outcomes):
            state = RunState.INCOMPLETE
        else:
            state = RunState.COMPLETE
        by_form, by_hard_class = breakdowns(outcomes, parameters.ks)
        return RunResult(
            set_name=self.qs.name,
            set_fingerprint=self.qs.fingerprint,
            retriever_target=self.target,
            retriever=self.description,
            parameters=parameters,
            started_at=self.started_at,
            finished_at=datetime.now(UTC),
            state=state,
            metrics=summarize(outcomes, parameters.ks),
            by_form=by_form,
            by_hard_class=by_hard_class,
            latency=run_latency(outcomes),
            questions=tuple(outcomes),
            underfilled_count=sum(o.underfilled for o in outcomes),
            labels=dict(labels),
        )
