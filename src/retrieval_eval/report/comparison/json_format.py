"""``runs compare`` as JSON: the library's records, field by field.

Comparison (``"kind": "comparison"``): ``reference_run_id``; ``settings`` (``alpha``,
``correction`` = ``holm``, ``bootstrap_resamples``, ``bootstrap_seed``, ``confidence``,
``overlap_k``, ``rbo_p``, ``top_documents``); ``runs`` (each ``run_id``, ``set``,
``retriever``, ``variant``, ``state``, ``started_at``, ``questions``, ``errors``,
``metrics`` as a *group* of the run report, ``latency_ms``, ``labels``, ``measures`` as in
the run report, and ``judged`` as in the run report, present only when the run's set
records judgments); ``measure_names`` (IR measures every run stored under one convention);
``versus`` (one per run after the reference: ``run_id``, ``paired``, ``deltas`` (the
metrics, the latency, then ``measure_names``) each ``{"metric",
"reference", "value", "delta", "interval": [low, high] | null}``, ``tests`` each
``{"k", "wins", "losses", "ties", "p_value", "p_holm", "significant"}``, ``overlap``
``{"k", "rbo_p", "questions", "mean_jaccard", "mean_rbo", "identical"}``, ``notes``);
``verdict`` (against the reference with the given thresholds, as in the run report, or
null); ``incomparable`` (``{"run_id", "reasons"}``); ``groups`` (``{"kind", "name", "runs":
[group | null]}``); ``disagreements``; ``questions_shown`` and ``questions`` (each
``{"id", "text", "form", "hard_class", "expected_document_ids", "cells", "top_documents",
"overlap": [{"jaccard", "rbo"} | null], "disagree"}``).
"""

from __future__ import annotations

from typing import Any

from retrieval_eval.comparison.results import (
    Comparison,
    QuestionRow,
    QuestionsShown,
    RunColumn,
    RunVersusReference,
)
from retrieval_eval.records.json_shape import group_to_dict, measures_to_dict
from retrieval_eval.report.judged_view import judged_to_dict
from retrieval_eval.report.run.json_format import SCHEMA_VERSION, mcnemar_to_dict, verdict_to_dict


def comparison_to_dict(
    comparison: Comparison, questions: QuestionsShown = QuestionsShown.DISAGREE
) -> dict[str, Any]:
    s = comparison.settings
    return {
        "schema_version": SCHEMA_VERSION,
        "kind": "comparison",
        "reference_run_id": comparison.reference_run_id,
        "settings": {
            "alpha": s.alpha,
            "correction": s.correction,
            "bootstrap_resamples": s.bootstrap_resamples,
            "bootstrap_seed": s.bootstrap_seed,
            "confidence": s.confidence,
            "overlap_k": s.overlap_k,
            "rbo_p": s.rbo_p,
            "top_documents": s.top_documents,
        },
        "runs": [_column(c) for c in comparison.runs],
        "measure_names": list(comparison.measure_names),
        "versus": [_versus(v) for v in comparison.versus],
        "incomparable": [
            {"run_id": i.run_id, "reasons": list(i.reasons)} for i in comparison.incomparable
        ],
        "groups": [
            {
                "kind": g.kind,
                "name": g.name,
                "runs": [None if m is None else group_to_dict(m) for m in g.metrics],
            }
            for g in comparison.groups
        ],
        "disagreements": comparison.disagreements,
        "questions_shown": questions.value,
        "questions": [_question(q) for q in shown_questions(comparison, questions)],
    }


def shown_questions(comparison: Comparison, questions: QuestionsShown) -> list[QuestionRow]:
    if questions is QuestionsShown.NONE:
        return []
    if questions is QuestionsShown.DISAGREE:
        return [q for q in comparison.questions if q.disagree]
    return list(comparison.questions)


def _column(c: RunColumn) -> dict[str, Any]:
    latency = None
    if c.latency is not None:
        latency = {"count": c.latency.count, "p50": c.latency.p50_ms, "p95": c.latency.p95_ms}
    return {
        "run_id": c.run_id,
        "set": c.set_name,
        "retriever": {
            "identifier": c.retriever_identifier,
            "version": c.retriever_version,
            "target": c.retriever_target,
        },
        "variant": c.variant,
        "state": c.state,
        "started_at": c.started_at.isoformat(),
        "questions": c.question_count,
        "errors": c.errors,
        "metrics": group_to_dict(c.metrics),
        "latency_ms": latency,
        "labels": dict(c.labels),
        "measures": measures_to_dict(c.measures, c.measure_convention),
        **({} if c.judged is None else {"judged": judged_to_dict(c.judged)}),
    }


def _versus(v: RunVersusReference) -> dict[str, Any]:
    o = v.overlap
    return {
        "run_id": v.run_id,
        "paired": v.paired,
        "deltas": [
            {
                "metric": d.metric,
                "reference": d.reference,
                "value": d.value,
                "delta": d.delta,
                "interval": None if d.interval is None else [d.interval.low, d.interval.high],
            }
            for d in v.deltas
        ],
        "tests": [mcnemar_to_dict(t) for t in v.tests],
        "overlap": {
            "k": o.k,
            "rbo_p": o.rbo_p,
            "questions": o.questions,
            "mean_jaccard": o.mean_jaccard,
            "mean_rbo": o.mean_rbo,
            "identical": o.identical,
        },
        "notes": list(v.notes),
        "verdict": None if v.verdict is None else verdict_to_dict(v.verdict),
    }


def _question(q: QuestionRow) -> dict[str, Any]:
    return {
        "id": q.question_id,
        "text": q.question_text,
        "form": q.form,
        "hard_class": q.hard_class,
        "expected_document_ids": list(q.expected_document_ids),
        "cells": [c.value for c in q.cells],
        "top_documents": [list(docs) for docs in q.top_documents],
        "overlap": [None if o is None else {"jaccard": o.jaccard, "rbo": o.rbo} for o in q.overlap],
        "disagree": q.disagree,
    }
