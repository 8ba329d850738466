"""``reval ui``'s run page in a real browser shows the run's Judged@k as its JSON has it,
for a stored run of a graded set; a plain set's run page has no such table."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator

import pytest
from support.browser import debian_chromium, open_view
from support.tools import load_tool

from retrieval_eval import Form, GoldenQuestion, GoldenQuestionSet, evaluate, judge_and_save

pytestmark = pytest.mark.browser
TOOL = load_tool("screenshots")


class Fixed:
    def __init__(self, answers: dict[str, list[str]]) -> None:
        self.answers = answers

    def retrieve(self, question: str, limit: int) -> list[str]:
        return self.answers[question][:limit]


QUESTIONS = (
    GoldenQuestion(
        "q0", "first?", Form.MATCH, ("a",), "near-duplicate", judgments=(("a", 2), ("b", 0))
    ),
    GoldenQuestion("q1", "second?", Form.GAP, ("c",), judgments=(("c", 1),)),
)
#: q0: a, b judged, x not: 2/3; q1: c judged, y, z not: 1/3.
ANSWERS = {"first?": ["a", "b", "x"], "second?": ["y", "c", "z"]}


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, str]:
    """A store with a run of the graded set and one of the same set with plain labels:
    (url, graded run id, plain run id)."""
    db = f"sqlite:///{tmp_path_factory.mktemp('judged') / 'runs.sqlite'}"
    plain = tuple(GoldenQuestion(q.id, q.question, q.form, q.expected_document_ids,
                                 q.hard_class) for q in QUESTIONS)  # fmt: skip
    return db, saved(db, QUESTIONS), saved(db, plain)


@pytest.fixture(scope="module")
def browser(stored: tuple[str, str, str]) -> Iterator[object]:
    """This module's own browser, started after its store is filled (Playwright keeps an
    event loop running in this thread while it is open: see ``conftest.browser``)."""
    with debian_chromium() as browser:
        yield browser


def saved(db: str, questions: tuple[GoldenQuestion, ...]) -> str:
    (run,) = evaluate([GoldenQuestionSet("judged", questions)], [Fixed(ANSWERS)])
    (report,) = judge_and_save(run, store=db).reports
    assert report.run.run_id is not None
    return report.run.run_id


def test_the_run_page_shows_the_stored_runs_judged_at_k(page, stored) -> None:
    db, graded, plain = stored
    with TOOL.viewer(db) as base:
        with urllib.request.urlopen(f"{base}/runs/{graded}.json") as answer:
            judged = json.load(answer)["runs"][0]["judged"]
        open_view(page, f"{base}/runs/{graded}")
        rows = page.locator("table.judged tbody tr")  # type: ignore[attr-defined]
        shown = {
            (row.get_attribute("data-group"), row.get_attribute("data-name")): (
                row.locator(".value").inner_text(),
                row.locator(".count").inner_text(),
                row.locator(".unjudged-count").inner_text(),
            )
            for row in rows.all()
        }
        assert page.locator("h2[id$='-judged']").inner_text().startswith("Judged@3")  # type: ignore[attr-defined]
        open_view(page, f"{base}/runs/{plain}")
        assert page.locator("table.judged").count() == 0  # type: ignore[attr-defined]
    assert judged["k"] == 3
    assert shown["overall", "overall"] == ("0.500", "2", "3")  # (2/3 + 1/3) / 2
    assert shown["form", "GAP"] == ("0.333", "1", "2")
    assert shown["hard_class", "near-duplicate"] == ("0.667", "1", "1")
    for (kind, name), (value, count, unjudged) in shown.items():
        share = judged["overall"] if kind == "overall" else judged[f"by_{kind}"][name]
        assert (value, int(count), int(unjudged)) == (
            f"{share['value']:.3f}", share["count"], share["unjudged"],
        )  # fmt: skip
