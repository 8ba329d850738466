"""Who made each question's labels: a person, a model, both, or nobody recorded it.

A question's *label source* is that of its expected documents, each read from the set
file's labelling extension:

- a pooled candidate's ``source``: ``human:<name>`` is ``human``, ``llm:<model>@...`` is
  ``llm``;
- a decided candidate without one takes the question's ``judged_by`` (``llm:...`` is
  ``llm``, any other name ``human``: the judging page wrote no ``source`` before);
- an expected id that is no candidate (added by hand), and every question of a set
  without drafts (or of a file that is not YAML, which the labelling commands never
  write), is ``unknown``.

All its expected documents alike give the question that source; differing ones give
``mixed``. A question expecting nothing takes its ``judged_by`` (or ``unknown``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from retrieval_eval.labelling.document import load_document
from retrieval_eval.questions.formats import set_format
from retrieval_eval.questions.labelling import (
    HUMAN_PREFIX,
    LABELLING_KEY,
    MODEL_PREFIX,
    JudgementState,
)

HUMAN, MODEL, MIXED, UNKNOWN = "human", "llm", "mixed", "unknown"


def label_sources(path: Path) -> dict[str, str]:
    """Question id -> its label source (``human``, ``llm``, ``mixed``, ``unknown``)."""
    if set_format(path) != "yaml" or path.suffix.lower() == ".gz":
        from retrieval_eval.questions.loading import load_set_file

        return {q.id: UNKNOWN for q in load_set_file(path).questions}
    document, _ = load_document(path)
    return {
        str(q["id"]): question_source(q)
        for q in document["questions"]
        if isinstance(q, dict) and "id" in q
    }


def question_source(question: Any) -> str:
    labelling = question.get(LABELLING_KEY)
    if not isinstance(labelling, dict) or labelling.get("state") != JudgementState.JUDGED:
        return UNKNOWN
    judged_by = _kind(str(labelling.get("judged_by") or ""), fallback=True)
    decided = {}
    for candidate in labelling.get("candidates") or []:
        if isinstance(candidate, dict) and candidate.get("relevant") is not None:
            source = _kind(str(candidate.get("source") or ""), fallback=False)
            decided[str(candidate.get("document_id"))] = source or judged_by
    expected = [str(d) for d in question.get("expected_document_ids") or []]
    if not expected:
        return judged_by
    kinds = {decided.get(doc, UNKNOWN) for doc in expected}
    return kinds.pop() if len(kinds) == 1 else MIXED


def _kind(who: str, *, fallback: bool) -> str:
    """``llm`` or ``human`` for a recorded decider; a bare name is a person's only where
    names are all there is (``judged_by``); nothing recorded is ``unknown`` (or empty)."""
    if who.startswith(MODEL_PREFIX):
        return MODEL
    if who.startswith(HUMAN_PREFIX) or (fallback and who):
        return HUMAN
    return UNKNOWN if fallback else ""
