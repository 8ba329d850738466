"""The ``http`` kind against real HTTP servers on 127.0.0.1: the Elasticsearch recipe
over the example data (examples/es-search, a real process), and scripted servers for each
failure, which is always the question's error of the right kind, never a miss."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from reval_bm25.index import build_index
from reval_bm25.retriever import open_index
from support import kinds
from support.http_servers import EsSearchServer, Request, ScriptedServer, json_answer

from retrieval_eval.errors import (
    RetrieverContractError,
    RetrieverError,
    RetrieverInternal,
    RetrieverRejected,
    RetrieverTimeout,
    RetrieverUnauthenticated,
    RetrieverUnavailable,
)
from retrieval_eval.evaluation.coordinator import EvalOptions, evaluate
from retrieval_eval.example_data import corpus_path, questions_path
from retrieval_eval.questions.loading import load_question_set
from retrieval_eval.records.failures import FailureKind
from retrieval_eval.retrievers.http_client import proxy_for
from retrieval_eval.retrievers.opening import open_retriever
from retrieval_eval.retrievers.protocol import Ranking

REVAL = str(Path(sys.executable).parent / "reval")
ES_ENTRY = """
[retrievers.search-api]
kind = "http"
url = "{url}/docs/_search"
body = {{ query = {{ match = {{ text = "{{question}}" }} }}, size = "{{limit}}" }}
ids = "hits.hits[*]._id"
scores = "hits.hits[*]._score"
{extra}
"""


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("es") / "index"
    build_index(corpus_path(), path)
    return path


@pytest.fixture(scope="module")
def es(index: Path) -> Iterator[EsSearchServer]:
    with EsSearchServer(index) as server:
        yield server


def config(tmp_path: Path, url: str, extra: str = "", name: str = "reval.toml") -> Path:
    path = tmp_path / name
    path.write_text(ES_ENTRY.format(url=url, extra=extra), encoding="utf-8")
    return path


def test_the_elasticsearch_recipe_measures_exactly_what_the_index_returns(
    tmp_path: Path, es: EsSearchServer, index: Path
) -> None:
    path = config(tmp_path, es.url)
    questions = load_question_set(questions_path())
    [run] = evaluate([questions], ["search-api"], config_path=path)
    assert run.complete and run.error_count == 0
    direct = open_index(index)
    limit = run.parameters.limit
    for question, outcome in zip(questions.questions, run.questions, strict=True):
        expected = direct.retrieve(question.question, limit)
        assert outcome.raw_ids == tuple(expected.document_ids)
        assert outcome.raw_scores == pytest.approx(expected.scores)
    assert run.retriever.identifier == "search-api"
    assert run.retriever.pipeline == f"http POST {es.url[7:]}/docs/_search"


def test_cli_eval_and_check_retriever_on_the_recipe(tmp_path: Path, es: EsSearchServer) -> None:
    path = config(tmp_path, es.url)
    common = ["--config", str(path)]
    check = subprocess.run(
        [REVAL, "check-retriever", "search-api", *common],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert check.returncode == 0, check.stdout + check.stderr
    assert "all 12 checks passed" in check.stdout
    run = subprocess.run(
        [
            REVAL,
            "eval",
            "--set",
            str(questions_path()),
            "--retriever",
            "search-api",
            "--no-save",
            "--format",
            "json",
            *common,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    [report] = json.loads(run.stdout)["runs"]
    assert report["complete"] and report["metrics"]["errors"] == 0


def test_the_bearer_token_comes_from_the_environment_and_is_never_shown(
    tmp_path: Path, index: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "s3cr3t-token-value"
    monkeypatch.setenv("ES_TOKEN", secret)
    with EsSearchServer(index, "--token-env", "ES_TOKEN") as server:
        questions = load_question_set(questions_path())
        headers = 'headers = { Authorization = "Bearer ${ES_TOKEN}" }'
        good = config(tmp_path, server.url, headers)
        [run] = evaluate([questions], ["search-api"], config_path=good)
        assert run.complete
        assert secret not in json.dumps(run.to_dict())
        monkeypatch.setenv("ES_TOKEN", "wrong")
        [refused] = evaluate([questions], ["search-api"], config_path=good)
    assert refused.error_count == len(questions.questions)  # errors, never misses
    failure = refused.questions[0].error
    assert failure is not None and failure.kind is FailureKind.UNAUTHENTICATED
    assert "HTTP 401" in failure.message and "wrong" not in failure.message


async def ask(path: Path, question: str = "how do I restore a file", limit: int = 5) -> Ranking:
    return await kinds.ask("search-api", path, question, limit)


def scripted(tmp_path: Path, answer, extra: str = "") -> tuple[ScriptedServer, Path]:  # type: ignore[no-untyped-def]
    server = ScriptedServer(answer)
    return server, config(tmp_path, server.url, extra)


ES_HITS = {"hits": {"hits": [{"_id": "a", "_score": 2.0}, {"_id": "b", "_score": 1.0}]}}


@pytest.mark.parametrize(
    ("answer", "error", "message"),
    [
        (lambda r: json_answer({"error": "no"}, 401), RetrieverUnauthenticated, "HTTP 401"),
        (lambda r: json_answer({"error": "no"}, 403), RetrieverUnauthenticated, "HTTP 403"),
        (lambda r: json_answer({"error": "bad query"}, 400), RetrieverRejected, "HTTP 400"),
        (lambda r: json_answer({"error": "boom"}, 500), RetrieverInternal, "HTTP 500"),
        (lambda r: json_answer({}, 503), RetrieverUnavailable, "after 3 attempts"),
        (lambda r: (200, b"<html>not json</html>"), RetrieverContractError, "not JSON"),
        (lambda r: json_answer({"took": 1}), RetrieverContractError, "matches nothing"),
        (
            lambda r: json_answer({"hits": {"hits": [{"_id": 7, "_score": 1.0}]}}),
            RetrieverContractError,
            "the value at rank 1 is 7, not a string",
        ),
        (
            lambda r: json_answer({"hits": {"hits": [{"_id": "a", "_score": "high"}]}}),
            RetrieverContractError,
            "scores path",
        ),
        (
            lambda r: json_answer({"hits": {"hits": [{"_id": "", "_score": 1.0}]}}),
            RetrieverContractError,
            "empty",
        ),
        (
            lambda r: json_answer({"hits": {"hits": [{"_id": str(i)} for i in range(6)]}}),
            RetrieverContractError,
            "6 results for limit 5",
        ),
    ],
)
async def test_each_failure_is_an_error_of_its_kind(tmp_path: Path, answer, error, message) -> None:  # type: ignore[no-untyped-def]
    server, path = scripted(tmp_path, answer)
    with server, pytest.raises(error) as raised:
        await ask(path)
    assert message in raised.value.details
    assert raised.value.target.startswith("search-api (")


async def test_a_down_endpoint_is_unavailable(tmp_path: Path) -> None:
    server, path = scripted(tmp_path, lambda r: json_answer(ES_HITS))
    server.stop()  # nothing listens on that port any more
    with pytest.raises(RetrieverUnavailable, match=r"cannot connect: .* \(after 3 attempts\)"):
        await ask(path)


async def test_a_slow_endpoint_times_out(tmp_path: Path) -> None:
    release = threading.Event()

    def slow(request: Request) -> tuple[int, bytes]:
        release.wait(10)
        return json_answer(ES_HITS)

    server, path = scripted(tmp_path, slow, "timeout = 0.2")
    try:
        with pytest.raises(RetrieverTimeout, match=r"no answer within 0\.2 s"):
            await ask(path)
    finally:
        release.set()
        server.stop()


async def test_a_transient_503_is_retried(tmp_path: Path) -> None:
    statuses = iter([503, 502, 200])

    def flaky(request: Request) -> tuple[int, bytes]:
        return json_answer(ES_HITS, next(statuses))

    server, path = scripted(tmp_path, flaky)
    with server:
        ranking = await ask(path)
    assert ranking.document_ids == ("a", "b")  # type: ignore[attr-defined]
    assert len(server.requests) == 3


async def test_request_shape_headers_and_connection_reuse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KINDS_KEY", "k-123")
    extra = 'headers = { "X-Api-Key" = "${KINDS_KEY}", "X-Team" = "search" }'
    server, path = scripted(tmp_path, lambda r: json_answer(ES_HITS), extra)
    retriever = open_retriever("search-api", config_path=path)
    questions = [f'question "{n}" with\nnewline' for n in range(40)]
    slots = asyncio.Semaphore(4)

    async def one(question: str) -> None:
        async with slots:
            await retriever.retrieve(question, 12)

    with server:
        try:
            await asyncio.gather(*(one(q) for q in questions))
        finally:
            await retriever.close()
    assert sorted(r.json()["query"]["match"]["text"] for r in server.requests) == sorted(questions)
    assert {r.json()["size"] for r in server.requests} == {12}
    assert {r.headers["x-api-key"] for r in server.requests} == {"k-123"}
    assert {r.headers["x-team"] for r in server.requests} == {"search"}
    assert {r.headers["content-type"] for r in server.requests} == {"application/json"}
    assert len({r.client_port for r in server.requests}) <= 4  # connections are reused


async def test_get_with_query_parameters_and_chunk_ids(tmp_path: Path) -> None:
    answer = {
        "results": [{"doc": "a", "chunk": "a#0", "s": 1}, {"doc": "a", "chunk": "a#1", "s": 0.5}]
    }
    server = ScriptedServer(lambda r: json_answer(answer))
    path = tmp_path / "reval.toml"
    path.write_text(
        "[retrievers.search-api]\n"
        'kind = "http"\n'
        f'url = "{server.url}/search"\n'
        'method = "GET"\n'
        'params = { q = "{question}", n = "{limit}" }\n'
        'ids = "results[*].doc"\n'
        'scores = "results[*].s"\n'
        'chunk_ids = "results[*].chunk"\n'
    )
    with server:
        ranking = await ask(path, "a&b c", 3)
    assert ranking.document_ids == ("a", "a")  # type: ignore[attr-defined]
    assert ranking.chunk_ids == ("a#0", "a#1")  # type: ignore[attr-defined]
    assert ranking.scores == (1.0, 0.5)  # type: ignore[attr-defined]
    [request] = server.requests
    assert request.method == "GET" and request.path == "/search?q=a%26b+c&n=3"


async def test_a_result_without_a_score_is_a_contract_error_not_a_shifted_score(
    tmp_path: Path,
) -> None:
    answer = {"hits": {"hits": [{"_id": "a", "_score": None}, {"_id": "b", "_score": 0.5}]}}
    server, path = scripted(tmp_path, lambda r: json_answer(answer))
    with server, pytest.raises(RetrieverContractError, match="1 scores for 2 ids"):
        await ask(path)


def test_an_endpoint_down_in_eval_is_errors_and_exit_3_never_misses(tmp_path: Path) -> None:
    server, path = scripted(tmp_path, lambda r: json_answer(ES_HITS))
    server.stop()
    done = subprocess.run(
        [
            REVAL,
            "eval",
            "--config",
            str(path),
            "--set",
            str(questions_path()),
            "--retriever",
            "search-api",
            "--no-save",
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 3, done.stderr
    [report] = json.loads(done.stdout)["runs"]
    assert report["state"] == "incomplete"
    assert report["metrics"]["errors"] == 23  # every question an error, none scored a miss
    assert report["metrics"]["count"] == 0
    # The first failures are the endpoint's; once they pass --max-errors the rest are not
    # asked (fail fast), recorded as such and never scored.
    kinds = [q["error"]["kind"] for q in report["questions"]]
    assert kinds[0] == "unavailable" and set(kinds) <= {"unavailable", "not_asked"}, kinds


def test_the_http_kind_is_a_fusion_member(tmp_path: Path, es: EsSearchServer, index: Path) -> None:
    path = config(tmp_path, es.url)
    with path.open("a") as f:
        f.write(f'\n[retrievers.hybrid]\nfuse = ["search-api", "bm25:{index}"]\n')
    questions = load_question_set(questions_path())
    [fused, member] = evaluate([questions], ["hybrid", "search-api"], config_path=path)
    assert fused.complete, [q.error for q in fused.questions if q.error]
    assert fused.retriever.identifier == f"rrf(search-api, bm25:{index})"
    # Both members return the same ranking, so RRF of the two keeps its order.
    assert [q.ranked_document_ids for q in fused.questions] == [
        q.ranked_document_ids for q in member.questions
    ]


def test_timeout_from_options_wins_over_the_entry(tmp_path: Path) -> None:
    server, path = scripted(
        tmp_path, lambda r: (time.sleep(0.5), json_answer(ES_HITS))[1], "timeout = 30"
    )
    with server:
        questions = load_question_set(questions_path())
        [run] = evaluate(
            [questions], ["search-api"], EvalOptions(timeout_s=0.1, concurrency=8), config_path=path
        )
    assert run.error_count == 23
    assert {q.error.kind for q in run.questions if q.error} == {FailureKind.TIMEOUT}


def test_errors_are_retriever_errors() -> None:
    for cls in (RetrieverUnavailable, RetrieverContractError):
        assert issubclass(cls, RetrieverError)


async def test_the_proxy_named_by_the_environment_carries_the_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    proxy = ScriptedServer(lambda r: json_answer(ES_HITS))  # a forward proxy's view
    for name in ("NO_PROXY", "no_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    with proxy:
        ranking = await ask(config(tmp_path, "http://search.invalid:9200"))
    assert ranking.document_ids == ("a", "b")  # type: ignore[attr-defined]
    [request] = proxy.requests
    assert request.path == "http://search.invalid:9200/docs/_search"
    monkeypatch.setenv("NO_PROXY", "search.invalid")
    assert proxy_for("http://search.invalid:9200/docs/_search") is None
    assert proxy_for("http://other.invalid/") == proxy.url
