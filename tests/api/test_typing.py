"""The public API is typed for the user's mypy: a script that uses it wrongly is caught."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from support.env import REPO_ROOT

GOOD = """
from retrieval_eval import (
    EvalOptions, RetrievedItem, RetrieverDescription, RunResult, evaluate, load_question_set,
    serve,
)


class Keyword:
    def retrieve(self, question: str, limit: int) -> list[RetrievedItem]:
        return [RetrievedItem("doc", 1.0)][:limit]

    def describe(self) -> RetrieverDescription:
        return RetrieverDescription("keyword")


runs: list[RunResult] = evaluate([load_question_set("set.yaml")], [Keyword()], EvalOptions())
print(runs[0].metrics.values["top1_hit_rate"], runs[0].to_dict()["state"])
handle = serve(Keyword(), "127.0.0.1:0")
handle.stop()
"""

# Each line is wrong; an untyped (Any) API lets every one of them through.
BAD = """
from retrieval_eval import evaluate, load_question_set, serve


class NotARetriever:
    def search(self, text: str) -> list[str]:
        return []


count: int = evaluate([], ["grpc://127.0.0.1:1"])
qs: str = load_question_set("set.yaml")
serve(NotARetriever())
"""


#: As for an installed package: the library's own modules are read, not checked, and
#: third-party packages without stubs (grpc) are not the user's concern.
CONFIG = f"""
[mypy]
mypy_path = {REPO_ROOT}
ignore_missing_imports = True

[mypy-retrieval_eval.*]
follow_imports = silent

[mypy-retrieval_eval.v1.*]
ignore_errors = True
"""


def run_mypy(tmp_path: Path, source: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "user_script.py"
    script.write_text(textwrap.dedent(source), encoding="utf-8")
    (tmp_path / "mypy.ini").write_text(CONFIG, encoding="utf-8")
    command = ["--strict", "--no-incremental", "--config-file", "mypy.ini", str(script)]
    return subprocess.run(
        [sys.executable, "-m", "mypy", *command],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
        env={"PATH": "/usr/bin:/bin"},
    )


def test_a_correct_user_script_passes_strict_mypy(tmp_path: Path) -> None:
    result = run_mypy(tmp_path, GOOD)
    assert result.returncode == 0, result.stdout + result.stderr


def test_misuse_of_the_api_is_reported_by_mypy(tmp_path: Path) -> None:
    result = run_mypy(tmp_path, BAD)
    assert result.returncode == 1, result.stdout + result.stderr
    errors = [line for line in result.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 3, result.stdout
    assert any('"list[RunResult]"' in e and '"int"' in e for e in errors)
    assert any('"GoldenQuestionSet"' in e and '"str"' in e for e in errors)
    assert any('"NotARetriever"' in e and '"Retriever"' in e for e in errors)


def test_the_docs_python_files_pass_strict_mypy(tmp_path: Path) -> None:
    from docs.doc_blocks import all_blocks

    files = [b for b in all_blocks() if b.kind == "file" and b.language == "python"]
    assert {"my_retriever.py", "evaluate_it.py"} <= {b.argument for b in files}
    for block in files:
        (tmp_path / block.argument).write_text(block.body, encoding="utf-8")
    (tmp_path / "mypy.ini").write_text(CONFIG, encoding="utf-8")
    names = [b.argument for b in files]
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--config-file",
         "mypy.ini", *names],
        capture_output=True, text=True, cwd=tmp_path, timeout=300, env={"PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
