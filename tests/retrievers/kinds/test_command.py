"""The ``command`` kind with real processes: the Python and Node.js examples rank alike
(and as an independent computation does), answers reach their own questions under
concurrency, a dying process is an error naming its exit and is restarted, protocol
breaches are contract errors, and the process is stopped at the end."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from support.env import REPO_ROOT, require
from support.plugin_suite import UNUSED_PLUGINS

from retrieval_eval.errors import (
    ConfigError,
    RetrieverContractError,
    RetrieverInternal,
    RetrieverTimeout,
    RetrieverUnavailable,
)
from retrieval_eval.evaluation.coordinator import evaluate
from retrieval_eval.example_data import corpus_path, questions_path
from retrieval_eval.questions.loading import load_question_set
from retrieval_eval.retrievers.kinds.command.process import MAX_RESTARTS, CommandRetriever
from retrieval_eval.retrievers.opening import open_retriever

EXAMPLES = REPO_ROOT / "examples" / "command-retriever"

#: A scripted JSON-lines process: answers (echoing the request's id) with the question as
#: its only document id and its pid as the score, and misbehaves on purpose when the
#: question says so.
SCRIPTED = textwrap.dedent(
    """
    import json, os, sys, time
    def answer(request, document):
        print(json.dumps({"id": request["id"], **document}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        q = request["question"]
        if q.startswith("crash"):
            print("boom on purpose", file=sys.stderr, flush=True)
            sys.exit(3)
        if q.startswith("error"):
            answer(request, {"error": "index shard offline"})
        elif q.startswith("garbage"):
            print("debug: looking up " + q, flush=True)
            answer(request, {"results": [{"document_id": q}]})
        elif q.startswith("number"):
            answer(request, {"results": [{"document_id": 42}]})
        elif q.startswith("slow"):
            time.sleep(1.0)
            answer(request, {"results": [{"document_id": q}]})
        else:
            answer(request, {"results": [{"document_id": q, "score": os.getpid()}]})
    """
)


def entry(tmp_path: Path, command: list[str], extra: str = "", name: str = "proc") -> Path:
    path = tmp_path / "reval.toml"
    path.write_text(
        f'[retrievers.{name}]\nkind = "command"\ncommand = {json.dumps(command)}\n{extra}\n',
        encoding="utf-8",
    )
    return path


@pytest.fixture
def scripted(tmp_path: Path) -> Path:
    (tmp_path / "scripted.py").write_text(SCRIPTED, encoding="utf-8")
    return entry(tmp_path, [sys.executable, "scripted.py"])


def open_proc(path: Path, name: str = "proc") -> CommandRetriever:
    retriever = open_retriever(name, config_path=path)
    assert isinstance(retriever, CommandRetriever)
    return retriever


def overlap_ranking(question: str, limit: int) -> list[str]:
    """The examples' ranking, computed here independently of either process."""
    docs = [json.loads(line) for line in corpus_path().read_text().splitlines() if line]
    asked = set(re.findall(r"[a-z0-9]+", question.lower()))
    scored = []
    for doc in docs:
        terms = set(re.findall(r"[a-z0-9]+", f"{doc.get('title', '')} {doc['text']}".lower()))
        if asked & terms:
            scored.append((-len(asked & terms), doc["_id"]))
    return [doc_id for _, doc_id in sorted(scored)[:limit]]


def test_python_and_node_examples_rank_alike_and_as_computed_independently(
    tmp_path: Path,
) -> None:
    require(shutil.which("node") is not None, "Node.js is not installed")
    corpus = str(corpus_path())
    path = tmp_path / "reval.toml"
    path.write_text(
        "[retrievers.py]\n"
        'kind = "command"\n'
        f'command = ["{sys.executable}", "{EXAMPLES / "retriever.py"}", "{corpus}"]\n'
        "[retrievers.node]\n"
        'kind = "command"\n'
        f'command = ["node", "{EXAMPLES / "retriever.js"}", "{corpus}"]\n'
    )
    questions = load_question_set(questions_path())
    python_run, node_run = evaluate([questions], ["py", "node"], config_path=path)
    assert python_run.complete and node_run.complete
    for question, py, node in zip(
        questions.questions, python_run.questions, node_run.questions, strict=True
    ):
        expected = tuple(overlap_ranking(question.question, python_run.parameters.limit))
        assert py.raw_ids == node.raw_ids == expected
    assert python_run.retriever.identifier == "py" and node_run.retriever.identifier == "node"


async def test_answers_reach_their_own_questions_under_concurrency(scripted: Path) -> None:
    retriever = open_proc(scripted)
    questions = [f"question {n}" for n in range(60)]
    try:
        rankings = await asyncio.gather(*(retriever.retrieve(q, 5) for q in questions))
    finally:
        await retriever.close()
    assert [r.document_ids for r in rankings] == [(q,) for q in questions]
    assert len({r.scores for r in rankings}) == 1  # one process answered them all


async def test_a_dying_process_is_an_error_naming_its_exit_and_is_restarted(
    scripted: Path,
) -> None:
    retriever = open_proc(scripted)
    try:
        first = await retriever.retrieve("hello", 5)
        with pytest.raises(RetrieverUnavailable) as raised:
            await retriever.retrieve("crash now", 5)
        assert "process exited with code 3" in raised.value.details
        assert "boom on purpose" in raised.value.details
        after = await retriever.retrieve("hello again", 5)
    finally:
        await retriever.close()
    assert after.document_ids == ("hello again",)
    assert after.scores != first.scores  # a new process (another pid)


async def test_a_process_that_keeps_dying_is_not_restarted_forever(tmp_path: Path) -> None:
    path = entry(tmp_path, [sys.executable, "-c", "import sys; sys.exit(5)"])
    retriever = open_proc(path)
    try:
        for _ in range(MAX_RESTARTS):
            with pytest.raises(RetrieverUnavailable, match="exited with code 5"):
                await retriever.retrieve("q", 5)
        with pytest.raises(RetrieverUnavailable, match="not restarted"):
            await retriever.retrieve("q", 5)
    finally:
        await retriever.close()


async def test_error_answers_and_protocol_breaches(scripted: Path) -> None:
    retriever = open_proc(scripted)
    try:
        with pytest.raises(RetrieverInternal, match="index shard offline"):
            await retriever.retrieve("error please", 5)
        with pytest.raises(RetrieverContractError, match="document_id 42 is not a string"):
            await retriever.retrieve("number please", 5)
        with pytest.raises(RetrieverContractError, match="not JSON"):
            await retriever.retrieve("garbage please", 5)
        # The stray line's process was replaced: the next answer is the next question's.
        assert (await retriever.retrieve("fine", 5)).document_ids == ("fine",)
    finally:
        await retriever.close()


async def test_a_late_answer_is_dropped_not_given_to_the_next_question(scripted: Path) -> None:
    retriever = open_proc(scripted)
    try:
        with pytest.raises(RetrieverTimeout):
            await retriever.retrieve("slow one", 5, timeout_s=0.2)
        assert (await retriever.retrieve("next", 5, timeout_s=5)).document_ids == ("next",)
    finally:
        await retriever.close()


async def test_close_stops_the_process(scripted: Path) -> None:
    retriever = open_proc(scripted)
    ranking = await retriever.retrieve("pid please", 5)
    pid = int(ranking.scores[0] or 0)
    os.kill(pid, 0)  # running
    await retriever.close()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_a_missing_program_is_a_config_error(tmp_path: Path) -> None:
    path = entry(tmp_path, ["no-such-program-anywhere", "x"])
    with pytest.raises(ConfigError, match="key 'command': 'no-such-program-anywhere'"):
        open_retriever("proc", config_path=path)


def test_a_command_is_a_fusion_member_and_runs_in_its_folder(tmp_path: Path) -> None:
    (tmp_path / "scripted.py").write_text(SCRIPTED, encoding="utf-8")
    path = entry(tmp_path, [sys.executable, "scripted.py"])  # relative to reval.toml
    with path.open("a") as f:
        f.write('[retrievers.both]\nfuse = ["proc", "echo"]\n')
        f.write(
            f'[retrievers.echo]\nkind = "command"\ncommand = ["{sys.executable}", "scripted.py"]\n'
        )
    questions = load_question_set(questions_path())
    [run] = evaluate([questions], ["both"], config_path=path)
    assert run.complete and run.retriever.identifier == "rrf(proc, echo)"
    assert [q.raw_ids for q in run.questions] == [(q.question,) for q in questions.questions]


def test_the_pytest_fixture_measures_a_command_entry(tmp_path: Path) -> None:
    (tmp_path / "scripted.py").write_text(SCRIPTED, encoding="utf-8")
    entry(tmp_path, [sys.executable, "scripted.py"])
    (tmp_path / "test_quality.py").write_text(
        textwrap.dedent(
            f"""
            def test_proc(reval):
                run = reval.evaluate({str(questions_path())!r}, "proc")
                assert run.run.complete and run.run.retriever.identifier == "proc"
                assert run.run.error_count == 0
            """
        )
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            *UNUSED_PLUGINS,
            "--reval-no-save",
            "test_quality.py",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


async def test_cancelling_the_caller_is_a_cancellation_not_a_timeout(scripted: Path) -> None:
    retriever = open_proc(scripted)
    try:
        task = asyncio.ensure_future(retriever.retrieve("slow one", 5, timeout_s=30))
        while retriever._process is None or not retriever._process.pending:
            await asyncio.sleep(0)  # until the question is on its way
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        # The late answer to the cancelled question is dropped, not handed on.
        assert (await retriever.retrieve("after", 5, timeout_s=10)).document_ids == ("after",)
    finally:
        await retriever.close()


def test_diff_reaches_kinds_from_reval_toml(tmp_path: Path) -> None:
    corpus = str(corpus_path())
    (tmp_path / "reval.toml").write_text(
        "[retrievers.py]\n"
        'kind = "command"\n'
        f'command = ["{sys.executable}", "{EXAMPLES / "retriever.py"}", "{corpus}"]\n'
        "[retrievers.py-again]\n"
        'kind = "command"\n'
        f'command = ["{sys.executable}", "{EXAMPLES / "retriever.py"}", "{corpus}"]\n'
    )
    reval = str(Path(sys.executable).parent / "reval")
    diff = subprocess.run(
        [reval, "diff", "--questions", str(questions_path()), "--retriever", "py",
         "--retriever", "py-again", "--format", "json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert diff.returncode == 0, diff.stderr
    report = json.loads(diff.stdout)
    assert (report["compared"], report["failed"], report["identical"]) == (23, 0, 23)


def test_diff_takes_its_kinds_from_config(tmp_path: Path) -> None:
    """``reval diff --config FILE`` resolves names in FILE, not in ./reval.toml (which here
    names a program that does not exist), like ``reval eval --config``."""
    (tmp_path / "fixed.py").write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    answer = {'id': json.loads(line)['id'], 'results': [{'document_id': 'overview'}]}\n"
        "    print(json.dumps(answer), flush=True)\n"
    )
    config = tmp_path / "kinds.toml"
    config.write_text(
        "[retrievers.overlap]\n"
        'kind = "command"\n'
        f'command = ["{sys.executable}", "{EXAMPLES / "retriever.py"}", "{corpus_path()}"]\n'
        "[retrievers.fixed]\n"
        'kind = "command"\n'
        f'command = ["{sys.executable}", "fixed.py"]\n'
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "reval.toml").write_text(
        '[retrievers.overlap]\nkind = "command"\ncommand = ["no-such-program-anywhere"]\n'
    )
    reval = str(Path(sys.executable).parent / "reval")
    diff = subprocess.run(
        [reval, "diff", "--config", str(config), "--questions", str(questions_path()),
         "--retriever", "overlap", "--retriever", "fixed", "--k", "5", "--format", "json"],
        cwd=elsewhere, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert diff.returncode == 0, diff.stderr
    report = json.loads(diff.stdout)
    assert (report["compared"], report["failed"]) == (23, 0)
    texts = {q.id: q.question for q in load_question_set(questions_path()).questions}
    for question in report["questions"]:
        assert question["top_b"] == ["overview"]
        assert question["top_a"] == overlap_ranking(texts[question["id"]], 5)
    without = subprocess.run(
        [reval, "diff", "--questions", str(questions_path()), "--retriever", "overlap",
         "--retriever", "fixed"],
        cwd=elsewhere, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert without.returncode == 2  # ./reval.toml: a missing program, and no 'fixed'


def test_sets_draft_pools_a_command_kind(tmp_path: Path) -> None:
    import yaml

    config = tmp_path / "kinds.toml"
    config.write_text(
        "[retrievers.py]\n"
        'kind = "command"\n'
        f'command = ["{sys.executable}", "{EXAMPLES / "retriever.py"}", "{corpus_path()}"]\n'
    )
    out = tmp_path / "draft.yaml"
    reval = str(Path(sys.executable).parent / "reval")
    done = subprocess.run(
        [reval, "sets", "draft", str(questions_path()), "--corpus", str(corpus_path()),
         "--retriever", "py", "--depth", "3", "--out", str(out), "--config", str(config)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    draft = yaml.safe_load(out.read_text())
    questions = load_question_set(questions_path()).questions
    for question, drafted in zip(questions, draft["questions"], strict=True):
        candidates = drafted["labelling"]["candidates"]
        found = {c["document_id"]: c["found_by"]["py"] for c in candidates if c["found_by"]}
        expected = overlap_ranking(question.question, 3)
        assert found == {doc: rank for rank, doc in enumerate(expected, start=1)}
