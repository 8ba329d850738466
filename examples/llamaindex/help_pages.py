"""A LlamaIndex retriever over the example corpus: llama-index-core's in-memory
VectorStoreIndex with the dense plugin's offline wordllama embedder.
reval.toml: factory = "help_pages:retriever"."""

import json

from llama_index.core import VectorStoreIndex
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import TextNode

from retrieval_eval.example_data import corpus_path
from retrieval_eval.retrievers.kinds.llamaindex.embeddings import EmbedderEmbedding


def retriever() -> BaseRetriever:
    rows = [json.loads(line) for line in corpus_path().read_text().splitlines() if line]
    # One node per page, built here (no splitter); the id is metadata, kept out of the
    # embedded text so that the vectors are the page's alone.
    nodes = [
        TextNode(
            text=f"{r['title']} {r['text']}",
            metadata={"doc_id": r["_id"]},
            excluded_embed_metadata_keys=["doc_id"],
        )
        for r in rows
    ]
    index = VectorStoreIndex(
        nodes, embed_model=EmbedderEmbedding.load("wordllama", {"dimensions": 64})
    )
    return index.as_retriever(similarity_top_k=10)
