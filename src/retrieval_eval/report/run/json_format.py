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
                          "pipeline", "chunk_separator", "metadata"}, "variant"}``
                          (``variant``: what tells runs of one identifier apart)
``state``                 ``complete`` | ``incomplete`` | ``interrupted``
``complete``              boolean: every question answered
``started_at``            ISO 8601; also ``finished_at``, ``duration_s``
``labels``                free-form ``{key: value}`` given with ``--label``
``parameters``            ``{"ks", "overfetch", "limit", "doc_id_separator",
                          "concurrency", "timeout_s", "protocol_version"}``
``metrics``               a *group* (below) over all questions
``measures``              ``{"convention", "values"}``: the IR measures asked for with
                          ``--measures`` by ir_measures name, each ``{"value", "count",
                          "left_out"}`` (the questions its mean is over, and the answered
                          ones it left out); convention ``reval`` or ``trec_eval``
                          (``--trec-means``); ``values`` is ``{}`` when none were asked
``judged``                Judged@k at the run's deepest k, present only when the set
                          records judgments (grades or negatives): ``{"measure", "k",
                          "overall", "by_form", "by_hard_class"}`` (``measure``: e.g.
                          ``Judged@3``), each share ``{"value", "count", "unjudged"}``:
                          the mean share of the k best distinct documents the set
                          judged, over the ``count`` questions answered with documents
                          back (``null`` when none), and the unjudged documents among them
``errors``                number of questions whose retrieval failed (never misses)
``not_asked``             of those, questions never asked: the run's errors had already
                          exceeded ``--max-errors`` (error kind ``not_asked``)
``skipped_members``       a fused run's members by the scored questions each was left out
                          of (``on_member_error = "skip"``); ``{}`` otherwise
``underfilled``           questions whose overfetched ranking held fewer distinct
                          documents than the deepest k (raise ``--overfetch``)
``no_answer``             ``{"count", "correctly_empty", "returned_something"}``
                          over questions with no expected document, or ``null``
``by_form``               ``{form: group}`` (MATCH, GAP, UNLABELLED)
``by_hard_class``         ``{hard class: group}``
``by_label_source``       ``{source: group}`` (``human``, ``llm``, ``mixed``,
                          ``unknown``), present only when asked (``--by-source``)
``latency_ms``            ``{"count", "p50", "p95", "p99", "mean", "max",
                          "concurrency"}`` or ``null``: client wall time per answered
                          question under the run's ``concurrency`` (queueing included)
``latency_probe_ms``      the same shape (``concurrency`` 1) for ``--latency-probe``:
                          questions re-asked one at a time after the run, or ``null``
``questions``             list of questions (below), in set order
``regression``            the verdict (below), or ``null`` when none was computed
``accepted``              ``{"by", "at", "reason"}``, present only when a person
                          accepted the run as a baseline (``reval runs accept``)
========================  =====================================================

A *group* is ``{"count": answered questions, "errors": n, <metric>: value, ...,
"intervals": {<rate metric>: {"rate", "low", "high", "successes", "count"}},
"no_answer": {...} | null}``. Metric keys: ``top1_hit_rate``, ``top3_hit_rate``,
``hit_rate@K``, ``mrr@K``, ``recall@K``, ``binary_ndcg@K``; intervals are 95% Wilson intervals.

Each question: ``id``, ``text`` (the question as asked; ``null`` for a run stored before
texts were kept), ``form``, ``hard_class``, ``expected_document_ids``, ``top1_hit``,
``top3_hit`` (``null`` when errored), ``hits`` (``{"K": bool}``), ``ranked_document_ids``
(distinct documents in rank order after the collapse), ``raw_ids`` (ids as returned),
``latency_ms``, ``error`` (``null`` or ``{"kind", "message"}``), ``underfilled``,
``notes`` (how the answer was made, e.g. a fused retriever's skipped member).

``regression``: ``verdict`` (``pass`` | ``regression`` | ``no-baseline`` |
``incomparable`` | ``incomplete``), ``fails`` (boolean: not a passing gate),
``baseline_run_id``, ``variant_change`` (``null``, or what changed when the baseline is
another variant of the same retriever, e.g. ``"chunking words=60 -> words=150"``),
``drift_reference_run_id`` (the run slow drift was measured from; its deltas are in
group ``drift``), ``reasons``, ``warnings``, ``incomparable_parts``, ``deltas``
(each ``{"group", "metric", "baseline", "current", "delta", "threshold", "regressed",
"baseline_count", "current_count", "p_value"}``; ``p_value`` is a form's or class's
Holm-adjusted McNemar p, else ``null``), ``flips``
(each ``{"question_id", "k", "direction", "expected_document_ids", "current_ranking",
"baseline_ranking"}``), ``tests`` (exact McNemar per k: ``{"k", "wins", "losses",
"ties", "p_value", "significant"}``), ``p_values`` (``{"K": p}``), ``unjudged_losses``
(the ids of the questions whose lost hit rests on documents the set never judged; ``null``
when the verdict was judged without the set's labels) and ``unjudged`` (``null``, or
``{"set", "relevance_level", "incomparable", "by_k", "line", "judge_command"}``: per k
``{"k", "losses", "wins", "unjudged", "turnable", "question_ids"}``, ``turnable`` the
largest net loss judging could still turn around; ``incomparable`` true when
``unjudged_incomparable`` made the verdict ``incomparable``).
"""

from __future__ import annotations

import json
import uuid
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TextIO

from retrieval_eval.records import json_shape
from retrieval_eval.records.json_shape import question_to_dict
from retrieval_eval.records.run import RunResult, RunState
from retrieval_eval.regression.unjudged import judge_command, judged_runs, unjudged_line
from retrieval_eval.regression.verdict_records import PairedTest, RunReport, Verdict
from retrieval_eval.report.baseline_notes import accept_command, acceptance_dict, accepted_dict
from retrieval_eval.report.judged_view import judged_to_dict
from retrieval_eval.scoring.judged import judged_at_k
from retrieval_eval.store.stored_run import Acceptance
from retrieval_eval.version import __version__

if TYPE_CHECKING:  # the comparison's records load with the comparison, not with a run
    from retrieval_eval.comparison.results import SignificanceTest
    from retrieval_eval.report.label_source import BySource
    from retrieval_eval.store.stored_run import Acceptance, Accepted

__all__ = [
    "render_json",
    "run_to_dict",
    "runs_to_document",
    "write_json",
]

SCHEMA_VERSION = 1


def runs_to_document(
    reports: Sequence[RunReport],
    warnings: Sequence[str] = (),
    *,
    questions: bool = True,
    by_source: Sequence[BySource | None] = (),
) -> dict[str, Any]:
    """The whole ``--format json`` document for one invocation (``questions=False``: each
    run's ``questions`` left empty, for ``write_json`` to fill in); ``by_source``: each
    run's ``by_label_source`` groups, in run order."""
    verdicts = Counter(r.verdict.kind.value for r in reports if r.verdict is not None)
    states = Counter(r.run.state for r in reports)
    failing = sum(1 for r in reports if r.verdict is not None and r.verdict.fails())
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "reval", "version": __version__},
        "runs": [
            _with_sources(
                run_to_dict(
                    r.run,
                    r.verdict,
                    questions=questions,
                    acceptance=r.acceptance,
                    accepted=r.accepted,
                ),
                by_source[i] if i < len(by_source) else None,
            )
            for i, r in enumerate(reports)
        ],
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


def _with_sources(run: dict[str, Any], groups: BySource | None) -> dict[str, Any]:
    if groups is not None:
        run["by_label_source"] = {k: json_shape.group_to_dict(g) for k, g in groups.items()}
    return run


def render_json(
    reports: Sequence[RunReport],
    warnings: Sequence[str] = (),
    by_source: Sequence[BySource | None] = (),
) -> str:
    """The document as text: indented for people, compact (same shape) for big runs."""
    document = runs_to_document(reports, warnings, by_source=by_source)
    if sum(len(r.run.questions) for r in reports) <= PRETTY_UP_TO:
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")) + "\n"


#: Questions encoded per ``json.dumps`` call by ``write_json``.
WRITE_BATCH = 2_000


def write_json(
    reports: Sequence[RunReport],
    out: TextIO,
    warnings: Sequence[str] = (),
    by_source: Sequence[BySource | None] = (),
) -> None:
    """Write the same text as ``render_json`` to ``out``, a big document piece by piece:
    questions are encoded a batch at a time, so that a run of a million questions never
    exists whole as dicts or as one string (that would take several times the run)."""
    if sum(len(r.run.questions) for r in reports) <= PRETTY_UP_TO:
        out.write(render_json(reports, warnings, by_source))
        return
    document = runs_to_document(reports, warnings, questions=False, by_source=by_source)
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
    run: RunResult,
    verdict: Verdict | None,
    *,
    questions: bool = True,
    acceptance: Acceptance | None = None,
    accepted: Accepted | None = None,
) -> dict[str, Any]:
    """One run in the documented shape (see the module docstring): ``run.to_dict()``
    with its verdict and its acceptance as a baseline."""
    out = json_shape.run_to_dict(run, questions=questions)
    out["regression"] = verdict_to_dict(verdict, run.run_id) if verdict is not None else None
    if acceptance is not None:  # only then: a run's own ``to_dict()`` is the same object
        out["accepted"] = acceptance_dict(acceptance)
    if accepted is not None:  # how it became a baseline (a person: also ``accepted``)
        out["acceptance"] = accepted_dict(accepted)
    judged = judged_at_k(run)
    if judged is not None:  # only then: a plain set's document stays as it was
        out["judged"] = judged_to_dict(judged)
    return out


def verdict_to_dict(v: Verdict, run_id: str | None = None) -> dict[str, Any]:
    return {
        "verdict": v.kind.value,
        "fails": v.fails(),
        "baseline_run_id": v.baseline_run_id,
        "baseline_file": v.baseline_file,
        "baseline_required": v.baseline_required,
        "rule": v.rule,
        "not_accepted": list(v.not_accepted),
        "accept_command": accept_command(run_id) if v.not_accepted and run_id else None,
        "variant_change": v.variant_change,
        "drift_reference_run_id": v.drift_reference_run_id,
        "reasons": list(v.reasons),
        "warnings": list(v.warnings),
        "incomparable_parts": list(v.incomparable_parts),
        "unjudged_losses": None if v.unjudged is None else list(v.unjudged.question_ids),
        "unjudged": _unjudged(v, run_id),
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
                "p_value": d.p_value,
            }
            for d in v.deltas
        ],
        "flips": [
            {
                "question_id": f.question_id,
                "k": f.k,
                "direction": str(f.direction),
                "expected_document_ids": list(f.expected_document_ids),
                "current_ranking": list(f.current_ranking),
                "baseline_ranking": list(f.baseline_ranking),
            }
            for f in v.flips
        ],
        "tests": [mcnemar_to_dict(t) for t in v.tests],
        "p_values": {str(t.k): t.p_value for t in v.tests},
    }


def _unjudged(v: Verdict, run_id: str | None) -> dict[str, Any] | None:
    summary = v.unjudged
    if summary is None:
        return None
    line = unjudged_line(v, run_id)
    command = judge_command(summary, judged_runs(v, run_id)) if summary.question_ids else None
    return {
        "set": summary.set_source,
        "relevance_level": summary.relevance_level,
        "incomparable": summary.decided,
        "by_k": [{"k": at.k, "losses": at.losses, "wins": at.wins,
                  "unjudged": len(at.question_ids), "turnable": at.turnable,
                  "question_ids": list(at.question_ids)} for at in summary.by_k],
        "line": line,
        "judge_command": command,
    }  # fmt: skip


def mcnemar_to_dict(t: PairedTest | SignificanceTest) -> dict[str, Any]:
    """One exact McNemar test, as every JSON shape writes it (``p_holm`` only where the
    test was corrected across several runs)."""
    out: dict[str, Any] = {"k": t.k, "wins": t.wins, "losses": t.losses, "ties": t.ties,
                           "p_value": t.p_value}  # fmt: skip
    p_holm = getattr(t, "p_holm", None)
    if p_holm is not None:
        out["p_holm"] = p_holm
    out["significant"] = t.significant
    return out
