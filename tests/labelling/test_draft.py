"""Drafting by pooling: the pool is each retriever's top distinct documents, the draft is a
valid set file that is refused until judged, and extending adds only unseen documents."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
import yaml
from support.labelling import CORPUS, QUESTIONS

from retrieval_eval.errors import InputError, QuestionSetError
from retrieval_eval.labelling.draft import draft_set, extend_draft, read_draft_questions
from retrieval_eval.labelling.judge import Judgement, save_judgement
from retrieval_eval.labelling.pool import PoolOptions, pool_questions
from retrieval_eval.questions.loading import load_question_set


def top_distinct(spec: str, question: str, depth: int) -> list[str]:
    """Independently of reval's pooling: ask the index, cut chunk ids, keep first seen."""
    from reval_bm25.retriever import open_index

    retriever = open_index(Path(spec.removeprefix("bm25:")))
    docs: list[str] = []
    for item in retriever.retrieve(question, 200):
        doc = item.document_id.rpartition("#")[0] or item.document_id
        if doc not in docs:
            docs.append(doc)
    return docs[:depth]


def test_pool_is_the_union_of_each_retrievers_top_distinct_documents(
    bm25_specs: tuple[str, str],
) -> None:
    pages, chunks = bm25_specs
    pools = pool_questions(dict(enumerate(QUESTIONS)), [pages, chunks], PoolOptions(depth=4))
    for index, question in enumerate(QUESTIONS):
        pool = pools[index]
        expected_by = {spec: top_distinct(spec, question, 4) for spec in (pages, chunks)}
        assert set(pool) == set(expected_by[pages]) | set(expected_by[chunks])
        for spec, docs in expected_by.items():
            for rank, doc in enumerate(docs, 1):
                assert pool[doc][spec] == rank
        best = [min(found.values()) for found in pool.values()]
        assert best == sorted(best)  # pool order: best rank first
    # the chunked index pools distinct documents, never two chunks of one page
    assert all("#" not in doc for pool in pools.values() for doc in pool)


def test_draft_is_refused_until_judged_then_loads(
    tmp_path: Path, bm25_specs: tuple[str, str], question_file: Path
) -> None:
    out = tmp_path / "draft.yaml"
    summary = draft_set(
        read_draft_questions(question_file), CORPUS, bm25_specs, out, PoolOptions(depth=3)
    )
    data = yaml.safe_load(out.read_text())
    assert data["pool"] == {"depth": 3, "retrievers": list(bm25_specs), "corpus": str(CORPUS)}
    assert [q["id"] for q in data["questions"]] == ["q001", "q002", "q003", "q004"]
    assert summary.candidates == sum(len(q["labelling"]["candidates"]) for q in data["questions"])
    first = data["questions"][0]["labelling"]["candidates"][0]
    assert first["relevant"] is None and first["snippet"] and first["title"]
    with pytest.raises(QuestionSetError) as refused:
        load_question_set(out)
    message = str(refused.value)
    assert "\n" not in message
    assert "4 questions are not judged yet (q001, q002, q003, q004)" in message

    for q in data["questions"]:
        docs = [c["document_id"] for c in q["labelling"]["candidates"]]
        save_judgement(
            out, Judgement(q["id"], frozenset(docs[:1]), frozenset(docs[1:]), judge="ana")
        )
    qs = load_question_set(out)
    assert [q.expected_document_ids for q in qs.questions] == [
        (q["labelling"]["candidates"][0]["document_id"],) for q in data["questions"]
    ]


def test_rejecting_every_candidate_is_not_nothing_answers(
    tmp_path: Path, bm25_specs: tuple[str, str], question_file: Path
) -> None:
    out = tmp_path / "draft.yaml"
    draft_set(
        read_draft_questions(question_file)[:1], CORPUS, bm25_specs, out, PoolOptions(depth=2)
    )
    docs = [
        c["document_id"]
        for c in yaml.safe_load(out.read_text())["questions"][0]["labelling"]["candidates"]
    ]
    result = save_judgement(out, Judgement("q001", not_relevant=frozenset(docs), judge="ana"))
    assert result.state == "needs-review"
    with pytest.raises(QuestionSetError, match=r"not judged yet \(q001\)"):
        load_question_set(out)
    result = save_judgement(out, Judgement("q001", nothing_answers=True, judge="ana"))
    assert result.state == "judged"
    (question,) = load_question_set(out).questions
    assert question.expected_document_ids == ()
    with pytest.raises(InputError, match="nothing answers"):
        save_judgement(out, Judgement("q001", frozenset(docs[:1]), nothing_answers=True))


def test_extend_adds_only_unseen_candidates_and_keeps_judgements(
    tmp_path: Path,
    bm25_specs: tuple[str, str],
    question_file: Path,
    serve_scripted: Callable[[Mapping[str, list[str]]], str],
) -> None:
    out = tmp_path / "draft.yaml"
    draft_set(read_draft_questions(question_file), CORPUS, bm25_specs, out, PoolOptions(depth=3))
    before = yaml.safe_load(out.read_text())["questions"]
    for q in before:  # judge everything: the first candidate answers
        docs = [c["document_id"] for c in q["labelling"]["candidates"]]
        save_judgement(
            out, Judgement(q["id"], frozenset(docs[:1]), frozenset(docs[1:]), judge="ana")
        )
    judged = yaml.safe_load(out.read_text())["questions"]
    all_docs = [line.split('"')[3] for line in CORPUS.read_text().splitlines()]
    # the new retriever brings one unseen page for q001 only, and re-finds a known one
    first = judged[0]
    seen = {c["document_id"] for c in first["labelling"]["candidates"]}
    unseen = next(d for d in all_docs if d not in seen)
    known = first["labelling"]["candidates"][1]["document_id"]
    third = serve_scripted({QUESTIONS[0]: [f"{unseen}#1", f"{unseen}#2", f"{known}#0"]})

    summary = extend_draft(out, CORPUS, [third])
    after = yaml.safe_load(out.read_text())
    assert summary.new_candidates == 1 and summary.to_review == 1
    assert after["pool"]["retrievers"] == [*bm25_specs, third]
    q1 = after["questions"][0]["labelling"]
    assert [c["document_id"] for c in q1["candidates"]][-1] == unseen
    assert q1["candidates"][-1]["relevant"] is None and q1["state"] == "needs-review"
    assert q1["candidates"][-1]["found_by"] == {third: 1}
    assert q1["candidates"][1]["found_by"][third] == 2  # known page: rank added, still judged
    for old, new in zip(judged, after["questions"], strict=True):
        old_decisions = {c["document_id"]: c["relevant"] for c in old["labelling"]["candidates"]}
        new_decisions = {c["document_id"]: c["relevant"] for c in new["labelling"]["candidates"]}
        assert {d: new_decisions[d] for d in old_decisions} == old_decisions
        assert new["labelling"]["history"] == old["labelling"]["history"]
        assert new["expected_document_ids"] == old["expected_document_ids"]
    assert [q["labelling"]["state"] for q in after["questions"][1:]] == ["judged"] * 3
    with pytest.raises(QuestionSetError, match=r"1 question is not judged yet \(q001\)"):
        load_question_set(out)


def test_draft_from_an_existing_set_keeps_its_labels(
    tmp_path: Path, bm25_specs: tuple[str, str]
) -> None:
    source = tmp_path / "faq.yaml"
    source.write_text(
        "questions:\n  - id: b2\n    question: Which release added Backblaze B2?\n"
        "    expected_document_ids: [release-3-2]\n    hard_class: near-duplicate\n"
    )
    out = tmp_path / "draft.yaml"
    draft_set(read_draft_questions(source), CORPUS, bm25_specs[:1], out, PoolOptions(depth=3))
    (q,) = yaml.safe_load(out.read_text())["questions"]
    assert q["id"] == "b2" and q["hard_class"] == "near-duplicate"
    decided = {c["document_id"]: c["relevant"] for c in q["labelling"]["candidates"]}
    assert decided["release-3-2"] is True
    assert list(decided.values()).count(None) == len(decided) - 1


def test_bad_input_names_the_culprit(tmp_path: Path, bm25_specs: tuple[str, str]) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("\n# nothing\n")
    with pytest.raises(InputError, match="no questions"):
        read_draft_questions(empty)
    with pytest.raises(InputError, match="--depth 0"):
        pool_questions({"q": "x"}, bm25_specs, PoolOptions(depth=0))
    with pytest.raises(InputError, match="YAML"):
        draft_set([], CORPUS, bm25_specs, tmp_path / "draft.json")


def test_suggested_form_is_the_lint_overlap_of_the_best_candidate(
    tmp_path: Path, bm25_specs: tuple[str, str], question_file: Path
) -> None:
    from retrieval_eval.labelling.form_suggestion import form_suggester
    from retrieval_eval.questions.corpus import read_corpus
    from retrieval_eval.questions.lint.options import DEFAULT_MATCH_CUTOFF
    from retrieval_eval.questions.lint.overlap import OverlapMeter

    out = tmp_path / "draft.yaml"
    draft_set(
        read_draft_questions(question_file),
        CORPUS,
        bm25_specs,
        out,
        PoolOptions(depth=3),
        suggest=form_suggester(CORPUS),
    )
    texts = {d.id: f"{d.title}\n{d.text}" for d in read_corpus(CORPUS)}
    meter = OverlapMeter.from_texts(texts.values())
    for q in yaml.safe_load(out.read_text())["questions"]:
        docs = [texts[c["document_id"]] for c in q["labelling"]["candidates"]]
        overlap = meter.overlap(q["question"], docs)
        suggestion = q["labelling"]["suggestion"]
        assert suggestion["overlap"] == pytest.approx(overlap, abs=5e-4)
        assert suggestion["form"] == ("MATCH" if overlap >= DEFAULT_MATCH_CUTOFF else "GAP")
        assert 0 < overlap <= 1
