"""The coordinator's workers: a fixed pool per retriever pulling (run, question) jobs from
one shared iterator, one call at a time each, recording what comes back (see the
coordinator's docstring for the concurrency model)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterator
from typing import Protocol

from retrieval_eval.errors import RetrieverError
from retrieval_eval.evaluation.accumulate import RunAccumulator
from retrieval_eval.evaluation.deadlines import Call, with_deadline
from retrieval_eval.evaluation.failfast import ErrorWatch
from retrieval_eval.records.failures import FailureKind, RetrievalFailure
from retrieval_eval.records.parameters import RunParameters
from retrieval_eval.retrievers.asked import ASKED_QUESTION_ID
from retrieval_eval.retrievers.protocol import AsyncRetriever

log = logging.getLogger(__name__)


class Progress(Protocol):
    """What the coordinator reports progress to (the CLI implements it with rich)."""

    def start(self, label: str, total: int) -> object: ...

    def advance(self, task: object, n: int = 1) -> None: ...


def start_pool(
    group: asyncio.TaskGroup,
    retriever: AsyncRetriever,
    runs: list[RunAccumulator],
    base: RunParameters,
    progress: Progress | None,
    watch: ErrorWatch | None = None,
) -> None:
    jobs = ((acc, i) for acc in runs for i in range(len(acc.outcomes)))
    total = sum(len(acc.outcomes) for acc in runs)
    call = with_deadline(retriever, base.timeout_s)
    for _ in range(min(base.concurrency, total)):
        work = _work(call, iter(jobs), base.limit, retriever.target, progress, watch)
        group.create_task(work)


#: A worker lets the event loop run after this many questions even when every call
#: answered without waiting (an in-process retriever that never suspends): otherwise the
#: loop never runs during the run, every call's cancelled deadline timer stays queued
#: (about 200 bytes a question), and Ctrl-C and progress wait for the last question.
YIELD_EVERY = 256


async def _work(
    call: Call,
    jobs: Iterator[tuple[RunAccumulator, int]],
    limit: int,
    target: str,
    progress: Progress | None,
    watch: ErrorWatch | None = None,
) -> None:
    """Pull jobs from the shared iterator until it is exhausted; one call at a time."""
    clock = time.perf_counter
    shown = _Shown(progress) if progress is not None else None
    asked = ASKED_QUESTION_ID  # set in this worker's task: its calls see their question
    try:
        for done, (acc, index) in enumerate(jobs, 1):
            if not done % YIELD_EVERY:
                await asyncio.sleep(0)
            skipped = watch.not_asked(acc) if watch is not None else None
            if skipped is not None:
                acc.record(index, None, skipped, 0.0)
                if shown is not None:
                    shown.tick(acc.task, clock())
                continue
            question = acc.qs.questions[index]
            asked.set(question.id)
            started = clock()
            failure: RetrievalFailure | None = None
            try:
                items = await call(question.question, limit)
            except RetrieverError as e:
                failure = _failure(e)
            except Exception as e:
                log.debug("retriever %s raised for %s", target, question.id, exc_info=True)
                failure = RetrievalFailure(FailureKind.INTERNAL, f"{type(e).__name__}: {e}")
            finished = clock()
            latency_ms = (finished - started) * 1000
            if failure is None:
                try:
                    acc.record(index, items, None, latency_ms)
                except (AttributeError, TypeError) as e:  # not a Ranking (or its records)
                    failure = RetrievalFailure(FailureKind.INTERNAL, f"malformed response: {e}")
            if failure is not None:
                acc.record(index, None, failure, latency_ms)
                if watch is not None:
                    watch.failed(acc, len(acc.outcomes))
            if shown is not None:
                shown.tick(acc.task, finished)
    finally:
        if shown is not None:
            shown.flush()


#: Seconds between a worker's progress updates: a bar redraws ten times a second at most,
#: so advancing it once per question (a lock and a time sample each) is work nobody sees.
PROGRESS_EVERY_S = 0.1


class _Shown:
    """One worker's questions not yet shown on the progress bar, passed on in batches."""

    __slots__ = ("due", "pending", "progress", "task")

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.task: object = None
        self.pending = 0
        self.due = 0.0

    def tick(self, task: object, now: float) -> None:
        """One more question of ``task`` done at ``now`` (``time.perf_counter``)."""
        if task is not self.task:
            self.flush()
            self.task = task
        self.pending += 1
        if now >= self.due:
            self.flush()
            self.due = now + PROGRESS_EVERY_S

    def flush(self) -> None:
        if self.pending:
            self.progress.advance(self.task, self.pending)
            self.pending = 0


def _failure(error: RetrieverError) -> RetrievalFailure:
    code = f"{error.code}: " if error.code else ""
    return RetrievalFailure(FailureKind(error.kind), code + error.details)
