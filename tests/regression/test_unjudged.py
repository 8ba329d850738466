"""Losses classified by whether the documents now in the target's place were judged: a
planted before/after, the numbers the verdict line gives, and the gate's strictness."""

from __future__ import annotations

import dataclasses

from support.factory import outcome, run_of

from retrieval_eval.questions.model import GoldenQuestion
from retrieval_eval.records.outcome import Form
from retrieval_eval.regression.unjudged import classify_losses, incomparable
from retrieval_eval.regression.verdict import judge
from retrieval_eval.regression.verdict_records import Thresholds, VerdictKind

#: Each question: target t<i> (grade 2), n<i> judged not relevant (grade 0).
QUESTIONS = tuple(
    GoldenQuestion(f"q{i}", f"question {i}?", Form.MATCH, (f"t{i}",),
                   judgments=((f"t{i}", 2), (f"n{i}", 0)))
    for i in range(6)
)  # fmt: skip
GRADES = {q.id: q.grades for q in QUESTIONS}


def runs(candidate: dict[str, list[str]]):
    """(current, baseline): the baseline ranks every target first; ``candidate`` gives
    the current ranking of some questions (the others unchanged)."""
    base = [outcome(q.id, q.expected_document_ids, [f"t{i}", f"n{i}"])
            for i, q in enumerate(QUESTIONS)]  # fmt: skip
    now = [outcome(q.id, q.expected_document_ids, candidate.get(q.id, [f"t{i}", f"n{i}"]))
           for i, q in enumerate(QUESTIONS)]  # fmt: skip
    baseline = dataclasses.replace(run_of(base, started=0), run_id="base-1")
    return dataclasses.replace(run_of(now, started=10), run_id="cur-1"), baseline


PLANTED = {
    "q0": ["u0", "t0"],  # unjudged document where the target was
    "q1": ["u1", "n1", "t1"],  # unjudged first, judged-not-relevant second
    "q2": ["n2", "t2"],  # judged not relevant
    "q3": ["n3", "t3"],
}


def test_planted_verdict_names_exactly_the_unjudged_losses():
    current, baseline = runs(PLANTED)
    verdict = judge(current, baseline, Thresholds())
    assert verdict.kind is VerdictKind.REGRESSION  # strict: an unjudged loss is a loss
    losses = classify_losses(verdict.flips, GRADES, k=1)
    assert [loss.question_id for loss in losses.losses] == ["q0", "q1", "q2", "q3"]
    assert losses.question_ids == ("q0", "q1")
    (q1,) = [loss for loss in losses.losses if loss.question_id == "q1"]
    assert q1.unjudged_document_ids == ("u1",) and q1.not_relevant_document_ids == ()
    assert losses.net_loss == 4 and losses.turnable == 2
    assert not losses.all_unjudged
    assert not incomparable(losses, allow=True)
    line = losses.line("faq.yaml", ["cur-1"])
    assert line == (
        "unjudged: 2 of 4 losses at k=1 rest on unjudged documents; judging could turn "
        "around a net loss of at most 2: "
        "reval sets judge faq.yaml --pool-from cur-1 --depth 1"
    )


def test_top3_loss_counts_every_non_target_in_the_top_k():
    current, baseline = runs({"q0": ["n0", "u0", "v0", "t0"], "q2": ["n2", "x", "y"]})
    flips = judge(current, baseline, Thresholds()).flips
    losses = classify_losses(flips, GRADES, k=3)
    assert {loss.question_id: loss.unjudged_document_ids for loss in losses.losses} == {
        "q0": ("u0", "v0"), "q2": ("x", "y")
    }  # fmt: skip
    assert all(loss.not_relevant_document_ids == (f"n{loss.question_id[1]}",)
               for loss in losses.losses)  # fmt: skip


def test_every_loss_unjudged_may_be_incomparable_only_when_asked():
    current, baseline = runs({"q0": ["u0"], "q1": ["u1", "t1"]})
    verdict = judge(current, baseline, Thresholds())
    assert verdict.kind is VerdictKind.REGRESSION
    losses = classify_losses(verdict.flips, GRADES, k=1)
    assert losses.all_unjudged and losses.question_ids == ("q0", "q1")
    assert incomparable(losses, allow=True)
    assert not incomparable(losses, allow=False)


def test_no_option_turns_a_judged_loss_into_anything_but_a_loss():
    # every mixture holding at least one loss on judged documents
    for judged_loss in ("q2", "q3"):
        for unjudged in ({}, {"q0": ["u0"]}, {"q0": ["u0"], "q1": ["u1"]}):
            current, baseline = runs({**unjudged, judged_loss: [f"n{judged_loss[1]}"]})
            losses = classify_losses(judge(current, baseline, Thresholds()).flips, GRADES, 1)
            assert not losses.all_unjudged
            assert not incomparable(losses, allow=True)


def test_wins_net_against_losses():
    current, baseline = runs({"q0": ["u0"], "q1": ["u1"], "q2": ["n2"]})
    # a question the baseline missed and the current run finds
    baseline = dataclasses.replace(
        baseline,
        questions=(outcome("q5", ("t5",), ["n5"]), *baseline.questions[:5]),
    )
    losses = classify_losses(judge(current, baseline, Thresholds()).flips, GRADES, 1)
    assert losses.wins == 1 and losses.net_loss == 2 and losses.turnable == 2
    assert "judging could turn around a net loss of at most 2" in losses.line("s", ["r"])


def test_plain_labels_have_no_judged_not_relevant_documents():
    plain = {q.id: dict.fromkeys(q.expected_document_ids, 1) for q in QUESTIONS}
    current, baseline = runs({"q2": ["n2"]})
    losses = classify_losses(judge(current, baseline, Thresholds()).flips, plain, 1)
    assert losses.question_ids == ("q2",)
