from __future__ import annotations

import ir_measures
import pytest
from ir_measures import P, Success

from retrieval_eval.errors import InputError
from retrieval_eval.report.trec import export_trec, qrels_lines, run_lines

from .conftest import build_run, outcome


def test_lines_follow_the_trec_formats(current_run):
    lines = list(run_lines(current_run))
    assert lines[:2] == ["q1 Q0 d1 1 2 r-current", "q1 Q0 d2 2 1 r-current"]
    assert not any(line.startswith("q6 ") for line in lines)  # errored: never answered
    assert list(qrels_lines(current_run))[:2] == ["q1 0 d1 1", "q2 0 d5 1"]
    assert not any(line.startswith(("q4 ", "q5 ")) for line in qrels_lines(current_run))


def test_exported_files_give_the_same_hit_rates_in_ir_measures(tmp_path):
    outcomes = [
        outcome(f"q{i}", [f"d{i % 7}", f"d{i % 5}"], [f"d{(i * j) % 11}#c{j}" for j in range(9)])
        for i in range(40)
    ]
    run = build_run(outcomes)
    run_path, qrels_path = tmp_path / "run.txt", tmp_path / "qrels.txt"
    assert export_trec(run, run_path, qrels_path, run_name="bm25") == (
        sum(len(q.ranked_document_ids) for q in outcomes),
        sum(len(set(q.expected_document_ids)) for q in outcomes),
    )
    qrels = list(ir_measures.read_trec_qrels(str(qrels_path)))
    results = ir_measures.calc_aggregate(
        [Success @ 1, Success @ 3, P @ 1], qrels, ir_measures.read_trec_run(str(run_path))
    )
    top1 = sum(q.hits[1] for q in outcomes) / len(outcomes)
    top3 = sum(q.hits[3] for q in outcomes) / len(outcomes)
    assert 0 < top1 < top3 < 1
    assert results[Success @ 1] == pytest.approx(top1)
    assert results[Success @ 3] == pytest.approx(top3)


def test_whitespace_in_an_id_is_a_clear_error(tmp_path):
    run = build_run([outcome("q 1", ["d1"], ["d1"])])
    with pytest.raises(InputError, match="question id 'q 1'"):
        export_trec(run, tmp_path / "run.txt", None)
