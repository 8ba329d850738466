"""The machine-readable report (``--format json``): a documented shape that only grows.

Scripts and dashboards read this, so keys are never renamed or removed within a
``schema_version``; new keys may appear. Rates are fractions in [0, 1]; latencies are
milliseconds; a value that could not be measured is ``null``.

Top level:

===================  ==========================================================
key                  value
===================  ==========================================================
``schema_version``   integer, currently 1
``tool``             ``{"name": "reval", "version": ...}``
``runs``             list of runs (below), one per set × retriever
``summary``          ``{"runs", "incomplete", "interrupted", "verdicts": {kind: n},
                     "failing": n}`` (``failing``: verdicts that fail
                     ``--fail-on-regression``)
``warnings``         list of strings, e.g. a run that could not be saved
===================  ==========================================================

Documents over ``PRETTY_UP_TO`` questions are written without indentation (same shape).

Each run:

========================  =====================================================
key                       value
========================  =====================================================
``run_id``                store id, or ``null`` when not saved (``--no-save``)
``set``                   question set name
``set_fingerprint``       ``sha256:...`` of the labels the run was scored against
``retriever``             ``{"identifier", "version", "target", "provenance":
                          {"corpus_revision", "model_revision", "chunking",
                          "pipeline", "chunk_separator", "metadata"}}``
``state``                 ``complete`` | ``incomplete`` | ``interrupted``
``complete``              boolean: every question answered
``started_at``            ISO 8601; also ``finished_at``, ``duration_s``
``labels``                free-form ``{key: value}`` given with ``--label``
``parameters``            ``{"ks", "overfetch", "limit", "doc_id_separator",
                          "concurrency", "timeout_s", "protocol_version"}``
``metrics``               a *group* (below) over all questions
``errors``                number of questions whose retrieval failed (never misses)
``underfilled``           questions whose overfetched ranking held fewer distinct
                          documents than the deepest k (raise ``--overfetch``)
``no_answer``             ``{"count", "correctly_empty", "returned_something"}``
                          over questions with no expected document, or ``null``
``by_form``               ``{form: group}`` (MATCH, GAP, UNLABELLED)
``by_hard_class``         ``{hard class: group}``
``latency_ms``            ``{"count", "p50", "p95", "p99", "mean", "max",
                          "concurrency"}`` or ``null``: client wall time per answered
                          question under the run's ``concurrency`` (queueing included)
``latency_probe_ms``      the same shape (``concurrency`` 1) for ``--latency-probe``:
                          questions re-asked one at a time after the run, or ``null``
``questions``             list of questions (below), in set order
``regression``            the verdict (below), or ``null`` when none was computed
========================  =====================================================

A *group* is ``{"count": answered questions, "errors": n, <metric>: value, ...,
"intervals": {<rate metric>: {"rate", "low", "high", "successes", "count"}},
"no_answer": {...} | null}``. Metric keys: ``top1_hit_rate``, ``top3_hit_rate``,
``hit_rate@K``, ``mrr@K``, ``recall@K``, ``ndcg@K``; intervals are 95% Wilson intervals.

Each question: ``id``, ``form``, ``hard_class``, ``expected_document_ids``, ``top1_hit``,
``top3_hit`` (``null`` when errored), ``hits`` (``{"K": bool}``), ``ranked_document_ids``
(distinct documents in rank order after the collapse), ``raw_ids`` (ids as returned),
``latency_ms``, ``error`` (``null`` or ``{"kind", "message"}``), ``underfilled``.

``regression``: ``verdict`` (``pass`` | ``regression`` | ``no-baseline`` |
``incomparable``), ``fails`` (boolean), ``baseline_run_id``, ``reasons``, ``warnings``,
``incomparable_parts``, ``deltas`` (each ``{"group", "metric", "baseline", "current",
"delta", "threshold", "regressed", "baseline_count", "current_count"}``), ``flips``
(each ``{"question_id", "k", "direction", "expected_document_ids", "current_ranking",
"baseline_ranking"}``), ``tests`` (exact McNemar per k: ``{"k", "wins", "losses",
"ties", "p_value", "significant"}``) and ``p_values`` (``{"K": p}``).
"""

from __future__ import annotations

import json
import uuid
from collections import Counter
from collections.abc import Sequence
from typing import Any, TextIO

from retrieval_eval import __version__
from retrieval_eval.records import (
    GroupMetrics,
    LatencySummary,
    NoAnswerStats,
    QuestionOutcome,
    RateEstimate,
    RunResult,
    RunState,
)
from retrieval_eval.regression.types import Verdict
from retrieval_eval.report.model import RunReport, duration_s, ordered_metrics, rate_names

SCHEMA_VERSION = 1


def runs_to_document(
    reports: Sequence[RunReport], warnings: Sequence[str] = (), *, questions: bool = True
) -> dict[str, Any]:
    """The whole ``--format json`` document for one invocation (``questions=False``: each
    run's ``questions`` left empty, for ``write_json`` to fill in)."""
    verdicts = Counter(r.verdict.kind.value for r in reports if r.verdict is not None)
    states = Counter(r.run.state for r in reports)
    failing = sum(1 for r in reports if r.verdict is not None and r.verdict.fails())
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "reval", "version": __version__},
        "runs": [run_to_dict(r.run, r.verdict, questions=questions) for r in reports],
        "summary": {
            "runs": len(reports),
            "incomplete": states[RunState.INCOMPLETE],
            "interrupted": states[RunState.INTERRUPTED],
            "verdicts": dict(sorted(verdicts.items())),
            "failing": failing,
        },
        "warnings": list(warnings),
    }


#: Documents with more questions than this are written compactly: indentation switches
#: ``json`` to its pure-Python encoder (over 10x slower) and triples the size.
PRETTY_UP_TO = 5_000


def render_json(reports: Sequence[RunReport], warnings: Sequence[str] = ()) -> str:
    """The document as text: indented for people, compact (same shape) for big runs."""
    document = runs_to_document(reports, warnings)
    if sum(len(r.run.questions) for r in reports) <= PRETTY_UP_TO:
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")) + "\n"


#: Questions encoded per ``json.dumps`` call by ``write_json``.
WRITE_BATCH = 10_000


def write_json(reports: Sequence[RunReport], out: TextIO, warnings: Sequence[str] = ()) -> None:
    """Write the same text as ``render_json`` to ``out``, a big document piece by piece:
    questions are encoded a batch at a time, so that a run of a million questions never
    exists whole as dicts or as one string (that would take several times the run)."""
    if sum(len(r.run.questions) for r in reports) <= PRETTY_UP_TO:
        out.write(render_json(reports, warnings))
        return
    document = runs_to_document(reports, warnings, questions=False)
    marks = []
    for i, run in enumerate(document["runs"]):
        marks.append(f"reval-questions-{uuid.uuid4().hex}-{i}")
        run["questions"] = marks[-1]
    text = json.dumps(document, ensure_ascii=False, separators=(",", ":")) + "\n"
    for report, mark in zip(reports, marks, strict=True):
        head, text = text.split(f'"{mark}"', 1)
        out.write(head)
        out.write("[")
        outcomes = report.run.questions
        for start in range(0, len(outcomes), WRITE_BATCH):
            batch = [question_to_dict(q) for q in outcomes[start : start + WRITE_BATCH]]
            out.write("," if start else "")
            out.write(json.dumps(batch, ensure_ascii=False, separators=(",", ":"))[1:-1])
        out.write("]")
    out.write(text)


def run_to_dict(
    run: RunResult, verdict: Verdict | None, *, questions: bool = True
) -> dict[str, Any]:
    """One run in the documented shape (see the module docstring)."""
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
        "duration_s": duration_s(run),
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
        "errors": run.error_count,
        "underfilled": run.underfilled_count,
        "no_answer": _no_answer(run.metrics.no_answer),
        "by_form": {k: group_to_dict(g) for k, g in run.by_form.items()},
        "by_hard_class": {k: group_to_dict(g) for k, g in run.by_hard_class.items()},
        "latency_ms": _latency(run.latency, p.concurrency),
        "latency_probe_ms": _latency(run.latency_probe, 1),
        "questions": [question_to_dict(q) for q in run.questions] if questions else [],
        "regression": verdict_to_dict(verdict) if verdict is not None else None,
    }


def group_to_dict(g: GroupMetrics) -> dict[str, Any]:
    out: dict[str, Any] = {"count": g.count, "errors": g.errors}
    out.update((name, g.values[name]) for name in ordered_metrics(g.values))
    out["intervals"] = {name: _estimate(g.intervals[name]) for name in rate_names(g)}
    out["no_answer"] = _no_answer(g.no_answer)
    return out


def question_to_dict(q: QuestionOutcome) -> dict[str, Any]:
    return {
        "id": q.question_id,
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
    }


def verdict_to_dict(v: Verdict) -> dict[str, Any]:
    return {
        "verdict": v.kind.value,
        "fails": v.fails(),
        "baseline_run_id": v.baseline_run_id,
        "reasons": list(v.reasons),
        "warnings": list(v.warnings),
        "incomparable_parts": list(v.incomparable_parts),
        "deltas": [
            {
                "group": d.group,
                "metric": d.metric,
                "baseline": d.baseline,
                "current": d.current,
                "delta": d.delta,
                "threshold": d.threshold,
                "regressed": d.regressed,
                "baseline_count": d.baseline_count,
                "current_count": d.current_count,
            }
            for d in v.deltas
        ],
        "flips": [
            {
                "question_id": f.question_id,
                "k": f.k,
                "direction": f.direction,
                "expected_document_ids": list(f.expected_document_ids),
                "current_ranking": list(f.current_ranking),
                "baseline_ranking": list(f.baseline_ranking),
            }
            for f in v.flips
        ],
        "tests": [
            {
                "k": t.k,
                "wins": t.wins,
                "losses": t.losses,
                "ties": t.ties,
                "p_value": t.p_value,
                "significant": t.significant,
            }
            for t in v.tests
        ],
        "p_values": {str(t.k): t.p_value for t in v.tests},
    }


def _estimate(e: RateEstimate) -> dict[str, float | int]:
    return {
        "rate": e.rate,
        "low": e.low,
        "high": e.high,
        "successes": e.successes,
        "count": e.count,
    }


def _no_answer(stats: NoAnswerStats | None) -> dict[str, int] | None:
    if stats is None:
        return None
    return {
        "count": stats.count,
        "correctly_empty": stats.correctly_empty,
        "returned_something": stats.returned_something,
    }


def _latency(lat: LatencySummary | None, concurrency: int) -> dict[str, float] | None:
    if lat is None:
        return None
    return {
        "count": lat.count,
        "p50": lat.p50_ms,
        "p95": lat.p95_ms,
        "p99": lat.p99_ms,
        "mean": lat.mean_ms,
        "max": lat.max_ms,
        "concurrency": concurrency,
    }
