"""Runs a composite GitHub Action's steps here, one after another, as the runner would:
``run:`` steps in bash with their ``env:``, ``${{ ... }}`` expressions filled in from the
inputs, the earlier steps' outputs and the ``github`` context, ``GITHUB_OUTPUT`` read back
after each step; ``uses:`` steps (setup-python, upload-artifact) are recorded with their
``with:`` values, not run. An expression it does not know fails the test: the action may
use only what this runner (and GitHub's) evaluates the same way."""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


@dataclass
class StepRun:
    name: str
    uses: str | None = None
    with_: dict[str, str] = field(default_factory=dict)
    returncode: int = 0
    stdout: str = ""
    stderr: str = ""


@dataclass
class ActionRun:
    steps: list[StepRun]
    outputs: dict[str, str]

    @property
    def returncode(self) -> int:
        return self.steps[-1].returncode if self.steps else 0

    def step(self, name: str) -> StepRun:
        return next(s for s in self.steps if s.name == name)


def read_outputs(path: Path) -> dict[str, str]:
    """``name=value`` lines and ``name<<DELIMITER`` blocks, as the runner reads them."""
    outputs: dict[str, str] = {}
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    index = 0
    while index < len(lines):
        line = lines[index]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            end = lines.index(delimiter, index + 1)
            outputs[name] = "\n".join(lines[index + 1 : end])
            index = end + 1
            continue
        name, _, value = line.partition("=")
        outputs[name] = value
        index += 1
    return outputs


def run_action(
    action_dir: Path, inputs: dict[str, str], env: dict[str, str], work: Path
) -> ActionRun:
    """The action in ``action_dir`` with ``inputs``; ``env`` is the runner's environment
    (``GITHUB_*``); files the runner provides (outputs, summary) go under ``work``."""
    action: dict[str, Any] = yaml.safe_load((action_dir / "action.yml").read_text("utf-8"))
    declared = action["inputs"]
    unknown = set(inputs) - set(declared)
    assert not unknown, f"inputs the action does not declare: {unknown}"
    github = {"token": env.get("GITHUB_TOKEN", ""), "action_path": str(action_dir)}
    values = {name: str(spec.get("default", "")) for name, spec in declared.items()}
    step_outputs: dict[str, dict[str, str]] = {}

    def evaluate(text: str) -> str:
        def one(match: re.Match[str]) -> str:
            words = match.group(1).split(".")
            if words[0] == "inputs" and len(words) == 2:
                return values[words[1]]
            if words[0] == "github" and len(words) == 2 and words[1] in github:
                return github[words[1]]
            if words[0] == "steps" and len(words) == 4 and words[2] == "outputs":
                return step_outputs.get(words[1], {}).get(words[3], "")
            raise AssertionError(f"expression this runner does not know: {match.group(0)}")

        return EXPRESSION.sub(one, text)

    # Defaults may themselves be expressions (github-token: ${{ github.token }}).
    values = {name: evaluate(value) for name, value in values.items()}
    values.update(inputs)
    summary = work / "step-summary.md"
    runs: list[StepRun] = []
    for number, step in enumerate(action["runs"]["steps"]):
        name = step.get("name") or step.get("uses") or f"step {number}"
        if "uses" in step:
            with_ = {k: evaluate(str(v)) for k, v in (step.get("with") or {}).items()}
            runs.append(StepRun(name, uses=step["uses"], with_=with_))
            continue
        output_file = work / f"output-{number}"
        step_env = {
            **os.environ,
            **env,
            **{k: evaluate(str(v)) for k, v in (step.get("env") or {}).items()},
            "GITHUB_ACTION_PATH": str(action_dir),
            "GITHUB_OUTPUT": str(output_file),
            "GITHUB_STEP_SUMMARY": str(summary),
        }
        assert step.get("shell") == "bash", f"step {name!r} must name its shell"
        done = subprocess.run(
            ["bash", "-e", "-c", evaluate(step["run"])],
            env=step_env, capture_output=True, text=True, timeout=300, cwd=work,
        )  # fmt: skip
        runs.append(
            StepRun(name, returncode=done.returncode, stdout=done.stdout, stderr=done.stderr)
        )
        if "id" in step:
            step_outputs[step["id"]] = read_outputs(output_file)
        if done.returncode != 0:
            break
    outputs = {k: evaluate(str(v["value"])) for k, v in (action.get("outputs") or {}).items()}
    return ActionRun(runs, outputs)
