"""The ``qdrant`` kind on qdrant-client's real embedded mode: a collection built here from
the example corpus with wordllama, measured by ``reval eval``, gives the figures of a plain
numpy cosine ranking over the same vectors; a missing collection, a wrong payload key and
a missing storage folder are errors, never misses; so are a server's refusals and
malformed answers (a local HTTP server speaking Qdrant's REST routes)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support import kinds
from support.cosine import DIMENSIONS, Reference
from support.http_servers import ScriptedServer, json_answer

from retrieval_eval.errors import (
    ConfigError,
    RetrieverContractError,
    RetrieverRejected,
    RetrieverUnauthenticated,
    RetrieverUnavailable,
)
from retrieval_eval.evaluation.coordinator import evaluate
from retrieval_eval.example_data import questions_path
from retrieval_eval.questions.loading import load_question_set
from retrieval_eval.retrievers.opening import open_retriever
from retrieval_eval.retrievers.protocol import Ranking

qdrant_client = pytest.importorskip("qdrant_client")
REVAL = str(Path(sys.executable).parent / "reval")


@pytest.fixture(scope="module")
def storage(tmp_path_factory: pytest.TempPathFactory, dense: Reference) -> Path:
    """Embedded-mode storage with the collection "pages" (payload "doc_id")."""
    from qdrant_client import QdrantClient, models

    path = tmp_path_factory.mktemp("qdrant") / "storage"
    client = QdrantClient(path=str(path))
    client.create_collection(
        "pages",
        vectors_config=models.VectorParams(size=DIMENSIONS, distance=models.Distance.COSINE),
    )
    client.upsert(
        "pages",
        points=[
            models.PointStruct(id=n, vector=v.tolist(), payload={"doc_id": i, "n": n})
            for n, (i, v) in enumerate(zip(dense.ids, dense.vectors, strict=True))
        ],
    )
    client.close()  # the embedded mode locks its folder: one client at a time
    return path


def entry(tmp_path: Path, storage: Path, **keys: str) -> Path:
    table = {"collection": "pages", "id_key": "doc_id", **keys}
    lines = "".join(f'{k} = "{v}"\n' for k, v in table.items())
    path = tmp_path / "reval.toml"
    path.write_text(
        f'[retrievers.vectors]\nkind = "qdrant"\npath = "{storage}"\n{lines}'
        f'embedder = "wordllama"\nembedder_options = {{ dimensions = {DIMENSIONS} }}\n',
        encoding="utf-8",
    )
    return path


def test_reval_eval_gives_the_figures_of_a_numpy_cosine_ranking(
    tmp_path: Path, storage: Path, dense: Reference
) -> None:
    config = entry(tmp_path, storage)
    done = subprocess.run(
        [REVAL, "eval", "--config", str(config), "--set", str(questions_path()),
         "--retriever", "vectors", "--format", "json"],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "REVAL_HOME": str(tmp_path / "home"), "NO_COLOR": "1"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    [run] = json.loads(done.stdout)["runs"]
    kinds.assert_reference_figures(run, dense)


def test_each_ranking_is_the_cosine_ranking(
    tmp_path: Path, storage: Path, dense: Reference
) -> None:
    questions = load_question_set(questions_path())
    [run] = evaluate([questions], ["vectors"], config_path=entry(tmp_path, storage))
    assert run.complete and run.retriever.pipeline.endswith("/pages by wordllama")
    assert run.retriever.version.startswith("qdrant ")
    for question, outcome in zip(questions.questions, run.questions, strict=True):
        ids, scores = dense.ranking(question.question, run.parameters.limit)
        assert outcome.raw_ids == tuple(ids)
        assert outcome.raw_scores == pytest.approx(tuple(scores), abs=1e-5)


async def ask(path: Path) -> Ranking:
    return await kinds.ask("vectors", path)


async def test_a_missing_collection_is_rejected(tmp_path: Path, storage: Path) -> None:
    with pytest.raises(RetrieverRejected, match="nowhere"):
        await ask(entry(tmp_path, storage, collection="nowhere"))


async def test_a_wrong_payload_key_is_a_contract_error(tmp_path: Path, storage: Path) -> None:
    with pytest.raises(RetrieverContractError, match=r"no payload key 'id'; payload keys"):
        await ask(entry(tmp_path, storage, id_key="id"))


def test_a_folder_without_a_qdrant_storage_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"key 'path': .* is not a Qdrant local storage"):
        open_retriever("vectors", config_path=entry(tmp_path, tmp_path / "none"))


def test_url_and_path_together_is_a_config_error_with_exit_2(tmp_path: Path, storage: Path) -> None:
    config = entry(tmp_path, storage, url="http://127.0.0.1:6333")
    done = subprocess.run(
        [REVAL, "eval", "--config", str(config), "--set", str(questions_path()),
         "--retriever", "vectors"],
        capture_output=True, text=True, timeout=60,
        env={**os.environ, "REVAL_HOME": str(tmp_path / "home")},
    )  # fmt: skip
    assert done.returncode == 2
    assert "give exactly one of 'url' and 'path'" in done.stderr


def test_the_api_key_is_only_read_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KINDS_QDRANT_KEY", raising=False)
    path = tmp_path / "reval.toml"
    path.write_text(
        '[retrievers.vectors]\nkind = "qdrant"\nurl = "http://127.0.0.1:6333"\n'
        'collection = "pages"\nid_key = "doc_id"\nembedder = "wordllama"\n'
        'api_key_env = "KINDS_QDRANT_KEY"\n'
    )
    with pytest.raises(ConfigError, match="'api_key_env': environment variable KINDS_QDRANT"):
        open_retriever("vectors", config_path=path)


def test_without_qdrant_client_the_error_names_the_pip_command(
    tmp_path: Path, storage: Path
) -> None:
    config = entry(tmp_path, storage)
    done = kinds.eval_without("qdrant_client", config, "vectors", tmp_path / "home")
    assert done.returncode == 2, done.stderr
    [line] = [x for x in done.stderr.splitlines() if "qdrant-client" in x]
    assert "pip install 'reval-ir[qdrant]'" in line


async def test_an_unreachable_server_is_unavailable(tmp_path: Path) -> None:
    path = tmp_path / "reval.toml"
    path.write_text(
        '[retrievers.vectors]\nkind = "qdrant"\nurl = "http://127.0.0.1:1"\n'
        'collection = "pages"\nid_key = "doc_id"\nembedder = "wordllama"\n'
        f"embedder_options = {{ dimensions = {DIMENSIONS} }}\n"
    )
    with pytest.raises(RetrieverUnavailable, match=r"127\.0\.0\.1:1/pages"):
        await ask(path)


#: A point as Qdrant's REST API answers ``points/query``, with the payload given.
def points(*payloads: object) -> dict[str, object]:
    found = [{"id": n, "version": 0, "score": 0.5, "payload": p} for n, p in enumerate(payloads)]
    return {"result": {"points": found}, "status": "ok", "time": 0.001}


@pytest.mark.parametrize(
    ("answer", "error", "message"),
    [
        (lambda r: json_answer({"status": {"error": "no"}}, 401), RetrieverUnauthenticated, "401"),
        (lambda r: json_answer({"status": {"error": "no"}}, 403), RetrieverUnauthenticated, "403"),
        (lambda r: json_answer({"status": {"error": "boom"}}, 500), RetrieverUnavailable, "500"),
        (lambda r: (200, b"<html>a proxy page</html>"), RetrieverContractError, "not Qdrant's"),
        (lambda r: json_answer({"result": "x"}), RetrieverContractError, "not Qdrant's"),
        (lambda r: json_answer({"status": "ok"}), RetrieverContractError, "not Qdrant's"),
        (
            lambda r: json_answer(points({"doc_id": [7]})),
            RetrieverContractError,
            "is [7], not an id",
        ),
        (
            lambda r: json_answer(points({"n": 1})),
            RetrieverContractError,
            "no payload key 'doc_id'",
        ),
    ],
)
async def test_each_failure_of_a_server_is_an_error_of_its_kind(  # type: ignore[no-untyped-def]
    tmp_path: Path, answer, error, message
) -> None:
    """A local HTTP server answering Qdrant's REST routes as a broken server would."""
    with ScriptedServer(answer) as server:
        path = tmp_path / "reval.toml"
        path.write_text(
            f'[retrievers.vectors]\nkind = "qdrant"\nurl = "{server.url}"\n'
            'collection = "pages"\nid_key = "doc_id"\nembedder = "wordllama"\n'
            f"embedder_options = {{ dimensions = {DIMENSIONS} }}\n"
        )
        with pytest.raises(error) as raised:
            await ask(path)
    assert message in raised.value.details
    assert server.requests[-1].path == "/collections/pages/points/query"
