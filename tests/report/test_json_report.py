from __future__ import annotations

import json

from retrieval_eval.regression.verdict_records import RunReport
from retrieval_eval.report.run.json_format import (
    SCHEMA_VERSION,
    render_json,
    run_to_dict,
    runs_to_document,
)

RUN_KEYS = {
    "run_id",
    "set",
    "set_fingerprint",
    "retriever",
    "state",
    "complete",
    "started_at",
    "finished_at",
    "duration_s",
    "labels",
    "parameters",
    "metrics",
    "measures",
    "errors",
    "not_asked",
    "skipped_members",
    "underfilled",
    "no_answer",
    "by_form",
    "by_hard_class",
    "latency_ms",
    "latency_probe_ms",
    "questions",
    "regression",
}
QUESTION_KEYS = {
    "id",
    "text",
    "form",
    "hard_class",
    "expected_document_ids",
    "top1_hit",
    "top3_hit",
    "hits",
    "ranked_document_ids",
    "raw_ids",
    "latency_ms",
    "error",
    "underfilled",
    "notes",
}


def test_run_shape_carries_every_documented_key(current_run):
    d = run_to_dict(current_run, None)
    assert set(d) == RUN_KEYS
    assert d["retriever"] == {
        "identifier": "bm25",
        "version": "1.2",
        "target": "grpc://127.0.0.1:5000",
        "provenance": {
            "corpus_revision": "c1",
            "model_revision": "",
            "chunking": "",
            "pipeline": "",
            "chunk_separator": "#",
            "metadata": {},
        },
        "variant": "bm25 1.2 · grpc://127.0.0.1:5000",
    }
    assert d["regression"] is None
    assert d["state"] == "incomplete" and d["complete"] is False
    assert d["errors"] == 1
    latency = current_run.latency
    assert latency is not None and latency.p50_ms < latency.p95_ms  # five different ones
    assert d["latency_ms"]["p95"] == latency.p95_ms and set(d["latency_ms"]) >= {"p50", "p99"}
    assert d["latency_ms"]["concurrency"] == 8 and d["latency_probe_ms"] is None
    assert d["parameters"]["ks"] == [1, 3] and d["parameters"]["limit"] == 12
    assert d["labels"] == {"git_sha": "abc123"}
    assert d["duration_s"] == 3.0


def test_metrics_are_numbers_with_intervals_beside_them(current_run):
    m = run_to_dict(current_run, None)["metrics"]
    # 5 answered: q1 hit@1, q2 miss@1 hit@3? (d5 is 4th distinct -> miss), q3 hit@3 only,
    # q4 empty->hit, q5 non-empty for no-answer -> miss.
    assert m["count"] == 5 and m["errors"] == 1
    assert m["top1_hit_rate"] == 2 / 5
    assert m["top3_hit_rate"] == 3 / 5
    assert list(m)[:4] == ["count", "errors", "top1_hit_rate", "top3_hit_rate"]
    assert m["intervals"]["top3_hit_rate"]["successes"] == 3
    assert m["intervals"]["top3_hit_rate"]["count"] == 5
    assert m["no_answer"] == {"count": 2, "correctly_empty": 1, "returned_something": 1}


def test_breakdowns_have_counts_and_the_same_metrics(current_run):
    d = run_to_dict(current_run, None)
    assert set(d["by_form"]) == {"MATCH", "GAP"}
    gap = d["by_form"]["GAP"]
    assert gap["count"] == 2 and gap["top1_hit_rate"] == 0.0 and gap["top3_hit_rate"] == 0.5
    nd = d["by_hard_class"]["near-duplicate"]
    assert nd["count"] == 2 and nd["top1_hit_rate"] == 0.5


def test_questions_keep_distinct_and_raw_rankings_and_errors(current_run):
    qs = {q["id"]: q for q in run_to_dict(current_run, None)["questions"]}
    assert set(qs["q1"]) == QUESTION_KEYS
    assert qs["q1"]["raw_ids"] == ["d1#0", "d1#1", "d2"]
    assert qs["q1"]["ranked_document_ids"] == ["d1", "d2"]
    assert qs["q1"]["hits"] == {"1": True, "3": True}
    assert qs["q6"]["error"] == {"kind": "timeout", "message": "timeout while answering q6"}
    assert qs["q6"]["top1_hit"] is None and qs["q6"]["top3_hit"] is None
    assert qs["q6"]["ranked_document_ids"] == []


def test_regression_object(current_run, regression_verdict):
    r = run_to_dict(current_run, regression_verdict)["regression"]
    assert r["verdict"] == "regression" and r["fails"] is True
    assert r["baseline_run_id"] == "r-baseline"
    top1 = r["deltas"][0]
    assert top1["metric"] == "top1_hit_rate" and abs(top1["delta"] - -0.2) < 1e-12
    assert [f["question_id"] for f in r["flips"] if f["direction"] == "hit->miss"] == ["q2", "q2"]
    assert r["p_values"] == {"1": 1.0, "3": 1.0}
    assert r["tests"][1] == {
        "k": 3,
        "wins": 0,
        "losses": 1,
        "ties": 4,
        "p_value": 1.0,
        "significant": False,
    }
    assert r["warnings"] == ["set too small: one question moves top-1 by 0.200"]


def test_document_summary_and_round_trip_through_json(current_run, regression_verdict):
    reports = [RunReport(current_run, regression_verdict), RunReport(current_run, None)]
    text = render_json(reports, warnings=["run not saved"])
    doc = json.loads(text)
    assert doc == json.loads(json.dumps(runs_to_document(reports, ["run not saved"])))
    assert doc["schema_version"] == SCHEMA_VERSION == 1
    assert len(doc["runs"]) == 2
    assert doc["summary"] == {
        "runs": 2,
        "incomplete": 2,
        "interrupted": 0,
        "verdicts": {"regression": 1},
        "failing": 1,
    }
    assert doc["warnings"] == ["run not saved"]


def test_big_documents_are_compact_with_the_same_shape():
    from support.factory import outcome, run_of

    from retrieval_eval.report.run.json_format import PRETTY_UP_TO

    small = run_of([outcome("q0", ["d1"], ["d1"])])
    big = run_of([outcome(f"q{i}", ["d1"], ["d1"]) for i in range(PRETTY_UP_TO + 1)])
    small_text, big_text = render_json([RunReport(small)]), render_json([RunReport(big)])
    assert "\n  " in small_text and big_text.count("\n") == 1
    small_doc, big_doc = json.loads(small_text), json.loads(big_text)
    assert set(big_doc["runs"][0]) == set(small_doc["runs"][0])
    assert big_doc["runs"][0]["questions"][-1]["id"] == f"q{PRETTY_UP_TO}"


def test_write_json_streams_the_same_text_as_render_json(monkeypatch):
    import io

    from support.factory import outcome, run_of

    from retrieval_eval.report.run import json_format as json_report

    monkeypatch.setattr(json_report, "WRITE_BATCH", 7)  # several batches, a partial last
    first = run_of(
        [outcome(f"q{i}", ["d1"], ["d2", "d1"]) for i in range(json_report.PRETTY_UP_TO)]
    )
    second = run_of([outcome(f"r{i}", ["d\u00e9"], ["d\u00e9"]) for i in range(23)])
    empty = run_of([])
    for reports in ([RunReport(first), RunReport(empty), RunReport(second)], [RunReport(second)]):
        out = io.StringIO()
        json_report.write_json(reports, out, warnings=['not saved: "store" down'])
        assert out.getvalue() == json_report.render_json(reports, ['not saved: "store" down'])


def test_measures_carry_their_convention_and_denominators(current_run):
    from dataclasses import replace

    from retrieval_eval.records.metrics import MeasureMean

    assert run_to_dict(current_run, None)["measures"] == {"convention": "reval", "values": {}}
    measured = replace(
        current_run,
        measures={"AP": MeasureMean(0.25, 3, 1), "P@10": MeasureMean(None, 0, 0)},
        measure_convention="trec_eval",
    )
    assert run_to_dict(measured, None)["measures"] == {
        "convention": "trec_eval",
        "values": {
            "AP": {"value": 0.25, "count": 3, "left_out": 1},
            "P@10": {"value": None, "count": 0, "left_out": 0},
        },
    }


def test_a_label_source_breakdown_is_in_the_streamed_document_too(monkeypatch):
    import io

    from support.factory import outcome, run_of

    from retrieval_eval.report.run import json_format as json_report
    from retrieval_eval.scoring.metrics import summarize

    big = run_of([outcome(f"q{i}", ["d1"], ["d1"]) for i in range(json_report.PRETTY_UP_TO + 1)])
    small = run_of([outcome("r1", ["d1"], ["d2"])])
    groups = {"human": summarize(big.questions[:3], big.parameters.ks)}
    reports = [RunReport(big), RunReport(small)]
    out = io.StringIO()
    json_report.write_json(reports, out, by_source=[groups, None])
    assert out.getvalue() == json_report.render_json(reports, by_source=[groups, None])
    first, second = json.loads(out.getvalue())["runs"]
    assert first["by_label_source"]["human"]["count"] == 3
    assert first["by_label_source"]["human"]["top1_hit_rate"] == 1.0
    assert "by_label_source" not in second  # only where a breakdown was asked for
