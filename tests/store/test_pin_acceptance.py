"""A pin is an acceptance while it lasts: a pinned run that was not accepted otherwise
records ``pinned`` as how it became a baseline, and unpinning takes exactly that back."""

from __future__ import annotations

from support.factory import make_run, question_set

from retrieval_eval.records.outcome import Form
from retrieval_eval.regression.record import judge_and_save
from retrieval_eval.store.stored_run import HowAccepted

QS = question_set(10, forms=[Form.MATCH] * 10)


def test_a_pin_records_its_acceptance_and_unpinning_takes_it_back(store):
    (first,) = judge_and_save(make_run("1111111111", qs=QS, started=0), store=store).reports
    (dropped,) = judge_and_save(make_run("1111100000", qs=QS, started=1), store=store).reports
    assert first.accepted.how is HowAccepted.FIRST_RUN and dropped.accepted is None
    store.pin(dropped.run.run_id)
    assert store.get_stored(dropped.run.run_id).accepted.how is HowAccepted.PINNED
    store.pin(first.run.run_id)  # moving the pin takes the other run's pin acceptance back
    assert store.get_stored(dropped.run.run_id).accepted is None
    assert store.get_stored(first.run.run_id).accepted.how is HowAccepted.FIRST_RUN
    store.pin(dropped.run.run_id)
    store.unpin(dropped.run.run_id)
    assert store.get_stored(dropped.run.run_id).accepted is None
    later = make_run("1111111111", qs=QS, started=2)
    assert store.find_baseline(later).run_id == first.run.run_id
