"""Checking one question's labels: the expected list, the judgments mapping, and both.

``expected_document_ids`` (distinct strings that are not blank; ``[]`` says no document
answers) or ``judgments`` (id -> integer grade, see ``judgments``) or both must be present,
and a document in both must agree. With a corpus given, every labelled id must be in it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from retrieval_eval.questions.judgments import JUDGMENTS_KEY, combine, disagreements, read_grade
from retrieval_eval.questions.validate.findings import Findings, kind
from retrieval_eval.text import is_blank

Labels = tuple[tuple[str, ...], tuple[tuple[str, int], ...]]
_EXPECTED = "expected_document_ids"


def check_labels(f: Findings, index: int, label: str | None, data: dict[str, Any]) -> Labels | None:
    """The expected ids and the judgments to keep, from the list, the mapping or both."""
    key = _EXPECTED
    if key not in data and JUDGMENTS_KEY not in data:
        message = (
            f"missing {key!r} or {JUDGMENTS_KEY!r} (write [] when no document answers the question)"
        )
        f.add(index, None, label, message)
        return None
    listed = _expected(f, index, label, data[key]) if key in data else ()
    judged = _judged(f, index, label, data[JUDGMENTS_KEY]) if JUDGMENTS_KEY in data else {}
    if listed is None or judged is None:
        return None
    wrong = disagreements(listed, judged, f.level)
    for doc, grade in wrong:
        message = (
            f"{doc!r} is in {key} but judged {grade} in {JUDGMENTS_KEY}, below the "
            f"relevance level {f.level}: a document is relevant or not, not both"
        )
        f.add(index, JUDGMENTS_KEY, label, message)
    if wrong:
        return None
    expected, judgments = combine(listed, judged, f.level)
    check_in_corpus(f, index, label, expected, judgments)
    return expected, judgments


def _judged(f: Findings, index: int, label: str | None, value: Any) -> dict[str, int] | None:
    """Document id -> grade from a ``judgments`` mapping (negative grades read as 0)."""
    key = JUDGMENTS_KEY
    if not isinstance(value, dict):
        got = kind(value)
        f.add(index, key, label, f"{key!r} must be a mapping of id -> grade, got {got}")
        return None
    grades: dict[str, int] = {}
    for doc, given in value.items():
        grade = read_grade(given)
        if not isinstance(doc, str) or is_blank(doc):
            what = "an empty id" if isinstance(doc, str) else f"{kind(doc)}; quote it"
            f.add(index, key, label, f"{key} has a document id that is {what}")
        elif grade is None:
            message = f"{key}[{doc!r}] must be an integer grade, got {kind(given)}"
            f.add(index, key, label, message)
        else:
            grades[doc] = grade
    return grades if len(grades) == len(value) else None


def _expected(f: Findings, index: int, label: str | None, ids: Any) -> tuple[str, ...] | None:
    key = _EXPECTED
    if not isinstance(ids, list):
        hint = " (write [] when no document answers the question)" if ids is None else ""
        f.add(index, key, label, f"{key!r} must be a list of ids, got {kind(ids)}{hint}")
        return None
    ok = True
    seen: set[str] = set()
    for position, doc in enumerate(ids, 1):
        if not isinstance(doc, str):
            message = f"{key} item {position} must be a string, got {kind(doc)}; quote it"
            f.add(index, key, label, message)
            ok = False
        elif is_blank(doc):
            f.add(index, key, label, f"{key} item {position} is an empty id")
            ok = False
        elif doc in seen:
            f.add(index, key, label, f"{key} lists {doc!r} twice")
            ok = False
        else:
            seen.add(doc)
    return tuple(ids) if ok else None


def check_in_corpus(
    f: Findings,
    index: int,
    label: str | None,
    ids: Sequence[str],
    judgments: Sequence[tuple[str, int]] = (),
) -> None:
    """With a corpus given, every expected or judged id must be one of its documents."""
    if f.corpus is None:
        return
    for doc in ids:
        if doc not in f.corpus:
            message = f"expected document {doc!r} is not in the corpus {f.corpus_name}"
            f.add(index, _EXPECTED, label, message)
    expected = set(ids)
    for doc, _ in judgments:
        if doc not in f.corpus and doc not in expected:
            message = f"judged document {doc!r} is not in the corpus {f.corpus_name}"
            f.add(index, JUDGMENTS_KEY, label, message)
