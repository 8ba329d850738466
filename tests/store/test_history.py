"""Run ids and prefixes, listings with filters, baselines, pins and retention."""

from __future__ import annotations

import dataclasses
import re

import pytest
from support.factory import make_run, question_set
from support.store import save_as_eval

from retrieval_eval.errors import InputError, UnknownNameError
from retrieval_eval.records.run import RunResult, RunState
from retrieval_eval.regression.verdict import judge
from retrieval_eval.regression.verdict_records import Thresholds


def save_judged(store, run: RunResult) -> str:
    """Save ``run`` with the verdict a first run gets (no-baseline): an accepted run, as
    ``reval eval`` saves it. (A run saved without a verdict is never a baseline.)"""
    return save_as_eval(store, run, judge(run, None, Thresholds()))


def test_run_ids_are_short_unique_and_found_by_prefix(store):
    ids = [store.save(make_run("13", started=m)) for m in (0, 0, 0, 61)]
    assert len(set(ids)) == 4
    assert all(len(i) == 8 and re.fullmatch(r"[0-9a-hjkmnp-tv-z]{8}", i) for i in ids)
    assert len({i[:6] for i in ids}) == 4
    assert [s.run_id for s in store.list_runs()] == [ids[3], ids[2], ids[1], ids[0]]
    for run_id in ids:
        assert store.get(run_id[:6]).run_id == run_id
    with pytest.raises(UnknownNameError, match="unknown run 'nope'"):
        store.get("nope")
    with pytest.raises(InputError, match="empty run id"):
        store.get(" ")


def test_ids_of_older_stores_keep_working_by_id_and_prefix(store):
    old = [store.save(make_run("13", started=0, run_id=f"261130-090000-{s}")) for s in "ab"]
    assert store.get("261130-090000-a").run_id == old[0]
    with pytest.raises(InputError, match="ambiguous: matches 261130-090000-a, 261130-090000-b"):
        store.get("261130-0900")
    with pytest.raises(UnknownNameError):
        store.get("2611%")  # LIKE wildcards are literal


def test_list_runs_filters_and_orders_newest_first(store):
    other_set = question_set(2, name="onboarding")
    saved = {
        "a": store.save(make_run("13", started=1, labels={"branch": "main", "sha": "1"})),
        "b": store.save(make_run("10", started=2, identifier="dense", labels={"branch": "main"})),
        "c": store.save(make_run("1E", started=3, labels={"branch": "dev", "sha": "1"})),
        "d": store.save(make_run("33", started=4, qs=other_set)),
    }
    assert [s.run_id for s in store.list_runs()] == [saved[k] for k in "dcba"]
    assert [s.run_id for s in store.list_runs(set_name="onboarding")] == [saved["d"]]
    assert [s.run_id for s in store.list_runs(retriever="dense")] == [saved["b"]]
    assert [s.run_id for s in store.list_runs(retriever="grpc://127.0.0.1:505")] == [saved["b"]]
    by_label = store.list_runs(labels={"branch": "main"})
    assert [s.run_id for s in by_label] == [saved["b"], saved["a"]]
    assert [s.run_id for s in store.list_runs(labels={"branch": "main", "sha": "1"})] == [
        saved["a"]
    ]
    assert store.list_runs(labels={"branch": "nope"}) == []
    assert len(store.list_runs(limit=2)) == 2
    assert [s.run_id for s in store.list_runs(state=RunState.INCOMPLETE)] == [saved["c"]]
    c = store.list_runs(set_name="faq", labels={"branch": "dev"})[0]
    assert (c.question_count, c.error_count, c.top1_hit_rate, c.top3_hit_rate) == (2, 1, 1.0, 1.0)
    assert c.state is RunState.INCOMPLETE and c.labels == {"branch": "dev", "sha": "1"}
    assert c.retriever_identifier == "bm25" and c.retriever_version == "1.0"
    assert not c.pinned


def test_baseline_is_latest_complete_earlier_run_never_incomplete_or_current(store):
    assert store.find_baseline(make_run("11")) is None
    first = save_judged(store, make_run("11", started=1))
    store.save(make_run("1E", started=2))  # incomplete: never a baseline
    store.save(make_run("1-", started=3))  # interrupted: never a baseline
    save_judged(store, make_run("11", started=2, identifier="dense"))  # another retriever
    save_judged(store, make_run("11", started=2, qs=question_set(2, name="other")))  # another set
    current = make_run("00", started=4)
    assert store.find_baseline(current).run_id == first
    current_id = save_judged(store, current)
    saved_current = store.get(current_id)
    assert store.find_baseline(saved_current).run_id == first  # never itself
    later = save_judged(store, make_run("11", started=5))
    assert store.find_baseline(saved_current).run_id == first  # nor a later run
    assert store.find_baseline(make_run("11", started=6)).run_id == later


def test_pinned_baseline_wins_and_can_be_replaced_or_unpinned(store):
    old = save_judged(store, make_run("11", started=1))
    mid = save_judged(store, make_run("10", started=2))
    latest = save_judged(store, make_run("00", started=3))
    current = make_run("11", started=4)
    assert store.find_baseline(current).run_id == latest
    assert store.pin(old[:-1]) == old
    assert store.find_baseline(current).run_id == old  # slow drift is judged against it
    store.pin(mid)
    assert [s.run_id for s in store.list_runs() if s.pinned] == [mid]
    assert store.find_baseline(current).run_id == mid
    assert store.unpin(mid) == mid
    assert store.find_baseline(current).run_id == latest
    explicit = store.find_baseline(current, baseline_id=old)
    assert explicit == store.get(old)


def test_only_complete_runs_can_be_pinned_or_named_baselines(store):
    incomplete = store.save(make_run("1E"))
    with pytest.raises(InputError, match=r"is incomplete \(1 failed retrievals\): only a complete"):
        store.pin(incomplete)
    with pytest.raises(InputError, match=f"run {incomplete} is incomplete"):
        store.find_baseline(make_run("11"), incomplete)
    complete = store.save(make_run("11"))
    assert store.find_baseline(make_run("10"), complete[:6]).run_id == complete
    with pytest.raises(UnknownNameError):
        store.pin("missing")


def test_prune_keeps_newest_per_set_and_retriever_and_every_pin(store):
    bm25 = [save_judged(store, make_run("11", started=m)) for m in range(5)]
    dense = [save_judged(store, make_run("11", started=m, identifier="dense")) for m in range(3)]
    other = save_judged(store, make_run("11", qs=question_set(2, name="other")))
    store.pin(bm25[0])
    assert store.prune(2) == 2 + 1
    left = {s.run_id for s in store.list_runs(limit=None)}
    assert left == {bm25[0], bm25[3], bm25[4], dense[1], dense[2], other}
    assert store.get(bm25[4]).questions  # kept runs keep their outcomes
    assert store.prune(2) == 0
    # Even --keep 0 keeps each lineage's pinned run and newest accepted run (its baseline).
    assert store.prune(0) == 2
    assert {s.run_id for s in store.list_runs()} == {bm25[0], bm25[4], dense[2], other}
    with pytest.raises(InputError, match="--keep must be 0 or more"):
        store.prune(-1)


def test_pruned_runs_leave_no_rows_behind(store):
    keep = store.save(make_run("1111", started=1, labels={"x": "1"}))
    gone = store.save(make_run("1111", started=0, labels={"x": "1"}))
    assert store.prune(1) == 1
    with pytest.raises(UnknownNameError):
        store.get(gone)
    assert store.list_runs(labels={"x": "1"})[0].run_id == keep
    reloaded = store.get(keep)
    assert len(reloaded.questions) == 4 and reloaded.labels == {"x": "1"}


def test_saving_a_run_id_twice_is_refused(store):
    run = dataclasses.replace(make_run("1"), run_id="fixed")
    store.save(run)
    with pytest.raises(InputError, match="run 'fixed' is already stored"):
        store.save(run)


def test_a_history_of_stored_figures_reads_no_outcomes(store):
    from retrieval_eval.comparison.history import build_history

    ids = [
        save_judged(store, make_run(codes, started=m)) for m, codes in ((0, "13E0"), (1, "1130"))
    ]
    full = store.history("faq", "bm25")
    figures = store.history("faq", "bm25", outcomes=False)
    assert [s.run.run_id for s in figures] == [ids[1], ids[0]]
    assert all(len(s.run.questions) == 0 for s in figures)  # nothing per question read
    assert [s.counts for s in figures] == [(4, 0), (4, 1)] and full[0].counts is None
    assert [s.run.metrics for s in figures] == [s.run.metrics for s in full]
    # the history's entries are the same either way; only the per-question parts need more
    by_figures = build_history("faq", "bm25", figures)
    by_outcomes = build_history("faq", "bm25", full)
    assert by_figures.entries == by_outcomes.entries
    assert by_figures.flaky == () and by_figures.never_hit == ()
