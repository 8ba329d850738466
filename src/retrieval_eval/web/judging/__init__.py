"""The judging page's data and saves: set files registered when the viewer starts.

Only files registered at start-up (``reval sets judge``, ``reval ui --judge``) can be
read or written, each by a short key; a page never names a path. A save is one
question's judgement, merged into the newest file under its lock (``labelling.judge``),
so two tabs saving at once lose nothing; the answer says when someone else judged the
same question after the page loaded it.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from retrieval_eval.corpus.digest import document_digest
from retrieval_eval.errors import InputError, UnknownNameError
from retrieval_eval.labelling.judge_name import default_judge
from retrieval_eval.questions.judgments import (
    JUDGMENTS_KEY,
    SCALE_KEY,
    header_level,
    read_grade,
)
from retrieval_eval.questions.labelling import LABELLING_KEY, POOL_KEY, JudgementState
from retrieval_eval.records.outcome import Form
from retrieval_eval.web.judging.advice import model_advice

if TYPE_CHECKING:
    from retrieval_eval.labelling.judge import Judgement, SaveResult
    from retrieval_eval.questions.corpus import CorpusDocument

# The set-file and corpus readers (YAML round-tripping) load with the first judging
# request: every ``reval ui`` has a judging desk, few use it, and they are a noticeable
# share of the viewer's start-up.


@dataclass
class JudgedSet:
    path: Path
    corpus: Path
    _documents: dict[str, CorpusDocument] | None = None
    #: Question ids shown before the others (e.g. those whose hit flipped between runs).
    first: tuple[str, ...] = ()

    def documents(self) -> dict[str, CorpusDocument]:
        # see above: the readers load with the first judging request
        from retrieval_eval.questions.corpus import read_corpus

        if self._documents is None:
            self._documents = {d.id: d for d in read_corpus(self.corpus)}
        return self._documents


def shown_path(path: Path) -> str:
    """The set file as the person who started the viewer names it: relative to the working
    directory when it lies under it (``draft.yaml``, not a long absolute path)."""
    with contextlib.suppress(ValueError):
        return str(path.relative_to(Path.cwd()))
    return str(path)


@dataclass
class JudgingDesk:
    """The set files a viewer may judge, by key (the file name without suffix)."""

    judge: str = field(default_factory=default_judge)
    sets: dict[str, JudgedSet] = field(default_factory=dict)

    def add(self, path: Path, corpus: Path, first: tuple[str, ...] = ()) -> str:
        # see above: the readers load with the first judging request
        from retrieval_eval.labelling.document import load_document

        load_document(path)  # readable now, or a clear error before the viewer starts
        key = path.name.split(".")[0] or "set"
        while key in self.sets:
            key += "-"
        self.sets[key] = JudgedSet(path.resolve(), corpus.resolve(), first=first)
        return key

    def get(self, key: str) -> JudgedSet:
        if key not in self.sets:
            raise UnknownNameError("set to judge", key, list(self.sets))
        return self.sets[key]

    def page_data(self, key: str) -> dict[str, Any]:
        """Everything the page shows: questions, candidates with document text, pool."""
        # see above: the readers load with the first judging request
        from retrieval_eval.labelling.document import load_document

        judged = self.get(key)
        document, version = load_document(judged.path)
        documents = judged.documents()
        pool = document.get(POOL_KEY) or {}
        first = set(judged.first)
        return {
            "key": key,
            "name": str(document.get("name") or key),
            "file": shown_path(judged.path),
            "version": version,
            "judge": self.judge,
            "level": header_level(document),
            "scale": _scale(document.get(SCALE_KEY)),
            "pool": {
                "depth": pool.get("depth"),
                "retrievers": [str(r) for r in pool.get("retrievers") or []],
            },
            "questions": [
                _question(q, documents, header_level(document))
                for q in sorted(document["questions"], key=lambda q: str(q["id"]) not in first)
            ],
        }

    def save(self, key: str, question_id: str, body: Any) -> SaveResult:
        # see above: the readers load with the first judging request
        from retrieval_eval.labelling.judge import save_judgement

        judged = self.get(key)
        judgement = _judgement(question_id, body)
        judgement = replace(judgement, digests=ShownDigests(judged.documents()))
        return save_judgement(judged.path, judgement, seen_history=_seen(body))


def _question(question: Any, documents: dict[str, CorpusDocument], level: int) -> dict[str, Any]:
    labelling = question.get(LABELLING_KEY) or {}
    suggestion = labelling.get("suggestion") or {}
    advice = model_advice(labelling.get("history") or [], level)
    candidates = []
    for candidate in labelling.get("candidates") or []:
        doc = documents.get(str(candidate["document_id"]))
        candidates.append(
            {
                "id": str(candidate["document_id"]),
                "title": str(candidate.get("title") or (doc.title if doc else "")),
                "snippet": str(candidate.get("snippet") or ""),
                "text": doc.text if doc is not None else "",
                "found_by": {str(k): int(v) for k, v in (candidate.get("found_by") or {}).items()},
                "relevant": candidate.get("relevant"),
                "source": candidate.get("source"),
                "model": advice.get(str(candidate["document_id"])),
            }
        )
    return {
        "id": str(question["id"]),
        "question": str(question["question"]),
        "form": str(question.get("form") or Form.UNLABELLED.value).upper(),
        "hard_class": question.get("hard_class"),
        "answer_gist": question.get("answer_gist"),
        "state": str(labelling.get("state") or JudgementState.JUDGED.value),
        "nothing_answers": bool(labelling.get("nothing_answers")),
        "judged_by": labelling.get("judged_by"),
        "suggestion": {
            "form": suggestion.get("form"),
            "overlap": float(suggestion["overlap"]) if "overlap" in suggestion else None,
        },
        "history": len(labelling.get("history") or []),
        "grades": {
            str(doc): grade
            for doc, value in (question.get(JUDGMENTS_KEY) or {}).items()
            if (grade := read_grade(value)) is not None
        },
        "candidates": candidates,
    }


def _judgement(question_id: str, body: Any) -> Judgement:
    # see above: the readers load with the first judging request
    from retrieval_eval.labelling.judge import Judgement

    if not isinstance(body, dict):
        raise InputError("a judgement is a JSON object")
    ids = {}
    for key in ("relevant", "not_relevant"):
        value = body.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise InputError(f"{key!r} must be a list of document ids")
        ids[key] = frozenset(value)
    grades = body.get("grades") or {}
    if not isinstance(grades, dict) or not all(
        isinstance(doc, str) and read_grade(grade) == grade and grade >= 1
        for doc, grade in grades.items()
    ):
        raise InputError("'grades' must map document ids to integer grades of at least 1")
    form_text = body.get("form")
    try:
        form = Form(str(form_text).upper()) if form_text else None
    except ValueError:
        raise InputError(f"unknown form {form_text!r}") from None
    hard_class = body.get("hard_class")
    if hard_class is not None and not isinstance(hard_class, str):
        raise InputError("'hard_class' must be text")
    judge = body.get("judge")
    if not isinstance(judge, str) or not judge.strip():
        raise InputError("a judgement needs a judge name")
    for key, text in (("judge", judge), ("hard_class", hard_class or "")):
        if _CONTROL.search(text.strip()):
            raise InputError(f"{key!r} holds a control character (a line break, NUL, ...)")
    return Judgement(
        question_id,
        ids["relevant"],
        ids["not_relevant"],
        nothing_answers=body.get("nothing_answers") is True,
        complete=body.get("complete") is True,
        form=form,
        hard_class=hard_class.strip() if isinstance(hard_class, str) else None,
        judge=judge.strip(),
        grades=grades,
    )


class ShownDigests(Mapping[str, str]):
    """Document id -> digest of its text as the page shows it (from the corpus), worked
    out only for the documents a judgement decides."""

    def __init__(self, documents: Mapping[str, CorpusDocument]) -> None:
        self.documents = documents

    def __getitem__(self, doc_id: str) -> str:
        doc = self.documents[doc_id]
        return document_digest(doc.title, doc.text)

    def __iter__(self) -> Iterator[str]:
        return iter(self.documents)

    def __len__(self) -> int:
        return len(self.documents)


def _scale(value: Any) -> list[int] | None:
    """The set's declared grade scale as the page offers it, when it is well formed."""
    if isinstance(value, list) and len(value) == 2:
        low, high = map(read_grade, value)
        if low is not None and high is not None and low == value[0] and low <= high == value[1]:
            return [low, high]
    return None


#: Control characters have no place in a one-line name written into the set file.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _seen(body: Any) -> int | None:
    seen = body.get("seen_history") if isinstance(body, dict) else None
    return seen if isinstance(seen, int) and not isinstance(seen, bool) else None
