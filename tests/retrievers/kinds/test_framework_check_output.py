"""``reval check-retriever`` on a ``langchain`` and a ``llamaindex`` entry whose factory
embeds with the shipped wordllama model (whose import configures the root logger at INFO):
each check is printed once, on standard output, and standard error stays empty.

The children run offline (a guard refuses and records any non-loopback connection) with
fresh caches, as in the llamaindex kind's tests (``support.llamaindex_kind``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.env import installed
from support.offline import sitecustomize

REVAL = str(Path(sys.executable).parent / "reval")

#: Each factory loads the embedder through the kind's own adapter (that import is what
#: configured logging), then ranks three fixed documents by the question's length.
FACTORIES = {
    "langchain": """
from langchain_core.documents import Document
from retrieval_eval.retrievers.kinds.langchain.embeddings import EmbedderEmbeddings

class Fixed:
    def __init__(self):
        self.embeddings = EmbedderEmbeddings.load("wordllama", {"dimensions": 64})

    def invoke(self, question, k=3):
        self.embeddings.embed_query(question)
        return [Document(t, metadata={"doc_id": t}) for t in ("a", "b", "c")][:k]

def make():
    return Fixed()
""",
    "llamaindex": """
from llama_index.core.schema import NodeWithScore, TextNode
from retrieval_eval.retrievers.kinds.llamaindex.embeddings import EmbedderEmbedding

class Fixed:
    similarity_top_k = 3

    def __init__(self):
        self.embedding = EmbedderEmbedding.load("wordllama", {"dimensions": 64})

    def retrieve(self, question):
        self.embedding.get_query_embedding(question)
        return [NodeWithScore(node=TextNode(text=t, metadata={"doc_id": t}), score=3.0 - i)
                for i, t in enumerate("abc")][: self.similarity_top_k]

def make():
    return Fixed()
""",
}
LIMIT_KEY = {"langchain": 'limit_kwarg = "k"', "llamaindex": 'limit_attribute = "similarity_top_k"'}
MODULE = {"langchain": "langchain_core", "llamaindex": "llama_index.core"}


@pytest.mark.parametrize("kind", ["langchain", "llamaindex"])
def test_each_check_is_printed_once(kind: str, tmp_path: Path) -> None:
    if not installed(MODULE[kind]):
        pytest.skip(f"{MODULE[kind]} is not installed")
    (tmp_path / f"{kind}_fixed.py").write_text(FACTORIES[kind], encoding="utf-8")
    config = tmp_path / "reval.toml"
    config.write_text(
        f'[retrievers.fixed]\nkind = "{kind}"\nfactory = "{kind}_fixed:make"\n'
        f'id_key = "doc_id"\n{LIMIT_KEY[kind]}\n',
        encoding="utf-8",
    )
    site = tmp_path / "offline-site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(sitecustomize(tmp_path / "refused.log"))
    cache = tmp_path / "cache"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")])),
        "REVAL_HOME": str(tmp_path / "home"),
        "LLAMA_INDEX_CACHE_DIR": str(cache / "llama_index"),
        "NLTK_DATA": str(cache / "nltk"),
        "XDG_CACHE_HOME": str(cache),
    }
    done = subprocess.run(
        [REVAL, "check-retriever", "fixed", "--config", str(config)],
        capture_output=True, text=True, timeout=180, env=env, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert not (tmp_path / "refused.log").exists()
    checks = [line for line in done.stdout.splitlines() if line.startswith(("PASS ", "WARN "))]
    names = [line.split()[1] for line in checks]
    assert len(names) >= 10 and len(set(names)) == len(names), done.stdout
    assert done.stderr == ""
    output = done.stdout + done.stderr
    assert all(output.count(f" {name} ") == 1 for name in names), output
