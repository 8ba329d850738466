"""A model's grades shown beside the candidates on the judging page (real chromium), and
what a person saves there: their decision, as ``source: human:<name>``, replacing a
model's label while the model's grades and reasons stay in the history."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from support.browser import debian_chromium, judging_server, open_guarded
from support.env import REPO_ROOT

from retrieval_eval.labelling.llm.judge import record_grades

REVAL = Path(sys.executable).parent / "reval"
CORPUS = REPO_ROOT / "src" / "retrieval_eval" / "example_data" / "corpus.jsonl"
MODEL = "llm:tiny@sha256:0123456789ab"

#: q1 waits for a person; q2's labels were a model's (accepted), one of which a person
#: will overturn.
DRAFT = f"""\
reval_question_set: 1
name: advised
pool: {{depth: 3, retrievers: [bm25]}}
questions:
  - id: q1
    question: How do I install the Larkspur agent on Fedora?
    form: UNLABELLED
    expected_document_ids: []
    labelling:
      state: unjudged
      candidates:
        - {{document_id: install-linux, found_by: {{bm25: 1}}, relevant: null}}
        - {{document_id: install-macos, found_by: {{bm25: 2}}, relevant: null}}
        - {{document_id: overview, found_by: {{bm25: 3}}, relevant: null}}
  - id: q2
    question: If I put an old copy of a file back, is my current file lost?
    form: UNLABELLED
    expected_document_ids: [restore-files]
    labelling:
      state: judged
      nothing_answers: false
      judged_by: "{MODEL}"
      candidates:
        - {{document_id: restore-files, found_by: {{bm25: 1}}, relevant: true,
            source: "{MODEL}", reason: explains restoring}}
        - {{document_id: release-3-1, found_by: {{bm25: 2}}, relevant: false,
            source: "{MODEL}", reason: release notes only}}
"""

GRADES = {
    ("q1", "install-linux"): (1, "covers Fedora's package"),
    ("q1", "install-macos"): (0, "about macOS only"),
    ("q2", "restore-files"): (1, "explains restoring"),
    ("q2", "release-3-1"): (0, "release notes only"),
}


@pytest.fixture
def judging(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A draft the model graded (its real history entry), judged by ana in the page."""
    draft = tmp_path / "advised.yaml"
    draft.write_text(DRAFT)
    record_grades(draft, MODEL, GRADES, relevance_level=1)
    with judging_server(draft, CORPUS, "ana") as url:
        yield url, draft


@pytest.fixture(scope="module")
def chromium() -> Iterator[object]:
    with debian_chromium() as browser:
        yield browser


def _advice(page: object, doc: str) -> str:
    found = page.locator(f"#j-candidates li[data-doc='{doc}'] .model-advice")  # type: ignore[attr-defined]
    return str(found.text_content()) if found.count() else ""


def test_the_models_suggestion_is_shown_and_a_persons_decision_replaces_it(
    judging: tuple[str, Path], chromium: object
) -> None:
    url, draft = judging
    page, guard = open_guarded(chromium, url)
    page.wait_for_selector("html[data-judge-ready]")  # type: ignore[attr-defined]
    assert page.get_attribute("html", "data-question") == "q1"  # type: ignore[attr-defined]
    linux = _advice(page, "install-linux")
    assert "model suggests grade 1 (relevant): covers Fedora's package" in linux
    assert MODEL in linux
    assert "grade 0 (not relevant): about macOS only" in _advice(page, "install-macos")
    assert _advice(page, "overview") == ""  # the model never graded it
    assert page.locator("#j-candidates li.unmarked").count() == 3  # type: ignore[attr-defined]

    page.keyboard.press("1")  # type: ignore[attr-defined]  # ana agrees on install-linux
    page.keyboard.press("Enter")  # type: ignore[attr-defined]
    page.wait_for_selector("html[data-saved='1']")  # type: ignore[attr-defined]
    page.keyboard.press("k")  # type: ignore[attr-defined]
    assert "decided by human:ana" in _advice(page, "install-linux")
    page.keyboard.press("j")  # type: ignore[attr-defined]
    assert page.get_attribute("html", "data-question") == "q2"  # type: ignore[attr-defined]
    assert f"decided by {MODEL}" in _advice(page, "release-3-1")
    page.keyboard.press("2")  # type: ignore[attr-defined]  # ana overturns the model
    page.keyboard.press("Enter")  # type: ignore[attr-defined]
    page.wait_for_selector("html[data-saved='2']")  # type: ignore[attr-defined]
    page.context.close()  # type: ignore[attr-defined]
    assert guard.errors == [] and guard.blocked == []

    q1, q2 = yaml.safe_load(draft.read_text())["questions"]
    decided = {
        c["document_id"]: (c["relevant"], c["source"]) for c in q1["labelling"]["candidates"]
    }
    assert decided == {
        "install-linux": (True, "human:ana"),
        "install-macos": (False, "human:ana"),
        "overview": (False, "human:ana"),
    }  # fmt: skip
    assert q1["expected_document_ids"] == ["install-linux"]
    assert q2["expected_document_ids"] == ["restore-files", "release-3-1"]
    assert q2["judgments"] == {"restore-files": 1, "release-3-1": 1}
    for candidate in q2["labelling"]["candidates"]:  # the label and its "why" are ana's now
        assert candidate["source"] == "human:ana" and "reason" not in candidate
    assert q2["labelling"]["judged_by"] == "ana"
    model_entries = [e for e in q2["labelling"]["history"] if e["by"] == MODEL]
    assert model_entries[0]["grades"] == {"release-3-1": 0, "restore-files": 1}
    assert model_entries[0]["reasons"]["release-3-1"] == "release notes only"
    checked = subprocess.run(
        [str(REVAL), "sets", "validate", str(draft)], capture_output=True, text=True, timeout=60
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
