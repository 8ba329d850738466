"""The fast path of validation: a question that is plainly valid, built in one pass.

Shared by the checker (for every format) and the JSONL reader, which builds each plainly
valid line as it reads, so a big set never holds all of its raw mappings at once.
"""

from __future__ import annotations

from sys import intern
from typing import Any

from retrieval_eval.questions.digests import DIGESTS_KEY, plain_digests
from retrieval_eval.questions.judgments import JUDGMENTS_KEY, combine, read_grade
from retrieval_eval.questions.model import GoldenQuestion
from retrieval_eval.records.outcome import Form

#: The keys a question may have, in the order messages list them (a drafted question's
#: labelling key takes the slow path). Digests are checked, then left out of the model.
QUESTION_FIELDS = (
    "id", "question", "form", "expected_document_ids", JUDGMENTS_KEY, "hard_class",
    "answer_gist", DIGESTS_KEY,
)  # fmt: skip
FIELDS = frozenset(QUESTION_FIELDS)
_FORMS: dict[Any, Form] = {None: Form.UNLABELLED}
for _form in Form:
    for _spelling in (_form.value, _form.value.lower(), _form.value.capitalize()):
        _FORMS[_spelling] = _form


def _text(value: Any) -> bool:
    return type(value) is str and value != "" and not value.isspace()


def well_formed(data: Any, level: int = 1) -> GoldenQuestion | None:
    """The question when it is plainly valid (the common case, fast); ``None`` means "check
    it field by field" — never that it is wrong. ``level`` is the set's relevance level."""
    if type(data) is not dict or not data.keys() <= FIELDS:
        return None
    qid: Any = data.get("id")
    text: Any = data.get("question")
    ids = data.get("expected_document_ids")
    judged = data.get(JUDGMENTS_KEY)
    if judged is None:
        if type(ids) is not list:
            return None
    elif type(judged) is not dict or not (ids is None or type(ids) is list):
        return None
    if not (_text(qid) and _text(text)):
        return None
    given = data.get("form")
    form = _FORMS.get(given) if given is None or type(given) is str else None
    hard_class, gist = data.get("hard_class"), data.get("answer_gist")
    if form is None or not (hard_class is None or _text(hard_class)):
        return None
    if not (gist is None or _text(gist)):
        return None
    if DIGESTS_KEY in data and not plain_digests(data[DIGESTS_KEY]):
        return None
    for doc in ids or ():
        if type(doc) is not str or doc == "" or doc.isspace():
            return None
    # Labels recur across questions (many questions, fewer documents): one string each.
    expected = tuple(map(intern, ids)) if ids else ()
    if len(set(expected)) != len(expected):
        return None
    if judged is None and level == 1:
        return GoldenQuestion(qid, text, form, expected, hard_class, gist)
    grades = _grades(judged) if judged else {}
    if grades is None or any(grades.get(doc, level) < level for doc in expected):
        return None
    expected, judgments = combine(expected, grades, level)
    return GoldenQuestion(qid, text, form, expected, hard_class, gist, judgments)


def _grades(judged: dict[Any, Any]) -> dict[str, int] | None:
    """Document id -> grade, or ``None`` when any entry needs the careful path."""
    grades: dict[str, int] = {}
    for doc, value in judged.items():
        grade = read_grade(value)
        if grade is None or not _text(doc):
            return None
        grades[intern(doc)] = grade
    return grades
