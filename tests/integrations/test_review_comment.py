"""integrations/review_comment.py as a CI job runs it (a process with the runner's
environment) against a loopback server speaking GitHub's and GitLab's comment API: one
comment created, then edited in place, never a second; failures are notices, exit 0."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.env import REPO_ROOT
from support.review_api import TOKEN, ReviewApi, ReviewServer

SCRIPT = REPO_ROOT / "integrations" / "review_comment.py"
REPOSITORY = "acme/search"
PULL = 7


def github_env(
    tmp_path: Path, url: str, *, head: str = REPOSITORY, token: str = TOKEN
) -> dict[str, str]:
    event = tmp_path / "event.json"
    pull = {"number": PULL, "head": {"repo": {"full_name": head}}}
    event.write_text(json.dumps({"pull_request": pull}), encoding="utf-8")
    return {
        "GITHUB_API_URL": url,
        "GITHUB_SERVER_URL": "https://github.example",
        "GITHUB_REPOSITORY": REPOSITORY,
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_RUN_ID": "4242",
        "GITHUB_TOKEN": token,
    }


def gitlab_env(url: str, *, token: str = TOKEN) -> dict[str, str]:
    return {
        "CI_API_V4_URL": f"{url}/api/v4",
        "CI_PROJECT_ID": "12",
        "CI_MERGE_REQUEST_IID": str(PULL),
        "CI_JOB_URL": "https://gitlab.example/acme/search/-/jobs/99",
        "REVAL_GITLAB_TOKEN": token,
    }


def comment(
    provider: str, body: str, env: dict[str, str], tmp_path: Path
) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "verdict.md"
    path.write_text(body, encoding="utf-8")
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "CI_"))}
    return subprocess.run(
        [sys.executable, str(SCRIPT), provider, str(path)],
        env={**clean, **env}, capture_output=True, text=True, timeout=60,
    )  # fmt: skip


@pytest.mark.parametrize("provider", ["github", "gitlab"])
def test_creates_once_then_updates_in_place(provider: str, tmp_path: Path) -> None:
    api = ReviewApi(provider)
    api.add(PULL, "looks good to me")  # a person's comment stays untouched
    with ReviewServer(api) as server:
        env = github_env(tmp_path, server.url) if provider == "github" else gitlab_env(server.url)
        first = comment(provider, "### reval: ❌ regression\n", env, tmp_path)
        assert first.returncode == 0, first.stderr
        assert "created the reval comment" in first.stdout
        second = comment(provider, "### reval: ✅ pass\n", env, tmp_path)
        assert second.returncode == 0, second.stderr
        assert "updated the reval comment" in second.stdout
    bodies = api.bodies(PULL)
    assert len(bodies) == 2 and bodies[0] == "looks good to me"
    assert "✅ pass" in bodies[1] and "regression" not in bodies[1]
    assert bodies[1].startswith("<!-- reval-gate:default -->")


def test_finds_its_comment_on_a_later_page(tmp_path: Path) -> None:
    api = ReviewApi("github")
    for n in range(150):
        api.add(PULL, f"comment {n}")
    api.add(PULL, "<!-- reval-gate:default -->\nold verdict")
    with ReviewServer(api) as server:
        done = comment("github", "new verdict", github_env(tmp_path, server.url), tmp_path)
    assert done.returncode == 0 and "updated" in done.stdout, done.stdout + done.stderr
    assert len(api.bodies(PULL)) == 151
    assert api.bodies(PULL)[-1].endswith("new verdict")
    pages = [path for method, path in api.requests if method == "GET"]
    assert len(pages) == 2  # 100 + 51: stops at the short page


def test_two_gates_in_one_pull_request_keep_their_own_comments(tmp_path: Path) -> None:
    api = ReviewApi("github")
    with ReviewServer(api) as server:
        env = github_env(tmp_path, server.url)
        for key in ("faq", "support", "faq"):
            done = comment(
                "github", f"verdict of {key}", {**env, "REVAL_COMMENT_KEY": key}, tmp_path
            )
            assert done.returncode == 0, done.stderr
    assert sorted(b.splitlines()[0] for b in api.bodies(PULL)) == [
        "<!-- reval-gate:faq -->",
        "<!-- reval-gate:support -->",
    ]


def test_a_refused_write_is_a_notice_not_a_failure(tmp_path: Path) -> None:
    api = ReviewApi("github", refuse_writes=True)
    with ReviewServer(api) as server:
        done = comment("github", "verdict", github_env(tmp_path, server.url), tmp_path)
    assert done.returncode == 0
    assert done.stdout.startswith("::notice::could not comment: HTTP 403")
    assert api.bodies(PULL) == []


@pytest.mark.parametrize(
    "case, expected",
    [
        ("fork", "pull request from the fork someone/search"),
        ("no token", "no token given"),
        ("bad token", "HTTP 401"),
    ],
)
def test_skipped_without_the_right_to_comment(case: str, expected: str, tmp_path: Path) -> None:
    api = ReviewApi("github")
    with ReviewServer(api) as server:
        env = github_env(tmp_path, server.url)
        if case == "fork":
            env = github_env(tmp_path, server.url, head="someone/search", token="")
        elif case == "no token":
            env["GITHUB_TOKEN"] = ""
        else:
            env["GITHUB_TOKEN"] = "wrong"
        done = comment("github", "verdict", env, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("::notice::") and expected in done.stdout
    assert api.bodies(PULL) == []
    if case != "bad token":
        assert api.requests == []  # nothing was even asked


def test_a_push_event_is_not_commented_on(tmp_path: Path) -> None:
    event = tmp_path / "push.json"
    event.write_text(json.dumps({"ref": "refs/heads/main"}), encoding="utf-8")
    env = {"GITHUB_EVENT_PATH": str(event), "GITHUB_REPOSITORY": REPOSITORY, "GITHUB_TOKEN": TOKEN}
    done = comment("github", "verdict", env, tmp_path)
    assert done.returncode == 0 and "not a pull request event" in done.stdout


def test_a_long_report_is_cut_to_githubs_limit_with_a_link_to_the_artifact(tmp_path: Path) -> None:
    api = ReviewApi("github")
    body = "### reval: ❌ regression\n" + "".join(f"- question q{n} flipped\n" for n in range(8000))
    assert len(body) > 65_536
    with ReviewServer(api) as server:
        done = comment("github", body, github_env(tmp_path, server.url), tmp_path)
    assert done.returncode == 0, done.stderr
    (posted,) = api.bodies(PULL)
    assert len(posted) <= 65_536
    assert "### reval: ❌ regression" in posted
    assert "https://github.example/acme/search/actions/runs/4242" in posted.splitlines()[-1]
    assert "- question q100 flipped" in posted  # cut at a line, from the end


def test_comment_false_sends_nothing(tmp_path: Path) -> None:
    api = ReviewApi("github")
    with ReviewServer(api) as server:
        env = {**github_env(tmp_path, server.url), "INPUT_COMMENT": "false"}
        done = comment("github", "verdict", env, tmp_path)
    assert done.returncode == 0 and "comment disabled" in done.stdout
    assert api.requests == []
