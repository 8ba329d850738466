"""A run's grades and IR measures <-> their columns (schema revision 0003): each
question's judgments as a compact JSON object, the measures' means as JSON beside their
convention and relevance level. Exact round trip; rows stored before read as they always
meant (expected ids at grade 1, no measures, level 1)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from retrieval_eval.records.metrics import MeasureMean
from retrieval_eval.records.run import RunResult

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def encode_judgments(judgments: tuple[tuple[str, int], ...] | None) -> str | None:
    """``{"doc":grade,...}`` in judgment order; None for plain labels."""
    if not judgments:
        return None
    return _dumps(dict(judgments))


def decode_judgments(text: str | None) -> tuple[tuple[str, int], ...] | None:
    if text is None:
        return None
    return tuple((str(doc), int(grade)) for doc, grade in json.loads(text).items())


def judgments_column(run: RunResult, question_ids: Iterable[str]) -> list[str | None]:
    """The ``judgments`` value of each question, in the order given."""
    judged = run.judgments
    if not judged:
        return [None for _ in question_ids]
    return [encode_judgments(judged.get(qid)) for qid in question_ids]


def run_columns(run: RunResult) -> dict[str, Any]:
    """The ``reval_runs`` columns of a run's measures and relevance level."""
    measures = {name: [m.value, m.count, m.left_out] for name, m in run.measures.items()}
    return {
        "measures_json": _dumps(measures) if measures else None,
        "measure_convention": run.measure_convention if measures else None,
        "relevance_level": run.relevance_level,
    }


def run_fields(row: Mapping[Any, Any]) -> dict[str, Any]:
    """``RunResult`` keyword arguments from those columns (a row or a baseline file's
    ``run`` object without them: no measures, level 1)."""
    text = row.get("measures_json")
    measures = {} if text is None else json.loads(text)
    return {
        "measures": {name: MeasureMean(*parts) for name, parts in measures.items()},
        "measure_convention": row.get("measure_convention") or "reval",
        "relevance_level": row.get("relevance_level") or 1,
    }
