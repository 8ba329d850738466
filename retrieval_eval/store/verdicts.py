"""Verdict <-> JSON text for the ``verdict_json`` column. Exact round trip.

A run stores the verdict it was given when it was saved, so every later view of the run
(``runs show`` in any format, history) reports that verdict rather than re-judging.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from retrieval_eval.regression.types import (
    Flip,
    MetricDelta,
    PairedTest,
    Thresholds,
    Verdict,
    VerdictKind,
)

#: Bumped when the stored shape changes incompatibly.
VERDICT_FORMAT = 1


def verdict_to_json(verdict: Verdict) -> str:
    data = asdict(verdict)
    data["kind"] = verdict.kind.value
    data["flips"] = [{**asdict(f), "direction": str(f.direction)} for f in verdict.flips]
    data["format"] = VERDICT_FORMAT
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def verdict_from_json(text: str) -> Verdict:
    data: dict[str, Any] = json.loads(text)
    thresholds = data.get("thresholds")
    return Verdict(
        kind=VerdictKind(data["kind"]),
        baseline_run_id=data.get("baseline_run_id"),
        reasons=tuple(data.get("reasons", ())),
        deltas=tuple(MetricDelta(**d) for d in data.get("deltas", ())),
        flips=tuple(_flip(f) for f in data.get("flips", ())),
        tests=tuple(PairedTest(**t) for t in data.get("tests", ())),
        warnings=tuple(data.get("warnings", ())),
        incomparable_parts=tuple(data.get("incomparable_parts", ())),
        thresholds=None if thresholds is None else Thresholds(**thresholds),
    )


def _flip(data: dict[str, Any]) -> Flip:
    return Flip(
        question_id=data["question_id"],
        k=data["k"],
        direction=data["direction"],
        expected_document_ids=tuple(data["expected_document_ids"]),
        current_ranking=tuple(data["current_ranking"]),
        baseline_ranking=tuple(data["baseline_ranking"]),
    )
