"""Metrics: hand-worked figures, and a cross-check against pytrec_eval via ir-measures."""

from __future__ import annotations

import gzip
import json
import math
import random
import re
from pathlib import Path

import pytest
import pytrec_eval

from retrieval_eval.questions.model import GoldenQuestion
from retrieval_eval.records.failures import FailureKind, RetrievalFailure
from retrieval_eval.records.outcome import UNCLASSIFIED, Form, QuestionOutcome
from retrieval_eval.retrievers.protocol import RetrievedItem
from retrieval_eval.scoring.metrics import breakdowns, rank_metrics, summarize
from retrieval_eval.scoring.protocol import score_question
from retrieval_eval.scoring.ranks import hit_rate_key

KS = (1, 3, 5, 10)


def outcome(
    qid: str,
    expected: tuple[str, ...],
    ranked: list[str],
    *,
    form: Form = Form.MATCH,
    hard_class: str | None = None,
    error: RetrievalFailure | None = None,
    ks: tuple[int, ...] = KS,
) -> QuestionOutcome:
    q = GoldenQuestion(qid, "text", form, expected, hard_class=hard_class)
    items = None if error else [RetrievedItem(d) for d in ranked]
    return score_question(q, items, ks=ks, limit=40, separator="", latency_ms=1.0, error=error)


def test_canonical_metric_names() -> None:
    metrics = summarize([outcome("q", ("a",), ["a"])], KS)
    assert set(metrics.values) == {
        "top1_hit_rate",
        "top3_hit_rate",
        "hit_rate@5",
        "hit_rate@10",
        *(f"{m}@{k}" for m in ("mrr", "recall", "binary_ndcg") for k in KS),
    }
    assert set(metrics.intervals) == {hit_rate_key(k) for k in KS}


def test_hand_worked_group() -> None:
    failure = RetrievalFailure(FailureKind.UNAVAILABLE, "connection refused")
    outcomes = [
        outcome("hit1", ("a",), ["a", "b", "c"]),  # top-1 hit, RR 1
        outcome("hit3", ("c", "z"), ["a", "b", "c"]),  # top-3 hit, RR 1/3, recall@3 1/2
        outcome("miss", ("z",), ["a", "b", "c"]),
        outcome("none-ok", (), []),  # no-answer, correctly empty: a hit
        outcome("none-bad", (), ["a"]),  # no-answer, returned something: a miss
        outcome("down", ("a",), [], error=failure),  # an error: in no rate
    ]
    m = summarize(outcomes, (1, 3))
    assert (m.count, m.errors) == (5, 1)
    assert m.values["top1_hit_rate"] == pytest.approx(2 / 5)  # hit1, none-ok
    assert m.values["top3_hit_rate"] == pytest.approx(3 / 5)  # + hit3
    # Rank metrics over the three answered questions that have expected documents.
    assert m.values["mrr@3"] == pytest.approx((1 + 1 / 3 + 0) / 3)
    assert m.values["recall@3"] == pytest.approx((1 + 0.5 + 0) / 3)
    ndcg_hit3 = (1 / math.log2(4)) / (1 + 1 / math.log2(3))
    assert m.values["binary_ndcg@3"] == pytest.approx((1 + ndcg_hit3 + 0) / 3)
    assert m.no_answer is not None
    assert (m.no_answer.count, m.no_answer.correctly_empty, m.no_answer.returned_something) == (
        2,
        1,
        1,
    )
    top1 = m.intervals["top1_hit_rate"]
    assert (top1.successes, top1.count) == (2, 5)
    assert top1.low < top1.rate < top1.high


def test_only_no_answer_questions_have_hit_rates_but_no_rank_metrics() -> None:
    m = summarize([outcome("n", (), [])], (1, 3))
    assert m.values == {"top1_hit_rate": 1.0, "top3_hit_rate": 1.0}
    assert m.no_answer is not None and m.no_answer.correctly_empty == 1


def test_all_errors_leave_no_rates() -> None:
    failure = RetrievalFailure(FailureKind.TIMEOUT, "deadline exceeded")
    m = summarize([outcome("x", ("a",), [], error=failure)], (1, 3))
    assert (m.count, m.errors, dict(m.values), m.no_answer) == (0, 1, {}, None)


def test_breakdowns_by_form_and_hard_class() -> None:
    outcomes = [
        outcome("m1", ("a",), ["a"], form=Form.MATCH, hard_class="near-duplicate"),
        outcome("m2", ("a",), ["b"], form=Form.MATCH),
        outcome("g1", ("a",), ["b", "a"], form=Form.GAP, hard_class="near-duplicate"),
    ]
    by_form, by_class = breakdowns(outcomes, (1, 3))
    assert list(by_form) == ["GAP", "MATCH"]
    assert by_form["MATCH"].count == 2
    assert by_form["MATCH"].values["top1_hit_rate"] == 0.5
    assert by_form["GAP"].values["top3_hit_rate"] == 1.0
    assert list(by_class) == ["near-duplicate", UNCLASSIFIED]
    assert by_class["near-duplicate"].values["top1_hit_rate"] == 0.5
    assert by_class[UNCLASSIFIED].count == 1


def _trec_eval(
    questions: dict[str, tuple[set[str], list[str]]], measures: set[str], depth: int | None = None
) -> dict[str, dict[str, float]]:
    """pytrec_eval's per-query figures; ``depth`` truncates every ranking first."""
    qrels = {qid: dict.fromkeys(rel, 1) for qid, (rel, _) in questions.items()}
    run = {
        qid: {doc: float(len(ranked) - rank) for rank, doc in enumerate(ranked[:depth])}
        for qid, (_, ranked) in questions.items()
    }
    return pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)


def _cross_check(
    questions: dict[str, tuple[set[str], list[str]]],
    ks: tuple[int, ...],
    raw: dict[str, tuple[tuple[str, ...], list[str]]] | None = None,
) -> None:
    """Our per-question and aggregate figures equal pytrec_eval's on the same rankings.

    trec_eval has no cutoff for reciprocal rank, so RR@k is its ``recip_rank`` over the
    ranking truncated to k (ir-measures' RR@k through pytrec_eval ignores the cutoff).
    A query with an empty ranking is absent from trec_eval's output: all its values are 0.
    """
    cut = ",".join(map(str, ks))
    theirs = _trec_eval(questions, {f"ndcg_cut.{cut}", f"recall.{cut}", f"success.{cut}"})
    rr = {k: _trec_eval(questions, {"recip_rank"}, depth=k) for k in ks}
    if raw is None:
        outcomes = [
            outcome(qid, tuple(sorted(rel)), ranked, ks=ks)
            for qid, (rel, ranked) in questions.items()
        ]
    else:  # scored from chunk ids with "#", as labelled (duplicate labels included)
        outcomes = [
            score_question(
                GoldenQuestion(qid, "text", Form.MATCH, labels),
                [RetrievedItem(c) for c in chunks],
                ks=ks, limit=80, separator="#", latency_ms=1.0, error=None,
            )
            for qid, (labels, chunks) in raw.items()
        ]  # fmt: skip
        for o in outcomes:
            assert o.ranked_document_ids == tuple(questions[o.question_id][1])
    expected_means: dict[str, float] = {}
    for o in outcomes:
        mine = rank_metrics(o.ranked_document_ids, o.expected_document_ids, ks)
        figures = theirs.get(o.question_id, {})
        for k in ks:
            reference = {
                f"binary_ndcg@{k}": figures.get(f"ndcg_cut_{k}", 0.0),
                f"recall@{k}": figures.get(f"recall_{k}", 0.0),
                f"mrr@{k}": rr[k].get(o.question_id, {}).get("recip_rank", 0.0),
            }
            assert o.hits[k] == bool(figures.get(f"success_{k}", 0.0))
            for name, value in reference.items():
                assert mine[name] == pytest.approx(value, abs=1e-9), (o.question_id, name)
                expected_means[name] = expected_means.get(name, 0.0) + value / len(outcomes)
    aggregate = summarize(outcomes, ks)
    for name, mean in expected_means.items():
        assert aggregate.values[name] == pytest.approx(mean, abs=1e-9)
    assert len(expected_means) == 3 * len(ks)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_metrics_match_pytrec_eval_on_random_rankings(seed: int) -> None:
    rng = random.Random(seed)
    docs = [f"d{i}" for i in range(40)]
    questions = {}
    for i in range(200):
        relevant = set(rng.sample(docs, rng.randint(1, 6)))
        ranked = rng.sample(docs, rng.randint(0, 25))
        questions[f"q{i}"] = (relevant, ranked)
    _cross_check(questions, (1, 3, 5, 10, 20))


@pytest.mark.parametrize("seed", [0, 1])
def test_metrics_match_pytrec_eval_on_chunked_rankings_with_duplicates(seed: int) -> None:
    """Chunk ids mapped at the last "#" and collapsed to first occurrences (done here the
    plain way, for pytrec_eval), labels listed twice, and label lists long enough (over
    eight) to take the one-pass lookup."""
    rng = random.Random(seed)
    docs = [f"d{i}" for i in range(40)] + ["x#y"]  # a document id holding the separator
    questions, raw = {}, {}
    for i in range(200):
        labels = rng.sample(docs, rng.choice([1, 2, 5, 12]))
        labels += labels[: rng.randint(0, 2)]  # a label listed twice counts once
        chunks = [f"{rng.choice(docs)}#{rng.randint(0, 3)}" for _ in range(rng.randint(0, 60))]
        collapsed = list(dict.fromkeys(c[: c.rindex("#")] for c in chunks))
        questions[f"q{i}"] = (set(labels), collapsed)
        raw[f"q{i}"] = (tuple(labels), chunks)
    assert any(len(set(ranked)) < len(raw[q][1]) for q, (_, ranked) in questions.items())
    _cross_check(questions, (1, 3, 5, 10, 20), raw)


def _tokens(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def test_metrics_match_pytrec_eval_on_a_real_bm25_ranking(scifact_dir: Path) -> None:
    rank_bm25 = pytest.importorskip("rank_bm25")
    with gzip.open(scifact_dir / "corpus.jsonl.gz", "rt", encoding="utf-8") as f:
        corpus = [json.loads(line) for line in f]
    with gzip.open(scifact_dir / "queries.jsonl.gz", "rt", encoding="utf-8") as f:
        queries = {q["_id"]: q["text"] for q in map(json.loads, f)}
    qrels: dict[str, set[str]] = {}
    for line in (scifact_dir / "qrels" / "test.tsv").read_text().splitlines()[1:]:
        qid, doc, score = line.split("\t")
        if int(score) > 0:
            qrels.setdefault(qid, set()).add(doc)
    chosen = sorted(qrels)[:40]
    # A slice of the corpus that holds every relevant document keeps the test quick.
    wanted = set().union(*(qrels[qid] for qid in chosen))
    corpus = [d for n, d in enumerate(corpus) if n < 1500 or d["_id"] in wanted]
    index = rank_bm25.BM25Okapi([_tokens(d["title"] + " " + d["text"]) for d in corpus])
    ids = [d["_id"] for d in corpus]
    questions = {}
    for qid in chosen:
        scores = index.get_scores(_tokens(queries[qid]))
        best = sorted(range(len(ids)), key=lambda i: -scores[i])[:20]
        questions[qid] = (qrels[qid], [ids[i] for i in best])
    assert sum(bool(rel & set(ranked[:10])) for rel, ranked in questions.values()) >= 20
    _cross_check(questions, (1, 3, 5, 10))


def test_duplicate_labels_count_once_in_recall() -> None:
    values = rank_metrics(["a", "b"], ["a", "a", "c"], (1, 3))
    assert values["recall@3"] == 0.5
    assert values["binary_ndcg@1"] == 1.0
