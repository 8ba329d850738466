"""One run in progress: the outcomes of one set against one retriever, then its record.

Each response is scored as it arrives (``record``; the usual answers a batch at a time),
so that only the compact outcome is kept, not the retriever's result records, and counted
in the run's tally (``scoring.run.RunScorer``); aggregates and breakdowns come from that
tally and latency percentiles from the latency column, once, in ``result``: no outcome is
read back.

Memory: a run holds every question's ranking until it is saved and reported. Each
outcome is packed by column as soon as it is scored (``outcomes.CompactOutcomes``: one
string per distinct id, rankings as 4-byte indices, the question as an index into the
set), so a run keeps about 125 bytes per question instead of an object and two tuples
(about 400).
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping
from datetime import UTC, datetime

from retrieval_eval.evaluation.latency import summarize_latency
from retrieval_eval.outcomes.compact import CompactOutcomeBuilder
from retrieval_eval.questions.model import GoldenQuestionSet
from retrieval_eval.records.failures import RetrievalFailure
from retrieval_eval.records.metrics import LatencySummary
from retrieval_eval.records.parameters import RunParameters
from retrieval_eval.records.run import RetrieverDescription, RunResult, RunState
from retrieval_eval.retrievers.protocol import Ranking
from retrieval_eval.scoring.run import RunScorer
from retrieval_eval.scoring.tally import Tally

#: How many usual answers are scored together (see ``RunAccumulator.record``).
BATCH = 64


class RunAccumulator:
    """Collects one (set, retriever) pair's outcomes, in any order, by question index."""

    __slots__ = (
        "_packed",
        "_pending",
        "_scorer",
        "_tally",
        "description",
        "done",
        "outcomes",
        "parameters",
        "probe",
        "qs",
        "started_at",
        "target",
        "task",
    )

    def __init__(
        self,
        qs: GoldenQuestionSet,
        target: str,
        description: RetrieverDescription,
        parameters: RunParameters,
        *,
        checked: bool = False,
    ) -> None:
        """``checked``: the retriever's answers already passed the contract check for
        ``parameters.limit`` (``AsyncRetriever.checks_answers``)."""
        self.qs = qs
        self.target = target
        self.description = description
        #: Fixed for the run; ``doc_id_separator`` is the one actually used.
        self.parameters = parameters
        #: Question index -> its row among the packed outcomes; -1 until it is measured.
        self.outcomes = array("i", [-1]) * len(qs.questions)
        self._packed = CompactOutcomeBuilder(qs.questions)  # questions read from the set
        self._scorer = RunScorer(
            parameters.ks, parameters.limit, parameters.doc_id_separator, checked=checked
        )
        self._tally = Tally((), parameters.ks)
        #: The usual answers not yet scored: (question index, ids, latency).
        self._pending: list[tuple[int, tuple[str, ...], float]] = []
        self.done = 0
        self.started_at = datetime.now(UTC)
        #: The progress handle returned by ``Progress.start`` (None without progress).
        self.task: object = None
        #: Unloaded latency from ``probe_latency`` (None without a probe).
        self.probe: LatencySummary | None = None

    @property
    def finished(self) -> bool:
        return self.done == len(self.outcomes)

    def record(
        self,
        index: int,
        items: Ranking | None,
        error: RetrievalFailure | None,
        latency_ms: float,
    ) -> None:
        """Score question ``index``'s response (or failure) and keep the outcome (its
        notes, e.g. a fused retriever's skipped member, are kept). Whatever fails here
        (a response that is not a ``Ranking`` of records) fails before anything is kept.

        The usual answer, ids alone from a source that judged them (``checked``), is set
        aside and scored with the next ``BATCH - 1`` such answers in one go: one at a time,
        each between two network events, the scoring code and data are out of the CPU's
        caches every time, and cost about three times as much. Such an answer cannot fail
        to score (its ids are strings the source checked), and ``result`` scores what is
        still set aside first, so nothing measured is lost."""
        if (
            self._scorer.checked
            and error is None
            and type(items) is Ranking
            and not items.scores
            and not items.notes
        ):
            pending = self._pending
            pending.append((index, items.document_ids, latency_ms))
            if len(pending) >= BATCH:
                self._score_pending()
        else:
            q = self.qs.questions[index]
            outcome, key = self._scorer.score(q, items, error, latency_ms)
            self.outcomes[index] = self._packed.add(outcome, index)
            self._tally.add(q.form, q.hard_class, key)
        self.done += 1

    def _score_pending(self) -> None:
        """Score and keep the answers set aside, each packed from its fields (no outcome
        built) and counted in the tally."""
        pending, self._pending = self._pending, []
        questions, outcomes = self.qs.questions, self.outcomes
        answer, keep, count = self._scorer.answer, self._packed.add_answer, self._tally.add
        for index, raw, latency_ms in pending:
            q = questions[index]
            ranked, hits, underfilled, key = answer(q, raw)
            outcomes[index] = keep(index, raw, ranked, hits, latency_ms, underfilled)
            count(q.form, q.hard_class, key)

    def result(self, labels: Mapping[str, str]) -> RunResult:
        """The run's record. A run stopped before its last question is INTERRUPTED and
        holds only the measured questions; one with failures is INCOMPLETE."""
        self._score_pending()
        outcomes = self._packed.build(row for row in self.outcomes if row >= 0)
        if not self.finished:
            state = RunState.INTERRUPTED
        elif next(iter(outcomes.failures()), None) is not None:
            state = RunState.INCOMPLETE
        else:
            state = RunState.COMPLETE
        tally = self._tally
        metrics, by_form, by_hard_class = tally.overall(), tally.by_form(), tally.by_class()
        return RunResult(
            set_name=self.qs.name,
            set_fingerprint=self.qs.fingerprint,
            retriever_target=self.target,
            retriever=self.description,
            parameters=self.parameters,
            started_at=self.started_at,
            finished_at=datetime.now(UTC),
            state=state,
            metrics=metrics,
            by_form=by_form,
            by_hard_class=by_hard_class,
            latency=summarize_latency(outcomes.latencies()),
            questions=outcomes,
            underfilled_count=outcomes.underfilled_count(),
            labels=dict(labels),
            latency_probe=self.probe,
            judgments=self.qs.judgments_by_id(),
            relevance_level=self.qs.relevance_level,
        )
