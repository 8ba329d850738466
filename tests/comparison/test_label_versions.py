"""A history over several versions of the labels: each run names the version it was
scored on, a ranking sits beside its rescores, flips and never-hit questions are counted
within one version, and ``--label-version`` picks one (an unknown or ambiguous one is bad
input naming the versions there are)."""

from __future__ import annotations

import pytest
from support.factory import make_run, question_set

from retrieval_eval.comparison.history import build_history
from retrieval_eval.comparison.label_versions import select_labels, version_name
from retrieval_eval.errors import InputError
from retrieval_eval.regression.verdict import judge
from retrieval_eval.regression.verdict_records import Thresholds
from retrieval_eval.store.stored_run import StoredRun
from retrieval_eval.store.verdicts import verdict_document

OLD = question_set(3)
NEW = question_set(3, classes=[None, None, "near-duplicate"])  # grown: other labels


def stored(codes: str, minute: int, qs=OLD, rescored_from: str | None = None) -> StoredRun:
    run = make_run(codes, qs=qs, started=minute, run_id=f"r{minute}")
    source = None if rescored_from is None else (rescored_from, OLD.fingerprint)
    return StoredRun(run, verdict_document(judge(run, None, Thresholds())),
                     rescored_from=source)  # fmt: skip


def test_versions_and_each_ranking_beside_its_rescores():
    assert OLD.fingerprint != NEW.fingerprint
    runs = [stored("111", 0), stored("311", 1), stored("111", 2, NEW, rescored_from="r0"),
            stored("311", 3, NEW, rescored_from="r1"), stored("111", 4, NEW)]  # fmt: skip
    history = build_history("faq", "bm25", runs[::-1])
    old, new = version_name(OLD.fingerprint), version_name(NEW.fingerprint)
    assert [(v.name, v.runs, v.rescored) for v in history.label_versions] == [
        (old, 2, 0), (new, 3, 2)
    ]  # fmt: skip
    assert history.fingerprints == (OLD.fingerprint, NEW.fingerprint)
    rows = {r.source_run_id: {n: e.run_id for n, e in r.by_version.items()}
            for r in history.side_by_side}  # fmt: skip
    assert rows == {"r4": {new: "r4"}, "r1": {old: "r1", new: "r3"}, "r0": {old: "r0", new: "r2"}}
    assert [r.source_run_id for r in history.side_by_side] == ["r4", "r1", "r0"]
    assert history.entries[1].rescored_from == "r1"
    assert history.never_hit_labels == new


def test_a_rescore_of_a_rescore_joins_its_first_source():
    runs = [stored("111", 0), stored("111", 1, NEW, rescored_from="r0"),
            stored("111", 2, OLD, rescored_from="r1")]  # fmt: skip
    (row,) = build_history("faq", "bm25", runs).side_by_side
    assert row.source_run_id == "r0"
    assert {n: e.run_id for n, e in row.by_version.items()} == {
        version_name(OLD.fingerprint): "r2", version_name(NEW.fingerprint): "r1"
    }  # fmt: skip


def test_one_label_version_has_no_side_by_side():
    history = build_history("faq", "bm25", [stored("111", 0), stored("311", 1)])
    assert len(history.label_versions) == 1 and history.side_by_side == ()
    assert history.never_hit_labels == "" and history.flaky[0].labels == ""


def test_a_judgment_between_two_runs_is_not_a_flip():
    """q0 misses top-1 only on the new labels' first run: no flip across the change;
    on the new labels it then flips back, one flip, counted on those labels."""
    runs = [stored("111", 0), stored("311", 1, NEW), stored("111", 2, NEW)]
    history = build_history("faq", "bm25", runs)
    flips = {(f.question_id, f.k): (f.flips, f.labels) for f in history.flaky}
    assert flips == {("q0", 1): (1, version_name(NEW.fingerprint))}
    only_change = build_history("faq", "bm25", runs[:2])
    assert only_change.flaky == ()  # a hit that moved with a judgment is no flakiness


def test_select_labels_by_prefix_latest_and_all():
    runs = [stored("111", 0), stored("111", 1, NEW)]
    new_digits = NEW.fingerprint.split(":")[1]
    assert select_labels(runs, "all") == runs
    assert [s.run.run_id for s in select_labels(runs, "latest")] == ["r1"]
    assert [s.run.run_id for s in select_labels(runs, new_digits[:6].upper())] == ["r1"]
    assert [s.run.run_id for s in select_labels(runs, OLD.fingerprint)] == ["r0"]
    with pytest.raises(InputError, match="no run here was scored on those labels") as e:
        select_labels(runs, "zz")
    assert version_name(OLD.fingerprint) in str(e.value)
    assert select_labels([], "latest") == []


def test_an_ambiguous_prefix_names_the_versions():
    """17 label versions: two share a first hex digit (pigeonhole), which names both."""
    sets = [question_set(3, classes=[None, None, f"class-{i}"]) for i in range(17)]
    first: dict[str, int] = {}
    for i, qs in enumerate(sets):
        first.setdefault(qs.fingerprint.split(":")[1][0], i)
    digit, a = next((d, i) for d, i in first.items()
                    if sum(qs.fingerprint.split(":")[1][0] == d for qs in sets) > 1)  # fmt: skip
    b = next(i for i, qs in enumerate(sets) if i != a and qs.fingerprint.split(":")[1][0] == digit)
    runs = [stored("111", 0, sets[a]), stored("111", 1, sets[b])]
    with pytest.raises(InputError, match=f"--label-version '{digit}' names 2 label versions"):
        select_labels(runs, digit)
    with pytest.raises(InputError, match="no run here was scored on those labels"):
        select_labels(runs, "sha256:")  # no digits name nothing
