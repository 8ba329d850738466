"""End to end: draft from two BM25 chunkings with ``reval sets draft``, judge every
question in real headless chromium through ``reval sets judge`` with the keyboard only,
then the saved file validates and evaluates like a hand-written set."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from support.browser import Guard, debian_chromium, judging_server, open_guarded
from support.env import REPO_ROOT
from support.tools import load_tool

TOOL = load_tool("screenshots")

REVAL = Path(sys.executable).parent / "reval"
CORPUS = REPO_ROOT / "src" / "retrieval_eval" / "example_data" / "corpus.jsonl"
#: The example set's questions and labels: the "truth" the judge follows.
TRUTH = {
    "How do I install the Larkspur agent on Fedora?": ["install-linux"],
    "Which release added support for Backblaze B2?": ["release-3-2"],
    "If I put an old copy of a file back where it was, is my current file lost?": [
        "restore-files",
        "release-3-1",
    ],
    "Can Larkspur write backups to LTO tape drives?": [],
}


def reval(*args: str | Path, check: int = 0) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "CI": "1"}
    done = subprocess.run(
        [str(REVAL), *map(str, args)], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == check, done.stdout + done.stderr
    return done


@pytest.fixture(scope="module")
def drafted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """A draft of the TRUTH questions pooled from pages and 30-word chunks (depth 5),
    with a comment of the labeller's own at the top."""
    work = tmp_path_factory.mktemp("judging")
    reval("bm25", "index", CORPUS, "--out", work / "pages")
    reval("bm25", "index", CORPUS, "--out", work / "chunks", "--chunk-words", "30")
    questions = work / "questions.txt"
    questions.write_text("\n".join(TRUTH) + "\n")
    draft = work / "draft.yaml"
    specs = [f"bm25:{work / 'pages'}", f"bm25:{work / 'chunks'}"]
    reval(
        "sets",
        "draft",
        questions,
        "--corpus",
        CORPUS,
        "--retriever",
        specs[0],
        "--retriever",
        specs[1],
        "--depth",
        "5",
        "--out",
        draft,
    )
    draft.write_text("# Larkspur support questions, pooled for judging.\n" + draft.read_text())
    refused = reval("sets", "validate", draft, check=2)
    assert "4 questions are not judged yet (q001, q002, q003, q004)" in refused.stdout
    (work / "pristine.yaml").write_text(draft.read_text())  # for the mouse's own judging
    return draft, specs


@pytest.fixture(scope="module")
def judge_url(drafted: tuple[Path, list[str]]) -> Iterator[str]:
    """``reval sets judge`` as a user starts it: the first line it prints is the URL."""
    draft, _ = drafted
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    server = subprocess.Popen(
        [str(REVAL), "sets", "judge", str(draft), "--corpus", str(CORPUS), "--judge", "ana"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/judge/draft"), url
        yield url
    finally:
        server.terminate()
        server.wait(20)


@pytest.fixture(scope="module")
def chromium(judge_url: str) -> Iterator[object]:
    with debian_chromium() as browser:
        yield browser


def open_page(browser: object, url: str) -> tuple[object, Guard]:
    page, guard = open_guarded(browser, url)
    page.wait_for_selector("html[data-judge-ready]")  # type: ignore[attr-defined]
    return page, guard


def test_judge_with_the_keyboard_then_validate_and_evaluate(
    drafted: tuple[Path, list[str]], judge_url: str, chromium: object
) -> None:
    draft, specs = drafted
    page, guard = open_page(chromium, judge_url)
    pooled = yaml.safe_load(draft.read_text())["questions"]
    for saved, (question, truth) in enumerate(zip(pooled, TRUTH.values(), strict=True), 1):
        assert page.get_attribute("html", "data-question") == question["id"]
        docs = [c["document_id"] for c in question["labelling"]["candidates"]]
        assert set(truth) <= set(docs), f"{question['id']}: the pool misses {truth}"
        assert page.locator("#j-candidates li").count() == len(docs)
        # the best passage is highlighted inside the document text
        assert page.locator("#j-candidates li").first.locator("mark").count() == 1
        for doc in truth:
            page.keyboard.press(str(docs.index(doc) + 1))
        if not truth:
            page.keyboard.press("0")
        page.keyboard.press("m" if saved % 2 else "g")
        page.keyboard.press("c")
        page.keyboard.type("near-duplicate" if len(truth) > 1 else "normal")
        page.keyboard.press("Enter")  # leaves the field
        marked = page.locator("#j-candidates li.relevant").count()
        assert marked == len(truth)
        page.keyboard.press("Enter")  # saves and moves on
        page.wait_for_selector(f"html[data-saved='{saved}']")
    assert page.get_attribute("#j-progress", "data-judged") == "4"
    page.keyboard.press("k")
    assert page.get_attribute("html", "data-question") == "q003"
    assert guard.errors == [] and guard.blocked == []
    page.context.close()  # type: ignore[attr-defined]

    text = draft.read_text()
    assert text.startswith("# Larkspur support questions, pooled for judging.\n")
    judged = yaml.safe_load(text)["questions"]
    assert [q["expected_document_ids"] for q in judged] == [
        [d for c in q["labelling"]["candidates"] if (d := c["document_id"]) in truth]
        for q, truth in zip(judged, TRUTH.values(), strict=True)
    ]
    assert [q["form"] for q in judged] == ["MATCH", "GAP", "MATCH", "GAP"]
    assert [q["labelling"]["judged_by"] for q in judged] == ["ana"] * 4
    assert judged[3]["labelling"]["nothing_answers"] is True
    assert judged[2]["hard_class"] == "near-duplicate"

    assert "ok: set 'draft', 4 questions" in reval("sets", "validate", draft).stdout
    reval("sets", "lint", draft, "--corpus", CORPUS, "--no-runs")  # reads it: exit 0
    report = json.loads(reval("eval", "--set", draft, specs[0], "--format", "json").stdout)
    (run,) = report["runs"]
    outcomes = {q["id"]: q for q in run["questions"]}
    assert set(outcomes) == {"q001", "q002", "q003", "q004"}
    assert outcomes["q004"]["expected_document_ids"] == []
    assert outcomes["q001"]["expected_document_ids"] == ["install-linux"]


def test_two_tabs_saving_the_same_question_lose_nothing(
    drafted: tuple[Path, list[str]], judge_url: str, chromium: object
) -> None:
    draft, _ = drafted
    first, first_guard = open_page(chromium, judge_url)
    second, second_guard = open_page(chromium, judge_url)
    question = first.get_attribute("html", "data-question")
    assert second.get_attribute("html", "data-question") == question
    before = len(_history(draft, question))
    for tab, key in ((first, "1"), (second, "2")):
        tab.keyboard.press(key)  # each tab marks a different candidate relevant...
    for tab in (first, second):  # ...and both save, one after the other
        tab.keyboard.press("Enter")
        tab.wait_for_selector("html[data-saved='1']")
    assert "someone else judged it meanwhile" in second.text_content("#j-status")
    history = _history(draft, question)
    assert len(history) == before + 2 and [e["by"] for e in history[-2:]] == ["ana", "ana"]
    for tab, guard in ((first, first_guard), (second, second_guard)):
        tab.context.close()  # type: ignore[attr-defined]
        assert guard.errors == [] and guard.blocked == []


def _history(draft: Path, question_id: str | None) -> list[dict[str, object]]:
    for q in yaml.safe_load(draft.read_text())["questions"]:
        if q["id"] == question_id:
            return list(q["labelling"]["history"])
    raise AssertionError(f"no question {question_id}")


@pytest.fixture
def viewer_with_draft(
    drafted: tuple[Path, list[str]], tmp_path: Path
) -> Iterator[tuple[str, Path]]:
    """``reval ui --judge DRAFT --corpus CORPUS`` on a fresh copy of the unjudged draft."""
    draft = tmp_path / "mouse.yaml"
    draft.write_text((drafted[0].parent / "pristine.yaml").read_text())
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "REVAL_JUDGE": "mouse"}
    server = subprocess.Popen(
        [str(REVAL), "ui", "--address", "127.0.0.1:0", "--db", f"sqlite:///{tmp_path / 'r.db'}",
         "--judge", str(draft), "--corpus", str(CORPUS)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
    )  # fmt: skip
    try:
        assert server.stdout is not None
        first = server.stdout.readline()
        url = first.split(" at ", 1)[1].split(" ", 1)[0].rstrip("/")
        assert server.stdout.readline().strip() == f"reval ui: judging at {url}/judge/mouse"
        yield url, draft
    finally:
        server.terminate()
        server.wait(20)


def test_judge_with_the_mouse_alone(viewer_with_draft: tuple[str, Path], chromium: object) -> None:
    base, draft = viewer_with_draft
    page, guard = open_guarded(chromium, base + "/")
    page.click("header.top a[href='/judge']")
    page.click("a[href='/judge/mouse']")
    page.wait_for_selector("html[data-judge-ready]")
    pooled = yaml.safe_load(draft.read_text())["questions"]
    for saved, (question, truth) in enumerate(zip(pooled, TRUTH.values(), strict=True), 1):
        assert page.get_attribute("html", "data-question") == question["id"]
        will = page.locator("#j-will")
        assert will.get_attribute("data-will") == "needs-review"  # said before any save
        assert "needs review" in will.text_content()
        docs = [c["document_id"] for c in question["labelling"]["candidates"]]
        first = page.locator(f"#j-candidates li[data-doc='{docs[0]}']")
        first.click()  # a click marks it relevant...
        assert "✔ relevant" in first.locator(".verdict-mark").text_content()
        first.click()  # ...another marks it not relevant
        assert first.get_attribute("class") == "not-relevant"
        assert "not relevant" in first.locator(".verdict-mark").text_content()
        for doc in truth:
            page.locator(f"#j-candidates li[data-doc='{doc}'] .verdict-mark").click()
        if not truth:
            page.click("#j-nothing-toggle")
            assert page.get_attribute("#j-nothing-toggle", "aria-pressed") == "true"
        page.click("#j-match" if saved % 2 else "#j-gap")
        assert page.locator("#j-candidates li.relevant").count() == len(truth)
        assert will.get_attribute("data-will") == "judged"
        expected = ("nothing in the corpus answers it" if not truth
                    else "relevant " + ", ".join(d for d in docs if d in truth))  # fmt: skip
        assert expected in will.text_content()
        page.click("#j-save")
        page.wait_for_selector(f"html[data-saved='{saved}']")
    assert page.get_attribute("#j-progress", "data-judged") == "4"
    page.click("#j-prev")
    assert page.get_attribute("html", "data-question") == "q003"
    assert page.text_content("#j-state") == "judged"
    page.context.close()  # type: ignore[attr-defined]
    assert guard.errors == [] and guard.blocked == []

    judged = yaml.safe_load(draft.read_text())["questions"]
    assert [q["labelling"]["state"] for q in judged] == ["judged"] * 4
    assert [sorted(q["expected_document_ids"]) for q in judged] == [
        sorted(truth) for truth in TRUTH.values()
    ]
    assert [q["form"] for q in judged] == ["MATCH", "GAP", "MATCH", "GAP"]
    assert [q["labelling"]["judged_by"] for q in judged] == ["mouse"] * 4
    assert "ok: set 'draft', 4 questions" in reval("sets", "validate", draft).stdout


@pytest.fixture
def graded_viewer(drafted: tuple[Path, list[str]], tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """``reval sets judge`` on a copy of the unjudged draft that declares grades 0-3."""
    draft = tmp_path / "graded.yaml"
    draft.write_text("grade_scale: [0, 3]\n" + (drafted[0].parent / "pristine.yaml").read_text())
    with judging_server(draft, CORPUS, "eve") as url:
        yield url, draft


def test_a_set_with_a_scale_is_judged_in_grades(
    graded_viewer: tuple[str, Path], chromium: object
) -> None:
    url, draft = graded_viewer
    page, guard = open_page(chromium, url)
    question = yaml.safe_load(draft.read_text())["questions"][2]  # two relevant documents
    docs = [c["document_id"] for c in question["labelling"]["candidates"]]
    truth = TRUTH[question["question"]]
    page.keyboard.press("j")
    page.keyboard.press("j")
    assert page.get_attribute("html", "data-question") == question["id"]
    assert page.locator("#j-candidates select").count() == 0  # nothing relevant yet
    for doc in truth:
        page.locator(f"#j-candidates li[data-doc='{doc}'] .verdict-mark").click()
    picker = page.locator(f"#j-candidates li[data-doc='{truth[0]}'] select")
    assert picker.locator("option").all_text_contents() == ["1", "2", "3"]
    picker.select_option("3")
    assert f"{truth[0]} (grade 3)" in page.text_content("#j-will")
    assert f"{truth[1]} (grade 1)" in page.text_content("#j-will")
    page.click("#j-save")
    page.wait_for_selector("html[data-saved='1']")
    page.context.close()  # type: ignore[attr-defined]
    assert guard.errors == [] and guard.blocked == []

    saved = yaml.safe_load(draft.read_text())["questions"][2]
    assert saved["judgments"] == {doc: {truth[0]: 3, truth[1]: 1}.get(doc, 0) for doc in docs}
    assert saved["labelling"]["history"][-1]["grades"] == {truth[0]: 3, truth[1]: 1}
    refused = reval("sets", "validate", draft, check=2).stdout  # only the unjudged ones
    assert "3 questions are not judged yet (q001, q002, q004)" in refused
    assert refused.count(str(draft)) == 1, refused
