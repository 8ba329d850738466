"""A set × retriever over time: entries newest first with stored verdicts and pins,
flaky questions counted between consecutive answered runs, questions never hit."""

from __future__ import annotations

from support.factory import make_run, question_set

from retrieval_eval.comparison.history import build_history
from retrieval_eval.regression.verdict import judge
from retrieval_eval.regression.verdict_records import Thresholds, VerdictKind
from retrieval_eval.store.stored_run import StoredRun
from retrieval_eval.store.verdicts import verdict_document

QS = question_set(5)


def stored(codes: str, minute: int, pinned: bool = False) -> StoredRun:
    run = make_run(codes, qs=QS, started=minute, run_id=f"r{minute}")
    return StoredRun(run, verdict_document(judge(run, None, Thresholds())), pinned)


def test_history_entries_flaky_and_never_hit():
    runs = [stored("13100", 0, pinned=True), stored("1E000", 1), stored("11100", 2),
            stored("31100", 3)]  # fmt: skip
    history = build_history("faq", "bm25", list(reversed(runs)))
    assert [e.run_id for e in history.entries] == ["r3", "r2", "r1", "r0"]
    newest = history.entries[0]
    assert newest.top1 is not None and (newest.top1.successes, newest.top1.count) == (2, 5)
    assert newest.verdict is not None and newest.verdict.kind is VerdictKind.NO_BASELINE
    assert [e.pinned for e in history.entries] == [False, False, False, True]
    assert history.entries[2].errors == 1
    assert newest.variant == "bm25 1.0 · grpc://127.0.0.1:504"
    flaky = {(f.question_id, f.k): f for f in history.flaky}
    # q1 at top-1: miss (r0), error (r1, skipped), hit (r2), hit (r3) -> one flip
    assert (flaky[("q1", 1)].flips, flaky[("q1", 1)].answered) == (1, 3)
    # q2 at top-1: hit, miss, hit, hit -> two flips; q0: hit, hit, hit, miss(top-1) -> one
    assert flaky[("q2", 1)].flips == 2 and flaky[("q0", 1)].flips == 1
    assert history.flaky[0].question_id == "q2"
    assert ("q1", 3) not in flaky  # a top-3 hit in every run that answered it
    assert history.never_hit == ("q3", "q4")
    assert history.fingerprints == (QS.fingerprint,)
