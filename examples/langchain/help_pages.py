"""A LangChain retriever over the example corpus: langchain-core's InMemoryVectorStore with
the dense plugin's offline wordllama embedder. reval.toml: factory = "help_pages:retriever"."""

import json

from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.vectorstores import InMemoryVectorStore

from retrieval_eval.example_data import corpus_path
from retrieval_eval.retrievers.kinds.langchain.embeddings import EmbedderEmbeddings


def retriever() -> BaseRetriever:
    rows = [json.loads(line) for line in corpus_path().read_text().splitlines() if line]
    store = InMemoryVectorStore(EmbedderEmbeddings.load("wordllama", {"dimensions": 64}))
    store.add_documents(
        [Document(f"{r['title']} {r['text']}", metadata={"doc_id": r["_id"]}) for r in rows]
    )
    return store.as_retriever(search_kwargs={"k": 10})
