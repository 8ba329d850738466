"""Losses classified by whether the documents now in the target's place were judged: a
planted before/after, the numbers the verdict line gives, and the gate's strictness
(``unjudged_incomparable`` never gives a pass, and a loss on judged documents keeps the
regression)."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st
from support.factory import outcome, run_of

from retrieval_eval.evaluation.latency import run_latency
from retrieval_eval.questions.model import GoldenQuestion, GoldenQuestionSet
from retrieval_eval.records.outcome import Form
from retrieval_eval.records.run import RunResult
from retrieval_eval.regression.stored import verdict_from_document
from retrieval_eval.regression.unjudged import (
    SetJudgments,
    classify_losses,
    unjudged_line,
)
from retrieval_eval.regression.verdict import judge
from retrieval_eval.regression.verdict_records import Thresholds, VerdictKind
from retrieval_eval.store.verdicts import verdict_document

#: Each question: target t<i> (grade 2), n<i> judged not relevant (grade 0).
QUESTIONS = tuple(
    GoldenQuestion(f"q{i}", f"question {i}?", Form.MATCH, (f"t{i}",),
                   judgments=((f"t{i}", 2), (f"n{i}", 0)))
    for i in range(6)
)  # fmt: skip
GRADES = {q.id: q.grades for q in QUESTIONS}
STRICT, ALLOW = Thresholds(), Thresholds(unjudged_incomparable=True)


def runs(candidate: dict[str, list[str]]) -> tuple[RunResult, RunResult]:
    """(current, baseline): the baseline ranks every target first; ``candidate`` gives
    the current ranking of some questions (the others unchanged)."""
    base = [outcome(q.id, q.expected_document_ids, [f"t{i}", f"n{i}"])
            for i, q in enumerate(QUESTIONS)]  # fmt: skip
    now = [outcome(q.id, q.expected_document_ids, candidate.get(q.id, [f"t{i}", f"n{i}"]))
           for i, q in enumerate(QUESTIONS)]  # fmt: skip
    baseline = dataclasses.replace(run_of(base, started=0), run_id="base-1")
    return dataclasses.replace(run_of(now, started=10), run_id="cur-1"), baseline


def labels(run: RunResult) -> SetJudgments:
    """The set's judgments, as ``reval eval`` carries them, for the labels ``run`` was
    scored on."""
    qs = GoldenQuestionSet("faq", QUESTIONS, source="faq.yaml")
    return dataclasses.replace(SetJudgments.of(qs), fingerprint=run.set_fingerprint)


PLANTED = {
    "q0": ["u0", "t0"],  # unjudged document where the target was
    "q1": ["u1", "n1", "t1"],  # unjudged first, judged-not-relevant second
    "q2": ["n2", "t2"],  # judged not relevant
    "q3": ["n3", "t3"],
}


def test_planted_verdict_names_exactly_the_unjudged_losses():
    current, baseline = runs(PLANTED)
    verdict = judge(current, baseline, STRICT, judged=labels(current))
    assert verdict.kind is VerdictKind.REGRESSION  # strict: an unjudged loss is a loss
    losses = classify_losses(verdict.flips, GRADES, k=1)
    assert [loss.question_id for loss in losses.losses] == ["q0", "q1", "q2", "q3"]
    (q1,) = [loss for loss in losses.losses if loss.question_id == "q1"]
    assert q1.unjudged_document_ids == ("u1",) and q1.not_relevant_document_ids == ()
    assert verdict.unjudged is not None and verdict.unjudged.question_ids == ("q0", "q1")
    (at1,) = verdict.unjudged.by_k  # every target stays in the top 3: no top-3 flip
    assert (at1.k, at1.losses, at1.wins, at1.net_loss, at1.turnable) == (1, 4, 0, 4, 2)
    assert unjudged_line(verdict, "cur-1") == (
        "unjudged: lost hits resting on unjudged documents: 2 of 4 at top-1; judging could "
        "turn around a net loss of at most 2 at top-1: reval sets judge faq.yaml --corpus "
        "FILE --pool-from cur-1 --pool-from base-1 --depth 1"
    )
    # with the option too: two losses are on judged documents
    assert judge(current, baseline, ALLOW, judged=labels(current)).kind is VerdictKind.REGRESSION


def test_top3_loss_counts_every_non_target_in_the_top_k():
    current, baseline = runs({"q0": ["n0", "u0", "v0", "t0"], "q2": ["n2", "x", "y"]})
    flips = judge(current, baseline, STRICT).flips
    losses = classify_losses(flips, GRADES, k=3)
    assert {loss.question_id: loss.unjudged_document_ids for loss in losses.losses} == {
        "q0": ("u0", "v0"), "q2": ("x", "y")
    }  # fmt: skip
    assert all(loss.not_relevant_document_ids == (f"n{loss.question_id[1]}",)
               for loss in losses.losses)  # fmt: skip


def test_every_loss_unjudged_is_incomparable_only_when_asked():
    current, baseline = runs({"q0": ["u0"], "q1": ["u1", "t1"]})
    strict = judge(current, baseline, STRICT, judged=labels(current))
    assert strict.kind is VerdictKind.REGRESSION and strict.fails()
    allowed = judge(current, baseline, ALLOW, judged=labels(current))
    assert allowed.kind is VerdictKind.INCOMPARABLE and allowed.fails()
    assert allowed.unjudged is not None and allowed.unjudged.decided
    assert allowed.unjudged.question_ids == ("q0", "q1")
    assert allowed.reasons[0].startswith("every lost hit rests on unjudged documents")
    # without the set's labels nothing is known, so nothing is softened
    assert judge(current, baseline, ALLOW).kind is VerdictKind.REGRESSION
    # labels of another fingerprint are not the ones the run was scored on
    other = dataclasses.replace(labels(current), fingerprint="sha256:other")
    assert judge(current, baseline, ALLOW, judged=other).kind is VerdictKind.REGRESSION


def test_the_stored_verdict_keeps_the_classification():
    current, baseline = runs(PLANTED)
    verdict = judge(current, baseline, ALLOW, judged=labels(current))
    assert verdict_from_document(verdict_document(verdict)) == verdict


def test_a_latency_regression_is_never_softened():
    current, baseline = runs({"q0": ["u0"]})
    late = [dataclasses.replace(q, latency_ms=900.0) for q in current.questions]
    slow = dataclasses.replace(current, questions=late, latency=run_latency(late))
    thresholds = Thresholds(max_top1_drop=0.5, max_p95_latency_increase_ms=10,
                            unjudged_incomparable=True)  # fmt: skip
    verdict = judge(slow, baseline, thresholds, judged=labels(slow))
    assert verdict.kind is VerdictKind.REGRESSION
    assert verdict.unjudged is not None and verdict.unjudged.question_ids == ("q0",)


def test_wins_net_against_losses():
    current, baseline = runs({"q0": ["u0"], "q1": ["u1"], "q2": ["n2"]})
    # a question the baseline missed and the current run finds
    baseline = dataclasses.replace(
        baseline,
        questions=(outcome("q5", ("t5",), ["n5"]), *baseline.questions[:5]),
    )
    verdict = judge(current, baseline, STRICT, judged=labels(current))
    at1 = next(at for at in verdict.unjudged.by_k if at.k == 1)  # type: ignore[union-attr]
    assert at1.wins == 1 and at1.net_loss == 2 and at1.turnable == 2
    assert "judging could turn around a net loss of at most 2 at top-1" in str(
        unjudged_line(verdict, None)
    )
    assert "--pool-from RUN --pool-from base-1" in str(unjudged_line(verdict, None))


def test_plain_labels_have_no_judged_not_relevant_documents():
    plain = GoldenQuestionSet("faq", tuple(dataclasses.replace(q, judgments=()) for q in QUESTIONS))
    assert SetJudgments.of(plain).not_relevant == {}
    current, baseline = runs({"q2": ["n2"]})
    judged = dataclasses.replace(SetJudgments.of(plain), fingerprint=current.set_fingerprint)
    verdict = judge(current, baseline, ALLOW, judged=judged)
    assert verdict.unjudged is not None and verdict.unjudged.question_ids == ("q2",)
    assert verdict.kind is VerdictKind.INCOMPARABLE


def test_no_loss_no_line():
    current, baseline = runs({})
    verdict = judge(current, baseline, ALLOW, judged=labels(current))
    assert verdict.kind is VerdictKind.PASS and unjudged_line(verdict, "cur-1") is None


#: What a question of the candidate may rank first: its target, a document judged not
#: relevant, or one nobody judged.
CHOICES = st.sampled_from(["target", "judged", "unjudged"])
#: Thresholds on both sides of one and of several questions' drop (of 6).
DROPS = (0.0, 0.1, 1 / 6, 0.2, 0.34, 0.5, 1.0)


@settings(max_examples=150, deadline=None)
@given(st.lists(CHOICES, min_size=6, max_size=6), st.booleans(), st.sampled_from(DROPS))
def test_no_option_turns_a_judged_loss_into_a_pass(choices, allow, max_drop):
    """Whatever the option and threshold: a candidate with a lost hit on judged
    documents is never PASS unless the thresholds allow the drop (then it is PASS with
    or without the option), and never INCOMPARABLE."""
    ranked = {"target": "t{}", "judged": "n{}", "unjudged": "u{}"}
    current, baseline = runs({f"q{i}": [ranked[c].format(i)] for i, c in enumerate(choices)})
    thresholds = Thresholds(max_top1_drop=max_drop, max_top3_drop=max_drop,
                            unjudged_incomparable=allow)  # fmt: skip
    verdict = judge(current, baseline, thresholds, judged=labels(current))
    strict = judge(current, baseline, dataclasses.replace(thresholds, unjudged_incomparable=False))
    assert strict.kind in (VerdictKind.PASS, VerdictKind.REGRESSION)
    if strict.kind is VerdictKind.REGRESSION:
        assert verdict.fails()  # the option never turns a failure into a pass
    else:
        assert verdict.kind is VerdictKind.PASS
    if "judged" in choices:
        assert verdict.kind is strict.kind  # a judged loss keeps the regression
    elif verdict.kind is VerdictKind.INCOMPARABLE:
        assert allow and "unjudged" in choices
