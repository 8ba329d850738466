"""Two first runs of a new lineage at once, on a real SQLite file and on PostgreSQL: both
find no baseline, then both save at the same moment. Exactly one is accepted as the
lineage's first run; the other is judged against it (never a second silent baseline)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from support.factory import make_run, question_set

from retrieval_eval.records.outcome import Form
from retrieval_eval.regression.record import judge_and_save
from retrieval_eval.regression.verdict_records import VerdictKind
from retrieval_eval.store.store import RunStore
from retrieval_eval.store.stored_run import HowAccepted

QS = question_set(10, forms=[Form.MATCH] * 10)
GOOD, DROPPED = "1111111111", "1111100000"


class _SavesTogether(RunStore):
    """A real store whose first ``save`` waits until every writer has judged its run and
    reached its own first save: the two transactions then race for real."""

    barrier: threading.Barrier

    def save(self, run, verdict=None, accepted=None):  # type: ignore[no-untyped-def]
        if not getattr(self, "_waited", False):
            self._waited = True
            self.barrier.wait(timeout=60)
        return super().save(run, verdict, accepted)


def _open(url: str, barrier: threading.Barrier) -> _SavesTogether:
    plain = RunStore.open(url)
    store = _SavesTogether(plain._engine, plain._url, plain._lock_timeout_s)
    store.barrier = barrier
    return store


def test_two_first_runs_at_once_never_both_become_baselines(store_url):
    RunStore.open(store_url).close()  # the schema exists before the race
    barrier = threading.Barrier(2)
    runs = [make_run(GOOD, qs=QS, started=0), make_run(DROPPED, qs=QS, started=0)]

    def first_run(run):
        store = _open(store_url, barrier)
        try:
            return judge_and_save(run, store=store).reports[0]
        finally:
            store.close()

    with ThreadPoolExecutor(2) as pool:
        reports = list(pool.map(first_run, runs))
    firsts = [r for r in reports if r.accepted and r.accepted.how is HowAccepted.FIRST_RUN]
    assert len(firsts) == 1
    (winner,) = firsts
    (later,) = [r for r in reports if r is not winner]
    assert later.verdict.baseline_run_id == winner.run.run_id
    assert any(f"another first run of this lineage, {winner.run.run_id}" in w
               for w in later.verdict.warnings)  # fmt: skip
    if later.run.metrics.values["top1_hit_rate"] < winner.run.metrics.values["top1_hit_rate"]:
        assert later.verdict.kind is VerdictKind.REGRESSION and later.accepted is None
    else:  # the good run judged against the regressed first one: a pass, accepted as such
        assert later.verdict.kind is VerdictKind.PASS
        assert later.accepted.how is HowAccepted.JUDGED_PASS
        assert later.accepted.baseline == winner.run.run_id
    with RunStore.open(store_url) as store:
        stored = {s.run_id: s for s in store.list_runs(limit=None)}
        assert len(stored) == 2
        hows = [s.how_accepted.how for s in stored.values() if s.how_accepted]
        assert hows.count(HowAccepted.FIRST_RUN) == 1
        # The next run of the lineage is judged against a baseline both writers agree on.
        assert store.find_baseline(make_run(GOOD, qs=QS, started=1)) is not None
