"""Drafting a set by pooling, and extending a draft when the retrievers or corpus change.

``draft_set`` turns questions (a text file, one per line, or an existing set) into a set
file whose every question carries its pooled candidates and the state ``unjudged`` (see
``questions.labelling`` for the format). ``extend_draft`` pools again with more
retrievers (or over a changed corpus) and adds only the documents never seen before:
every earlier decision stays, and a question goes back to ``needs-review`` only when it
gained a candidate without a decision. Each candidate found in the corpus records the
digest of its text (``corpus.digest``), which its judgement then records as the label's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from retrieval_eval.corpus.digest import document_digest
from retrieval_eval.errors import InputError
from retrieval_eval.evaluation.workers import Progress
from retrieval_eval.labelling.document import (
    load_document,
    require_yaml,
    trailing_comments_kept,
    update_document,
    write_document,
)
from retrieval_eval.labelling.pool import Pool, PoolOptions, pool_questions
from retrieval_eval.labelling.snippet import best_passage
from retrieval_eval.questions.corpus import CorpusDocument, read_corpus
from retrieval_eval.questions.formats import FORMAT_VERSION, HEADER_KEY, set_format, stem_name
from retrieval_eval.questions.judgments import JUDGMENTS_KEY, header_level, read_grade
from retrieval_eval.questions.labelling import LABELLING_KEY, POOL_KEY, JudgementState
from retrieval_eval.questions.loading import load_question_set
from retrieval_eval.records.outcome import Form

#: Overlap of a question with its candidates -> (suggested form, overlap figure).
Suggester = Callable[[str, Sequence[CorpusDocument]], tuple[Form, float]]


@dataclass(frozen=True, slots=True)
class DraftQuestion:
    id: str
    question: str
    hard_class: str | None = None
    answer_gist: str | None = None
    #: Labels the source set already had (kept as relevant candidates).
    expected: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class DraftSummary:
    path: Path
    questions: int
    candidates: int
    #: Questions whose state is not ``judged`` (all of them for a new draft).
    to_review: int
    new_candidates: int = 0


def read_draft_questions(source: Path, *, blind: bool = False) -> list[DraftQuestion]:
    """Questions from a set file (its ids, classes and labels kept; ``blind``: its labels
    and answer gists left out, so a second judge decides every candidate unprompted) or a
    text file (one question per line, blank lines and ``#`` comments skipped; ids
    ``q001``...)."""
    if set_format(source) is not None:
        qs = load_question_set(source)
        if blind:
            return [DraftQuestion(q.id, q.question, q.hard_class) for q in qs.questions]
        return [
            DraftQuestion(q.id, q.question, q.hard_class, q.answer_gist, q.expected_document_ids)
            for q in qs.questions
        ]
    if blind:
        raise InputError(f"{source}: --blind leaves out a set file's labels; this is no set file")
    try:
        lines = source.read_text(encoding="utf-8-sig").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{source}: cannot read questions: {e}") from e
    texts = [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]
    if not texts:
        raise InputError(f"{source}: no questions (one question per line)")
    width = max(3, len(str(len(texts))))
    return [DraftQuestion(f"q{n:0{width}d}", text) for n, text in enumerate(texts, 1)]


def draft_set(
    questions: Sequence[DraftQuestion],
    corpus: Path,
    retrievers: Sequence[str],
    out: Path,
    options: PoolOptions | None = None,
    *,
    name: str | None = None,
    suggest: Suggester | None = None,
    progress: Progress | None = None,
) -> DraftSummary:
    """Pool every question over ``retrievers`` and write the draft to ``out`` (YAML)."""
    require_yaml(out)
    options = options or PoolOptions()
    documents = {d.id: d for d in read_corpus(corpus)}
    pools = pool_questions(
        {q.id: q.question for q in questions}, retrievers, options, progress=progress
    )
    document = CommentedMap()
    document[HEADER_KEY] = FORMAT_VERSION
    document["name"] = name or stem_name(out)
    document["description"] = f"Pooled draft of {len(questions)} questions; judge before use."
    document[POOL_KEY] = _pool_header(options.depth, retrievers, corpus)
    items = CommentedSeq()
    for q in questions:
        items.append(_draft_question(q, pools[q.id], documents, suggest))
    document["questions"] = items
    write_document(document, out)
    return DraftSummary(out, len(questions), sum(len(p) for p in pools.values()), len(questions))


def _pool_header(depth: int, retrievers: Sequence[str], corpus: Path) -> CommentedMap:
    header = CommentedMap()
    header["depth"] = depth
    seq = CommentedSeq(retrievers)
    header["retrievers"] = seq
    header["corpus"] = str(corpus)
    return header


def _draft_question(
    q: DraftQuestion,
    pool: Pool,
    documents: Mapping[str, CorpusDocument],
    suggest: Suggester | None,
) -> CommentedMap:
    item = CommentedMap()
    item["id"] = q.id
    item["question"] = q.question
    item["form"] = Form.UNLABELLED.value
    expected = CommentedSeq(q.expected)
    expected.fa.set_flow_style()
    item["expected_document_ids"] = expected
    if q.hard_class is not None:
        item["hard_class"] = q.hard_class
    if q.answer_gist is not None:
        item["answer_gist"] = q.answer_gist
    labelling = CommentedMap()
    labelling["state"] = JudgementState.UNJUDGED.value
    labelling["nothing_answers"] = False
    if suggest is not None:
        form, overlap = suggest(q.question, [documents[d] for d in pool if d in documents])
        labelling["suggestion"] = _flow({"form": form.value, "overlap": round(overlap, 3)})
    candidates = CommentedSeq()
    for doc_id, found_by in pool.items():
        candidates.append(_candidate(q.question, doc_id, found_by, documents, None))
    for doc_id in q.expected:  # the source set's labels, never dropped
        if doc_id not in pool:
            candidates.append(_candidate(q.question, doc_id, {}, documents, True))
        else:
            candidates[list(pool).index(doc_id)]["relevant"] = True
    labelling["candidates"] = candidates
    labelling["history"] = CommentedSeq()
    item[LABELLING_KEY] = labelling
    return item


def _flow(values: Mapping[str, Any]) -> CommentedMap:
    mapping = CommentedMap(values)
    mapping.fa.set_flow_style()
    return mapping


def _candidate(
    question: str,
    doc_id: str,
    found_by: Mapping[str, int],
    documents: Mapping[str, CorpusDocument],
    relevant: bool | None,
) -> CommentedMap:
    doc = documents.get(doc_id)
    candidate = CommentedMap()
    candidate["document_id"] = doc_id
    candidate["title"] = doc.title if doc is not None else ""
    candidate["snippet"] = best_passage(question, doc.text) if doc is not None else ""
    candidate["found_by"] = _flow(found_by)
    candidate["relevant"] = relevant
    if doc is not None:  # the text the judge will be shown: recorded with the judgement
        candidate["document_digest"] = document_digest(doc.title, doc.text)
    return candidate


def extend_draft(
    path: Path,
    corpus: Path,
    retrievers: Sequence[str],
    options: PoolOptions | None = None,
    *,
    progress: Progress | None = None,
) -> DraftSummary:
    """Pool ``path``'s questions over ``retrievers`` and add the candidates never seen.

    The depth is the set's pool depth unless ``options`` gives one. Earlier decisions,
    labels and history are kept; questions that gain a candidate become ``needs-review``.
    """
    document, _version = load_document(path)
    header = document.get(POOL_KEY) or {}
    depth = options.depth if options is not None else int(header.get("depth", 10))
    base = options or PoolOptions()
    pool_options = PoolOptions(
        depth, base.overfetch, base.concurrency, base.timeout_s, base.config_path, base.token
    )
    texts = {str(q["id"]): str(q["question"]) for q in document["questions"]}
    documents = {d.id: d for d in read_corpus(corpus)}
    pools = pool_questions(texts, retrievers, pool_options, progress=progress)

    def change(current: Any) -> tuple[int, int, int]:
        return merge_pools(current, pools, documents, retrievers, pool_options.depth, corpus)

    (added, to_review, total), _ = update_document(path, change)
    return DraftSummary(path, len(texts), total, to_review, added)


def merge_pools(
    document: Any,
    pools: Mapping[str, Pool],
    documents: Mapping[str, CorpusDocument],
    retrievers: Sequence[str],
    depth: int,
    corpus: Path,
) -> tuple[int, int, int]:
    header = document.get(POOL_KEY)
    if header is None:
        header = document[POOL_KEY] = _pool_header(depth, [], corpus)
    pooled = header.setdefault("retrievers", CommentedSeq())
    pooled.extend(r for r in retrievers if r not in pooled)
    header["depth"] = max(int(header.get("depth", depth)), depth)
    added = to_review = total = 0
    level = header_level(document)
    for question in document["questions"]:
        with trailing_comments_kept(question):
            counts = _extend_question(question, pools, documents, level)
        added += counts[0]
        total += counts[1]
        to_review += question[LABELLING_KEY]["state"] != JudgementState.JUDGED.value
    return added, to_review, total


def _extend_question(
    question: Any, pools: Mapping[str, Pool], documents: Mapping[str, CorpusDocument], level: int
) -> tuple[int, int]:
    """Add one question's unseen candidates; (added, candidates now)."""
    added = 0
    labelling = question.get(LABELLING_KEY)
    if labelling is None:
        labelling = question[LABELLING_KEY] = _adopted(question, level)
    candidates = labelling.setdefault("candidates", CommentedSeq())
    by_id = {c["document_id"]: c for c in candidates}
    for doc_id, found_by in pools.get(str(question["id"]), {}).items():
        if doc_id in by_id:
            by_id[doc_id].setdefault("found_by", _flow({})).update(found_by)
            continue
        candidates.append(_candidate(str(question["question"]), doc_id, found_by, documents, None))
        added += 1
        labelling["state"] = _state_after_extension(labelling["state"])
    return added, len(candidates)


def _state_after_extension(state: str) -> str:
    if state == JudgementState.UNJUDGED.value:
        return state
    return JudgementState.NEEDS_REVIEW.value


def _adopted(question: Any, level: int) -> CommentedMap:
    """A hand-written question entering the pool: its labels (listed ids, and judged ones
    graded ``level`` or more) become decided candidates."""
    labelling = CommentedMap()
    labelling["state"] = JudgementState.JUDGED.value
    expected = [str(d) for d in question.get("expected_document_ids") or []]
    graded = question.get(JUDGMENTS_KEY) or {}
    expected += [str(d) for d, g in graded.items() if (read_grade(g) or 0) >= level
                 and str(d) not in expected]  # fmt: skip
    labelling["nothing_answers"] = not expected
    candidates = CommentedSeq()
    for doc_id in expected:
        candidates.append(_candidate(str(question["question"]), doc_id, {}, {}, True))
    labelling["candidates"] = candidates
    labelling["history"] = CommentedSeq()
    return labelling
