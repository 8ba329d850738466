"""The ``command`` kind's request ids, with real processes: a stray answer line never
shifts later answers onto the wrong questions. Each request carries an ``id`` the answer
echoes; a wrong or missing one is a ``contract`` error and the process is restarted; the
id-less form of older processes is taken only while one question is in flight at a time
(``--concurrency 1``)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from retrieval_eval.errors import RetrieverContractError
from retrieval_eval.evaluation.coordinator import EvalOptions, evaluate
from retrieval_eval.example_data import questions_path
from retrieval_eval.questions.loading import load_question_set
from retrieval_eval.records.failures import FailureKind
from retrieval_eval.retrievers.kinds.command.process import CommandRetriever
from retrieval_eval.retrievers.opening import open_retriever

REVAL = str(Path(sys.executable).parent / "reval")

#: Answers each question with the question as its only document id, and writes one extra
#: (valid) answer line after its first answer when ``STRAY``: the stray line of the bug
#: this guards. ``ECHO`` says whether it echoes the request ids (older processes do not).
STRAY = textwrap.dedent(
    """
    import json, sys
    ECHO, STRAY = {echo}, {stray}
    first = True
    for line in sys.stdin:
        request = json.loads(line)
        answer = {{"results": [{{"document_id": request["question"]}}]}}
        if ECHO:
            answer["id"] = request["id"]
        print(json.dumps(answer), flush=True)
        if first and STRAY:
            print(json.dumps(answer), flush=True)
            first = False
    """
)
#: Echoes ids unless the question starts with ``no id``; ``wrong id`` answers with another
#: request's id, ``deep`` with a line nested 100,000 deep.
PLAIN = textwrap.dedent(
    """
    import json, sys
    for line in sys.stdin:
        request = json.loads(line)
        q = request["question"]
        answer = {"results": [{"document_id": q}]}
        if q.startswith("deep"):
            print("[" * 100000 + "]" * 100000, flush=True)
            continue
        if q.startswith("wrong id"):
            answer["id"] = request["id"] + 1000
        elif not q.startswith("no id"):
            answer["id"] = request["id"]
        print(json.dumps(answer), flush=True)
    """
)


def config(tmp_path: Path, program: str) -> Path:
    (tmp_path / "proc.py").write_text(program, encoding="utf-8")
    path = tmp_path / "reval.toml"
    path.write_text(
        f'[retrievers.proc]\nkind = "command"\ncommand = ["{sys.executable}", "proc.py"]\n',
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize("echo", [True, False], ids=["with-ids", "without-ids"])
def test_a_stray_answer_line_never_scores_a_question_on_another_ones_ranking(
    tmp_path: Path, echo: bool
) -> None:
    path = config(tmp_path, STRAY.format(echo=echo, stray=True))
    questions = load_question_set(questions_path())
    [run] = evaluate([questions], ["proc"], EvalOptions(stop_asking=None), config_path=path)
    assert not run.complete  # never a complete run scored on shifted answers
    texts = {q.id: q.question for q in questions.questions}
    answered = [q for q in run.questions if q.error is None]
    failed = [q for q in run.questions if q.error is not None]
    assert failed and {q.error.kind for q in failed if q.error} <= {
        FailureKind.CONTRACT,
        FailureKind.UNAVAILABLE,
    }
    for outcome in answered:
        assert outcome.raw_ids == (texts[outcome.question_id],)


def test_reval_eval_on_a_stray_line_is_incomplete_with_exit_code_3(tmp_path: Path) -> None:
    """The reported case: a process printing one extra answer after its first one, through
    ``reval eval`` at its default concurrency, never a complete run with exit code 0."""
    path = config(tmp_path, STRAY.format(echo=False, stray=True))
    done = subprocess.run(
        [REVAL, "eval", "--config", str(path), "--set", str(questions_path()),
         "--retriever", "proc", "--no-save", "--format", "json"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 3, done.stderr
    [report] = json.loads(done.stdout)["runs"]
    assert report["state"] == "incomplete"
    errors = [q["error"] for q in report["questions"] if q.get("error")]
    assert any("'id'" in e["message"] and "--concurrency 1" in e["message"] for e in errors)


def test_the_id_less_form_still_works_one_question_at_a_time(tmp_path: Path) -> None:
    """An older process (no ids) measured at ``--concurrency 1``: complete, every question
    on its own answer. (A stray line could still pass there for the next answer: that is
    the risk of the id-less form the documentation states.)"""
    path = config(tmp_path, STRAY.format(echo=False, stray=False))
    questions = load_question_set(questions_path())
    [run] = evaluate([questions], ["proc"], EvalOptions(concurrency=1), config_path=path)
    assert run.complete
    texts = {q.id: q.question for q in questions.questions}
    assert all(q.raw_ids == (texts[q.question_id],) for q in run.questions)


def open_proc(path: Path) -> CommandRetriever:
    retriever = open_retriever("proc", config_path=path)
    assert isinstance(retriever, CommandRetriever)
    return retriever


async def test_a_wrong_id_is_a_contract_error_and_the_process_is_restarted(
    tmp_path: Path,
) -> None:
    retriever = open_proc(config(tmp_path, PLAIN))
    try:
        assert (await retriever.retrieve("first", 5)).document_ids == ("first",)
        first_pid = retriever._process.proc.pid if retriever._process else None
        with pytest.raises(RetrieverContractError, match=r"id 100\d"):
            await retriever.retrieve("wrong id please", 5)
        assert (await retriever.retrieve("after", 5)).document_ids == ("after",)
        assert retriever._process is not None and retriever._process.proc.pid != first_pid
    finally:
        await retriever.close()


async def test_an_answer_nested_too_deeply_is_a_contract_error(tmp_path: Path) -> None:
    retriever = open_proc(config(tmp_path, PLAIN))
    try:
        with pytest.raises(RetrieverContractError, match="not JSON"):
            await retriever.retrieve("deep please", 5)
        assert (await retriever.retrieve("after", 5)).document_ids == ("after",)
    finally:
        await retriever.close()


async def test_a_missing_id_once_ids_are_in_use_is_a_contract_error(tmp_path: Path) -> None:
    retriever = open_proc(config(tmp_path, PLAIN))
    try:
        await retriever.retrieve("with an id", 5)
        with pytest.raises(RetrieverContractError, match="without the 'id'"):
            await retriever.retrieve("no id here", 5)
        assert (await retriever.retrieve("again", 5)).document_ids == ("again",)
    finally:
        await retriever.close()


async def test_id_less_answers_while_questions_overlap_are_refused(tmp_path: Path) -> None:
    retriever = open_proc(config(tmp_path, PLAIN))
    try:
        answers = await asyncio.gather(
            *(retriever.retrieve(f"no id {n}", 5) for n in range(4)), return_exceptions=True
        )
    finally:
        await retriever.close()
    assert all(isinstance(a, RetrieverContractError) for a in answers), answers
    assert any(
        "--concurrency 1" in a.details for a in answers if isinstance(a, RetrieverContractError)
    )


async def test_ids_keep_answers_on_their_questions_under_concurrency(tmp_path: Path) -> None:
    retriever = open_proc(config(tmp_path, PLAIN))
    questions = [f"question {n}" for n in range(50)]
    try:
        rankings = await asyncio.gather(*(retriever.retrieve(q, 5) for q in questions))
    finally:
        await retriever.close()
    assert [r.document_ids for r in rankings] == [(q,) for q in questions]


#: Prints the secrets it was given on stderr (as a traceback of its environment would),
#: among many other lines, then exits.
LEAKY = textwrap.dedent(
    """
    import os, sys
    for n in range(200):
        print(f"loading shard {n} " + "x" * 500, file=sys.stderr)
    print("token " + os.environ["SEARCH_TOKEN"] + " refused", file=sys.stderr)
    print("key=" + os.environ["REVAL_TEST_API_KEY"], file=sys.stderr, flush=True)
    sys.exit(7)
    """
)


def test_stderr_in_errors_is_a_short_tail_with_the_given_secrets_masked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inherited, given = "sk-inherited-0123456789", "entry-secret-abcdef"
    monkeypatch.setenv("REVAL_TEST_API_KEY", inherited)
    path = config(tmp_path, LEAKY)
    with path.open("a", encoding="utf-8") as f:
        f.write(f'env = {{ SEARCH_TOKEN = "{given}" }}\n')
    questions = load_question_set(questions_path())
    [run] = evaluate([questions], ["proc"], EvalOptions(concurrency=1), config_path=path)
    messages = [q.error.message for q in run.questions if q.error is not None]
    assert messages and not run.complete
    exited = [m for m in messages if "exited with code 7" in m]
    assert exited
    for message in messages:
        assert inherited not in message and given not in message
        assert len(message) < 1000  # a tail, not the 200 lines of noise
    assert "token *** refused" in exited[0] and "key=***" in exited[0]
