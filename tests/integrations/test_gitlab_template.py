"""The GitLab CI template (integrations/gitlab/reval.gitlab-ci.yml): its job's script lines
run here in one bash, as GitLab's runner runs them, with a merge-request pipeline's
variables, against real gRPC retrievers on loopback and a loopback stand-in for GitLab's
notes API: a regression fails the job, one note is created then updated, and the JUnit
and HTML reports are where the template's artifacts say."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import yaml
from support.cli import BAD, FAQ, GOOD, run_reval, write_set
from support.env import REPO_ROOT
from support.review_api import TOKEN, ReviewApi, ReviewServer

TEMPLATE = REPO_ROOT / "integrations" / "gitlab" / "reval.gitlab-ci.yml"
IID = 5


def run_job(project: Path, variables: dict[str, str]) -> subprocess.CompletedProcess[str]:
    job = yaml.safe_load(TEMPLATE.read_text(encoding="utf-8"))[".reval-gate"]
    env = {
        **os.environ,
        "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""),
        **{k: str(v) for k, v in job["variables"].items()},
        "CI_PROJECT_DIR": str(project),
        "REVAL_DIR": str(REPO_ROOT),  # the clone the first line would make: this checkout
        "REVAL_INSTALL_DRY_RUN": "1",
        "REVAL_HOME": str(project / "home"),
        **variables,
    }
    script = "set -e\n" + "\n".join(job["script"])
    return subprocess.run(
        ["bash", "-c", script], env=env, cwd=project, capture_output=True, text=True, timeout=300
    )


def test_a_regression_fails_the_job_with_one_note_and_the_reports(
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
    bad = serve_table(BAD)
    api = ReviewApi("gitlab")
    with ReviewServer(api) as server:
        variables = {
            "REVAL_SET": str(questions),
            "REVAL_RETRIEVERS": bad,
            "REVAL_DATABASE_URL_INPUT": db,
            "CI_API_V4_URL": f"{server.url}/api/v4",
            "CI_PROJECT_ID": "3",
            "CI_MERGE_REQUEST_IID": str(IID),
            "CI_COMMIT_SHA": "feedbeef",
            "REVAL_GITLAB_TOKEN": TOKEN,
        }
        jobs = []
        for push in ("one", "two"):
            project = tmp_path / push
            project.mkdir()
            jobs.append((project, run_job(project, variables)))
    for project, done in jobs:
        assert done.returncode == 1, done.stdout + done.stderr
        assert "reval: regression (exit 1)" in done.stdout
        artifacts = yaml.safe_load(TEMPLATE.read_text(encoding="utf-8"))[".reval-gate"]["artifacts"]
        assert (project / artifacts["reports"]["junit"]).is_file()
        assert (project / artifacts["paths"][0] / "report.html").is_file()
        assert (
            (project / artifacts["reports"]["dotenv"]).read_text().startswith("REVAL_EXIT_CODE=1\n")
        )
    assert "created the reval comment on !5" in jobs[0][1].stdout
    assert "updated the reval comment on !5" in jobs[1][1].stdout
    (note,) = api.bodies(IID)
    assert note.startswith("<!-- reval-gate:default -->") and "regression" in note


def test_without_a_token_only_the_note_is_skipped(
    tmp_path: Path, serve_table: Callable[..., str]
) -> None:
    questions = write_set(tmp_path, "faq", FAQ)
    done = run_job(
        tmp_path,
        {"REVAL_SET": str(questions), "REVAL_RETRIEVERS": serve_table(GOOD),
         "REVAL_REQUIRE_BASELINE": "false", "CI_MERGE_REQUEST_IID": str(IID)},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "reval: no REVAL_GITLAB_TOKEN" in done.stdout
    assert "reval: no-baseline (exit 0)" in done.stdout
