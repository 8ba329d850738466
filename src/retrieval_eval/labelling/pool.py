"""Pooling: the union of several retrievers' top documents, the candidates a judge sees.

Each retriever is asked through the coordinator, exactly as ``reval eval`` asks it (same
resolution, client, plugins, concurrency and deadlines), and its answer is mapped and
collapsed by the scoring protocol (chunk ids cut to their document, duplicates dropped).
A question's pool is the union of each retriever's ``depth`` best DISTINCT documents;
every candidate remembers which retriever found it and at which rank (from 1).
A retrieval that fails stops the draft (``InfrastructureError`` naming retriever and
question): a pool missing one retriever's answer would look complete and is not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from retrieval_eval.errors import InfrastructureError, InputError
from retrieval_eval.evaluation.coordinator import EvalOptions, evaluate
from retrieval_eval.evaluation.workers import Progress
from retrieval_eval.questions.model import GoldenQuestion, GoldenQuestionSet
from retrieval_eval.records.outcome import Form
from retrieval_eval.records.parameters import DEFAULT_CONCURRENCY, DEFAULT_OVERFETCH

DEFAULT_POOL_DEPTH = 10

#: Candidate document -> {retriever spec: rank from 1}, in pool order (best rank first).
Pool = dict[str, dict[str, int]]


@dataclass(frozen=True, slots=True)
class PoolOptions:
    #: Distinct documents taken from each retriever's ranking.
    depth: int = DEFAULT_POOL_DEPTH
    #: Results requested = depth * overfetch, so chunked retrievers still fill the depth.
    overfetch: int = DEFAULT_OVERFETCH
    concurrency: int = DEFAULT_CONCURRENCY
    timeout_s: float | None = None
    config_path: Path | None = None
    token: str | None = None


def pool_questions(
    questions: Mapping[str, str],
    retrievers: Sequence[str],
    options: PoolOptions | None = None,
    *,
    progress: Progress | None = None,
) -> dict[str, Pool]:
    """Question id -> its pool, asking every retriever (concurrently) for every question.

    ``questions`` maps id -> text. Raises ``InputError`` for a bad depth or no retriever,
    ``InfrastructureError`` when any retrieval failed (nothing is pooled then).
    """
    options = options or PoolOptions()
    if isinstance(options.depth, bool) or options.depth < 1:
        raise InputError(f"invalid --depth {options.depth}: it must be a positive integer")
    if not retrievers:
        raise InputError("no retriever to pool: give at least one --retriever")
    if len(set(retrievers)) != len(retrievers):
        raise InputError("a retriever is given twice; each --retriever must differ")
    probe = GoldenQuestionSet(
        "pool",
        tuple(GoldenQuestion(qid, text, Form.UNLABELLED, ()) for qid, text in questions.items()),
    )
    eval_options = EvalOptions(
        ks=(options.depth,),
        overfetch=options.overfetch,
        concurrency=options.concurrency,
        timeout_s=options.timeout_s,
    )
    runs = evaluate(
        [probe],
        list(retrievers),
        eval_options,
        progress=progress,
        config_path=options.config_path,
        token=options.token,
    )
    found: dict[str, list[tuple[int, int, str, str]]] = {qid: [] for qid in questions}
    for order, (spec, run) in enumerate(zip(retrievers, runs, strict=True)):
        failed = [o.question_id for o in run.questions if o.error is not None]
        if failed:
            first = next(o for o in run.questions if o.error is not None)
            raise InfrastructureError(
                f"retriever {spec} failed on {len(failed)} question(s) ({', '.join(failed[:5])}):"
                f" {first.error.message if first.error else ''}; nothing was pooled"
            )
        for outcome in run.questions:
            for rank, doc in enumerate(outcome.ranked_document_ids[: options.depth], 1):
                found[outcome.question_id].append((rank, order, doc, spec))
    return {qid: _merge(hits) for qid, hits in found.items()}


def _merge(hits: list[tuple[int, int, str, str]]) -> Pool:
    """Candidates ordered by their best rank, ties by the order retrievers were given."""
    pool: Pool = {}
    for rank, _order, doc, spec in sorted(hits):
        pool.setdefault(doc, {})[spec] = rank
    return pool
