"""The coordinator: every set against every retriever, concurrently, in one call.

Concurrency model: per retriever, a fixed pool of ``concurrency`` worker tasks pulls
(run, question) jobs from one shared iterator that spans all sets, so at most
``concurrency`` calls are in flight per retriever whatever the number of sets, and no
task, queue or semaphore is created per question. Every pool runs at once on one event
loop. Each call gets the per-call deadline; retries are the client's business.

Failures: a retriever whose Describe fails at the start stops everything before any
question is asked (``RetrieverUnavailable`` naming it -> exit 3). A question whose
retrieval fails is recorded as ``QuestionOutcome.error`` and its run is INCOMPLETE.

Interruption: when the evaluation is cancelled (Ctrl-C under ``evaluate``, or
``task.cancel()`` on ``evaluate_all``), in-flight calls are cancelled and
``EvaluationInterrupted`` is raised carrying every run built from what was measured:
unfinished runs have state INTERRUPTED and hold only their measured questions.
``evaluate`` (the sync entry the CLI uses) raises the same error, so the CLI can save and
report the measured part before exiting 130.

Retrievers: ``evaluate`` and ``aevaluate`` take, for each retriever, a spec string
(address, reval.toml name, plugin) or any object with ``retrieve(question, limit)``; the
caller keeps ownership of objects, the specs are opened and closed here.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypeAlias

from retrieval_eval.errors import InputError, Interrupted
from retrieval_eval.evaluation.accumulate import RunAccumulator
from retrieval_eval.evaluation.deadlines import describe_once, with_deadline
from retrieval_eval.evaluation.failfast import ErrorWatch, StopRule
from retrieval_eval.evaluation.probe import probe_latency
from retrieval_eval.evaluation.workers import Progress, start_pool
from retrieval_eval.questions.model import GoldenQuestionSet
from retrieval_eval.records.parameters import (
    DEFAULT_CONCURRENCY,
    DEFAULT_KS,
    DEFAULT_OVERFETCH,
    DEFAULT_TIMEOUT_S,
    RunParameters,
)
from retrieval_eval.records.run import RetrieverDescription, RunResult
from retrieval_eval.retrievers.in_process import as_async_retriever
from retrieval_eval.retrievers.protocol import AsyncRetriever, Retriever
from retrieval_eval.scoring.protocol import normalize_ks, request_limit

log = logging.getLogger(__name__)

#: What ``evaluate`` takes for a retriever: a spec (``grpc://host:port``, a reval.toml
#: name, ``plugin[:argument]``) or an object with ``retrieve(question, limit)``.
RetrieverSpec: TypeAlias = "str | Retriever | AsyncRetriever"


@dataclass(frozen=True, slots=True)
class EvalOptions:
    """How a run asks and scores: the cut-offs, how many results to ask for, how many
    calls at once, the per-call deadline and the error budget. The defaults are the
    scoring protocol's."""

    ks: tuple[int, ...] = DEFAULT_KS
    #: Results requested per question = max(ks) * overfetch.
    overfetch: int = DEFAULT_OVERFETCH
    #: Chunk-id separator; None = the one each retriever's Describe declares, "" = none.
    doc_id_separator: str | None = None
    #: Calls in flight per retriever.
    concurrency: int = DEFAULT_CONCURRENCY
    #: Deadline of each call, in seconds. None = each retriever's configured timeout
    #: (``timeout`` in reval.toml), else DEFAULT_TIMEOUT_S.
    timeout_s: float | None = None
    labels: Mapping[str, str] = field(default_factory=dict)
    #: After the run, re-ask this many of each set's questions one at a time (spread over
    #: the set) for latency without load; 0 = no probe.
    latency_probe: int = 0
    #: Fail fast (``evaluation.failfast``): stop asking a run once this says its errors
    #: exceed the budget, e.g. ``ErrorBudget.exceeded_by``; None = ask every question.
    stop_asking: StopRule | None = None


class EvaluationInterrupted(Interrupted):
    """The evaluation was stopped; ``runs`` holds every run with what was measured."""

    def __init__(self, runs: list[RunResult]) -> None:
        measured = sum(len(r.questions) for r in runs)
        super().__init__(f"evaluation interrupted after {measured} measured questions")
        self.runs = runs


def check_options(options: EvalOptions) -> RunParameters:
    """Validate the options (``InputError`` naming the option) and fix the parameters."""
    if options.concurrency < 1:
        raise InputError(f"invalid --concurrency {options.concurrency}: it must be >= 1")
    if options.latency_probe < 0:
        raise InputError(f"invalid --latency-probe {options.latency_probe}: it must be >= 0")
    if options.timeout_s is not None and not options.timeout_s > 0:
        raise InputError(f"invalid --timeout {options.timeout_s}: it must be > 0 seconds")
    ks = normalize_ks(options.ks)
    return RunParameters(
        ks=ks,
        overfetch=options.overfetch,
        limit=request_limit(ks, options.overfetch),
        concurrency=options.concurrency,
        timeout_s=options.timeout_s or DEFAULT_TIMEOUT_S,
    )


async def evaluate_set(
    qs: GoldenQuestionSet,
    retriever: Retriever | AsyncRetriever,
    options: EvalOptions = EvalOptions(),
    *,
    progress: Progress | None = None,
) -> RunResult:
    """One set against one retriever (see ``evaluate_all``)."""
    (run,) = await evaluate_all([qs], [retriever], options, progress=progress)
    return run


async def evaluate_all(
    sets: Sequence[GoldenQuestionSet],
    retrievers: Sequence[Retriever | AsyncRetriever],
    options: EvalOptions = EvalOptions(),
    *,
    progress: Progress | None = None,
) -> list[RunResult]:
    """Every set against every retriever; runs in set-major order
    ``[(s0, r0), (s0, r1), (s1, r0), ...]``. The caller owns (and closes) the retrievers:
    ``AsyncRetriever`` implementations or any objects with ``retrieve(question, limit)``.

    Raises ``RetrieverError`` if a Describe fails at the start, ``EvaluationInterrupted``
    if cancelled midway. Each entry of ``retrievers`` gets its own pool of workers.
    """
    check_options(options)
    adapted = [as_async_retriever(r, timeout_s=options.timeout_s) for r in retrievers]
    return await _evaluate_adapted(sets, adapted, options, progress)


async def _evaluate_adapted(
    sets: Sequence[GoldenQuestionSet],
    retrievers: list[AsyncRetriever],
    options: EvalOptions,
    progress: Progress | None,
) -> list[RunResult]:
    bases = [_parameters_for(r, options) for r in retrievers]
    try:
        descriptions = await asyncio.gather(
            *(describe_once(r, b.timeout_s) for r, b in zip(retrievers, bases, strict=True))
        )
    except asyncio.CancelledError:
        raise EvaluationInterrupted([]) from None
    grid = [
        [
            RunAccumulator(
                qs, r.target, d, _with_separator(b, d, options), checked=_checks_answers(r)
            )
            for r, b, d in zip(retrievers, bases, descriptions, strict=True)
        ]
        for qs in sets
    ]
    if progress is not None:
        for acc in (a for row in grid for a in row):
            acc.task = progress.start(f"{acc.qs.name} × {acc.target}", len(acc.outcomes))
    try:
        watch = ErrorWatch(options.stop_asking) if options.stop_asking else None
        async with asyncio.TaskGroup() as group:
            for column, retriever in enumerate(retrievers):
                runs = [row[column] for row in grid]
                start_pool(group, retriever, runs, bases[column], progress, watch)
        if options.latency_probe:
            for column, retriever in enumerate(retrievers):
                call = with_deadline(retriever, bases[column].timeout_s)
                for acc in (row[column] for row in grid):
                    limit = bases[column].limit
                    acc.probe = await probe_latency(call, acc.qs, limit, options.latency_probe)
    except asyncio.CancelledError:
        raise EvaluationInterrupted(_results(grid, options)) from None
    return _results(grid, options)


def _results(grid: list[list[RunAccumulator]], options: EvalOptions) -> list[RunResult]:
    return [acc.result(options.labels) for row in grid for acc in row]


def _checks_answers(retriever: AsyncRetriever) -> bool:
    """Whether ``retriever`` judges its answers against the contract itself (our gRPC
    client, the in-process adapter): then scoring does not judge them twice."""
    return getattr(retriever, "checks_answers", False) is True


def _parameters_for(retriever: AsyncRetriever, options: EvalOptions) -> RunParameters:
    """The run parameters for one retriever: an explicit timeout wins, else the one the
    retriever was configured with (reval.toml), else the default."""
    base = check_options(options)
    if options.timeout_s is not None:
        return base
    configured = retriever.configured_timeout_s
    return replace(base, timeout_s=configured) if configured else base


def _with_separator(
    base: RunParameters, description: RetrieverDescription, options: EvalOptions
) -> RunParameters:
    """The run's parameters with the separator it uses: the option's, else Describe's."""
    separator = options.doc_id_separator
    if separator is None:
        separator = description.chunk_separator
    return replace(base, doc_id_separator=separator)


def evaluate(
    sets: Sequence[GoldenQuestionSet],
    retrievers: Sequence[RetrieverSpec],
    options: EvalOptions | None = None,
    *,
    progress: Progress | None = None,
    config_path: Path | None = None,
    token: str | None = None,
) -> list[RunResult]:
    """Every set against every retriever, from synchronous code (scripts, the CLI).

    Each retriever is a spec string (opened with ``open_retriever`` and closed here) or an
    object with ``retrieve(question, limit)`` (left open). Runs come in set-major order.
    Ctrl-C raises ``EvaluationInterrupted`` (an ``Interrupted``: exit 130) whose ``runs``
    hold what was measured. Inside a running event loop (Jupyter, async code) it raises
    ``InputError`` pointing to ``aevaluate``.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        raise InputError(
            "evaluate() cannot run inside a running event loop (Jupyter, async code): "
            "use `await retrieval_eval.aevaluate(...)` there"
        )
    work = aevaluate(
        sets, retrievers, options, progress=progress, config_path=config_path, token=token
    )
    return asyncio.run(work)


async def aevaluate(
    sets: Sequence[GoldenQuestionSet],
    retrievers: Sequence[RetrieverSpec],
    options: EvalOptions | None = None,
    *,
    progress: Progress | None = None,
    config_path: Path | None = None,
    token: str | None = None,
) -> list[RunResult]:
    """``evaluate`` for code already inside an event loop: ``await aevaluate(...)``."""
    # the specs, gRPC client and plugins load only when a spec, not an object, is given
    from retrieval_eval.retrievers.opening import open_retriever

    options = options or EvalOptions()
    check_options(options)
    opened: list[AsyncRetriever] = []
    chosen: list[Retriever | AsyncRetriever] = []
    runs: list[RunResult] = []
    try:
        for spec in retrievers:
            if isinstance(spec, str):
                retriever = open_retriever(
                    spec, timeout_s=options.timeout_s, config_path=config_path, token=token
                )
                opened.append(retriever)
                chosen.append(retriever)
            else:
                chosen.append(spec)
        runs = await evaluate_all(sets, chosen, options, progress=progress)
    finally:
        cancelled = await _close_all(opened)
    if cancelled:  # Ctrl-C after the last question: the runs are whole, still say so
        raise EvaluationInterrupted(runs)
    return runs


async def _close_all(retrievers: Sequence[AsyncRetriever]) -> bool:
    """Close every retriever; True if a cancellation (Ctrl-C) arrived meanwhile."""
    cancelled = False
    for retriever in retrievers:
        try:
            await retriever.close()
        except asyncio.CancelledError:
            cancelled = True
        except Exception:
            log.warning("closing retriever %s failed", retriever.target, exc_info=True)
    return cancelled
