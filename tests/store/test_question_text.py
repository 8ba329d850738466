"""Each question's text is stored with its outcome."""

from __future__ import annotations

from support.factory import make_run


def test_question_texts_round_trip(store):
    run = make_run("130")
    assert [q.question_text for q in run.questions] == [f"question number {i}?" for i in range(3)]
    assert store.get(store.save(run)).questions == run.questions
