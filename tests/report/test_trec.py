from __future__ import annotations

import random

import ir_measures
import pytest
from ir_measures import RR, P, R, Success, nDCG
from support.factory import outcome, run_of

from retrieval_eval.errors import InputError
from retrieval_eval.questions.model import GoldenQuestion
from retrieval_eval.records.outcome import Form, QuestionOutcome
from retrieval_eval.report.run.trec import qrels_lines, retriever_scores, run_lines, trec_export
from retrieval_eval.retrievers.protocol import RetrievedItem
from retrieval_eval.scoring.metrics import summarize
from retrieval_eval.scoring.protocol import score_question


def test_lines_follow_the_trec_formats(current_run):
    lines = list(run_lines(current_run))
    assert lines[:2] == ["q1 Q0 d1 1 2 r-current", "q1 Q0 d2 2 1 r-current"]
    assert not any(line.startswith("q6 ") for line in lines)  # errored: never answered
    assert list(qrels_lines(current_run))[:2] == ["q1 0 d1 1", "q2 0 d5 1"]
    assert not any(line.startswith(("q4 ", "q5 ")) for line in qrels_lines(current_run))


def test_no_answer_and_errored_questions_leave_both_files():
    run = run_of([outcome("q1", ["d1"], ["d1", "d2"]), outcome("q2", [], ["d3"]),
                  outcome("q3", ["d3"], error="timeout")])  # fmt: skip
    exported = trec_export(run)
    assert {line.split()[0] for line in exported.run_lines} == {"q1"}
    assert {line.split()[0] for line in exported.qrels_lines} == {"q1"}
    assert (exported.no_answer_left_out, exported.errored) == (("q2",), ("q3",))
    kept = trec_export(run, keep_no_answer=True)
    assert {line.split()[0] for line in kept.run_lines} == {"q1", "q2"}
    assert kept.no_answer_left_out == ()


def scored(qid: str, expected: list[str], items: list[RetrievedItem]) -> QuestionOutcome:
    q = GoldenQuestion(qid, f"question {qid}?", Form.MATCH, tuple(expected))
    return score_question(q, items, ks=(1, 3, 10), limit=40, separator="#", latency_ms=1.0,
                          error=None)  # fmt: skip


def test_the_retrievers_scores_of_each_documents_best_chunk_are_exported():
    q = scored("q1", ["b"], [RetrievedItem("a#1", 9.5), RetrievedItem("a#2", 9.0),
                             RetrievedItem("b#1", 4.25)])  # fmt: skip
    assert retriever_scores(q, "#") == [9.5, 4.25]
    tie = scored("q2", ["b"], [RetrievedItem("a", 2.0), RetrievedItem("b", 2.0)])
    assert retriever_scores(tie, "#") is None  # a re-sorting tool could swap them
    missing = scored("q3", ["b"], [RetrievedItem("a", 2.0), RetrievedItem("b")])
    assert retriever_scores(missing, "#") is None
    run = run_of([q, tie])
    exported = trec_export(run, "bm25")
    assert exported.run_lines[:2] == ("q1 Q0 a 1 9.5 bm25", "q1 Q0 b 2 4.25 bm25")
    assert exported.run_lines[2:] == ("q2 Q0 a 1 2 bm25", "q2 Q0 b 2 1 bm25")
    assert exported.rank_scored == 1


def test_ir_measures_gets_revals_mrr_ndcg_recall_and_hit_rates_back(tmp_path):
    rng = random.Random(5)
    outcomes = []
    for i in range(60):
        expected = rng.sample([f"d{j}" for j in range(30)], rng.randint(0, 3))
        ids = rng.sample([f"d{j}" for j in range(30)], 12)
        items = [RetrievedItem(f"{d}#c{rng.randint(0, 2)}", 100.0 - r + rng.random() / 2)
                 for r, d in enumerate(ids)]  # fmt: skip
        outcomes.append(scored(f"q{i}", expected, items))
    run = run_of(outcomes)
    exported = trec_export(run, "bm25")
    assert exported.rank_scored == 0 and exported.no_answer_left_out
    run_path, qrels_path = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run_path.write_text("\n".join(exported.run_lines) + "\n")
    qrels_path.write_text("\n".join(exported.qrels_lines) + "\n")
    measures = [RR @ 10, nDCG @ 10, R @ 10, nDCG @ 3, R @ 3, Success @ 1, Success @ 3, P @ 1]
    theirs = ir_measures.calc_aggregate(
        measures, ir_measures.read_trec_qrels(str(qrels_path)),
        ir_measures.read_trec_run(str(run_path)),
    )  # fmt: skip
    ours = summarize(outcomes, (1, 3, 10)).values
    assert theirs[RR @ 10] == pytest.approx(ours["mrr@10"])
    assert theirs[nDCG @ 10] == pytest.approx(ours["binary_ndcg@10"])
    assert theirs[R @ 10] == pytest.approx(ours["recall@10"])
    assert theirs[nDCG @ 3] == pytest.approx(ours["binary_ndcg@3"])
    assert theirs[R @ 3] == pytest.approx(ours["recall@3"])
    with_answer = [q for q in outcomes if q.expected_document_ids]
    assert theirs[Success @ 1] == pytest.approx(
        sum(q.hits[1] for q in with_answer) / len(with_answer)
    )


def test_whitespace_in_an_id_is_a_clear_error():
    run = run_of([outcome("q 1", ["d1"], ["d1"])])
    with pytest.raises(InputError, match="question id 'q 1'"):
        trec_export(run)
