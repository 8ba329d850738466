"""A run comes back from the store exactly as it went in, on SQLite and PostgreSQL."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta, timezone

from support.factory import make_run, question_set

from retrieval_eval.records.failures import FailureKind, RetrievalFailure
from retrieval_eval.records.outcome import Form, QuestionOutcome
from retrieval_eval.records.parameters import RunParameters
from retrieval_eval.records.run import RetrieverDescription, RunState


def rich_run():
    """Every kind of outcome: hits at 1 and 3, misses, failures, no-answer questions,
    hard classes, unicode and awkward ids, labels, extra cutoffs, varied latency."""
    n = 12
    qs = question_set(
        n,
        forms=[Form.MATCH, Form.GAP, Form.UNLABELLED] * 4,
        classes=["near-duplicate", None, "prose-free", "boilerplate"] * 3,
        no_answer=(4, 5),
    )
    description = RetrieverDescription(
        identifier="dense-ä",
        version="2.1",
        chunk_separator="#",
        corpus_revision="corpus@7",
        model_revision="e5-large@3",
        chunking="512/64",
        pipeline="hybrid+rerank",
        metadata={"host": "gpu-1", "quote": 'it\'s "x"'},
    )
    parameters = RunParameters(ks=(1, 3, 5, 10), overfetch=3, limit=30, doc_id_separator="#")
    run = make_run(
        "130110E30E13",
        qs=qs,
        description=description,
        parameters=parameters,
        latency_ms=[1.5, 2.25, 0.1 + 0.2, 1e-9, 7, 3.0, 250.125, 4, 5, 6, 1 / 3, 8],
        labels={"git_sha": "abc123", "branch": "feature/ü,x"},
    )
    odd = QuestionOutcome(
        question_id="q-odd,\"'\n",
        form=Form.GAP,
        hard_class="",
        expected_document_ids=("doc,1", 'doc"2', "文書"),
        raw_ids=("文書#1", "doc,1", "文書#2", ""),
        ranked_document_ids=("文書", "doc,1"),
        hits={1: True, 3: True, 5: True, 10: True},
        latency_ms=None,
        underfilled=True,
    )
    failed = QuestionOutcome(
        question_id="q-failed",
        form=Form.MATCH,
        hard_class=None,
        expected_document_ids=("d1",),
        error=RetrievalFailure(FailureKind.UNAVAILABLE, ""),
    )
    return dataclasses.replace(run, questions=(*run.questions, odd, failed), underfilled_count=1)


def test_round_trip_is_exact(store):
    run = rich_run()
    run_id = store.save(run)
    loaded = store.get(run_id)
    assert loaded == dataclasses.replace(run, run_id=run_id)
    assert loaded.questions[12].question_id == "q-odd,\"'\n"
    assert loaded.by_hard_class.keys() == run.by_hard_class.keys()


def test_every_state_and_time_zone_round_trips(store):
    offset = timezone(timedelta(hours=5, minutes=30))
    runs = [
        make_run("13", started=datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=offset)),
        make_run("1E"),
        make_run("1-"),
        make_run("13", started=datetime(2026, 1, 2, 3, 4, 5)),  # naive: taken as UTC
    ]
    assert [r.state for r in runs[:3]] == [RunState.COMPLETE, RunState.INCOMPLETE,
                                           RunState.INTERRUPTED]  # fmt: skip
    for run in runs:
        run_id = store.save(run)
        assert store.get(run_id) == dataclasses.replace(run, run_id=run_id)


def test_empty_run_round_trips(store):
    run = make_run("-", qs=question_set(1))
    assert run.questions == () and run.latency is None
    run_id = store.save(run)
    assert store.get(run_id) == dataclasses.replace(run, run_id=run_id)


def test_a_given_run_id_is_kept(store, tmp_path):
    run = dataclasses.replace(make_run("1"), run_id="imported-1")
    assert store.save(run) == "imported-1"
    assert store.get("imported-1") == run


def test_thousands_of_questions_round_trip(store):
    codes = ("1303E" * 600)[:3000]
    run = make_run(codes, latency_ms=[i / 7 for i in range(3000)])
    run_id = store.save(run)
    assert store.get(run_id) == dataclasses.replace(run, run_id=run_id)


def test_a_run_saved_in_several_batches_keeps_question_order(store, monkeypatch):
    from retrieval_eval.store import writing

    monkeypatch.setattr(writing, "SAVE_BATCH", 7)  # 3000 = 428 batches and a partial
    codes = ("13E03" * 600)[:3000]
    run = make_run(codes, latency_ms=[i / 3 for i in range(3000)])
    run_id = store.save(run)
    assert store.get(run_id) == dataclasses.replace(run, run_id=run_id)


def test_the_unloaded_latency_probe_round_trips(store):
    from retrieval_eval.evaluation.latency import summarize_latency

    run = make_run("1303", latency_ms=[40.0, 50.0, 60.0, 70.0])
    probed = dataclasses.replace(run, latency_probe=summarize_latency([4.0, 5.5, 9.25]))
    no_loaded = dataclasses.replace(probed, latency=None)
    for each in (probed, no_loaded, run):
        run_id = store.save(each)
        assert store.get(run_id) == dataclasses.replace(each, run_id=run_id)
