"""``sets agreement --reference``: one set file's labels (or a model's grades in its
history) against another set file's labels, on what both judged; kappa checked by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import run_reval

from retrieval_eval.errors import InputError
from retrieval_eval.labelling.label_grades import agreement_with_reference, label_grades
from retrieval_eval.labelling.llm.judge import record_grades

MODEL = "llm:tiny@sha256:abc"

#: A draft: q1 judged by a person via the page (candidates decided), q2 judged with
#: graded labels, q3 still a draft (never a label).
DRAFT = """\
reval_question_set: 1
name: model-set
grade_scale: [0, 2]
questions:
  - id: q1
    question: How do I restore a file?
    expected_document_ids: [restore]
    labelling:
      state: judged
      candidates:
        - {document_id: restore, relevant: true, source: "llm:tiny@sha256:abc"}
        - {document_id: overview, relevant: false, source: "llm:tiny@sha256:abc"}
        - {document_id: storage, relevant: false}
  - id: q2
    question: Can I back up to tape?
    expected_document_ids: [tape]
    judgments: {tape: 2, storage: 1, pricing: 0}
  - id: q3
    question: Where are my invoices?
    expected_document_ids: []
    labelling:
      state: unjudged
      candidates:
        - {document_id: billing, relevant: null}
"""

#: A person's labels, as JSON: q1 agrees on restore, disagrees on storage; q2 disagrees
#: on pricing; q3 is judged here only; q4 is in no other file.
HUMAN = {
    "reval_question_set": 1,
    "name": "people",
    "questions": [
        {"id": "q1", "question": "How do I restore a file?",
         "judgments": {"restore": 1, "overview": 0, "storage": 1}},
        {"id": "q2", "question": "Can I back up to tape?",
         "judgments": {"tape": 1, "storage": 1, "pricing": 1}},
        {"id": "q3", "question": "Where are my invoices?",
         "expected_document_ids": ["billing"]},
        {"id": "q4", "question": "What is new?", "expected_document_ids": ["news"]},
    ],
}  # fmt: skip


#: The six shared items as "relevant?" pairs (model file, people).
SHARED = [(True, True), (False, False), (False, True), (True, True), (True, True), (False, True)]


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    draft, human = tmp_path / "model.yaml", tmp_path / "people.json"
    draft.write_text(DRAFT)
    human.write_text(json.dumps(HUMAN))
    return draft, human


def _kappa(pairs: list[tuple[bool, bool]]) -> float:
    """Cohen's kappa written out from the 2x2 table (an independent formula)."""
    n = len(pairs)
    a = sum(x and y for x, y in pairs)
    d = sum(not x and not y for x, y in pairs)
    yes1, yes2 = sum(x for x, _ in pairs), sum(y for _, y in pairs)
    po = (a + d) / n
    pe = (yes1 * yes2 + (n - yes1) * (n - yes2)) / n**2
    return (po - pe) / (1 - pe)


def test_a_sets_labels_read_as_grades_drafts_left_out(files: tuple[Path, Path]) -> None:
    draft, human = files
    assert label_grades(draft) == {
        ("q1", "restore"): 1, ("q1", "overview"): 0, ("q1", "storage"): 0,
        ("q2", "tape"): 2, ("q2", "storage"): 1, ("q2", "pricing"): 0,
    }  # fmt: skip
    assert label_grades(human)[("q3", "billing")] == 1
    assert ("q3", "billing") not in label_grades(draft)


def test_labels_against_a_reference_on_what_both_judged(files: tuple[Path, Path]) -> None:
    draft, human = files
    result = agreement_with_reference(draft, human)
    # shared: q1 restore (1,1) overview (0,0) storage (0,1); q2 tape (2,1) storage (1,1)
    # pricing (0,1): six items on two questions
    assert result.judges == ("model.yaml labels", "people.json labels")
    assert (result.questions, result.items) == (2, 6)
    assert (result.both, result.first_only, result.second_only, result.neither) == (3, 0, 2, 1)
    assert result.kappa == pytest.approx(_kappa(SHARED))
    assert [t.threshold for t in result.thresholds] == [1, 2]
    assert dict(result.confusion)[(2, 1)] == 1


def test_a_models_grades_in_the_history_against_a_reference(files: tuple[Path, Path]) -> None:
    draft, human = files
    record_grades(draft, MODEL, {("q3", "billing"): (1, "lists invoices")}, 1)
    result = agreement_with_reference(draft, human, MODEL)
    assert (result.judges[0], result.items, result.both) == (MODEL, 1, 1)
    with pytest.raises(InputError, match="no judgement by llm:other"):
        agreement_with_reference(draft, human, "llm:other")


def test_the_command_reports_and_refuses_what_it_cannot_compare(
    files: tuple[Path, Path], tmp_path: Path
) -> None:
    draft, human = files
    done = run_reval("sets", "agreement", draft, "--reference", human)
    assert done.returncode == 0, done.stderr
    assert "judges: model.yaml labels and people.json labels" in done.stdout
    assert "decisions compared: 6" in done.stdout
    assert f"Cohen's kappa: {_kappa(SHARED):.3f}" in done.stdout
    assert "more shared decisions" in done.stdout
    elsewhere = tmp_path / "other.json"
    elsewhere.write_text(json.dumps({**HUMAN, "questions": HUMAN["questions"][3:]}))
    refused = run_reval("sets", "agreement", draft, "--reference", elsewhere)
    assert refused.returncode == 2
    assert "nothing to compare" in refused.stderr and len(refused.stderr.splitlines()) == 1
    both = run_reval("sets", "agreement", draft, "--reference", human, "--accept")
    assert both.returncode == 2 and "--reference" in both.stderr
