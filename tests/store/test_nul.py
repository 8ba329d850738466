"""A NUL character (U+0000) in a run's text: PostgreSQL text columns refuse it, so the
store refuses it first, with the same clear error on both backends, before any write."""

from __future__ import annotations

import dataclasses

import pytest
from support.factory import make_run

from retrieval_eval.errors import InputError
from retrieval_eval.records.run import RetrieverDescription


def test_nul_in_retrieved_ids_and_error_messages_round_trips(store):
    run = make_run("1E")
    first, failed = run.questions
    first = dataclasses.replace(first, raw_ids=("doc\x00#0", *first.raw_ids))
    assert failed.error is not None
    error = dataclasses.replace(failed.error, message="server said \x00 here")
    failed = dataclasses.replace(failed, error=error)
    run = dataclasses.replace(run, questions=(first, failed))
    loaded = store.get(store.save(run))
    assert loaded.questions[0].raw_ids[0] == "doc\x00#0"
    assert loaded.questions[1].error.message == "server said \\x00 here"


@pytest.mark.parametrize(
    ("change", "culprit"),
    [
        (lambda r: dataclasses.replace(r, set_name="faq\x00"), "set name"),
        (
            lambda r: dataclasses.replace(
                r, questions=(dataclasses.replace(r.questions[0], question_id="q\x00"),)
            ),
            "question id",
        ),
        (
            lambda r: dataclasses.replace(
                r, questions=(dataclasses.replace(r.questions[0], hard_class="x\x00"),)
            ),
            "hard class",
        ),
        (
            lambda r: dataclasses.replace(r, retriever=RetrieverDescription("bm\x0025")),
            "retriever identifier",
        ),
        (lambda r: dataclasses.replace(r, labels={"k": "v\x00"}), "label"),
    ],
)
def test_nul_in_a_stored_text_is_a_clear_input_error_on_both_backends(store, change, culprit):
    run = change(make_run("1"))
    with pytest.raises(InputError, match=f"{culprit} .*NUL") as caught:
        store.save(run)
    assert "\x00" not in str(caught.value)
    assert store.list_runs() == []
