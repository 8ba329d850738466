"""``RunStore.judging_runs``: the baseline and the drift reference a verdict needs, found
and loaded in one read, each run once; the verdicts are those of looking each run up on
its own (``find_baseline``, ``drift_reference``), on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Engine, event
from support.factory import make_run, question_set

from retrieval_eval.records.outcome import Form
from retrieval_eval.records.run import RunResult
from retrieval_eval.regression.record import judge_and_save
from retrieval_eval.regression.verdict import judge
from retrieval_eval.regression.verdict_records import Thresholds
from retrieval_eval.store.store import RunStore

QS = question_set(10, forms=[Form.MATCH] * 10)
#: Each run loses one more question: every step passes, drift from the first one grows.
WALK_DOWN = ["1111111111", "1111111110", "1111111100", "1111111000", "1111110000"]


@contextmanager
def statements() -> Iterator[list[str]]:
    """The SQL statements every engine of this process runs inside the block."""
    seen: list[str] = []

    def record(_conn: object, _cursor: object, sql: str, *_args: object) -> None:
        seen.append(sql)

    event.listen(Engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(Engine, "before_cursor_execute", record)


def looked_up_alone(store: RunStore, run: RunResult) -> tuple[RunResult | None, RunResult | None]:
    baseline = store.find_baseline(run)
    return baseline, None if baseline is None else store.drift_reference(run)


def same_verdicts(store: RunStore, current: RunResult) -> None:
    baseline, reference = store.judging_runs(current)
    alone_baseline, alone_reference = looked_up_alone(store, current)
    assert baseline == alone_baseline
    assert (reference is None) == (alone_reference is None)
    if reference is not None and alone_reference is not None:
        assert reference.run_id == alone_reference.run_id
        assert reference.metrics == alone_reference.metrics
    for thresholds in (Thresholds(), Thresholds(max_drift=0.15)):
        assert judge(current, baseline, thresholds, reference) == judge(
            current, alone_baseline, thresholds, alone_reference
        )


def test_the_verdicts_are_those_of_looking_each_run_up_alone(store):
    """Along a chain of accepted runs (reference = first run, not the baseline), after a
    person accepts one (reference = baseline), and with a pin (no reference)."""
    assert store.judging_runs(make_run("1111111111", qs=QS, started=0)) == (None, None)
    ids = []
    for minute, codes in enumerate(WALK_DOWN):
        current = make_run(codes, qs=QS, started=minute)
        same_verdicts(store, current)
        ids.append(judge_and_save(current, store=store).reports[0].run.run_id)
    current = make_run("1111100000", qs=QS, started=9)
    baseline, reference = store.judging_runs(current)
    assert baseline is not None and baseline.run_id == ids[-1]
    assert reference is not None and reference.run_id == ids[0]
    assert len(reference.questions) == 0 and len(baseline.questions) == 10  # aggregates only
    assert reference.metrics == store.get(ids[0]).metrics
    same_verdicts(store, current)

    store.accept(ids[-1], "the lost questions were reviewed", "ana")
    baseline, reference = store.judging_runs(current)
    assert reference is baseline and baseline is not None and baseline.run_id == ids[-1]
    same_verdicts(store, current)

    store.pin(ids[1])
    baseline, reference = store.judging_runs(current)
    assert baseline is not None and baseline.run_id == ids[1] and reference is None
    same_verdicts(store, current)


def test_an_explicit_baseline_is_loaded_without_a_drift_reference(store):
    first = judge_and_save(make_run("1111111111", qs=QS, started=0), store=store)
    judge_and_save(make_run("1111111110", qs=QS, started=1), store=store)
    first_id = first.reports[0].run.run_id
    assert first_id is not None
    current = make_run("1111111100", qs=QS, started=2)
    baseline, reference = store.judging_runs(current, first_id[:-2])
    assert baseline == store.get(first_id) and reference is None


def test_judging_a_run_reads_each_stored_run_once(store):
    """The baseline's row, labels and outcomes are read once, the reference's row (and
    labels) once, and the ids are looked up once: no run is loaded twice."""
    for minute, codes in enumerate(WALK_DOWN[:3]):
        judge_and_save(make_run(codes, qs=QS, started=minute), store=store)
    current = make_run(WALK_DOWN[3], qs=QS, started=3)
    with statements() as seen:
        baseline, reference = store.judging_runs(current)
    assert baseline is not None and reference is not None and reference is not baseline
    reads = [s for s in seen if s.lstrip().upper().startswith("SELECT")]
    outcome_reads = [s for s in reads if "FROM reval_outcomes" in s]
    assert len(outcome_reads) == 1, reads
    # pinned?, newest accepted, drift reference; baseline row, labels, outcomes;
    # reference row and labels.
    assert len(reads) == 8, reads
