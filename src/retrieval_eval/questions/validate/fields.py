"""Checking one question field by field (the slow path, for what ``well_formed`` refused).

``id`` is a non-empty string; ``question`` is text that is not blank (the retriever
contract's rule, ``retrieval_eval.text``); ``form`` is MATCH, GAP or UNLABELLED in any
case, and a missing (or null) form means UNLABELLED — a label never made is not invented;
the labels are checked by ``labels``; ``hard_class`` and ``answer_gist`` are optional
strings; ``labelling`` and ``document_digests`` say how the labels were made.
"""

from __future__ import annotations

from typing import Any

from retrieval_eval.questions.did_you_mean import did_you_mean
from retrieval_eval.questions.digests import DIGESTS_KEY, check_digests
from retrieval_eval.questions.formats import HEADER_KEY
from retrieval_eval.questions.labelling import LABELLING_KEY, JudgementState, check_labelling
from retrieval_eval.questions.model import GoldenQuestion
from retrieval_eval.questions.validate.findings import Findings, kind
from retrieval_eval.questions.validate.keys import QUESTION_KEYS, SYNONYMS
from retrieval_eval.questions.validate.labels import check_labels
from retrieval_eval.questions.wellformed import FIELDS
from retrieval_eval.records.outcome import Form
from retrieval_eval.text import is_blank

_FORMS = {f.value.lower(): f for f in Form}
_FORM_NAMES = ", ".join(f.value for f in Form)


def check_question(f: Findings, index: int, data: Any, label: str | None) -> GoldenQuestion | None:
    """The question at ``index``, or ``None`` with its every problem in ``f``."""
    if not isinstance(data, dict):
        f.add(index, None, None, f"expected a mapping of fields, got {kind(data)}")
        return None
    before = len(f.problems)
    qid: Any = data.get("id")
    if qid is None:
        f.add(index, None, None, "missing 'id'")
    elif not isinstance(qid, str):
        f.add(index, "id", label, f"'id' must be a string, got {kind(qid)}; quote it")
    elif label is None:
        f.add(index, "id", None, "empty 'id'")
    if not data.keys() <= FIELDS | {LABELLING_KEY}:
        _unknown_keys(f, index, label, data)
    for key, line in f.raw.duplicate_keys.get(index, []):
        message = f"key {key!r} given twice (the last one would win)"
        f.add(index, key, label, message, line)
    text: Any = data.get("question")
    if text is None:
        f.add(index, None, label, "missing 'question' text")
    elif not isinstance(text, str):
        f.add(index, "question", label, f"'question' must be text, got {kind(text)}")
    elif is_blank(text):
        f.add(index, "question", label, "empty 'question' text")
    form = _form(f, index, label, data.get("form"))
    labels = check_labels(f, index, label, data)
    expected = labels[0] if labels is not None else None
    hard_class = _optional_text(f, index, label, data, "hard_class")
    gist = _optional_text(f, index, label, data, "answer_gist")
    _provenance(f, index, label, data, expected)
    if len(f.problems) > before or form is None or labels is None:
        return None
    return GoldenQuestion(qid, text, form, labels[0], hard_class, gist, labels[1])


def _provenance(
    f: Findings, index: int, label: str | None, data: dict[str, Any], expected: Any
) -> None:
    """The keys that say how the labels were made: ``labelling``, ``document_digests``."""
    problems = [(DIGESTS_KEY, m) for m in check_digests(data.get(DIGESTS_KEY))]
    state = None
    if LABELLING_KEY in data:
        state, found = check_labelling(data[LABELLING_KEY], expected)
        problems += [(LABELLING_KEY, m) for m in found]
    for key, message in problems:
        f.add(index, key, label, message)
    if state is not None and state != JudgementState.JUDGED:
        f.unjudged.append(label or f"#{index + 1}")


def _unknown_keys(f: Findings, index: int, label: str | None, data: dict[str, Any]) -> None:
    for key in data:
        if key in FIELDS:
            continue
        if key == HEADER_KEY:
            f.add(index, key, label, f"the {HEADER_KEY} header must be the first line")
            continue
        hint = did_you_mean(str(key), QUESTION_KEYS, synonyms=SYNONYMS)
        f.add(index, str(key), label, f"unknown key {key!r}{hint}")


def _form(f: Findings, index: int, label: str | None, value: Any) -> Form | None:
    if value is None:
        return Form.UNLABELLED
    if not isinstance(value, str):
        f.add(index, "form", label, f"'form' must be one of {_FORM_NAMES}, got {kind(value)}")
        return None
    form = _FORMS.get(value.strip().lower())
    if form is None:
        hint = did_you_mean(value.strip().upper(), [each.value for each in Form])
        message = f"unknown form {value!r}; expected {_FORM_NAMES} (any case){hint}"
        f.add(index, "form", label, message)
    return form


def _optional_text(
    f: Findings, index: int, label: str | None, data: dict[str, Any], key: str
) -> str | None:
    value = data.get(key)
    if value is None or (isinstance(value, str) and value.strip()):
        return value
    got = "an empty string" if isinstance(value, str) else kind(value)
    f.add(index, key, label, f"{key!r} must be non-empty text or absent, got {got}")
    return None
