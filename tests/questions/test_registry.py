"""Sets from real installed entry points: the example provider and the test providers."""

from __future__ import annotations

from importlib.metadata import entry_points

import pytest
from support.env import require

from retrieval_eval.errors import InputError, PluginError, QuestionSetError, UnknownNameError
from retrieval_eval.questions.loading import load_question_set, load_question_sets
from retrieval_eval.questions.registry import QuestionSetRegistry
from retrieval_eval.records.outcome import Form

EXAMPLE_SETS = ["example-faq", "example-gaps", "example-inline"]


@pytest.fixture(autouse=True)
def _example_installed() -> None:
    names = {ep.name for ep in entry_points(group="retrieval_eval.question_sets")}
    require("example" in names, "the example question-set provider is not installed: "
            "pip install -e examples/question-set-provider (as .ci/run does)")  # fmt: skip


def test_the_example_provider_lists_and_loads_its_sets() -> None:
    registry = QuestionSetRegistry()
    sets, failures = registry.list_sets()
    assert failures == []
    assert [(s.name, s.provider) for s in sets] == [(n, "example") for n in EXAMPLE_SETS]
    assert sets[0].source == "reval-ir-example-provider, reval_example_provider:ExampleSets"
    faq = load_question_set("example-faq")
    assert faq.name == "example-faq" and len(faq) == 4
    assert faq.source.startswith("example:example-faq (reval-ir-example-provider")
    assert [q.form for q in faq.questions] == [Form.MATCH, Form.GAP, Form.MATCH, Form.GAP]
    assert faq.questions[1].expected_document_ids == ("account-password", "account-recovery")
    assert faq.questions[3].expects_nothing
    inline = load_question_set("example:example-inline")  # PROVIDER:SET
    assert [q.id for q in inline.questions] == ["i1", "i2", "i3"]


def test_a_provider_name_yields_all_its_sets() -> None:
    assert [s.name for s in load_question_sets("example")] == EXAMPLE_SETS
    assert [s.name for s in load_question_sets("example-gaps")] == ["example-gaps"]


def test_unknown_names_get_suggestions() -> None:
    with pytest.raises(UnknownNameError) as caught:
        load_question_set("exmple-faq")
    assert str(caught.value) == "unknown question set 'exmple-faq'; did you mean 'example-faq'?"
    with pytest.raises(UnknownNameError, match=r"did you mean 'example:example-gaps'"):
        load_question_set("example:example-gap")
    with pytest.raises(UnknownNameError) as caught:
        load_question_set("zzzz")
    assert caught.value.suggestions == []


@pytest.mark.usefixtures("test_providers")
def test_broken_providers_are_named_with_their_error() -> None:
    registry = QuestionSetRegistry()
    sets, failures = registry.list_sets()
    offered = {(s.provider, s.name) for s in sets}
    assert {("test-twin", "twin-only"), ("test-factory", "factory-set")} <= offered
    messages = [str(f) for f in failures]  # in provider-name order
    assert len(messages) == 3
    assert messages[0].startswith(
        "question-set provider plugin 'test-broken-import' in retrieval_eval.question_sets "
        "failed to load: "
    )
    assert (
        "ModuleNotFoundError" in messages[0] and "reval_test_set_providers_missing" in messages[0]
    )
    assert messages[1] == (
        "question-set provider 'test-broken-list' (reval-test-set-providers, "
        "reval_test_set_providers:ListFails) failed to list its sets: "
        "ConnectionError: label service unreachable"
    )
    assert "test-not-a-provider" in messages[2]
    assert "does not implement list_sets() and load_set(name)" in messages[2]
    with pytest.raises(
        PluginError,
        match=r"'test-broken-load' .* failed to load set 'load-fails': "
        r"TimeoutError: label service timed out",
    ):
        load_question_set("load-fails")


@pytest.mark.usefixtures("test_providers")
def test_provider_data_is_validated_like_a_file() -> None:
    with pytest.raises(QuestionSetError) as caught:
        load_question_set("bad-data")
    assert caught.value.problems == [
        "test-bad-data:bad-data: question 'b1': empty 'question' text",
        "test-bad-data:bad-data: question 'b2': unknown form 'maybe'; "
        "expected MATCH, GAP, UNLABELLED (any case)",
    ]


@pytest.mark.usefixtures("test_providers")
def test_same_set_name_in_two_providers_must_be_qualified() -> None:
    with pytest.raises(
        InputError,
        match=r"offered by several providers; name one: "
        r"example:example-faq, test-twin:example-faq",
    ):
        load_question_set("example-faq")
    assert load_question_set("example:example-faq").questions[0].id == "faq-1"
    twin = load_question_set("test-twin:example-faq")
    assert twin.name == "example-faq"  # the registered name wins over the object's own
    assert load_question_set("factory-set").questions[0].form is Form.UNLABELLED


@pytest.mark.usefixtures("test_providers")
def test_an_unknown_name_with_broken_providers_says_so() -> None:
    with pytest.raises(
        PluginError,
        match=r"unknown question set 'nothing-like-it', and some "
        r"providers failed: .*test-broken-list",
    ):
        load_question_set("nothing-like-it")


def test_files_win_over_names(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "example-faq").write_text("not a set file: no suffix")
    with pytest.raises(QuestionSetError, match="unknown set file type"):
        load_question_set("example-faq")


@pytest.mark.usefixtures("test_providers")
def test_a_provider_returning_something_else_is_named() -> None:
    with pytest.raises(PluginError) as caught:
        load_question_set("wrong-type")
    assert (
        str(caught.value) == "question-set provider 'test-wrong-type' returned int for 'wrong-type'"
    )
