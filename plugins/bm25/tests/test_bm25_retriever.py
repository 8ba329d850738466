"""Searching: query-syntax characters, stopword-only questions, chunks, threads, Describe."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from reval_bm25.index import build_index
from reval_bm25.retriever import open_index

from retrieval_eval import Ranking, RetrievedItem
from retrieval_eval.questions.model import GoldenQuestion
from retrieval_eval.records.outcome import Form
from retrieval_eval.scoring.protocol import score_question

from .corpora import DOCS, write_jsonl


@pytest.mark.parametrize(
    "question",
    [
        'vitamin: "C" (lack) -scurvy',
        "title:scurvy AND NOT rickets",
        'scurvy^2 [vitamin TO c] {c} ~ * ? \\ / "unbalanced',
        "scurvy)))",
    ],
)
def test_query_syntax_characters_are_plain_text(index_dir: Path, question: str) -> None:
    items = open_index(index_dir).retrieve(question, 3)
    assert items and items[0].document_id == "scurvy"


def test_all_stopword_and_empty_questions_return_nothing(index_dir: Path) -> None:
    retriever = open_index(index_dir)
    assert len(retriever.retrieve("the and of is it", 10)) == 0
    assert len(retriever.retrieve("-- : () ??", 10)) == 0
    assert retriever.tokens("Deficiencies of the vitamins") == ["defici", "vitamin"]
    with pytest.raises(ValueError, match="limit"):
        retriever.retrieve("scurvy", 0)


def test_scores_descend_and_limit_is_respected(index_dir: Path) -> None:
    items = open_index(index_dir).retrieve("vitamin deficiency lack", 2)
    assert len(items) == 2
    assert items[0].score is not None and items[1].score is not None
    assert items[0].score >= items[1].score


def test_concurrent_threads_get_the_sequential_answers(index_dir: Path) -> None:
    retriever = open_index(index_dir)
    questions = [f"{d['title']} {d['text']}" for d in DOCS] * 40
    expected = [retriever.retrieve(q, 5) for q in questions]
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda q: retriever.retrieve(q, 5), questions))
    assert got == expected


def test_describe_identifies_what_is_measured(index_dir: Path) -> None:
    description = open_index(index_dir).describe()
    assert description.identifier == "bm25"
    assert description.chunk_separator == ""
    assert description.chunking == ""
    assert len(description.corpus_revision) == 16
    assert description.metadata["analyzer"] == (
        "simple,remove_long=40,lowercase,stopwords=english,stemmer=english"
    )
    assert description.metadata["tantivy_version"].startswith("0.27")
    assert "tantivy-0.27" in description.pipeline


def test_long_document_comes_back_once_in_the_distinct_top3(tmp_path: Path) -> None:
    """Many chunks of one document match; the scoring protocol collapses them to one."""
    long_text = " ".join(["quasar emission spectrum redshift"] * 60)
    docs = [
        {"_id": "long#doc", "title": "Quasars", "text": long_text},
        {"_id": "short-a", "title": "Spectra", "text": "an emission spectrum of a star"},
        {"_id": "short-b", "title": "Redshift", "text": "redshift measures recession"},
        {"_id": "other", "title": "Bread", "text": "flour water salt yeast"},
    ]
    out = tmp_path / "index"
    info = build_index(write_jsonl(tmp_path / "c.jsonl", docs), out, chunk_words=50)
    assert (info.documents, info.chunks) == (4, 5 + 3)
    retriever = open_index(out)
    description = retriever.describe()
    assert (description.chunk_separator, description.chunking) == ("#", "words=50,overlap=0")
    items = retriever.retrieve("quasar emission spectrum redshift", 12)
    raw = [i.document_id for i in items]
    assert len(raw) == len(set(raw)) == 5 + 2
    assert all(r.startswith("long#doc#") for r in raw[:3])  # chunks crowd the raw top 3
    question = GoldenQuestion("q1", "quasars", Form.MATCH, ("short-b",))
    outcome = score_question(
        question, items, ks=(1, 3), limit=12, separator="#", latency_ms=None, error=None
    )
    assert outcome.ranked_document_ids[0] == "long#doc"
    assert outcome.ranked_document_ids.count("long#doc") == 1
    assert set(outcome.ranked_document_ids[:3]) == {"long#doc", "short-a", "short-b"}
    assert outcome.hits == {1: False, 3: True}


def test_answers_are_rankings_of_plain_columns(tmp_path: Path, index_dir: Path) -> None:
    """The retriever answers with the core's columnar ``Ranking`` (no record per result):
    float scores, best first, chunk ids only for a chunked index; the records it yields
    on demand are ordinary ones."""
    ranking = open_index(index_dir).retrieve("vitamin deficiency", 5)
    assert isinstance(ranking, Ranking) and 0 < len(ranking) <= 5
    assert all(type(s) is float for s in ranking.scores)
    assert list(ranking.scores) == sorted(ranking.scores, reverse=True)
    assert ranking.chunk_ids == ()
    assert list(ranking) == [
        RetrievedItem(d, s) for d, s in zip(ranking.document_ids, ranking.scores, strict=True)
    ]
    out = tmp_path / "chunked"
    build_index(write_jsonl(tmp_path / "c.jsonl", DOCS), out, chunk_words=3)
    (first,) = open_index(out).retrieve("thiamine", 1)
    assert first == RetrievedItem("beriberi#1", first.score, "beriberi#1")
    assert open_index(index_dir).retrieve("the of and", 3) == Ranking(())  # no token left
