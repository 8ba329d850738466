"""Judgments in the set format: a question's labels as document id -> grade.

A question gives ``expected_document_ids`` (a list), ``judgments`` (a mapping id ->
integer grade), or both::

    expected_document_ids: [install-linux]
    judgments: {install-linux: 2, install-mac: 1, faq: 0}

A grade is an integer; 0 means judged not relevant, and a negative grade (TREC's -1 or -2
for spam) reads as 0, as trec_eval reads it. A document is expected when its grade reaches
the set's ``relevance_level`` (default 1). A listed id without a grade takes the relevance
level; a document in both must agree (its grade reaches the level). Everything not judged
is unjudged: not relevant for scoring, but never "judged not relevant".

Labels that are a list, or judgments that are all grade 1, are *plain*: the question keeps
no judgments and fingerprints exactly as a list always did.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

JUDGMENTS_KEY = "judgments"
LEVEL_KEY = "relevance_level"
SCALE_KEY = "grade_scale"
DEFAULT_LEVEL = 1
#: Grades are held in 4-byte columns; TREC's are a handful.
MAX_GRADE = 2**31 - 1


def read_grade(value: object) -> int | None:
    """The grade ``value`` gives (a negative one reads as 0), or ``None`` when it is not an
    integer the format accepts (a boolean, a float, a string, past ``MAX_GRADE``)."""
    if not isinstance(value, int) or isinstance(value, bool) or value > MAX_GRADE:
        return None  # an int subclass is taken: round-trip YAML reads 0 as one
    return int(value) if value > 0 else 0


def combine(
    expected: Sequence[str], judged: Mapping[str, int], level: int
) -> tuple[tuple[str, ...], tuple[tuple[str, int], ...]]:
    """The expected documents (listed ones first, then the judged ones that reach
    ``level``, in file order) and the judgments to keep (empty when the labels are plain).

    ``judged`` holds grades already read; a listed id with a grade below ``level`` is the
    caller's to refuse (``disagreements``).
    """
    if not judged and level == DEFAULT_LEVEL:
        return tuple(expected), ()
    grades = dict(judged)
    for doc in expected:
        grades.setdefault(doc, level)
    listed = set(expected)
    targets = (*expected, *(d for d, g in judged.items() if g >= level and d not in listed))
    if level == DEFAULT_LEVEL and all(g == 1 for g in grades.values()):
        return targets, ()
    return targets, tuple(grades.items())


def disagreements(
    expected: Sequence[str], judged: Mapping[str, int], level: int
) -> list[tuple[str, int]]:
    """Listed ids whose grade in ``judged`` is below ``level``: (id, grade)."""
    return [(d, judged[d]) for d in expected if d in judged and judged[d] < level]


def header_level(header: Mapping[str, object]) -> int:
    """The set's relevance level as its header gives it; the default when it is missing
    or not valid (the checker reports that)."""
    value = header.get(LEVEL_KEY, DEFAULT_LEVEL)
    grade = read_grade(value)
    return grade if grade is not None and grade >= 1 and grade == value else DEFAULT_LEVEL
