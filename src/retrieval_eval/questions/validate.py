"""Checking a parsed set and building the model: every problem at once, or nothing.

Rules (see ``formats`` for the layout): ``id`` is a non-empty string unique in the set;
``question`` is text that is not blank (the retriever contract's rule,
``retrieval_eval.text``); ``form`` is MATCH, GAP or UNLABELLED in any case, and a
missing (or null) form means UNLABELLED — a label never made is not invented;
``expected_document_ids`` (distinct strings that are not blank; ``[]`` says no document
answers) or ``judgments`` (id -> integer grade, see ``judgments``) or both must be present,
and a document in both must agree; ``hard_class`` and ``answer_gist`` are optional strings.
The header may give ``relevance_level`` (an integer >= 1) and ``grade_scale`` (``[low,
high]``, integers, 0 <= low <= high). ``labelling`` and ``document_digests`` say how the
labels were made (``labelling``, ``digests``).
Unknown keys are errors, with a "did you mean" suggestion, because a misspelt key would
otherwise silently drop a label.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from typing import Any

from retrieval_eval.questions.compact import CompactQuestions
from retrieval_eval.questions.did_you_mean import did_you_mean
from retrieval_eval.questions.digests import DIGESTS_KEY, check_digests
from retrieval_eval.questions.formats import FORMAT_VERSION, HEADER_KEY, RawSet
from retrieval_eval.questions.judgments import (
    DEFAULT_LEVEL,
    JUDGMENTS_KEY,
    LEVEL_KEY,
    MAX_GRADE,
    SCALE_KEY,
    combine,
    disagreements,
    read_grade,
)
from retrieval_eval.questions.labelling import (
    GENERATED_KEY,
    LABELLING_KEY,
    POOL_KEY,
    JudgementState,
    check_labelling,
    check_pool,
    unjudged_message,
)
from retrieval_eval.questions.model import GoldenQuestion, GoldenQuestionSet
from retrieval_eval.questions.problems import Problem, QuestionSetProblems
from retrieval_eval.questions.wellformed import FIELDS, QUESTION_FIELDS, well_formed
from retrieval_eval.records.outcome import Form
from retrieval_eval.text import is_blank

QUESTION_KEYS = (*QUESTION_FIELDS, LABELLING_KEY)
HEADER_KEYS = (
    HEADER_KEY, "name", "description", "questions", POOL_KEY, LEVEL_KEY, SCALE_KEY, GENERATED_KEY,
)  # fmt: skip
SYNONYMS = {
    "text": "question",
    "query": "question",
    "_id": "id",
    "qid": "id",
    "query_id": "id",
    "expected": "expected_document_ids",
    "expected_ids": "expected_document_ids",
    "document_ids": "expected_document_ids",
    "doc_ids": "expected_document_ids",
    "relevant": "expected_document_ids",
    "targets": "expected_document_ids",
    "grades": JUDGMENTS_KEY,
    "qrels": JUDGMENTS_KEY,
    "judgements": JUDGMENTS_KEY,
    "rel_level": LEVEL_KEY,
    "relevance": LEVEL_KEY,
    "scale": SCALE_KEY,
    "gist": "answer_gist",
    "answer": "answer_gist",
    "class": "hard_class",
    "category": "hard_class",
    "title": "name",
}
_KEYS = FIELDS  # the fast path skips drafts
_FORMS = {f.value.lower(): f for f in Form}
_FORM_NAMES = ", ".join(f.value for f in Form)


def kind(value: object) -> str:
    """A type name people recognise from YAML/JSON, with the value for scalars."""
    names = {bool: "a boolean", int: "an integer", float: "a number", str: "a string"}
    if value is None:
        return "null"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return f"{names.get(type(value), type(value).__name__)} ({value!r})"


def _label(data: Any) -> str | None:
    """The question's id as messages name it (a number id too, though it is rejected)."""
    qid = data.get("id") if isinstance(data, dict) else None
    if isinstance(qid, int | float) and not isinstance(qid, bool):
        return str(qid)
    return qid if isinstance(qid, str) and qid.strip() else None


def _flaw(text: str) -> str | None:
    """Why ``text`` cannot be stored or shown, or ``None``: a lone surrogate (from an
    unpaired ``\\udXXX`` escape) cannot be written as UTF-8, and PostgreSQL text refuses
    a NUL character, so a run over such labels could never be saved."""
    if "\x00" in text:
        return "holds a NUL character (\\u0000), which the run store cannot take"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "is not valid Unicode: it holds a lone surrogate (an unpaired \\udXXX escape)"
    return None


def _texts(q: GoldenQuestion) -> list[tuple[str, str]]:
    fields = [("id", q.id), ("question", q.question)]
    fields += [
        (k, v) for k, v in (("hard_class", q.hard_class), ("answer_gist", q.answer_gist)) if v
    ]
    fields += [("expected_document_ids", doc) for doc in q.expected_document_ids]
    return fields + [(JUDGMENTS_KEY, doc) for doc, _ in q.judgments]


class _Checker:
    """Collects problems for one raw set; locates lines only for problems found."""

    def __init__(self, raw: RawSet, corpus: Set[str] | None, corpus_name: str) -> None:
        self.raw, self.corpus, self.corpus_name = raw, corpus, corpus_name
        self.problems: list[Problem] = list(raw.problems)
        #: Drafted questions not judged yet, in file order (refused as one problem).
        self.unjudged: list[str] = []
        self.level = DEFAULT_LEVEL
        self.scale: tuple[int, int] | None = None

    def add(
        self, index: int, key: str | None, qid: str | None, message: str, line: int | None = None
    ) -> None:
        loc = self.raw.locator
        if line is None:
            line = loc.key_line(index, key) if key else loc.question_line(index)
        position = None if qid is not None else index + 1
        self.problems.append(Problem(self.raw.source, line, message, qid, position))

    def add_header(self, key: str, message: str) -> None:
        line = self.raw.locator.header_line(key)
        self.problems.append(Problem(self.raw.source, line, message))

    def header(self) -> tuple[str, str]:
        raw = self.raw
        for key, line in raw.duplicate_keys.get(-1, []):
            self.problems.append(Problem(raw.source, line, f"key {key!r} given twice"))
        if "" in raw.header:
            got = kind(raw.header[""])
            self.add_header("", f"expected a mapping with a 'questions' list, got {got}")
            return raw.default_name, ""
        if POOL_KEY in raw.header:
            for message in check_pool(raw.header[POOL_KEY]):
                self.add_header(POOL_KEY, message)
        if not isinstance(raw.header.get(GENERATED_KEY, {}), dict):
            self.add_header(GENERATED_KEY, f"'{GENERATED_KEY}' must be a mapping")
        for key in raw.header:
            if key not in HEADER_KEYS:
                hint = did_you_mean(str(key), HEADER_KEYS, synonyms=SYNONYMS)
                self.add_header(key, f"unknown set key {key!r}{hint}")
        version = raw.header.get(HEADER_KEY, FORMAT_VERSION)
        if version != FORMAT_VERSION or isinstance(version, bool):
            message = f"{HEADER_KEY} is {version!r}; this reval reads version {FORMAT_VERSION}"
            self.add_header(HEADER_KEY, message)
        self.grading(raw.header)
        name = raw.header.get("name", raw.default_name)
        if not isinstance(name, str) or not name.strip():
            self.add_header("name", f"'name' must be a non-empty string, got {kind(name)}")
            name = raw.default_name
        description = raw.header.get("description") or ""
        if not isinstance(description, str):
            self.add_header(
                "description", f"'description' must be a string, got {kind(description)}"
            )
            description = ""
        return name, description

    def grading(self, header: dict[str, Any]) -> None:
        """The set's relevance level and grade scale, when it gives them."""
        level = header.get(LEVEL_KEY, DEFAULT_LEVEL)
        if type(level) is not int or not 1 <= level <= MAX_GRADE:
            message = f"{LEVEL_KEY!r} must be an integer of at least 1, got {kind(level)}"
            self.add_header(LEVEL_KEY, message)
        else:
            self.level = level
        if SCALE_KEY not in header:
            return
        scale = header[SCALE_KEY]
        low, high = scale if isinstance(scale, list) and len(scale) == 2 else (None, None)
        if type(low) is not int or type(high) is not int or not 0 <= low <= high <= MAX_GRADE:
            message = f"{SCALE_KEY!r} must be [lowest, highest]: integers, 0 <= lowest <= "
            self.add_header(SCALE_KEY, f"{message}highest, got {kind(scale)}")
        else:
            self.scale = (low, high)

    def questions(self) -> Sequence[GoldenQuestion]:
        items = self.raw.questions
        if "" in self.raw.header:
            return []  # the top level is not a set at all; already reported
        if items is None:
            if not self.raw.problems:
                self.add_header("questions", "no 'questions' list")
            return []
        if not isinstance(items, list | CompactQuestions):
            self.add_header("questions", f"'questions' must be a list, got {kind(items)}")
            return []
        if not items and not self.raw.problems:
            self.add_header("questions", "the set has no questions")
        if isinstance(items, CompactQuestions):  # every JSONL line was plainly valid
            return self.compact(items)
        built: list[GoldenQuestion] = []
        first_index: dict[str, int] = {}
        careful = self.corpus is not None or bool(self.raw.duplicate_keys)
        built_by_reader = self.raw.built
        for index, data in enumerate(items):
            # A plainly valid JSONL line was built while reading.
            prebuilt = built_by_reader and type(data) is GoldenQuestion
            question = data if prebuilt else None if careful else well_formed(data, self.level)
            label = question.id if question is not None else _label(data)
            if label is not None:
                earlier = first_index.setdefault(label, index)
                if earlier != index:
                    line = self.raw.locator.question_line(earlier)
                    where = f"line {line}" if line is not None else f"question #{earlier + 1}"
                    self.add(index, "id", label, f"duplicate question id (first at {where})")
            if prebuilt:
                self.in_corpus(index, label, data.expected_document_ids, data.judgments)
            elif question is None:
                question = self.question(index, data, label)
            if question is not None:
                built.append(question)
        return built

    def compact(self, questions: CompactQuestions) -> CompactQuestions:
        """The checks ``questions`` leaves to the whole set: ids unique, labels in the
        corpus; without building every question."""
        for row, first in questions.duplicates():
            line = self.raw.locator.question_line(first)
            where = f"line {line}" if line is not None else f"question #{first + 1}"
            label = questions.id_of(row)
            self.add(row, "id", label, f"duplicate question id (first at {where})")
        if self.corpus is not None:
            for index, q in enumerate(questions):
                self.in_corpus(index, q.id, q.expected_document_ids, q.judgments)
        return questions

    def question(self, index: int, data: Any, label: str | None) -> GoldenQuestion | None:
        if not isinstance(data, dict):
            self.add(index, None, None, f"expected a mapping of fields, got {kind(data)}")
            return None
        before = len(self.problems)
        qid: Any = data.get("id")
        if qid is None:
            self.add(index, None, None, "missing 'id'")
        elif not isinstance(qid, str):
            self.add(index, "id", label, f"'id' must be a string, got {kind(qid)}; quote it")
        elif label is None:
            self.add(index, "id", None, "empty 'id'")
        if not data.keys() <= _KEYS | {LABELLING_KEY}:
            self.unknown_keys(index, label, data)
        for key, line in self.raw.duplicate_keys.get(index, []):
            message = f"key {key!r} given twice (the last one would win)"
            self.add(index, key, label, message, line)
        text: Any = data.get("question")
        if text is None:
            self.add(index, None, label, "missing 'question' text")
        elif not isinstance(text, str):
            self.add(index, "question", label, f"'question' must be text, got {kind(text)}")
        elif is_blank(text):
            self.add(index, "question", label, "empty 'question' text")
        form = self.form(index, label, data.get("form"))
        labels = self.labels(index, label, data)
        expected = labels[0] if labels is not None else None
        hard_class = self.optional_text(index, label, data, "hard_class")
        gist = self.optional_text(index, label, data, "answer_gist")
        self.provenance(index, label, data, expected)
        if len(self.problems) > before or form is None or labels is None:
            return None
        return GoldenQuestion(qid, text, form, labels[0], hard_class, gist, labels[1])

    def provenance(
        self, index: int, label: str | None, data: dict[str, Any], expected: Any
    ) -> None:
        """The keys that say how the labels were made: ``labelling``, ``document_digests``."""
        problems = [(DIGESTS_KEY, m) for m in check_digests(data.get(DIGESTS_KEY))]
        state = None
        if LABELLING_KEY in data:
            state, found = check_labelling(data[LABELLING_KEY], expected)
            problems += [(LABELLING_KEY, m) for m in found]
        for key, message in problems:
            self.add(index, key, label, message)
        if state is not None and state != JudgementState.JUDGED:
            self.unjudged.append(label or f"#{index + 1}")

    def unknown_keys(self, index: int, label: str | None, data: dict[str, Any]) -> None:
        for key in data:
            if key in _KEYS:
                continue
            if key == HEADER_KEY:
                self.add(index, key, label, f"the {HEADER_KEY} header must be the first line")
                continue
            hint = did_you_mean(str(key), QUESTION_KEYS, synonyms=SYNONYMS)
            self.add(index, str(key), label, f"unknown key {key!r}{hint}")

    def form(self, index: int, label: str | None, value: Any) -> Form | None:
        if value is None:
            return Form.UNLABELLED
        if not isinstance(value, str):
            self.add(
                index, "form", label, f"'form' must be one of {_FORM_NAMES}, got {kind(value)}"
            )
            return None
        form = _FORMS.get(value.strip().lower())
        if form is None:
            hint = did_you_mean(value.strip().upper(), [f.value for f in Form])
            message = f"unknown form {value!r}; expected {_FORM_NAMES} (any case){hint}"
            self.add(index, "form", label, message)
        return form

    def labels(
        self, index: int, label: str | None, data: dict[str, Any]
    ) -> tuple[tuple[str, ...], tuple[tuple[str, int], ...]] | None:
        """The expected ids and the judgments to keep, from the list, the mapping or both."""
        key = "expected_document_ids"
        if key not in data and JUDGMENTS_KEY not in data:
            message = (
                f"missing {key!r} or {JUDGMENTS_KEY!r} "
                "(write [] when no document answers the question)"
            )
            self.add(index, None, label, message)
            return None
        listed = self.expected(index, label, data) if key in data else ()
        judged = self.judged(index, label, data[JUDGMENTS_KEY]) if JUDGMENTS_KEY in data else {}
        if listed is None or judged is None:
            return None
        wrong = disagreements(listed, judged, self.level)
        for doc, grade in wrong:
            message = (
                f"{doc!r} is in {key} but judged {grade} in {JUDGMENTS_KEY}, below the "
                f"relevance level {self.level}: a document is relevant or not, not both"
            )
            self.add(index, JUDGMENTS_KEY, label, message)
        if wrong:
            return None
        expected, judgments = combine(listed, judged, self.level)
        self.in_corpus(index, label, expected, judgments)
        return expected, judgments

    def judged(self, index: int, label: str | None, value: Any) -> dict[str, int] | None:
        """Document id -> grade from a ``judgments`` mapping (negative grades read as 0)."""
        key = JUDGMENTS_KEY
        if not isinstance(value, dict):
            got = kind(value)
            self.add(index, key, label, f"{key!r} must be a mapping of id -> grade, got {got}")
            return None
        grades: dict[str, int] = {}
        for doc, given in value.items():
            grade = read_grade(given)
            if not isinstance(doc, str) or is_blank(doc):
                what = "an empty id" if isinstance(doc, str) else f"{kind(doc)}; quote it"
                self.add(index, key, label, f"{key} has a document id that is {what}")
            elif grade is None:
                message = f"{key}[{doc!r}] must be an integer grade, got {kind(given)}"
                self.add(index, key, label, message)
            else:
                grades[doc] = grade
        return grades if len(grades) == len(value) else None

    def expected(
        self, index: int, label: str | None, data: dict[str, Any]
    ) -> tuple[str, ...] | None:
        key = "expected_document_ids"
        ids = data[key]
        if not isinstance(ids, list):
            hint = " (write [] when no document answers the question)" if ids is None else ""
            self.add(index, key, label, f"{key!r} must be a list of ids, got {kind(ids)}{hint}")
            return None
        ok = True
        seen: set[str] = set()
        for position, doc in enumerate(ids, 1):
            if not isinstance(doc, str):
                message = f"{key} item {position} must be a string, got {kind(doc)}; quote it"
                self.add(index, key, label, message)
                ok = False
            elif is_blank(doc):
                self.add(index, key, label, f"{key} item {position} is an empty id")
                ok = False
            elif doc in seen:
                self.add(index, key, label, f"{key} lists {doc!r} twice")
                ok = False
            else:
                seen.add(doc)
        return tuple(ids) if ok else None

    def in_corpus(
        self,
        index: int,
        label: str | None,
        ids: Sequence[str],
        judgments: Sequence[tuple[str, int]] = (),
    ) -> None:
        """With a corpus given, every expected or judged id must be one of its documents."""
        if self.corpus is None:
            return
        for doc in ids:
            if doc not in self.corpus:
                message = f"expected document {doc!r} is not in the corpus {self.corpus_name}"
                self.add(index, "expected_document_ids", label, message)
        expected = set(ids)
        for doc, _ in judgments:
            if doc not in self.corpus and doc not in expected:
                message = f"judged document {doc!r} is not in the corpus {self.corpus_name}"
                self.add(index, JUDGMENTS_KEY, label, message)

    def unstorable(self, name: str, description: str, questions: Sequence[GoldenQuestion]) -> None:
        """Locate every text that ``_flaw`` refuses."""
        for key, value in (("name", name), ("description", description)):
            flaw = _flaw(value)
            if flaw:
                self.add_header(key, f"{key!r} {flaw}")
        for index, q in enumerate(questions):
            label = q.id if _flaw(q.id) is None else None
            for key, text in _texts(q):
                flaw = _flaw(text)
                if flaw:
                    self.add(index, key, label, f"{key!r} {flaw}: {ascii(text)[:80]}")

    def optional_text(
        self, index: int, label: str | None, data: dict[str, Any], key: str
    ) -> str | None:
        value = data.get(key)
        if value is None or (isinstance(value, str) and value.strip()):
            return value
        got = "an empty string" if isinstance(value, str) else kind(value)
        self.add(index, key, label, f"{key!r} must be non-empty text or absent, got {got}")
        return None


def check_raw_set(
    raw: RawSet, *, corpus: Set[str] | None = None, corpus_name: str = ""
) -> tuple[GoldenQuestionSet | None, list[Problem]]:
    """Build the set from ``raw``; ``None`` and every problem when anything is wrong.

    With ``corpus`` (a set of document ids) expected ids missing from it are problems too.
    """
    checker = _Checker(raw, corpus, corpus_name)
    name, description = checker.header()
    questions = checker.questions()
    if checker.unjudged:
        checker.problems.append(Problem(raw.source, None, unjudged_message(checker.unjudged)))
    if not checker.problems:
        compact = CompactQuestions.of(questions)
        gists = compact.answer_gists()
        plain = not any(map(_flaw, [name, description, *gists])) and not compact.holds("\x00")
        if plain:
            try:  # the fingerprint encodes every scored text: lone surrogates fail here
                qs = GoldenQuestionSet(
                    name, compact, description, raw.source,
                    relevance_level=checker.level, grade_scale=checker.scale,
                )  # fmt: skip
                return qs, []
            except UnicodeEncodeError:
                pass
        checker.unstorable(name, description, compact)
    return None, sorted(checker.problems, key=lambda p: p.line or 0)


def build_set(raw: RawSet) -> GoldenQuestionSet:
    """The set, or ``QuestionSetProblems`` listing every problem (nothing half-loaded)."""
    qs, problems = check_raw_set(raw)
    if qs is None:
        raise QuestionSetProblems(raw.source, problems)
    return qs
