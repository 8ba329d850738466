"""A run's Judged@k (``scoring.judged``): the mean equals ir-measures' ``Judged@k`` on a
seeded random run, each form's and hard class's figure equals a count made here from the
rankings, failed retrievals and empty answers are never counted, and a plain-label set
has no figure."""

from __future__ import annotations

import math
import random
from dataclasses import replace

import ir_measures
import pytest
from support.factory import outcome, run_of

from retrieval_eval.records.parameters import RunParameters
from retrieval_eval.records.run import RunResult
from retrieval_eval.scoring.judged import judged_at_k

FORMS = ("MATCH", "GAP", "UNLABELLED")
CLASSES = ("near-duplicate", "boilerplate", None)
POOL = [f"d{i}" for i in range(30)]


def seeded_run(seed: int, ks: tuple[int, ...] = (1, 3, 5)) -> RunResult:
    """40 questions: random rankings (chunk ids and duplicates included) from a pool of
    30 documents, random grades 0-3 on a random part of it; some fail, some come back
    empty."""
    rng = random.Random(seed)
    params = RunParameters(ks=ks, limit=max(ks) * 4, doc_id_separator="#")
    outcomes, judgments = [], {}
    for i in range(40):
        qid = f"q{i}"
        graded = rng.sample(POOL, rng.randint(1, 12))
        grades = {doc: rng.randint(0, 3) for doc in graded}
        expected = [doc for doc, grade in grades.items() if grade >= 1]
        judgments[qid] = tuple(sorted(grades.items()))
        form, hard_class = rng.choice(FORMS), rng.choice(CLASSES)
        roll = rng.random()
        if roll < 0.1:
            o = outcome(qid, expected, error="timeout", form=form, hard_class=hard_class,
                        parameters=params)  # fmt: skip
        else:
            size = 0 if roll < 0.15 else rng.randint(1, 9)
            ranking = [f"{rng.choice(POOL)}#{rng.randint(0, 2)}" for _ in range(size)]
            o = outcome(qid, expected, ranking, form=form, hard_class=hard_class,
                        parameters=params)  # fmt: skip
        outcomes.append(o)
    return replace(run_of(outcomes, parameters=params), judgments=judgments)


def ir_measures_judged(run: RunResult, k: int) -> dict[str, float]:
    """ir-measures' Judged@k per question, from the run's own rankings and judgments."""
    qrels = [
        ir_measures.Qrel(qid, doc, grade)
        for qid, grades in run.judgments.items()
        for doc, grade in grades
    ]
    scored = [
        ir_measures.ScoredDoc(q.question_id, doc, float(len(q.ranked_document_ids) - rank))
        for q in run.questions
        if q.error is None
        for rank, doc in enumerate(q.ranked_document_ids)
    ]
    measure = ir_measures.parse_measure(f"Judged@{k}")
    return {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, scored)}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_mean_is_ir_measures_judged_at_the_deepest_k(seed: int) -> None:
    run = seeded_run(seed)
    judged = judged_at_k(run)
    assert judged is not None and judged.k == 5 and judged.name == "Judged@5"
    theirs = ir_measures_judged(run, 5)
    answered = [q for q in run.questions if q.error is None and q.ranked_document_ids]
    counted = {q.question_id for q in answered}
    # ir-measures scores a judged question missing from the run (failed, or nothing came
    # back) 0; reval leaves it out, as ``measures`` does: that is the only difference
    assert counted < set(theirs) and all(theirs[q] == 0 for q in set(theirs) - counted)
    assert judged.overall.count == len(answered) < len(run.questions)
    expected = math.fsum(theirs[q] for q in counted) / len(counted)
    assert judged.overall.value == pytest.approx(expected, abs=1e-12)


def test_each_form_and_class_is_an_independent_count_of_the_rankings() -> None:
    run = seeded_run(7, ks=(1, 3))
    judged = judged_at_k(run)
    assert judged is not None and judged.k == 3
    for attr, groups in (("form", judged.by_form), ("hard_class", judged.by_hard_class)):
        names = {str(getattr(q, attr) or "unclassified") for q in run.questions}
        assert list(groups) == sorted(names)  # every group, failed-only ones included
        for name, share in groups.items():
            shares, missing = [], 0
            for q in run.questions:
                if str(getattr(q, attr) or "unclassified") != name or q.error is not None:
                    continue
                top = q.ranked_document_ids[:3]
                if not top:
                    continue
                grades = dict(run.judgments[q.question_id])
                known = [doc for doc in top if doc in grades]
                shares.append(len(known) / len(top))
                missing += len(top) - len(known)
            assert share.count == len(shares), (attr, name)
            assert share.unjudged == missing, (attr, name)
            if shares:
                assert share.value == pytest.approx(sum(shares) / len(shares), abs=1e-12)
            else:
                assert share.value is None


def test_failed_and_empty_answers_never_count_and_plain_sets_have_no_figure() -> None:
    outcomes = [
        outcome("hit", ["d1"], ["d1#0", "d2#0", "x#0", "y#0"], hard_class="normal"),
        outcome("empty", [], [], form="GAP"),
        outcome("failed", ["d1"], error="timeout", form="GAP"),
    ]
    plain = run_of(outcomes)
    assert judged_at_k(plain) is None  # no judgments recorded: nothing beyond expected ids
    graded = replace(plain, judgments={"hit": (("d1", 2), ("d2", 0))})
    judged = judged_at_k(graded)
    assert judged is not None
    assert (judged.overall.value, judged.overall.count, judged.overall.unjudged) == (
        pytest.approx(2 / 3), 1, 1,
    )  # fmt: skip
    gap = judged.by_form["GAP"]
    assert (gap.value, gap.count, gap.unjudged) == (None, 0, 0)
    assert judged.by_hard_class["normal"].value == pytest.approx(2 / 3)
