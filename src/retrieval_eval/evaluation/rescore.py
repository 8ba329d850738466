"""A stored run's rankings scored again against newer labels, without asking the
retriever: each answered question's stored answer (``raw_ids``, with its scores) goes
through the same protocol step as a live answer (``protocol.score_question``), so an
unchanged set reproduces every figure of the source run. Errored questions stay errors:
a failure is never turned into a miss or a hit by new labels. The run is scored at the
source's relevance level, and the IR measures the source stored are computed again (same
names, same no-answer convention) against the new grades, which the rescored run keeps.
A run stored before levels existed (schema 0003) reads as level 1: it was scored on binary
labels, each expected id at grade 1, as a plain-label run stored since is; so it rescores
as that run does, not at the newer set's ``relevance_level`` (the rescore stays the
source's methodology on new labels; ``reval eval --rel-level`` picks another level).

Refuses (``InputError``) when the new set asks different questions than the run did, or
when the run's stored depth cannot answer the cutoffs it was scored at."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from retrieval_eval.errors import InputError
from retrieval_eval.questions.model import GoldenQuestion, GoldenQuestionSet
from retrieval_eval.records.metrics import MeasureMean
from retrieval_eval.records.outcome import QuestionOutcome
from retrieval_eval.records.run import RunResult
from retrieval_eval.retrievers.protocol import Ranking
from retrieval_eval.scoring.measures import parse_measure, run_measures
from retrieval_eval.scoring.metrics import summarize_with_breakdowns
from retrieval_eval.scoring.protocol import normalize_ks, request_limit, score_question


def rescore(
    run: RunResult, question_set: GoldenQuestionSet, ks: Sequence[int] | None = None
) -> RunResult:
    """``run`` scored against ``question_set``'s labels at cutoffs ``ks`` (default: the
    run's own): a new run (no id yet) with the set's fingerprint, the same retriever,
    timings and errors. Deeper cutoffs than the run asked for are refused."""
    ks = normalize_ks(run.parameters.ks if ks is None else ks)
    question_set = question_set.at_level(run.relevance_level)
    stored = run.parameters.limit
    limit = request_limit(ks, run.parameters.overfetch)
    if limit > stored:
        raise InputError(
            f"run {run.run_id} stored {stored} results per question; k={ks[-1]} x overfetch "
            f"{run.parameters.overfetch} needs {limit}: the stored rankings cannot answer it"
        )
    by_id = {q.id: q for q in question_set.questions}
    asked = [o.question_id for o in run.questions]
    _same_questions(run, asked, by_id)
    outcomes = [_rescored(o, by_id[o.question_id], ks, limit, run) for o in run.questions]
    metrics, by_form, by_class = summarize_with_breakdowns(outcomes, ks)
    return replace(
        run,
        set_fingerprint=question_set.fingerprint,
        metrics=metrics,
        by_form=by_form,
        by_hard_class=by_class,
        questions=outcomes,
        underfilled_count=sum(1 for o in outcomes if o.underfilled),
        parameters=replace(run.parameters, ks=ks, limit=limit),
        run_id=None,
        judgments=question_set.judgments_by_id(),
        measures=_measures(run, outcomes, question_set),
    )


def _measures(
    run: RunResult, outcomes: Sequence[QuestionOutcome], question_set: GoldenQuestionSet
) -> dict[str, MeasureMean]:
    """The source's measures, by the same names and convention, on the new grades."""
    if not run.measures:
        return {}
    measures = [parse_measure(name) for name in run.measures]
    return run_measures(
        outcomes, question_set.questions, measures, level=question_set.relevance_level,
        trec_means=run.measure_convention == "trec_eval",
    )  # fmt: skip


def _same_questions(run: RunResult, asked: Sequence[str], by_id: dict[str, GoldenQuestion]) -> None:
    asked_set = set(asked)
    added = sorted(set(by_id) - asked_set)
    dropped = sorted(asked_set - set(by_id))
    if added or dropped:
        parts = []
        if added:
            parts.append(f"adds {len(added)} the run never asked: {', '.join(added[:5])}")
        if dropped:
            parts.append(f"drops {len(dropped)} the run asked: {', '.join(dropped[:5])}")
        raise InputError(f"cannot rescore run {run.run_id}: the set " + "; ".join(parts))


def _rescored(
    o: QuestionOutcome, q: GoldenQuestion, ks: tuple[int, ...], limit: int, run: RunResult
) -> QuestionOutcome:
    if o.error is not None:
        return replace(o, expected_document_ids=q.expected_document_ids, question_text=q.question)
    raw = tuple(o.raw_ids)[:limit]
    scores = tuple(o.raw_scores)[:limit] if o.raw_scores else ()
    ranking = Ranking(raw, scores)
    return score_question(
        q, ranking, ks=ks, limit=limit, separator=run.parameters.doc_id_separator,
        latency_ms=o.latency_ms, error=None, notes=tuple(o.notes),
    )  # fmt: skip
