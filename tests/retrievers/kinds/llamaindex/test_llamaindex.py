"""The ``llamaindex`` kind over llama-index-core's real in-memory VectorStoreIndex, fed
wordllama through ``EmbedderEmbedding``, from a factory module written here: ``reval eval``
gives the figures of a plain numpy cosine ranking; a failing retriever or a node without
the id key is a question error, never a miss. Every test runs offline (a guard refuses any
non-loopback connection; see ``support.llamaindex_kind``). Bad factories, identity and
imports: ``test_entries.py``."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support import kinds
from support.cosine import Reference
from support.env import installed
from support.llamaindex_kind import entry, refused_by_children, run_reval
from support.offline import sitecustomize

from retrieval_eval.errors import (
    RetrieverContractError,
    RetrieverInternal,
    RetrieverTimeout,
)
from retrieval_eval.evaluation.coordinator import evaluate
from retrieval_eval.example_data import questions_path
from retrieval_eval.questions.loading import load_question_set
from retrieval_eval.retrievers.opening import open_retriever
from retrieval_eval.retrievers.protocol import Ranking

# Found, not imported: importing llama_index.core takes seconds, which every collection of
# the suite would pay; the tests import it through the kind.
if not installed("llama_index.core"):
    pytest.skip("llama-index-core is not installed", allow_module_level=True)


def test_the_guard_refuses_and_records_a_connection_that_would_leave(tmp_path: Path) -> None:
    """The guard could not pass a test by guarding nothing: in a child interpreter a
    lookup of a public name and a connection to a public address are refused and logged,
    a loopback connection is not."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(sitecustomize(tmp_path / "refused.log"))
    code = (
        "import socket\n"
        "for attempt in (lambda: socket.getaddrinfo('pypi.org', 443),\n"
        "                lambda: socket.socket().connect(('192.0.2.1', 80))):\n"
        "    try:\n"
        "        attempt()\n"
        "    except OSError as e:\n"
        "        print(e)\n"
        "server = socket.create_server(('127.0.0.1', 0))\n"
        "socket.create_connection(server.getsockname(), timeout=5).close()\n"
        "print('loopback ok')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
        env={**os.environ, "PYTHONPATH": str(site)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "offline test: refused name lookup of 'pypi.org'" in done.stdout
    assert "offline test: refused connection to ('192.0.2.1', 80)" in done.stdout
    assert done.stdout.endswith("loopback ok\n")
    assert refused_by_children(tmp_path) == [
        "name lookup of 'pypi.org'",
        "connection to ('192.0.2.1', 80)",
    ]


def test_reval_eval_gives_the_figures_of_a_numpy_cosine_ranking(
    folder: Path, tmp_path: Path, dense: Reference
) -> None:
    done = run_reval(
        tmp_path, "eval", "--config", str(entry(folder, tmp_path)), "--set",
        str(questions_path()), "--retriever", "index", "--format", "json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert refused_by_children(tmp_path) == []
    [run] = json.loads(done.stdout)["runs"]
    assert run["retriever"]["provenance"]["pipeline"] == "llamaindex li_factories:make"
    kinds.assert_reference_figures(run, dense)


def test_every_ranking_is_the_cosine_ranking_at_reval_s_limit(
    folder: Path, tmp_path: Path, dense: Reference
) -> None:
    questions = load_question_set(questions_path())
    [run] = evaluate([questions], ["index"], config_path=entry(folder, tmp_path))
    assert run.complete and run.retriever.pipeline == "llamaindex li_factories:make"
    limit = run.parameters.limit
    assert limit > 3  # the factory's own similarity_top_k=3 is overridden by reval's limit
    for question, outcome in zip(questions.questions, run.questions, strict=True):
        ids, scores = dense.ranking(question.question, limit)
        assert outcome.raw_ids == tuple(ids)
        assert outcome.raw_scores == pytest.approx(tuple(scores), abs=1e-5)


async def test_concurrent_questions_with_different_limits_keep_their_own(
    folder: Path, tmp_path: Path, dense: Reference
) -> None:
    retriever = open_retriever("index", config_path=entry(folder, tmp_path))
    question = "restore a deleted file"
    try:
        rankings = await asyncio.gather(
            *(retriever.retrieve(question, limit) for limit in (2, 7, 2, 5, 7))
        )
    finally:
        await retriever.close()
    for limit, ranking in zip((2, 7, 2, 5, 7), rankings, strict=True):
        assert ranking.document_ids == tuple(dense.ranking(question, limit)[0])


async def ask(path: Path) -> Ranking:
    return await kinds.ask("index", path)


async def test_a_sync_retriever_with_scores(folder: Path, tmp_path: Path) -> None:
    ranking = await ask(entry(folder, tmp_path, "scored"))
    assert ranking.document_ids == ("a", "7")
    assert ranking.scores == (2.5, 1.0)


async def test_scores_on_some_nodes_only_is_a_contract_error(folder: Path, tmp_path: Path) -> None:
    with pytest.raises(RetrieverContractError, match="1 of 2 nodes have a score"):
        await ask(entry(folder, tmp_path, "some_scored"))


async def test_a_missing_id_key_is_a_contract_error_naming_it(folder: Path, tmp_path: Path) -> None:
    path = entry(folder, tmp_path).read_text().replace('"doc_id"', '"id"')
    (tmp_path / "reval.toml").write_text(path)
    with pytest.raises(RetrieverContractError, match="no metadata key 'id'; keys: \\['doc_id'\\]"):
        await ask(tmp_path / "reval.toml")


async def test_a_retriever_past_its_deadline_is_a_timeout(folder: Path, tmp_path: Path) -> None:
    with pytest.raises(RetrieverTimeout, match=r"no answer within 0\.2 s"):
        await ask(entry(folder, tmp_path, "slow", "timeout = 0.2\n"))


async def test_a_failing_retriever_is_an_internal_error(folder: Path, tmp_path: Path) -> None:
    with pytest.raises(RetrieverInternal, match="RuntimeError: index offline"):
        await ask(entry(folder, tmp_path, "broken"))


def test_a_failing_retriever_in_eval_is_errors_and_exit_3_never_misses(
    folder: Path, tmp_path: Path
) -> None:
    done = run_reval(
        tmp_path, "eval", "--config", str(entry(folder, tmp_path, "broken")), "--set",
        str(questions_path()), "--retriever", "index", "--no-save", "--keep-asking",
        "--format", "json",
    )  # fmt: skip
    assert done.returncode == 3, done.stderr
    [report] = json.loads(done.stdout)["runs"]
    assert report["state"] == "incomplete"
    assert (report["metrics"]["errors"], report["metrics"]["count"]) == (23, 0)
    assert {q["error"]["kind"] for q in report["questions"]} == {"internal"}
