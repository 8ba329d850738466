"""RunResult <-> database rows. Pure functions, exact round trip (``loaded == saved``)."""

from __future__ import annotations

import json
import json.encoder
import json.scanner
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import fields
from datetime import UTC, datetime
from functools import lru_cache
from sys import intern
from typing import Any

from retrieval_eval.metric_keys import TOP1_HIT_RATE, TOP3_HIT_RATE
from retrieval_eval.outcomes.columns import OutcomeValues
from retrieval_eval.outcomes.compact import CompactOutcomes
from retrieval_eval.records.failures import FailureKind, RetrievalFailure
from retrieval_eval.records.metrics import GroupMetrics, LatencySummary, NoAnswerStats, RateEstimate
from retrieval_eval.records.outcome import Form, QuestionOutcome
from retrieval_eval.records.parameters import RunParameters
from retrieval_eval.records.run import RetrieverDescription, RunResult, RunState
from retrieval_eval.store import graded
from retrieval_eval.store.stored_run import Acceptance, Accepted, HowAccepted
from retrieval_eval.store.verdicts import VerdictLike, verdict_document

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_loads = json.loads
#: Per-question hot path (100,000 rows must save and load quickly): id lists are encoded
#: string by string with the C string encoder, and a row's three lists are decoded in one
#: scanner call. Both produce and read ordinary JSON arrays. Loaded ids are interned: the
#: same documents recur across questions, and one string per id keeps a reloaded
#: 100,000-question run about half the size in memory.
_encode_string = json.encoder.encode_basestring
_scan = json.scanner.make_scanner(json.JSONDecoder())  # type: ignore[arg-type]
_FORMS = {f.value: f for f in Form}


def epoch(moment: datetime) -> float:
    """Seconds since the epoch; a naive datetime is taken as UTC."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def group_to_json(group: GroupMetrics) -> dict[str, Any]:
    return {
        "count": group.count,
        "errors": group.errors,
        "values": dict(group.values),
        "intervals": {
            name: [e.rate, e.low, e.high, e.successes, e.count]
            for name, e in group.intervals.items()
        },
        "no_answer": (
            None
            if group.no_answer is None
            else [group.no_answer.count, group.no_answer.correctly_empty,
                  group.no_answer.returned_something]
        ),
    }  # fmt: skip


def group_from_json(data: Mapping[str, Any]) -> GroupMetrics:
    no_answer = data["no_answer"]
    return GroupMetrics(
        count=data["count"],
        errors=data["errors"],
        values=dict(data["values"]),
        intervals={name: RateEstimate(*parts) for name, parts in data["intervals"].items()},
        no_answer=None if no_answer is None else NoAnswerStats(*no_answer),
    )


def _record_to_json(record: object) -> dict[str, Any]:
    """A flat dataclass (parameters, description) as JSON-ready data, field by field."""
    out: dict[str, Any] = {}
    for f in fields(record):  # type: ignore[arg-type]
        value = getattr(record, f.name)
        if isinstance(value, tuple):
            value = list(value)
        elif isinstance(value, Mapping):
            value = dict(value)
        out[f.name] = value
    return out


def _record_from_json(cls: type, data: Mapping[str, Any]) -> Any:
    """Rebuild a flat dataclass; lists become tuples; fields unknown to this version are
    ignored so that a newer reval's rows still load."""
    known = {f.name for f in fields(cls)}
    kwargs = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items() if k in known}
    return cls(**kwargs)


def encode_ids(ids: tuple[str, ...]) -> str:
    """A JSON array of strings."""
    return "[" + ",".join(map(_encode_string, ids)) + "]"


def encode_scores(scores: tuple[float | None, ...]) -> str | None:
    """A JSON array of numbers (null for a result without a score); None for no scores.
    ``repr`` keeps every float exact; non-finite values use Python's JSON tokens."""
    if not scores:
        return None
    return "[" + ",".join("null" if s is None else _float(s) for s in scores) + "]"


def _float(value: float) -> str:
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    return repr(float(value))


def decode_scores(text: str | None) -> tuple[float | None, ...]:
    if not text:
        return ()
    return tuple(None if s is None else float(s) for s in _loads(text))


def encode_hits(hits: Mapping[int, bool]) -> str:
    return _encode_hit_pairs(tuple(hits.items()))


@lru_cache(maxsize=256)
def _encode_hit_pairs(pairs: tuple[tuple[int, bool], ...]) -> str:
    return ",".join(f"{k}:{int(v)}" for k, v in pairs)


def decode_hits(text: str) -> dict[int, bool]:
    return dict(_decode_hit_pairs(text))


@lru_cache(maxsize=256)
def _decode_hit_pairs(text: str) -> tuple[tuple[int, bool], ...]:
    if not text:
        return ()
    pairs = (part.split(":") for part in text.split(","))
    return tuple((int(k), v == "1") for k, v in pairs)


def nul_problem(run: RunResult) -> str | None:
    """Why ``run`` cannot be stored, or ``None``: PostgreSQL text columns refuse a NUL
    character, so every backend refuses one in a plain-text column (id lists and JSON
    columns escape it; error messages are escaped as ``\\x00``)."""
    texts = [
        ("set name", run.set_name),
        ("retriever identifier", run.retriever.identifier),
        ("retriever version", run.retriever.version),
        ("retriever target", run.retriever_target),
    ]
    texts += [("label", f"{k}={v}") for k, v in run.labels.items()]
    questions = run.questions
    pairs = (
        questions.ids_and_classes()
        if isinstance(questions, CompactOutcomes)
        else ((q.question_id, q.hard_class) for q in questions)
    )
    for qid, hard_class in pairs:
        if "\x00" in qid or "\x00" in (hard_class or ""):
            texts += [("question id", qid), ("hard class", hard_class or "")]
    for what, text in texts:
        if "\x00" in text:
            return f"{what} {text!a} holds a NUL character (U+0000)"
    return None


def run_row(
    run: RunResult,
    run_id: str,
    verdict: VerdictLike | None = None,
    accepted: Accepted | None = None,
    rescored_from: tuple[str, str] | None = None,
) -> dict[str, Any]:
    """The ``reval_runs`` row of a run (without the generated primary key; the acceptance
    columns only when ``accepted``: an unaccepted run leaves them null; the source run's
    id and label fingerprint only for a run rescored from it)."""
    return {
        **({} if accepted is None else accepted_columns(accepted)),
        **({} if rescored_from is None else dict(zip(RESCORED, rescored_from, strict=True))),
        **graded.run_columns(run),
        "verdict_kind": None if verdict is None else str(verdict.kind),
        "baseline_run_id": None if verdict is None else verdict.baseline_run_id,
        "verdict_json": None if verdict is None else verdict_document(verdict),
        "lineage": run_lineage(run),
        "run_id": run_id,
        "set_name": run.set_name,
        "set_fingerprint": run.set_fingerprint,
        "retriever_identifier": run.retriever.identifier,
        "retriever_version": run.retriever.version,
        "retriever_target": run.retriever_target,
        "state": run.state.value,
        "started_at": run.started_at.isoformat(),
        "finished_at": run.finished_at.isoformat(),
        "started_ts": epoch(run.started_at),
        "finished_ts": epoch(run.finished_at),
        "question_count": len(run.questions),
        "error_count": run.error_count,
        "underfilled_count": run.underfilled_count,
        "top1_hit_rate": run.metrics.values.get(TOP1_HIT_RATE),
        "top3_hit_rate": run.metrics.values.get(TOP3_HIT_RATE),
        "pinned": False,
        "retriever_json": _dumps(_record_to_json(run.retriever)),
        "parameters_json": _dumps(_record_to_json(run.parameters)),
        "metrics_json": _dumps(group_to_json(run.metrics)),
        "by_form_json": _dumps({k: group_to_json(g) for k, g in run.by_form.items()}),
        "by_hard_class_json": _dumps({k: group_to_json(g) for k, g in run.by_hard_class.items()}),
        "latency_json": _latency_json(run),
    }


def _latency_json(run: RunResult) -> str | None:
    """The run's latency, with the unloaded probe's (if any) under ``"probe"``."""
    if run.latency is None and run.latency_probe is None:
        return None
    data = {} if run.latency is None else _record_to_json(run.latency)
    if run.latency_probe is not None:
        data["probe"] = _record_to_json(run.latency_probe)
    return _dumps(data)


def _latency_from_json(text: str | None) -> tuple[LatencySummary | None, LatencySummary | None]:
    """(loaded, probe) from ``latency_json``."""
    data = {} if text is None else dict(_loads(text))
    probe = data.pop("probe", None)
    loaded = _record_from_json(LatencySummary, data) if data else None
    return loaded, None if probe is None else _record_from_json(LatencySummary, probe)


#: Columns of :func:`outcome_rows` tuples, after the run's primary key and the position.
OUTCOME_ROW_COLUMNS = (
    "question_id", "form", "hard_class", "expected_ids", "raw_ids", "ranked_ids", "hits",
    "latency_ms", "error_kind", "error_message", "underfilled", "raw_scores", "notes",
    "question_text",
)  # fmt: skip


def outcome_rows(outcomes: Iterable[QuestionOutcome]) -> list[tuple[Any, ...]]:
    """``reval_outcomes`` rows (without ``run_pk`` and ``position``), in question order.
    Outcomes held by column are encoded from their values, without an object each."""
    values: Iterable[OutcomeValues]
    if isinstance(outcomes, CompactOutcomes):
        values = outcomes.values()
    else:
        values = (astuple_shallow(q) for q in outcomes)
    return [
        (
            qid,
            form.value,
            hard_class,
            encode_ids(expected),
            encode_ids(raw),
            encode_ids(ranked),
            encode_hits(hits),
            latency,
            None if error is None else str(error.kind),
            None if error is None else error.message.replace("\x00", "\\x00"),
            underfilled,
            encode_scores(scores),
            encode_ids(notes) if notes else None,
            None if text is None else text.replace("\x00", "\\x00"),
        )
        for (qid, form, hard_class, expected, raw, ranked, hits, latency, error, underfilled,
             scores, notes, text) in values
    ]  # fmt: skip


_OUTCOME_FIELDS = tuple(f.name for f in fields(QuestionOutcome))


def astuple_shallow(q: QuestionOutcome) -> OutcomeValues:
    """An outcome's field values in field order (``dataclasses.astuple`` would copy them
    deeply)."""
    return tuple(getattr(q, name) for name in _OUTCOME_FIELDS)


#: Column order expected by :func:`outcome_from_tuple`.
OUTCOME_COLUMNS = OUTCOME_ROW_COLUMNS


def outcome_from_tuple(row: tuple[Any, ...]) -> QuestionOutcome:
    qid, form, hard_class, expected, raw, ranked, hits, latency, kind, message, under = row[:11]
    scores, notes, text = row[11:]
    expected_ids, raw_ids, ranked_ids = _scan(f"[{expected},{raw},{ranked}]", 0)[0]
    return QuestionOutcome(
        question_id=qid,
        form=_FORMS[form],
        hard_class=hard_class,
        expected_document_ids=tuple(map(intern, expected_ids)),
        raw_ids=tuple(map(intern, raw_ids)),
        raw_scores=decode_scores(scores),
        ranked_document_ids=tuple(map(intern, ranked_ids)),
        hits=decode_hits(hits),
        latency_ms=latency,
        error=None if kind is None else RetrievalFailure(FailureKind(kind), message or ""),
        underfilled=bool(under),
        notes=tuple(_loads(notes)) if notes else (),
        question_text=None if text is None else intern(text),
    )


#: The columns naming a rescored run's source: its run id and label fingerprint.
RESCORED = ("rescored_from", "rescored_from_fingerprint")


def rescored_from_row(row: Mapping[Any, Any]) -> tuple[str, str] | None:
    source = row.get("rescored_from")
    return None if source is None else (source, row.get("rescored_from_fingerprint") or "")


def run_from_row(
    row: Mapping[Any, Any],
    labels: Mapping[str, str],
    outcomes: Sequence[QuestionOutcome],
    judgments: Mapping[str, tuple[tuple[str, int], ...]] | None = None,
) -> RunResult:
    """The run of a ``reval_runs`` row; ``judgments``: its questions' stored grades
    (``RunResult.judgments``)."""
    latency, probe = _latency_from_json(row["latency_json"])
    return RunResult(
        set_name=row["set_name"],
        set_fingerprint=row["set_fingerprint"],
        retriever_target=row["retriever_target"],
        retriever=_record_from_json(RetrieverDescription, _loads(row["retriever_json"])),
        parameters=_record_from_json(RunParameters, _loads(row["parameters_json"])),
        started_at=datetime.fromisoformat(row["started_at"]),
        finished_at=datetime.fromisoformat(row["finished_at"]),
        state=RunState(row["state"]),
        metrics=group_from_json(_loads(row["metrics_json"])),
        by_form={k: group_from_json(g) for k, g in _loads(row["by_form_json"]).items()},
        by_hard_class={k: group_from_json(g) for k, g in _loads(row["by_hard_class_json"]).items()},
        latency=latency,
        questions=outcomes,
        underfilled_count=row["underfilled_count"],
        labels=dict(labels),
        run_id=row["run_id"],
        latency_probe=probe,
        judgments=dict(judgments or {}),
        **graded.run_fields(row),
    )


def run_lineage(run: RunResult) -> str:
    """The lineage a run belongs to, computed in the process that made it (relative
    index paths resolve against its working directory)."""
    from retrieval_eval.retrievers.lineage import lineage_of

    return lineage_of(run.retriever_target, run.retriever.identifier)


def accepted_columns(accepted: Accepted | None) -> dict[str, Any]:
    """The ``accepted_how``, ``accepted_thresholds_json`` and ``accepted_baseline`` values."""
    if accepted is None:
        return {"accepted_how": None, "accepted_thresholds_json": None, "accepted_baseline": None}
    thresholds = accepted.thresholds
    return {
        "accepted_how": accepted.how.value,
        "accepted_thresholds_json": (
            None if thresholds is None else json.dumps(dict(thresholds), sort_keys=True)
        ),
        "accepted_baseline": accepted.baseline,
    }


def accepted_from_row(row: Mapping[Any, Any]) -> Accepted | None:
    how = row["accepted_how"]
    if not how:
        return None
    thresholds = row["accepted_thresholds_json"]
    return Accepted(
        HowAccepted(how),
        None if thresholds is None else dict(_loads(thresholds)),
        row["accepted_baseline"],
    )


def acceptance_from_row(row: Mapping[Any, Any]) -> Acceptance | None:
    if row["accepted_at"] is None:
        return None
    return Acceptance(
        datetime.fromisoformat(row["accepted_at"]),
        row["accepted_by"] or "",
        row["accepted_reason"] or "",
    )


def variant_from_row(row: Mapping[Any, Any]) -> str:
    description = _record_from_json(RetrieverDescription, _loads(row["retriever_json"]))
    label: str = description.variant_label(row["retriever_target"])
    return label
