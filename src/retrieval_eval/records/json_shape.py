"""A run as the JSON report holds it (the shape documented in
``report/run/json_format.py``): the one serializer of a run, so that a script
(``RunResult.to_dict``) and the report can never disagree."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from retrieval_eval.metric_keys import metric_sort_key

if TYPE_CHECKING:
    from collections.abc import Mapping

    from retrieval_eval.records.metrics import (
        GroupMetrics,
        LatencySummary,
        MeasureMean,
        NoAnswerStats,
        RateEstimate,
    )
    from retrieval_eval.records.outcome import QuestionOutcome
    from retrieval_eval.records.run import RunResult


def run_to_dict(run: RunResult, *, questions: bool = True) -> dict[str, Any]:
    """One run in the documented JSON shape, ``regression`` null (``questions=False``:
    ``questions`` left empty, for a writer that encodes them a batch at a time)."""
    d = run.retriever
    p = run.parameters
    return {
        "run_id": run.run_id,
        "set": run.set_name,
        "set_fingerprint": run.set_fingerprint,
        "retriever": {
            "identifier": d.identifier,
            "version": d.version,
            "target": run.retriever_target,
            "variant": d.variant_label(run.retriever_target),
            "provenance": {
                "corpus_revision": d.corpus_revision,
                "model_revision": d.model_revision,
                "chunking": d.chunking,
                "pipeline": d.pipeline,
                "chunk_separator": d.chunk_separator,
                "metadata": dict(d.metadata),
            },
        },
        "state": run.state.value,
        "complete": run.complete,
        "started_at": run.started_at.isoformat(),
        "finished_at": run.finished_at.isoformat(),
        "duration_s": max(0.0, (run.finished_at - run.started_at).total_seconds()),
        "labels": dict(run.labels),
        "parameters": {
            "ks": list(p.ks),
            "overfetch": p.overfetch,
            "limit": p.limit,
            "doc_id_separator": p.doc_id_separator,
            "concurrency": p.concurrency,
            "timeout_s": p.timeout_s,
            "protocol_version": p.protocol_version,
        },
        "metrics": group_to_dict(run.metrics),
        "measures": measures_to_dict(run.measures, run.measure_convention),
        "errors": run.error_count,
        "not_asked": run.not_asked_count,
        "skipped_members": run.skipped_members,
        "underfilled": run.underfilled_count,
        "no_answer": _no_answer(run.metrics.no_answer),
        "by_form": {k: group_to_dict(g) for k, g in run.by_form.items()},
        "by_hard_class": {k: group_to_dict(g) for k, g in run.by_hard_class.items()},
        "latency_ms": _latency(run.latency, p.concurrency),
        "latency_probe_ms": _latency(run.latency_probe, 1),
        "questions": [question_to_dict(q) for q in run.questions] if questions else [],
        "regression": None,
    }


def measures_to_dict(measures: Mapping[str, MeasureMean], convention: str) -> dict[str, Any]:
    """IR measures' means as every JSON format holds them: the no-answer convention, and
    each measure's value with its denominator."""
    return {
        "convention": convention,
        "values": {
            name: {"value": m.value, "count": m.count, "left_out": m.left_out}
            for name, m in measures.items()
        },
    }


def group_to_dict(g: GroupMetrics) -> dict[str, Any]:
    out: dict[str, Any] = {"count": g.count, "errors": g.errors}
    out.update((name, g.values[name]) for name in sorted(g.values, key=metric_sort_key))
    out["intervals"] = {
        name: _estimate(g.intervals[name]) for name in sorted(g.intervals, key=metric_sort_key)
    }
    out["no_answer"] = _no_answer(g.no_answer)
    return out


def question_to_dict(q: QuestionOutcome) -> dict[str, Any]:
    return {
        "id": q.question_id,
        "text": q.question_text,
        "form": q.form.value,
        "hard_class": q.hard_class,
        "expected_document_ids": list(q.expected_document_ids),
        "top1_hit": q.top1_hit,
        "top3_hit": q.top3_hit,
        "hits": {str(k): hit for k, hit in sorted(q.hits.items())},
        "ranked_document_ids": list(q.ranked_document_ids),
        "raw_ids": list(q.raw_ids),
        "latency_ms": q.latency_ms,
        "error": None if q.error is None else {"kind": q.error.kind, "message": q.error.message},
        "underfilled": q.underfilled,
        "notes": list(q.notes),
    }


def _estimate(e: RateEstimate) -> dict[str, float | int]:
    return {"rate": e.rate, "low": e.low, "high": e.high, "successes": e.successes,
            "count": e.count}  # fmt: skip


def _no_answer(stats: NoAnswerStats | None) -> dict[str, int] | None:
    if stats is None:
        return None
    return {
        "count": stats.count,
        "correctly_empty": stats.correctly_empty,
        "returned_something": stats.returned_something,
    }


def _latency(lat: LatencySummary | None, concurrency: int) -> dict[str, float] | None:
    """A latency summary with the calls in flight it was measured under."""
    if lat is None:
        return None
    return {"count": lat.count, "p50": lat.p50_ms, "p95": lat.p95_ms, "p99": lat.p99_ms,
            "mean": lat.mean_ms, "max": lat.max_ms, "concurrency": concurrency}  # fmt: skip
