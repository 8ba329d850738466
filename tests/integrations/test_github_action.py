"""The GitHub Action (integrations/github/action.yml), its steps run here one after another
as a runner would (tests/support/composite.py), against real gRPC retrievers on loopback,
a real SQLite store and a loopback stand-in for GitHub's comment API: a regressed
retriever fails the job, the verdict lands in the summary and one pull-request comment
(created, then updated on the next push), the report directory is what the artifact
step uploads; a pull request from a fork gets everything but the comment."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

from support.cli import BAD, FAQ, GOOD, run_reval, write_set
from support.composite import ActionRun, run_action
from support.env import REPO_ROOT
from support.review_api import TOKEN, ReviewApi, ReviewServer

ACTION = REPO_ROOT / "integrations" / "github"
REPOSITORY = "acme/search"
PULL = 12


def runner_env(
    work: Path, api_url: str, *, head: str = REPOSITORY, token: str = TOKEN
) -> dict[str, str]:
    work.mkdir(parents=True, exist_ok=True)
    event = work / "event.json"
    event.write_text(
        json.dumps({"pull_request": {"number": PULL, "head": {"repo": {"full_name": head}}}}),
        encoding="utf-8",
    )
    venv_bin = str(Path(sys.executable).parent)
    return {
        "PATH": venv_bin + os.pathsep + os.environ.get("PATH", ""),
        "GITHUB_API_URL": api_url,
        "GITHUB_SERVER_URL": "https://github.example",
        "GITHUB_REPOSITORY": REPOSITORY,
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_RUN_ID": "77",
        "GITHUB_SHA": "0123abc",
        "GITHUB_TOKEN": token,
        "RUNNER_TEMP": str(work / "runner-temp"),
        "REVAL_INSTALL_DRY_RUN": "1",  # the job's venv already holds this checkout's reval
        "REVAL_HOME": str(work / "home"),
        "NO_COLOR": "1",
    }


def gate(work: Path, env: dict[str, str], **inputs: str) -> ActionRun:
    work.mkdir(parents=True, exist_ok=True)
    (work / "runner-temp").mkdir(exist_ok=True)
    return run_action(ACTION, inputs, env, work)


def test_a_regressed_retriever_fails_the_job_and_keeps_one_comment(
    tmp_path: Path, serve_table: Callable[..., str]
) -> None:
    questions = write_set(tmp_path, "faq", FAQ)
    db = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    baseline = run_reval("eval", "--set", questions, "--retriever", serve_table(GOOD), "--db", db)
    assert baseline.returncode == 0, baseline.stderr
    bad = serve_table(BAD)  # another address, the same Describe identifier: the same lineage
    api = ReviewApi("github")
    with ReviewServer(api) as server:
        inputs = {"set": str(questions), "retrievers": bad, "database-url": db, "plugins": "bm25"}
        first = gate(tmp_path / "push-1", runner_env(tmp_path / "push-1", server.url), **inputs)
        second = gate(tmp_path / "push-2", runner_env(tmp_path / "push-2", server.url), **inputs)
    for run in (first, second):
        assert run.returncode == 1, [(s.name, s.stdout, s.stderr) for s in run.steps]
        assert run.outputs["verdict"] == "regression" and run.outputs["exit-code"] == "1"
        install = run.step("Install reval from this action's ref")
        assert install.stdout.split() == [
            "pip", "install", str(REPO_ROOT), str(REPO_ROOT / "plugins" / "bm25")
        ]  # fmt: skip
        report_dir = Path(run.outputs["report-dir"])
        assert {p.name for p in report_dir.iterdir()} >= {
            "verdict.md", "report.html", "junit.xml", "report.json"
        }  # fmt: skip
        upload = run.step("Upload the report")
        assert upload.uses == "actions/upload-artifact@v6"
        assert upload.with_["path"] == str(report_dir)
        summary = (report_dir.parent.parent / "step-summary.md").read_text(encoding="utf-8")
        assert summary == (report_dir / "verdict.md").read_text(encoding="utf-8") + "\n"
        assert "regression" in summary
    assert "created the reval comment on #12" in first.step("Comment on the pull request").stdout
    assert "updated the reval comment on #12" in second.step("Comment on the pull request").stdout
    (body,) = api.bodies(PULL)
    assert body.startswith("<!-- reval-gate:default -->")
    assert "regression" in body and "faq-1" in body  # the verdict and a flipped question
    run_id = json.loads((Path(second.outputs["report-dir"]) / "report.json").read_text())["runs"][
        0
    ]["run_id"]
    assert f"`reval runs accept {run_id} --reason TEXT`" in body  # the next command


def test_a_fork_pull_request_skips_only_the_comment(
    tmp_path: Path, serve_table: Callable[..., str]
) -> None:
    questions = write_set(tmp_path, "faq", FAQ)
    db = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    assert (
        run_reval(
            "eval", "--set", questions, "--retriever", serve_table(GOOD), "--db", db
        ).returncode
        == 0
    )
    api = ReviewApi("github")
    with ReviewServer(api) as server:
        env = runner_env(tmp_path, server.url, head="someone/search", token="")
        run = gate(
            tmp_path / "job",
            env,
            set=str(questions),
            retrievers=serve_table(BAD),
            **{"database-url": db},
        )
    assert run.returncode == 1 and run.outputs["verdict"] == "regression"
    comment = run.step("Comment on the pull request")
    assert comment.returncode == 0 and comment.stdout.startswith(
        "::notice::pull request from the fork"
    )
    assert api.requests == []
    assert (Path(run.outputs["report-dir"]) / "report.html").is_file()


def test_a_passing_retriever_passes_and_bad_input_says_why(
    tmp_path: Path, serve_table: Callable[..., str]
) -> None:
    questions = write_set(tmp_path, "faq", FAQ)
    db = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    good = serve_table(GOOD)
    assert run_reval("eval", "--set", questions, "--retriever", good, "--db", db).returncode == 0
    env = runner_env(tmp_path, "http://127.0.0.1:9", token="")
    run = gate(
        tmp_path / "ok",
        env,
        set=str(questions),
        retrievers=good,
        comment="false",
        **{"database-url": db},
    )
    assert run.returncode == 0 and run.outputs["verdict"] == "pass"
    broken = gate(
        tmp_path / "bad", env, set=str(tmp_path / "missing.yaml"), retrievers=good, comment="false"
    )
    assert broken.returncode == 2 and broken.outputs["verdict"] == "none"
    verdict = (Path(broken.outputs["report-dir"]) / "verdict.md").read_text(encoding="utf-8")
    assert verdict.startswith("### reval: exit 2, bad input or usage") and "missing.yaml" in verdict


def test_no_baseline_fails_when_one_is_required(
    tmp_path: Path, serve_table: Callable[..., str]
) -> None:
    questions = write_set(tmp_path, "faq", FAQ)
    env = runner_env(tmp_path, "http://127.0.0.1:9", token="")
    run = gate(
        tmp_path / "job", env, set=str(questions), retrievers=serve_table(GOOD), comment="false"
    )
    assert run.outputs["verdict"] == "no-baseline" and run.returncode == 1
    verdict = (Path(run.outputs["report-dir"]) / "verdict.md").read_text(encoding="utf-8")
    assert "reval runs export-baseline RUN --out FILE" in verdict
    relaxed = gate(
        tmp_path / "job2", env, set=str(questions), retrievers=serve_table(GOOD), comment="false",
        **{"require-baseline": "false"},
    )  # fmt: skip
    assert relaxed.outputs["verdict"] == "no-baseline" and relaxed.returncode == 0
