"""The ``llamaindex`` kind's test set-up: a factory module (``FACTORY``: a real in-memory
VectorStoreIndex fed wordllama through ``EmbedderEmbedding``, and retrievers that answer
badly on purpose), its reval.toml entries, ``reval`` run in a guarded child, and the
fixtures both test modules use.

llama-index-core may download NLTK and tiktoken data on first use: ``offline`` (autouse
where imported) runs each test under a guard that refuses (and records) any non-loopback
connection, in the test's process and in the ``reval`` processes it starts
(``run_reval``), with the caches pointed at a temporary folder."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.cosine import DIMENSIONS
from support.offline import Guard, sitecustomize

REVAL = str(Path(sys.executable).parent / "reval")

FACTORY = f"""
import json
from llama_index.core import VectorStoreIndex
from llama_index.core.schema import NodeWithScore, TextNode
from retrieval_eval.example_data import corpus_path
from retrieval_eval.retrievers.kinds.llamaindex.embeddings import EmbedderEmbedding

def make():
    rows = [json.loads(line) for line in corpus_path().read_text().splitlines() if line]
    nodes = [
        TextNode(text=r["title"] + " " + r["text"], metadata={{"doc_id": r["_id"]}},
                 excluded_embed_metadata_keys=["doc_id"])
        for r in rows
    ]
    embedding = EmbedderEmbedding.load("wordllama", {{"dimensions": {DIMENSIONS}}})
    return VectorStoreIndex(nodes, embed_model=embedding).as_retriever(similarity_top_k=3)

def node(doc_id, score):
    return NodeWithScore(node=TextNode(text="t", metadata={{"doc_id": doc_id}}), score=score)

class Scored:
    def retrieve(self, question):
        return [node("a", 2.5), node(7, 1)]

def scored():
    return Scored()

class SomeScored:
    def retrieve(self, question):
        return [node("a", 2.5), node("b", None)]

def some_scored():
    return SomeScored()

class Broken:
    async def aretrieve(self, question):
        raise RuntimeError("index offline")

class Slow:
    async def aretrieve(self, question):
        import asyncio
        await asyncio.Event().wait()  # never answers

def slow():
    return Slow()

def broken():
    return Broken()

def not_a_retriever():
    return 42

def failing():
    raise OSError("no such index")
"""


@pytest.fixture(autouse=True)
def offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Guard]:
    """No connection leaves the machine during the test, and the caches llama-index-core
    and NLTK would fill are a fresh temporary folder."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("LLAMA_INDEX_CACHE_DIR", str(cache / "llama_index"))
    monkeypatch.setenv("NLTK_DATA", str(cache / "nltk"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    guard = Guard().install()
    try:
        yield guard
    finally:
        guard.uninstall()
    assert guard.refused == [], f"the test tried to reach the network: {guard.refused}"


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("llamaindex")
    (path / "li_factories.py").write_text(FACTORY, encoding="utf-8")
    return path


def entry(folder: Path, tmp_path: Path, factory: str = "make", extra: str = "") -> Path:
    """An entry for ``li_factories:factory``; reval's limit is set as "make"'s top k."""
    limit = 'limit_attribute = "similarity_top_k"\n' if factory == "make" else ""
    path = tmp_path / "reval.toml"
    path.write_text(
        f'[retrievers.index]\nkind = "llamaindex"\nfactory = "li_factories:{factory}"\n'
        f'pythonpath = "{folder}"\nid_key = "doc_id"\n{limit}{extra}',
        encoding="utf-8",
    )
    return path


def run_reval(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``reval ARGS`` in a child guarded like this process: its refusals land in a log the
    caller checks with ``refused_by_children``."""
    site = tmp_path / "offline-site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(sitecustomize(tmp_path / "refused.log"))
    path = os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path, "REVAL_HOME": str(tmp_path / "home")}
    return subprocess.run([REVAL, *args], capture_output=True, text=True, timeout=180, env=env)


def refused_by_children(tmp_path: Path) -> list[str]:
    log = tmp_path / "refused.log"
    return log.read_text().splitlines() if log.exists() else []
