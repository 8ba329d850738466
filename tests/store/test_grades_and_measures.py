"""The store keeps what a run was scored against and what it measured (schema revision
0003): each question's judgments, zeros included, the IR measures' means with their
convention and relevance level, and a rescored run's source; a run stored before reads
back as it always meant (expected ids at grade 1, nothing else judged, no measures)."""

from __future__ import annotations

import dataclasses
import json

from sqlalchemy import create_engine, text
from support.factory import make_run, question_set

from retrieval_eval.evaluation.rescore import rescore
from retrieval_eval.questions.model import GoldenQuestionSet
from retrieval_eval.records.metrics import MeasureMean
from retrieval_eval.store.store import RunStore

from .test_indexes import migrate


def graded_run():
    run = make_run("1303E")
    first, second, third = (q.question_id for q in run.questions[:3])
    judgments = {first: (("doc-x", 2), ("doc-y", 0), ("doc-ü", 1)), third: (("doc-z", 0),)}
    measures = {"nDCG@10": MeasureMean(0.1 + 0.2, 4, 0), "AP": MeasureMean(None, 0, 4),
                "P@10": MeasureMean(1 / 3, 4, 0)}  # fmt: skip
    del second
    return dataclasses.replace(run, judgments=judgments, measures=measures,
                               measure_convention="trec_eval", relevance_level=2)  # fmt: skip


def test_grades_measures_and_source_round_trip_exactly(store):
    run = graded_run()
    source = store.save(make_run("1303E"))
    run_id = store.save(run, rescored_from=(source, "sha256:old"))
    stored = store.get_stored(run_id)
    assert stored.run == dataclasses.replace(run, run_id=run_id)
    assert stored.run.measures["nDCG@10"].value == 0.1 + 0.2  # the float, exactly
    assert stored.rescored_from == (source, "sha256:old")
    assert store.get_stored(source).rescored_from is None
    first, second = stored.run.questions[:2]
    assert stored.run.grades_of(first) == {"doc-x": 2, "doc-y": 0, "doc-ü": 1}
    assert stored.run.grades_of(second) == dict.fromkeys(second.expected_document_ids, 1)
    listed = store.history(run.set_name, run.retriever.identifier, 10)  # read without outcomes
    assert {s.run.run_id: s.run.measures for s in listed}[run_id] == run.measures


def test_judgments_are_stored_as_compact_json_and_plain_labels_as_null(store_url):
    with RunStore.open(store_url) as store:
        run_id = store.save(graded_run())
    engine = create_engine(store_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(text(
                "SELECT o.judgments, r.measures_json, r.measure_convention, r.relevance_level "
                "FROM reval_outcomes o JOIN reval_runs r ON r.pk = o.run_pk "
                "WHERE r.run_id = :id ORDER BY o.position"), {"id": run_id}).all()  # fmt: skip
    finally:
        engine.dispose()
    assert [r[0] for r in rows] == ['{"doc-x":2,"doc-y":0,"doc-ü":1}', None, '{"doc-z":0}',
                                    None, None]  # fmt: skip
    assert json.loads(rows[0][1]) == {"nDCG@10": [0.30000000000000004, 4, 0],
                                      "AP": [None, 0, 4], "P@10": [1 / 3, 4, 0]}  # fmt: skip
    assert rows[0][2:] == ("trec_eval", 2)


def test_a_run_stored_before_0003_reads_as_expected_ids_at_grade_1(store_url):
    with RunStore.open(store_url) as store:
        run_id = store.save(graded_run())
    migrate(store_url, "downgrade", "0002")  # drops the columns: the run as 0002 stored it
    with RunStore.open(store_url) as store:  # upgrades again: the columns come back NULL
        old = store.get(run_id)
    assert old.judgments == {} and old.measures == {} and old.relevance_level == 1
    assert old.measure_convention == "reval"
    assert all(old.grades_of(q) == dict.fromkeys(q.expected_document_ids, 1)
               for q in old.questions)  # fmt: skip
    assert old == dataclasses.replace(make_run("1303E"), run_id=run_id)


def test_binary_ndcg_keys_of_a_0002_store_are_renamed_on_upgrade(store_url):
    run = make_run("1303E")
    assert any(key.startswith("binary_ndcg@") for key in run.metrics.values)
    with RunStore.open(store_url) as store:
        run_id = store.save(run)
    migrate(store_url, "downgrade", "0002")  # as a 0002 store wrote it: ndcg@K
    engine = create_engine(store_url)
    try:
        with engine.connect() as conn:
            (figures,) = conn.execute(text("SELECT metrics_json FROM reval_runs")).one()
    finally:
        engine.dispose()
    assert '"ndcg@' in figures and "binary_ndcg" not in figures
    with RunStore.open(store_url) as store:  # upgrades: binary_ndcg@K again
        assert store.get(run_id).metrics == run.metrics


def test_a_run_stored_before_0003_is_rescored_at_level_1_like_a_plain_run_since(store_url):
    """Before 0003 every run was scored on binary labels, the expected ids at grade 1 and
    level 1: exactly what a plain-label run stored since then records. Both rescore alike,
    at that level, whatever level the newer set declares (the verdict compares the
    rescore with its source at one level; ``reval eval --rel-level`` picks another)."""
    with RunStore.open(store_url) as store:
        run_id = store.save(make_run("11"))
    migrate(store_url, "downgrade", "0002")
    with RunStore.open(store_url) as store:
        old = store.get(run_id)
        plain = store.get(store.save(make_run("11")))
    assert old.relevance_level == plain.relevance_level == 1
    q0, q1 = question_set(2).questions
    graded = GoldenQuestionSet("faq", (
        dataclasses.replace(q0, expected_document_ids=(), judgments=(("d0", 1),)),
        dataclasses.replace(q1, judgments=(("d1", 2),)),
    ), relevance_level=2)  # fmt: skip
    rescored = [rescore(run, graded) for run in (old, plain)]
    assert [r.relevance_level for r in rescored] == [1, 1]
    # d0, graded 1, is a target at level 1; at the set's level 2 q0 would expect nothing
    assert [r.metrics.values["top1_hit_rate"] for r in rescored] == [1.0, 1.0]
    assert rescored[0].questions == rescored[1].questions
