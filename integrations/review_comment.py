"""Put reval's verdict on the pull or merge request, as one comment updated in place.

``python review_comment.py github|gitlab BODY.md`` finds the comment it made before by a
hidden marker and edits it, or creates it once: every push updates the same comment
instead of adding one. A comment is a courtesy, never the verdict: a missing token, a pull
request from a fork (whose token may not write), a 401/403/404 or an unreachable API is a
notice and exit 0; the job's result comes from the gate's exit code alone.

Only the standard library (urllib): it runs on a bare runner, before or without reval's
own dependencies.
"""

from __future__ import annotations

import json
import os
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: GitHub refuses a comment body over this many characters.
GITHUB_LIMIT = 65_536
#: GitLab's limit for a note.
GITLAB_LIMIT = 1_000_000
PAGE = 100
#: Lists at most this many pages of comments (10,000) looking for the marker.
MAX_PAGES = 100


class Skip(Exception):
    """Nothing to comment on, or no right to: said as a notice, exit 0."""


@dataclass(frozen=True)
class Target:
    """Where comments are listed, created and edited, and how to authenticate."""

    list_url: str  # takes ?per_page=&page=
    create_url: str
    edit_url: str  # with {id}
    edit_method: str
    headers: dict[str, str]
    limit: int
    artifact_url: str | None


def marker(key: str) -> str:
    return f"<!-- reval-gate:{key} -->"


def fit(body: str, limit: int, artifact_url: str | None) -> str:
    """``body`` cut at a line boundary to ``limit`` characters, with a note that points to
    the full report."""
    if len(body) <= limit:
        return body
    where = (
        f"the full report is in the [job's artifact]({artifact_url})"
        if artifact_url
        else ("the full report is in the job's artifact")
    )
    note = f"\n\n… cut to fit a comment: {where}.\n"
    kept = body[: limit - len(note)]
    if "\n" in kept:
        kept = kept[: kept.rindex("\n")]
    return kept + note


def github_target(env: dict[str, str]) -> tuple[Target, str]:
    token = env.get("GITHUB_TOKEN", "").strip()
    event_path = env.get("GITHUB_EVENT_PATH", "")
    repository = env.get("GITHUB_REPOSITORY", "")
    try:
        event = json.loads(Path(event_path).read_text(encoding="utf-8")) if event_path else {}
    except (OSError, ValueError) as e:
        raise Skip(f"cannot read the event payload {event_path}: {e}") from e
    pull = event.get("pull_request")
    if not isinstance(pull, dict) or "number" not in pull:
        raise Skip("not a pull request event: no comment")
    head = ((pull.get("head") or {}).get("repo") or {}).get("full_name")
    if head and repository and head != repository:
        raise Skip(f"pull request from the fork {head}: its token cannot comment")
    if not token:
        raise Skip("no token given (github-token): no comment")
    api = env.get("GITHUB_API_URL", "https://api.github.com").rstrip("/")
    server = env.get("GITHUB_SERVER_URL", "https://github.com").rstrip("/")
    run_id = env.get("GITHUB_RUN_ID")
    artifact = f"{server}/{repository}/actions/runs/{run_id}" if run_id else None
    base = f"{api}/repos/{repository}/issues"
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/vnd.github+json",
        "X-GitHub-Api-Version": "2022-11-28",
    }
    number = pull["number"]
    target = Target(
        f"{base}/{number}/comments", f"{base}/{number}/comments", base + "/comments/{id}",
        "PATCH", headers, GITHUB_LIMIT, artifact,
    )  # fmt: skip
    return target, f"#{number}"


def gitlab_target(env: dict[str, str]) -> tuple[Target, str]:
    iid = env.get("CI_MERGE_REQUEST_IID", "").strip()
    if not iid:
        raise Skip("not a merge request pipeline: no note")
    token = env.get("REVAL_GITLAB_TOKEN", "").strip()
    if not token:
        raise Skip("no REVAL_GITLAB_TOKEN (a token with the api scope): no note")
    api = env.get("CI_API_V4_URL", "").rstrip("/")
    project = env.get("CI_PROJECT_ID", "")
    base = f"{api}/projects/{project}/merge_requests/{iid}/notes"
    job_url = env.get("CI_JOB_URL")
    target = Target(
        base, base, base + "/{id}", "PUT", {"PRIVATE-TOKEN": token}, GITLAB_LIMIT,
        f"{job_url}/artifacts/browse" if job_url else None,
    )  # fmt: skip
    return target, f"!{iid}"


class Api:
    def __init__(self, target: Target, timeout_s: float = 30.0) -> None:
        self.target = target
        self.timeout_s = timeout_s

    def call(self, method: str, url: str, payload: dict[str, str] | None = None) -> Any:
        data = None if payload is None else json.dumps(payload).encode("utf-8")
        headers = dict(self.target.headers)
        if data is not None:
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
            return json.loads(response.read().decode("utf-8") or "null")

    def find(self, tag: str) -> int | None:
        """The id of the first comment holding ``tag``, reading page after page."""
        for page in range(1, MAX_PAGES + 1):
            comments = self.call("GET", f"{self.target.list_url}?per_page={PAGE}&page={page}")
            if not isinstance(comments, list):
                return None
            for comment in comments:
                if tag in str(comment.get("body", "")):
                    return int(comment["id"])
            if len(comments) < PAGE:
                return None
        return None


def post(provider: str, body: str, env: dict[str, str], key: str = "default") -> str:
    """Create or update the comment; returns what was done, for the log."""
    target, where = (github_target if provider == "github" else gitlab_target)(env)
    tag = marker(key)
    text = fit(f"{tag}\n{body}", target.limit, target.artifact_url)
    api = Api(target)
    existing = api.find(tag)
    if existing is None:
        api.call("POST", target.create_url, {"body": text})
        return f"created the reval comment on {where}"
    api.call(target.edit_method, target.edit_url.format(id=existing), {"body": text})
    return f"updated the reval comment on {where}"


def notice(provider: str, message: str) -> None:
    print(f"::notice::{message}" if provider == "github" else f"reval: {message}")


def main(argv: list[str]) -> int:
    if len(argv) != 3 or argv[1] not in {"github", "gitlab"}:
        print("usage: review_comment.py github|gitlab BODY.md", file=sys.stderr)
        return 2
    provider, body_path = argv[1], Path(argv[2])
    env = dict(os.environ)
    if env.get("INPUT_COMMENT", "true").strip().lower() in {"0", "false", "no", "off"}:
        notice(provider, "comment disabled (comment: false)")
        return 0
    try:
        body = body_path.read_text(encoding="utf-8")
        print(post(provider, body, env, env.get("REVAL_COMMENT_KEY", "default")))
    except Skip as e:
        notice(provider, str(e))
    except urllib.error.HTTPError as e:
        notice(provider, f"could not comment: HTTP {e.code} {e.reason} from {e.url}")
    except (urllib.error.URLError, OSError, ValueError) as e:
        notice(provider, f"could not comment: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
