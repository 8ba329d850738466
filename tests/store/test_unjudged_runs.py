"""A run saved without a verdict (``RunStore.save(run)`` from a script) is unjudged: never a
baseline by itself, on SQLite and PostgreSQL, so that a regressed run saved so cannot make
the next gate pass; a person's acceptance or a pin makes it one; pruning keeps the accepted
baseline rather than a newer unjudged run; the Python rule (``is_accepted``) and the SQL
one (``accepted_clause``) agree run by run."""

from __future__ import annotations

import pytest
from sqlalchemy import select, update
from support.factory import make_run, question_set
from support.store import save_as_eval

from retrieval_eval.records.outcome import Form
from retrieval_eval.regression.record import judge_and_save
from retrieval_eval.regression.verdict import judge
from retrieval_eval.regression.verdict_records import Thresholds, VerdictKind
from retrieval_eval.store import queries
from retrieval_eval.store.models import run_table

QS = question_set(10, forms=[Form.MATCH] * 10)
GOOD, DROPPED = "1111111111", "1111100000"


def _eval(store, codes: str, minute: int):
    """What ``reval eval`` does with a measured run: judge it against its baseline, save."""
    (report,) = judge_and_save(make_run(codes, qs=QS, started=minute), store=store).reports
    return report


def test_a_script_saved_regressed_run_does_not_become_the_baseline(store):
    first = _eval(store, GOOD, 0)
    assert first.verdict.kind is VerdictKind.NO_BASELINE
    unjudged = store.save(make_run(DROPPED, qs=QS, started=1))  # a script: no check
    (summary,) = [s for s in store.list_runs() if s.run_id == unjudged]
    assert summary.verdict_kind == "" and not summary.accepted
    # The next gate still holds the drop against the accepted run, however often retried.
    for minute in (2, 3):
        report = _eval(store, DROPPED, minute)
        assert report.verdict.kind is VerdictKind.REGRESSION
        assert report.verdict.baseline_run_id == first.run.run_id


def test_an_unjudged_run_alone_leaves_the_next_run_without_a_baseline(store):
    store.save(make_run(DROPPED, qs=QS, started=0))
    later = make_run(DROPPED, qs=QS, started=1)
    assert store.find_baseline(later) is None
    assert store.drift_reference(later) is None
    assert _eval(store, DROPPED, 1).verdict.kind is VerdictKind.NO_BASELINE


def test_accepting_or_pinning_an_unjudged_run_makes_it_the_baseline(store):
    first = _eval(store, GOOD, 0)
    unjudged = store.save(make_run(DROPPED, qs=QS, started=1))
    assert store.accept(unjudged, "the new chunking, measured by a script", "ana").accepted
    report = _eval(store, DROPPED, 2)
    assert report.verdict.kind is VerdictKind.PASS
    assert report.verdict.baseline_run_id == unjudged
    other = store.save(make_run(GOOD, qs=QS, started=3))
    store.pin(other)
    assert store.find_baseline(make_run(GOOD, qs=QS, started=4)).run_id == other
    assert first.run.run_id != other


def test_pruning_keeps_the_accepted_baseline_not_a_newer_unjudged_run(store):
    first = _eval(store, GOOD, 0)
    older = store.save(make_run(DROPPED, qs=QS, started=1))
    newest = store.save(make_run(DROPPED, qs=QS, started=2))
    victims, kept = store.prune_plan(keep=1)
    assert victims == [older]
    assert kept == [(first.run.run_id, queries.KEPT_ACCEPTED)]
    assert store.prune(keep=1) == 1
    assert {s.run_id for s in store.list_runs()} == {first.run.run_id, newest}
    report = _eval(store, DROPPED, 3)
    assert report.verdict.baseline_run_id == first.run.run_id
    assert report.verdict.kind is VerdictKind.REGRESSION


@pytest.mark.parametrize("empty_kind", [None, ""], ids=["null", "empty"])
def test_the_python_and_sql_rules_agree_on_every_kind_of_run(store, empty_kind):
    """Every state x stored verdict x acceptance a run can have; "" and NULL both mean
    saved without a check (older stores hold either)."""
    thresholds = Thresholds()
    baseline = make_run(GOOD, qs=QS, started=0)
    cases = {
        "no-baseline": (GOOD, judge(baseline, None, thresholds)),
        "pass": (GOOD, judge(make_run(GOOD, qs=QS), baseline, thresholds)),
        "regression": (DROPPED, judge(make_run(DROPPED, qs=QS), baseline, thresholds)),
        "unjudged": (GOOD, None),
        "incomplete": ("11111111EE", None),
        "interrupted": ("1111------", None),
    }
    ids = {}
    for minute, (name, (codes, verdict)) in enumerate(cases.items()):
        for accepted in (False, True):
            run = make_run(codes, qs=QS, started=2 * minute + accepted)
            run_id = save_as_eval(store, run, verdict)
            if accepted and name not in ("incomplete", "interrupted"):
                store.accept(run_id, "checked by hand", "ana")
            ids[name, accepted] = run_id
    acceptance = {"accepted_at": "2026-12-01T10:00:00+00:00", "accepted_by": "ana",
                  "accepted_reason": "set by hand"}  # fmt: skip
    with store._engine.begin() as conn:
        # ``accept`` refuses a run that is not complete; an old store may hold one anyway.
        forced = [ids["incomplete", True], ids["interrupted", True]]
        conn.execute(update(run_table).where(run_table.c.run_id.in_(forced)).values(acceptance))
        conn.execute(
            update(run_table).where(run_table.c.verdict_kind.is_(None))
            .values(verdict_kind=empty_kind)
        )  # fmt: skip
        in_sql = set(conn.scalars(select(run_table.c.run_id).where(queries.accepted_clause())))
    in_python = {s.run_id for s in store.list_runs() if s.accepted}
    assert in_python == in_sql
    expected = {
        ids["no-baseline", False], ids["pass", False],
        ids["no-baseline", True], ids["pass", True], ids["regression", True],
        ids["unjudged", True],
    }  # fmt: skip
    assert in_sql == expected
