from __future__ import annotations

import io
import json

import pytest
from support.cli import GOOD

from retrieval_eval.cli import progress as progress_module
from retrieval_eval.cli.progress import RichProgress, wants_progress


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("fmt", "ci", "tty", "expected"),
    [
        ("text", None, True, True),
        ("markdown", None, True, True),
        ("json", None, True, False),
        ("junit", None, True, False),
        ("text", "true", True, False),
        ("text", None, False, False),
    ],
)
def test_progress_only_for_people(monkeypatch, fmt, ci, tty, expected):
    monkeypatch.delenv("CI", raising=False)
    if ci is not None:
        monkeypatch.setenv("CI", ci)
    monkeypatch.setattr("sys.stderr", FakeTerminal() if tty else io.StringIO())
    assert wants_progress(fmt) is expected


def test_bars_count_what_the_coordinator_reports():
    with RichProgress() as bars:
        task = bars.start("faq × bm25", 3)
        bars.advance(task)
        bars.advance(task, 2)
        (state,) = bars._progress.tasks
    assert state.completed == 3 and state.total == 3 and state.finished


def test_eval_with_the_progress_bar_on(monkeypatch, sets, serve_table, db, invoke):
    monkeypatch.setattr(progress_module, "wants_progress", lambda fmt: True)
    target = serve_table(GOOD, identifier="good")
    result = invoke(
        "eval",
        "--set",
        sets["faq"],
        "--set",
        sets["support"],
        target,
        "--db",
        db,
        "--format",
        "json",
    )
    assert [r["set"] for r in json.loads(result.stdout)["runs"]] == ["faq", "support"]


def test_the_bar_follows_what_goes_to_the_terminal(monkeypatch, sets, serve_table, db, invoke,
                                                   tmp_path):  # fmt: skip
    asked: list[str] = []
    monkeypatch.setattr(progress_module, "wants_progress", lambda fmt: asked.append(fmt) or False)
    target = serve_table(GOOD, identifier="good")
    out = tmp_path / "report.json"
    invoke("eval", "--set", sets["faq"], target, "--db", db, "--format", "json", "--output", out)
    invoke("eval", "--set", sets["faq"], target, "--db", db, "--format", "json")
    assert asked == ["text", "json"]  # --output: the terminal gets the text report
