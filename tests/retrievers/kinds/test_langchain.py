"""The ``langchain`` kind over langchain-core's real InMemoryVectorStore, fed wordllama
through ``EmbedderEmbeddings``, from a factory module written here: ``reval eval`` gives
the figures of a plain numpy cosine ranking; a bad factory is a configuration error, a
failing retriever or a document without the id key a question error, never a miss."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support import kinds
from support.cosine import DIMENSIONS, Reference

from retrieval_eval.errors import ConfigError, RetrieverContractError, RetrieverInternal
from retrieval_eval.evaluation.coordinator import evaluate
from retrieval_eval.example_data import questions_path
from retrieval_eval.questions.loading import load_question_set
from retrieval_eval.retrievers.opening import open_retriever
from retrieval_eval.retrievers.protocol import Ranking

pytest.importorskip("langchain_core")
REVAL = str(Path(sys.executable).parent / "reval")

FACTORY = f"""
import json
from langchain_core.documents import Document
from langchain_core.vectorstores import InMemoryVectorStore
from retrieval_eval.example_data import corpus_path
from retrieval_eval.retrievers.kinds.langchain.embeddings import EmbedderEmbeddings

def make():
    rows = [json.loads(line) for line in corpus_path().read_text().splitlines() if line]
    embeddings = EmbedderEmbeddings.load("wordllama", {{"dimensions": {DIMENSIONS}}})
    store = InMemoryVectorStore(embeddings)
    store.add_documents(
        [Document(r["title"] + " " + r["text"], metadata={{"doc_id": r["_id"]}}) for r in rows]
    )
    return store.as_retriever(search_kwargs={{"k": 3}})

class Scored:
    def invoke(self, question):
        return [Document("a", metadata={{"doc_id": "a", "s": 2.5}}),
                Document("b", metadata={{"doc_id": 7, "s": 1}})]

def scored():
    return Scored()

class Broken:
    async def ainvoke(self, question):
        raise RuntimeError("index offline")

def broken():
    return Broken()

def not_a_retriever():
    return 42

def failing():
    raise OSError("no such index")
"""


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("langchain")
    (path / "lc_factories.py").write_text(FACTORY, encoding="utf-8")
    return path


def entry(folder: Path, tmp_path: Path, factory: str = "make", extra: str = "") -> Path:
    """An entry for ``lc_factories:factory``; reval's limit goes in as ``k`` to "make"."""
    limit = 'limit_kwarg = "k"\n' if factory == "make" else ""
    path = tmp_path / "reval.toml"
    path.write_text(
        f'[retrievers.chain]\nkind = "langchain"\nfactory = "lc_factories:{factory}"\n'
        f'pythonpath = "{folder}"\nid_key = "doc_id"\n{limit}{extra}',
        encoding="utf-8",
    )
    return path


def test_reval_eval_gives_the_figures_of_a_numpy_cosine_ranking(
    folder: Path, tmp_path: Path, dense: Reference
) -> None:
    done = subprocess.run(
        [REVAL, "eval", "--config", str(entry(folder, tmp_path)), "--set",
         str(questions_path()), "--retriever", "chain", "--format", "json"],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "REVAL_HOME": str(tmp_path / "home")},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    [run] = json.loads(done.stdout)["runs"]
    kinds.assert_reference_figures(run, dense)


def test_the_limit_reaches_the_retriever_as_k(
    folder: Path, tmp_path: Path, dense: Reference
) -> None:
    questions = load_question_set(questions_path())
    [run] = evaluate([questions], ["chain"], config_path=entry(folder, tmp_path))
    assert run.complete and run.retriever.pipeline == "langchain lc_factories:make"
    limit = run.parameters.limit
    assert limit > 3  # the factory's own k=3 is overridden by reval's limit
    for question, outcome in zip(questions.questions, run.questions, strict=True):
        assert outcome.raw_ids == tuple(dense.ranking(question.question, limit)[0])


async def ask(path: Path) -> Ranking:
    return await kinds.ask("chain", path)


async def test_a_sync_retriever_with_scores(folder: Path, tmp_path: Path) -> None:
    ranking = await ask(entry(folder, tmp_path, "scored", 'score_key = "s"\n'))
    assert ranking.document_ids == ("a", "7")  # type: ignore[attr-defined]
    assert ranking.scores == (2.5, 1.0)  # type: ignore[attr-defined]


async def test_a_missing_id_key_is_a_contract_error(folder: Path, tmp_path: Path) -> None:
    path = entry(folder, tmp_path).read_text().replace('"doc_id"', '"id"')
    (tmp_path / "reval.toml").write_text(path)
    with pytest.raises(RetrieverContractError, match="no metadata key 'id'; keys: \\['doc_id'\\]"):
        await ask(tmp_path / "reval.toml")


async def test_a_failing_retriever_is_an_internal_error(folder: Path, tmp_path: Path) -> None:
    with pytest.raises(RetrieverInternal, match="RuntimeError: index offline"):
        await ask(entry(folder, tmp_path, "broken"))


@pytest.mark.parametrize(
    ("factory", "message"),
    [
        ("nothing_here", "has no function 'nothing_here'"),
        ("not_a_retriever", "returned int, which has neither ainvoke nor invoke"),
        ("failing", r"lc_factories:failing\(\) failed: OSError: no such index"),
    ],
)
def test_a_bad_factory_is_a_config_error(
    folder: Path, tmp_path: Path, factory: str, message: str
) -> None:
    with pytest.raises(ConfigError, match=f"key 'factory': .*{message}"):
        open_retriever("chain", config_path=entry(folder, tmp_path, factory))


def test_an_unimportable_module_exits_2_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "reval.toml"
    path.write_text(
        '[retrievers.chain]\nkind = "langchain"\nfactory = "no_such_module:make"\n'
        'id_key = "doc_id"\n'
    )
    done = subprocess.run(
        [REVAL, "eval", "--config", str(path), "--set", str(questions_path()),
         "--retriever", "chain"],
        capture_output=True, text=True, timeout=60,
        env={**os.environ, "REVAL_HOME": str(tmp_path / "home")},
    )  # fmt: skip
    assert done.returncode == 2
    assert "key 'factory': cannot import 'no_such_module'" in done.stderr
