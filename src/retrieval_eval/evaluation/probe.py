"""Latency without load: questions re-asked one at a time after the run.

A run's latency is client wall time under its concurrency, so it includes queueing in
the retriever (and in the client): at 32 in flight against a retriever that serves 8 at
once, three quarters of each figure is waiting. The probe asks ``n`` questions of the set
(spread evenly over it) sequentially once the run is over, so its figures are the
retriever's own service time plus one round trip. Failed calls are left out, as in the
run's latency; they never change the run's outcomes.
"""

from __future__ import annotations

import time

from retrieval_eval.evaluation.deadlines import Call
from retrieval_eval.evaluation.latency import summarize_latency
from retrieval_eval.questions.model import GoldenQuestionSet
from retrieval_eval.records.metrics import LatencySummary
from retrieval_eval.retrievers.asked import ASKED_QUESTION_ID


def probe_indexes(total: int, n: int) -> list[int]:
    """``min(n, total)`` question indexes spread evenly over ``range(total)``."""
    n = min(n, total)
    return [i * total // n for i in range(n)]


async def probe_latency(
    call: Call, qs: GoldenQuestionSet, limit: int, n: int
) -> LatencySummary | None:
    """Ask ``n`` of ``qs``'s questions one at a time, ``limit`` results each; their
    latency summary (None when every probe call failed)."""
    clock = time.perf_counter
    values = []
    for index in probe_indexes(len(qs.questions), n):
        question = qs.questions[index]
        token = ASKED_QUESTION_ID.set(question.id)
        started = clock()
        try:
            await call(question.question, limit)
        except Exception:  # a failed probe call is left out, never fatal
            continue
        finally:
            ASKED_QUESTION_ID.reset(token)
        values.append((clock() - started) * 1000)
    return summarize_latency(values)
