"""The Action and its example workflows pass actionlint: the workflows are linted in a
repository where they use the Action by its local path, so every input they give is
checked against action.yml's declared inputs, and every expression and step against
GitHub's schema."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.env import REPO_ROOT

ACTION_DIR = REPO_ROOT / "integrations" / "github"
EXAMPLES = sorted((ACTION_DIR / "examples").glob("*.yml"))
ACTIONLINT = Path(sys.executable).parent / "actionlint"


def lint(repo: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ACTIONLINT), "-no-color"], cwd=repo, capture_output=True, text=True, timeout=120
    )


def local_repo(tmp_path: Path, workflows: dict[str, str]) -> Path:
    (tmp_path / ".git").mkdir()
    shutil.copytree(ACTION_DIR, tmp_path / "integrations" / "github")
    target = tmp_path / ".github" / "workflows"
    target.mkdir(parents=True)
    for name, text in workflows.items():
        (target / name).write_text(text, encoding="utf-8")
    return tmp_path


def test_the_examples_use_the_action_as_published() -> None:
    assert [p.name for p in EXAMPLES] == ["pull-request.yml", "shared-history.yml"]
    for path in EXAMPLES:
        assert "uses: OWNER/reval/integrations/github@REF" in path.read_text(encoding="utf-8")


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_example_workflow_passes_actionlint(example: Path, tmp_path: Path) -> None:
    text = example.read_text(encoding="utf-8").replace(
        "OWNER/reval/integrations/github@REF", "./integrations/github"
    )
    done = lint(local_repo(tmp_path, {example.name: text}))
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_catches_an_input_the_action_does_not_declare(tmp_path: Path) -> None:
    """The check above could not fail if actionlint did not read action.yml."""
    text = EXAMPLES[0].read_text(encoding="utf-8").replace(
        "OWNER/reval/integrations/github@REF", "./integrations/github"
    ).replace("plugins: bm25", "plugin: bm25")  # fmt: skip
    done = lint(local_repo(tmp_path, {"typo.yml": text}))
    assert done.returncode == 1
    assert 'input "plugin" is not defined in action' in done.stdout


def test_the_actions_own_steps_use_current_actions_with_their_real_inputs(tmp_path: Path) -> None:
    """actionlint does not read a composite action's steps: lint them as a workflow (the
    versions, and the inputs given to setup-python and upload-artifact)."""
    import re

    import yaml

    action = yaml.safe_load((ACTION_DIR / "action.yml").read_text(encoding="utf-8"))
    steps = [
        {
            "uses": s["uses"],
            "with": {k: re.sub(r"\$\{\{.*?\}\}", "x", str(v)) for k, v in s["with"].items()},
        }
        for s in action["runs"]["steps"]
        if "uses" in s
    ]
    assert [s["uses"].split("@")[0] for s in steps] == [
        "actions/setup-python",
        "actions/upload-artifact",
    ]
    workflow = {"on": "push", "jobs": {"a": {"runs-on": "ubuntu-latest", "steps": steps}}}
    done = lint(local_repo(tmp_path, {"steps.yml": yaml.safe_dump(workflow)}))
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_gate_page_shows_the_pull_request_workflow_as_it_is() -> None:
    """docs/how-to/gate-ci.md embeds the example workflow: the page cannot drift from the
    file actionlint checks."""
    page = (REPO_ROOT / "docs" / "how-to" / "gate-ci.md").read_text(encoding="utf-8")
    example = (ACTION_DIR / "examples" / "pull-request.yml").read_text(encoding="utf-8")
    assert f"```yaml\n{example}```" in page
