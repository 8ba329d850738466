"""Run reval's gate in a CI job and hand its verdict to the steps after it.

The GitHub Action and the GitLab CI template both call this script. It reads its settings
from ``INPUT_*`` environment variables (the Action's inputs; the template sets the same
names), runs ``reval eval --fail-on-regression`` once, writing the Markdown, HTML, JUnit
and JSON reports into one directory, and exits 0 whatever the verdict: the job's last
step exits with the code it records, so the summary, the artifact and the comment are
made for a failing run too.

Only the standard library: it runs on a bare runner as soon as reval is installed.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

#: ``reval eval``'s exit codes (docs/reference/exit-codes.md) as words for the summary.
EXIT_MEANINGS = {
    0: "passed",
    1: "failed the gate (regression or incomparable)",
    2: "bad input or usage",
    3: "a retriever or the infrastructure failed (the run is incomplete)",
    130: "interrupted",
    143: "terminated",
}


#: The files a gate writes into its report directory.
REPORTS = ("report.json", "verdict.md", "report.html", "junit.xml")


@dataclass(frozen=True)
class GateResult:
    exit_code: int
    verdict: str
    report_dir: Path
    markdown: Path


def words(value: str) -> list[str]:
    """An input holding several values: one per line, or separated by commas."""
    return [part.strip() for line in value.splitlines() for part in line.split(",") if part.strip()]


def flag(value: str) -> bool:
    return value.strip().lower() in {"1", "true", "yes", "on"}


def build_command(env: dict[str, str], report_dir: Path) -> list[str]:
    """The ``reval eval`` invocation the inputs describe."""
    sets = words(env.get("INPUT_SET", ""))
    retrievers = words(env.get("INPUT_RETRIEVERS", ""))
    if not sets or not retrievers:
        raise SystemExit("reval gate: give at least one set (set) and one retriever (retrievers)")
    command = [env.get("REVAL_COMMAND", "reval"), "eval", "--fail-on-regression"]
    for name in sets:
        command += ["--set", name]
    for spec in retrievers:
        command += ["--retriever", spec]
    options = {
        "INPUT_CONFIG": "--config",
        "INPUT_BASELINE_FILE": "--baseline-file",
        "INPUT_MAX_TOP1_DROP": "--max-top1-drop",
        "INPUT_MAX_TOP3_DROP": "--max-top3-drop",
        "INPUT_MAX_ERRORS": "--max-errors",
    }
    for variable, option in options.items():
        value = env.get(variable, "").strip()
        if value:
            command += [option, value]
    if flag(env.get("INPUT_REQUIRE_BASELINE", "")):
        command.append("--require-baseline")
    commit = env.get("GITHUB_SHA") or env.get("CI_COMMIT_SHA")
    if commit:
        command += ["--label", f"git_sha={commit}"]
    command += ["--format", "json", "--output", str(report_dir / "report.json")]
    for fmt, name in (("markdown", "verdict.md"), ("html", "report.html"), ("junit", "junit.xml")):
        command += ["--report", f"{fmt}:{report_dir / name}"]
    command += shlex.split(env.get("INPUT_ARGS", ""))
    return command


def verdict_of(report: Path) -> str:
    """The worst verdict of the JSON report's runs, as one word (``none`` without one)."""
    try:
        runs = json.loads(report.read_text(encoding="utf-8"))["runs"]
    except (OSError, ValueError, KeyError, TypeError):
        return "none"
    order = ["pass", "no-baseline", "incomparable", "regression", "incomplete"]
    kinds = [(run.get("regression") or {}).get("verdict") for run in runs]
    known = [kind for kind in kinds if kind in order]
    return max(known, key=order.index) if known else "none"


def run_gate(env: dict[str, str]) -> GateResult:
    report_dir = Path(env.get("REVAL_REPORT_DIR") or Path(env.get("RUNNER_TEMP", ".")) / "reval")
    report_dir.mkdir(parents=True, exist_ok=True)
    for name in REPORTS:  # a report left by an earlier step must never pass for this one's
        (report_dir / name).unlink(missing_ok=True)
    command = build_command(env, report_dir)
    child_env = dict(os.environ)
    child_env.update(env)
    database = env.get("INPUT_DATABASE_URL", "").strip()
    if database:
        child_env["REVAL_DATABASE_URL"] = database
    print("$ " + shlex.join(command), flush=True)
    completed = subprocess.run(command, env=child_env, stderr=subprocess.PIPE, text=True)
    sys.stderr.write(completed.stderr)
    markdown = report_dir / "verdict.md"
    if not markdown.exists():
        # reval stopped before any report (bad input, an unreachable store): say why.
        last = (completed.stderr.strip().splitlines() or ["(no message)"])[-1]
        meaning = EXIT_MEANINGS.get(completed.returncode, "failed")
        markdown.write_text(
            f"### reval: exit {completed.returncode}, {meaning}\n\n```\n{last}\n```\n",
            encoding="utf-8",
        )
    return GateResult(
        completed.returncode, verdict_of(report_dir / "report.json"), report_dir, markdown
    )


def publish(result: GateResult, env: dict[str, str]) -> None:
    """The step summary and the step outputs, where the runner provides them."""
    summary = env.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a", encoding="utf-8") as out:
            out.write(result.markdown.read_text(encoding="utf-8") + "\n")
    outputs = env.get("GITHUB_OUTPUT")
    if outputs:
        with open(outputs, "a", encoding="utf-8") as out:
            out.write(f"exit-code={result.exit_code}\n")
            out.write(f"verdict={result.verdict}\n")
            out.write(f"report-dir={result.report_dir}\n")
            out.write(f"markdown={result.markdown}\n")
    meaning = EXIT_MEANINGS.get(result.exit_code, "failed")
    print(f"reval: verdict {result.verdict}, exit {result.exit_code} ({meaning})")


def main() -> int:
    env = dict(os.environ)
    result = run_gate(env)
    publish(result, env)
    dotenv = env.get("REVAL_DOTENV")  # GitLab: artifacts:reports:dotenv for later jobs
    if dotenv:
        Path(dotenv).write_text(
            f"REVAL_EXIT_CODE={result.exit_code}\nREVAL_VERDICT={result.verdict}\n",
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
