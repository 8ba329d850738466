"""A history is loaded in a few batched queries; what it returns is exactly what loading
each run on its own returns, and exactly what was saved."""

from __future__ import annotations

import dataclasses

import pytest
from support.factory import make_run, question_set

from retrieval_eval.regression.verdict import judge
from retrieval_eval.regression.verdict_records import Thresholds
from retrieval_eval.store import queries
from retrieval_eval.store.store import RunStore


def fill(store: RunStore) -> dict[str, object]:
    """Runs of two retrievers and two sets with different sizes, failures, labels,
    verdicts and a pin; returns the saved runs by id."""
    saved: dict[str, object] = {}
    previous = None
    for minute, codes in enumerate(["13", "1E0", "", "3", "1130E", "-1", "01", "E"]):
        identifier = ("bm25", "dense")[minute % 3 == 2]
        qs = question_set(len(codes), name=("faq", "other")[minute == 5])
        labels = {"n": str(minute), "parity": str(minute % 2)} if minute % 4 else None
        run = make_run(codes, qs=qs, identifier=identifier, started=minute, labels=labels)
        verdict = judge(run, previous, Thresholds()) if minute % 2 else None
        run_id = store.save(run, verdict)
        saved[run_id] = dataclasses.replace(run, run_id=run_id)
        previous = run
    return saved


@pytest.mark.parametrize("batch", [queries.BATCH, 2])
def test_history_equals_loading_each_run_alone_and_what_was_saved(store, monkeypatch, batch):
    saved = fill(store)
    store.pin(store.list_runs(set_name="faq", retriever="bm25")[3].run_id)
    monkeypatch.setattr(queries, "BATCH", batch)  # 2: every batch boundary is crossed
    for set_name, retriever, limit in [("faq", "bm25", None), ("faq", "bm25", 3),
                                       ("faq", "dense", 20), ("other", "bm25", 20),
                                       ("faq", "grpc://127.0.0.1:505", None)]:  # fmt: skip
        history = store.history(set_name, retriever, limit=limit)
        listed = store.list_runs(set_name=set_name, retriever=retriever, limit=limit)
        assert [s.run.run_id for s in history] == [s.run_id for s in listed]
        assert history == [store.get_stored(s.run_id) for s in listed]
        assert [s.run for s in history] == [saved[s.run_id] for s in listed]
        assert [s.pinned for s in history] == [s.pinned for s in listed]
    everything = store.history("faq", "bm25", limit=None)
    assert len(everything) == 6 and sum(s.pinned for s in everything) == 1
    assert {s.verdict_document is None for s in everything} == {True, False}
    assert store.history("faq", "nobody") == []
