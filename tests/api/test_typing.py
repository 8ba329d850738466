"""The public API is typed for the user's mypy: a script that uses it wrongly is caught."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from dataclasses import dataclass

import pytest
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


@dataclass(frozen=True)
class MypyRun:
    """One strict mypy run over every script of this module, read per script: mypy's
    start-up and its reading of the library are paid once, not once per case."""

    result: subprocess.CompletedProcess[str]
    scripts: tuple[str, ...]

    def errors(self, script: str) -> list[str]:
        return [
            line
            for line in self.result.stdout.splitlines()
            if line.startswith(f"{script}:") and ": error:" in line
        ]


@pytest.fixture(scope="module")
def mypy_run(tmp_path_factory: pytest.TempPathFactory) -> MypyRun:
    from docs.doc_blocks import all_blocks

    directory = tmp_path_factory.mktemp("typing")
    files = {"good_script.py": GOOD, "bad_script.py": BAD}
    docs = [b for b in all_blocks() if b.kind == "file" and b.language == "python"]
    assert {"my_retriever.py", "evaluate_it.py"} <= {b.argument for b in docs}
    assert not files.keys() & {b.argument for b in docs}
    for name, source in files.items():
        (directory / name).write_text(textwrap.dedent(source), encoding="utf-8")
    for block in docs:
        (directory / block.argument).write_text(block.body, encoding="utf-8")
    (directory / "mypy.ini").write_text(CONFIG, encoding="utf-8")
    scripts = (*files, *(b.argument for b in docs))
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--config-file",
         "mypy.ini", *scripts],
        capture_output=True, text=True, cwd=directory, timeout=300, env={"PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    # 1: errors found (bad_script.py's); 2 would be a crash or a bad configuration.
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"(checked {len(scripts)} source files)" in result.stdout, result.stdout
    return MypyRun(result, scripts)


def test_a_correct_user_script_passes_strict_mypy(mypy_run: MypyRun) -> None:
    assert mypy_run.errors("good_script.py") == [], mypy_run.result.stdout


def test_misuse_of_the_api_is_reported_by_mypy(mypy_run: MypyRun) -> None:
    errors = mypy_run.errors("bad_script.py")
    assert len(errors) == 3, mypy_run.result.stdout
    assert any('"list[RunResult]"' in e and '"int"' in e for e in errors)
    assert any('"GoldenQuestionSet"' in e and '"str"' in e for e in errors)
    assert any('"NotARetriever"' in e and '"Retriever"' in e for e in errors)


def test_the_docs_python_files_pass_strict_mypy(mypy_run: MypyRun) -> None:
    docs = [s for s in mypy_run.scripts if s not in ("good_script.py", "bad_script.py")]
    assert {s: mypy_run.errors(s) for s in docs} == {s: [] for s in docs}, mypy_run.result.stdout
    # Every error of the run is bad_script.py's: none hides in a module the scripts import.
    assert "Found 3 errors in 1 file" in mypy_run.result.stdout, mypy_run.result.stdout
