"""A model's grades beside the candidates a person judges: advice, never a decision.

``reval sets judge --llm-url`` leaves each question a history entry by the model's
source (``llm:<model>@<prompt digest>``) with ``grades`` and one-line ``reasons``. The
page shows the latest such grade of each candidate next to it; what the person saves is
theirs (``source: human:<name>``), and the model's entry stays in the history.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from retrieval_eval.questions.judgments import read_grade
from retrieval_eval.questions.labelling import MODEL_PREFIX


def model_advice(history: Iterable[Any], level: int) -> dict[str, dict[str, Any]]:
    """Document id -> ``{"by", "grade", "relevant", "reason"}``: the latest model grade."""
    advice: dict[str, dict[str, Any]] = {}
    for entry in history:
        by = str(entry.get("by") or "") if isinstance(entry, dict) else ""
        if not by.startswith(MODEL_PREFIX):
            continue
        reasons = entry.get("reasons") or {}
        for doc, value in (entry.get("grades") or {}).items():
            grade = read_grade(value)
            if grade is None:
                continue
            reason = reasons.get(doc) if isinstance(reasons, dict) else None
            advice[str(doc)] = {
                "by": by,
                "grade": grade,
                "relevant": grade >= level,
                "reason": str(reason) if reason else "",
            }
    return advice
