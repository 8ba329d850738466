"""Judgements: written back keeping the file's comments and layout, kept in the history,
never lost when two writers save at once; agreement is Cohen's kappa."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest
import yaml

from retrieval_eval.errors import InputError
from retrieval_eval.labelling.agreement import agreement, cohen_kappa
from retrieval_eval.labelling.judge import Judgement, save_judgement
from retrieval_eval.labelling.judge_name import default_judge
from retrieval_eval.questions.loading import load_question_set

DRAFT = """\
# Drafted for the support team; judge with reval sets judge.
reval_question_set: 1
name: support
pool: {depth: 2, retrievers: [a, b]}
questions:
  - id: q1   # from the inbox
    question: How do I restore a file?
    form: UNLABELLED
    expected_document_ids: []
    labelling:
      state: unjudged
      candidates:
        - {document_id: restore, found_by: {a: 1}, relevant: null}
        - {document_id: overview, found_by: {a: 2, b: 1}, relevant: null}

  # second question, kept apart
  - id: q2
    question: Can I back up to tape?
    form: UNLABELLED
    expected_document_ids: []
    labelling:
      state: unjudged
      candidates:
        - {document_id: storage, found_by: {b: 1}, relevant: null}
"""


@pytest.fixture
def draft(tmp_path: Path) -> Path:
    path = tmp_path / "draft.yaml"
    path.write_text(DRAFT)
    return path


def test_saving_keeps_comments_order_and_records_who_and_when(draft: Path) -> None:
    save_judgement(
        draft, Judgement("q1", frozenset({"restore"}), frozenset({"overview"}), judge="ana")
    )
    text = draft.read_text()
    for line in DRAFT.splitlines():
        if line.lstrip().startswith("#") or line.startswith("  - id:"):
            assert line in text
    assert text.index("id: q1") < text.index("id: q2")
    q1 = yaml.safe_load(text)["questions"][0]
    assert q1["expected_document_ids"] == ["restore"]
    labelling = q1["labelling"]
    assert labelling["state"] == "judged" and labelling["judged_by"] == "ana"
    (entry,) = labelling["history"]
    assert entry["relevant"] == ["restore"] and entry["not_relevant"] == ["overview"]
    assert entry["at"] == labelling["judged_at"]
    # q2 is untouched: byte for byte
    assert DRAFT[DRAFT.index("  # second question") :] in text


def test_judge_name_defaults_to_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REVAL_JUDGE", "carla")
    assert default_judge() == "carla"
    assert Judgement("q1").judge == "carla"


def test_unknown_candidates_and_empty_judge_are_refused(draft: Path) -> None:
    with pytest.raises(InputError, match=r"not candidates: \['nope'\]"):
        save_judgement(draft, Judgement("q1", frozenset({"nope"}), judge="ana"))
    with pytest.raises(InputError, match="no question 'q9'"):
        save_judgement(draft, Judgement("q9", judge="ana"))
    with pytest.raises(InputError, match="judge name"):
        save_judgement(draft, Judgement("q1", judge=" "))
    assert draft.read_text() == DRAFT


def _save_many(path: str, judge: str, rounds: int) -> None:
    for n in range(rounds):
        relevant = {"restore"} if (n + len(judge)) % 2 else {"overview"}
        save_judgement(Path(path), Judgement("q1", frozenset(relevant), judge=judge))
        save_judgement(Path(path), Judgement("q2", nothing_answers=True, judge=judge))


def test_two_writers_at_once_lose_no_judgement(draft: Path) -> None:
    # Spawned, not forked: the worker running this test may hold gRPC's threads from an
    # earlier test, and a child forked while another thread holds a lock can hang.
    context = multiprocessing.get_context("spawn")
    writers = [
        context.Process(target=_save_many, args=(str(draft), judge, 15)) for judge in ("ana", "ben")
    ]
    try:
        for w in writers:
            w.start()
        for w in writers:
            w.join(60)
            assert w.exitcode == 0
    finally:  # a writer that failed to finish is not left running
        for w in writers:
            if w.is_alive():
                w.kill()
                w.join()
    questions = yaml.safe_load(draft.read_text())["questions"]
    for q in questions:
        by = [e["by"] for e in q["labelling"]["history"]]
        assert sorted(by) == ["ana"] * 15 + ["ben"] * 15
    assert "# second question, kept apart" in draft.read_text()
    assert not list(draft.parent.glob(".draft.yaml.*"))  # no temporary file left


def test_a_save_reports_a_judgement_made_meanwhile(draft: Path) -> None:
    first = save_judgement(
        draft, Judgement("q2", nothing_answers=True, judge="ana"), seen_history=0
    )
    assert not first.concurrent
    second = save_judgement(
        draft, Judgement("q2", frozenset({"storage"}), judge="ben"), seen_history=0
    )
    assert second.concurrent
    assert len(yaml.safe_load(draft.read_text())["questions"][1]["labelling"]["history"]) == 2


def test_kappa_matches_the_worked_example() -> None:
    # Worked example (Wikipedia, "Cohen's kappa"): 50 proposals, readers A and B:
    # yes/yes 20, yes/no 5, no/yes 10, no/no 15 -> p_o 0.7, p_e 0.5, kappa 0.4.
    pairs = [(True, True)] * 20 + [(True, False)] * 5 + [(False, True)] * 10
    pairs += [(False, False)] * 15
    observed, expected, kappa = cohen_kappa(pairs)
    assert observed == pytest.approx(0.7) and expected == pytest.approx(0.5)
    assert kappa == pytest.approx(0.4)
    assert cohen_kappa([(True, True), (True, True)])[2] is None  # chance agreement is 1
    with pytest.raises(InputError, match="no decision"):
        cohen_kappa([])


def test_agreement_between_two_judges_of_a_file(draft: Path) -> None:
    save_judgement(
        draft, Judgement("q1", frozenset({"restore"}), frozenset({"overview"}), judge="ana")
    )
    save_judgement(draft, Judgement("q2", nothing_answers=True, judge="ana"))
    save_judgement(draft, Judgement("q1", frozenset({"restore", "overview"}), judge="ben"))
    result = agreement(draft)
    # items both decided: q1/restore (T,T), q1/overview (F,T); q2 only ana judged
    assert (result.judges, result.questions, result.items) == (("ana", "ben"), 1, 2)
    assert (result.both, result.first_only, result.second_only, result.neither) == (1, 0, 1, 0)
    assert result.observed == 0.5 and result.kappa == pytest.approx(0.0)
    with pytest.raises(InputError, match="no judgement by zoe"):
        agreement(draft, ["ana", "zoe"])


def test_a_judged_draft_loads_as_an_ordinary_set(draft: Path) -> None:
    save_judgement(
        draft, Judgement("q1", frozenset({"restore"}), frozenset({"overview"}), judge="ana")
    )
    save_judgement(draft, Judgement("q2", nothing_answers=True, judge="ana"))
    qs = load_question_set(draft)
    assert [(q.id, q.expected_document_ids) for q in qs.questions] == [
        ("q1", ("restore",)),
        ("q2", ()),
    ]


def test_drafts_and_judged_sets_match_the_published_schema(draft: Path) -> None:
    import jsonschema

    from retrieval_eval.questions.schema import question_set_schema

    schema = question_set_schema()
    jsonschema.validate(yaml.safe_load(draft.read_text()), schema)
    save_judgement(draft, Judgement("q1", frozenset({"restore"}), complete=True, judge="ana"))
    jsonschema.validate(yaml.safe_load(draft.read_text()), schema)
    broken = yaml.safe_load(draft.read_text())
    broken["questions"][0]["labelling"]["state"] = "done"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)


def test_a_persons_decision_replaces_a_models_label_and_keeps_its_grades(draft: Path) -> None:
    from retrieval_eval.labelling.llm.judge import record_grades

    model = "llm:tiny@sha256:abc"
    record_grades(draft, model, {("q1", "restore"): (1, "explains it")}, 1)
    text = draft.read_text().replace(
        "{document_id: restore, found_by: {a: 1}, relevant: null}",
        f'{{document_id: restore, found_by: {{a: 1}}, relevant: true, source: "{model}", '
        "reason: explains it}",
    )
    draft.write_text(text)
    save_judgement(draft, Judgement("q1", frozenset(), frozenset({"restore"}), judge="ana"))
    q1 = yaml.safe_load(draft.read_text())["questions"][0]
    restore, overview = q1["labelling"]["candidates"]
    assert (restore["relevant"], restore["source"]) == (False, "human:ana")
    assert "reason" not in restore  # the model's "why" went with its label...
    assert "source" not in overview  # ...and a candidate nobody decided keeps no source
    by_model = [e for e in q1["labelling"]["history"] if e["by"] == model]
    assert by_model[0]["grades"] == {"restore": 1}  # ...its grade stays in the history
    assert by_model[0]["reasons"] == {"restore": "explains it"}
    save_judgement(draft, Judgement("q1", frozenset({"overview"}), judge="human:ben"))
    overview = yaml.safe_load(draft.read_text())["questions"][0]["labelling"]["candidates"][1]
    assert overview["source"] == "human:ben"  # a name given with its prefix is kept as is
