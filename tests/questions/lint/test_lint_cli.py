"""``reval sets lint`` end to end: a real CLI process, a real run store (SQLite, and
PostgreSQL when available) holding scored runs of the set, exit codes 0/1/2."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from support.lint import EXAMPLE_CORPUS, EXAMPLE_SET, q, write_set

from retrieval_eval.questions.loading import load_question_set
from retrieval_eval.questions.model import GoldenQuestionSet
from retrieval_eval.records.parameters import RunParameters
from retrieval_eval.records.run import RetrieverDescription, RunResult, RunState
from retrieval_eval.retrievers.protocol import RetrievedItem
from retrieval_eval.scoring.metrics import breakdowns, summarize
from retrieval_eval.scoring.protocol import score_question
from retrieval_eval.store.store import RunStore

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
REVAL = str(Path(sys.executable).parent / "reval")


def reval(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [REVAL, *args],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def run_of(qs: GoldenQuestionSet, retriever: str, rankings: dict[str, list[str]]) -> RunResult:
    """A run scored by the engine's protocol from the given rankings (document ids)."""
    p = RunParameters()
    outcomes = tuple(
        score_question(question, [RetrievedItem(d) for d in rankings[question.id]], ks=p.ks,
                       limit=p.limit, separator="", latency_ms=3.0, error=None)
        for question in qs.questions
    )  # fmt: skip
    by_form, by_class = breakdowns(outcomes, p.ks)
    return RunResult(
        set_name=qs.name, set_fingerprint=qs.fingerprint, retriever_target=retriever,
        retriever=RetrieverDescription(identifier=retriever, version="1"), parameters=p,
        started_at=T0, finished_at=T0 + timedelta(seconds=1), state=RunState.COMPLETE,
        metrics=summarize(outcomes, p.ks), by_form=by_form, by_hard_class=by_class,
        latency=None, questions=outcomes,
    )  # fmt: skip


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'runs.sqlite'}"
    return str(request.getfixturevalue("postgres_url"))


@pytest.fixture
def stored_set(tmp_path: Path, store_url: str) -> Path:
    """A set whose stored runs (two retrievers) contradict one label and never vary on two
    questions; the set name is unique so a shared database holds no other runs of it."""
    path = write_set(tmp_path / "runs.jsonl", [
        q("wrong-label", "How do I stop backups while on battery?", "GAP", ["schedule"]),
        q("always-hit", "Which S3 permissions does the access key need?", "MATCH", ["repo-s3"]),
        q("always-miss", "What are the support hours?", "MATCH", ["contact-support"]),
        q("useful", "What does error E104 mean?", "MATCH", ["error-codes"]),
    ], name=f"runs-{uuid.uuid4().hex[:8]}")  # fmt: skip
    qs = load_question_set(path)
    bm25 = {"wrong-label": ["bandwidth", "overview"], "always-hit": ["repo-s3"],
            "always-miss": ["faq", "overview", "hooks", "schedule"],
            "useful": ["error-codes"]}  # fmt: skip
    dense = {"wrong-label": ["bandwidth", "faq", "hooks"], "always-hit": ["repo-s3", "faq"],
             "always-miss": ["overview"], "useful": ["faq", "hooks", "overview"]}  # fmt: skip
    with RunStore.open(store_url) as store:
        store.save(run_of(qs, "bm25", bm25))
        store.save(run_of(qs, "dense", dense))
    return path


def test_findings_from_stored_runs(stored_set: Path, store_url: str) -> None:
    done = reval("sets", "lint", str(stored_set), "--corpus", str(EXAMPLE_CORPUS),
                 "--db", store_url, "--format", "json", "--strict")  # fmt: skip
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["runs"] == 2
    by_kind = {(f["kind"], tuple(f["question_ids"])): f for f in report["findings"]}
    suspect = by_kind[("suspect-label", ("wrong-label",))]
    assert suspect["document_id"] == "bandwidth" and suspect["retrievers"] == ["bm25", "dense"]
    assert by_kind[("no-signal", ("always-hit",))]["always"] == "hit"
    assert by_kind[("no-signal", ("always-miss",))]["always"] == "missed"
    assert not [k for k in by_kind if k[1] == ("useful",)]
    # One retriever is not enough evidence; --no-runs skips the store altogether.
    one = reval("sets", "lint", str(stored_set), "--corpus", str(EXAMPLE_CORPUS),
                "--db", store_url, "--format", "json", "--min-retrievers", "3")  # fmt: skip
    assert not [f for f in json.loads(one.stdout)["findings"]
                if f["kind"] in ("suspect-label", "no-signal")]  # fmt: skip


def test_text_report_groups_by_kind_and_exit_codes(tmp_path: Path) -> None:
    done = reval("sets", "lint", str(EXAMPLE_SET), "--corpus", str(EXAMPLE_CORPUS),
                 "--db", f"sqlite:///{tmp_path / 'empty.sqlite'}")  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "form-mismatch (2)" in lines
    assert any(line.startswith("  employee-leaves: labelled GAP") for line in lines)
    assert "size: 23 questions; one question moves a hit rate by 0.043" in lines
    strict = reval("sets", "lint", str(EXAMPLE_SET), "--corpus", str(EXAMPLE_CORPUS),
                   "--no-runs", "--strict")  # fmt: skip
    assert strict.returncode == 1
    clean = write_set(tmp_path / "clean.jsonl", [
        q("fedora", "How do I install the Larkspur agent on Fedora?", "MATCH", ["install-linux"]),
    ])  # fmt: skip
    ok = reval("sets", "lint", str(clean), "--corpus", str(EXAMPLE_CORPUS), "--no-runs",
               "--strict", "--format", "json")  # fmt: skip
    assert ok.returncode == 0, ok.stdout
    assert json.loads(ok.stdout)["findings"] == []
    power = json.loads(ok.stdout)["power"]
    assert power["questions"] == 1 and power["smallest_significant_change"] is None


def test_bad_input_exits_2_naming_the_culprit(tmp_path: Path) -> None:
    corpus = tmp_path / "bad.jsonl"
    corpus.write_text('{"_id": "a", "text": "x"}\nnot json\n', encoding="utf-8")
    done = reval("sets", "lint", str(EXAMPLE_SET), "--corpus", str(corpus), "--no-runs")
    assert done.returncode == 2 and f"{corpus}:2: invalid JSON" in done.stderr
    missing = reval("sets", "lint", str(tmp_path / "nope.yaml"), "--corpus",
                    str(EXAMPLE_CORPUS), "--no-runs")  # fmt: skip
    assert missing.returncode == 2 and "nope.yaml" in missing.stderr
    option = reval("sets", "lint", str(EXAMPLE_SET), "--corpus", str(EXAMPLE_CORPUS),
                   "--discordance", "0")  # fmt: skip
    assert option.returncode == 2 and "--discordance" in option.stderr


def test_grades_outside_the_scale_and_conflicting_judgments(tmp_path: Path) -> None:
    text = (
        "grade_scale: [0, 2]\nquestions:\n"
        "  - id: linux\n    question: How do I install the Larkspur agent on Linux?\n"
        "    judgments: {install-linux: 3, install-macos: 0}\n"
        "  - id: linux-again\n    question: how do i install the larkspur agent on linux\n"
        "    judgments: {install-macos: 1, install-linux: 0}\n"
    )
    graded = tmp_path / "graded.yaml"
    graded.write_text(text, encoding="utf-8")
    done = reval("sets", "lint", str(graded), "--corpus", str(EXAMPLE_CORPUS), "--no-runs",
                 "--format", "json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    found = {(f["kind"], tuple(f["question_ids"])) for f in json.loads(done.stdout)["findings"]}
    assert ("grade-outside-scale", ("linux",)) in found
    assert ("conflicting-judgment", ("linux", "linux-again")) in found
    assert ("conflicting-judgment", ("linux-again", "linux")) in found
    assert not [kind for kind, ids in found if kind == "grade-outside-scale" and ids != ("linux",)]
    strict = reval("sets", "lint", str(graded), "--corpus", str(EXAMPLE_CORPUS), "--no-runs",
                   "--strict")  # fmt: skip
    assert strict.returncode == 1 and "grade-outside-scale (1)" in strict.stdout.splitlines()


def test_a_threshold_too_small_to_square_plans_the_set_exactly() -> None:
    """1e-308 is a strict threshold (one lost question regresses), not a crash: its square
    underflows, so the questions needed are worked out in exact rationals."""
    done = reval("sets", "lint", str(EXAMPLE_SET), "--corpus", str(EXAMPLE_CORPUS),
                 "--no-runs", "--format", "json", "--max-top1-drop", "1e-308")  # fmt: skip
    assert done.returncode == 0, done.stderr
    top1 = json.loads(done.stdout)["power"]["thresholds"][0]
    assert top1["threshold"] == 1e-308 and top1["regression_losses"] == 1
    assert len(str(top1["questions_needed"])) == 616 and not top1["enough_questions"]
