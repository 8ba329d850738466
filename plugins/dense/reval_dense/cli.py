"""``reval dense``: embed a corpus into an index, serve an index over gRPC."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from retrieval_eval.plugin_api import (
    InputError,
    RetrieverDescription,
    RichProgress,
    index_options,
    serve_index,
    serve_options,
)


@click.group()
def dense() -> None:
    """Reference dense retriever: embed a corpus, then evaluate or serve it.

    \b
    reval dense index corpus.jsonl.gz --out index/          (offline WordLlama, 256 dims)
    reval dense index corpus.jsonl.gz --out index/ --dimensions 64 --hnsw
    reval dense index corpus.jsonl.gz --out index/ --embed-url http://127.0.0.1:8080/v1 \\
        --embed-model bge-small --dimensions 384 --embed-key-env EMBED_KEY
    reval eval --retriever dense:index/ ...        (in-process, no server)
    reval dense serve index/ --address 127.0.0.1:50051
    """


@dense.command("index")
@index_options("Index directory (replaced atomically if it holds a dense index).")
@click.option(
    "--dimensions",
    type=click.IntRange(min=1),
    default=None,
    help="Embedding dimensions: 64-256 for WordLlama (default 256, Matryoshka); "
    "the model's size for an endpoint (required with --embed-url).",
)
@click.option(
    "--embed-url",
    metavar="URL",
    default=None,
    help="An OpenAI-compatible endpoint (e.g. http://127.0.0.1:8080/v1) "
    "instead of the offline WordLlama model.",
)
@click.option(
    "--embed-model",
    metavar="NAME",
    default=None,
    help="The endpoint's model name (with --embed-url).",
)
@click.option(
    "--embed-key-env",
    metavar="VAR",
    default=None,
    help="Environment variable holding the endpoint's API key.",
)
@click.option(
    "--hnsw",
    is_flag=True,
    help="Also build an HNSW graph (usearch) and search it instead of exactly.",
)
def index_command(
    corpus: Path, out: Path, chunk_words: int | None, chunk_overlap: int,
    dimensions: int | None, embed_url: str | None, embed_model: str | None,
    embed_key_env: str | None, hnsw: bool,
) -> None:  # fmt: skip
    """Embed CORPUS: a BEIR-style JSONL file (_id, title, text; .gz ok) or a directory
    of .txt/.md files (id = relative path); the same reader and chunker as bm25."""
    from reval_dense.index import build_index
    from reval_dense.manifest import HnswSettings

    options: dict[str, Any] = {}
    if embed_url is None:
        if embed_model or embed_key_env:
            raise InputError("--embed-model and --embed-key-env need --embed-url")
        embedder = "wordllama"
    else:
        if not embed_model or dimensions is None:
            raise InputError("--embed-url needs --embed-model and --dimensions")
        embedder = "openai"
        options = {"url": embed_url, "model": embed_model}
        if embed_key_env:
            options["api_key_env"] = embed_key_env
    if dimensions is not None:
        options["dimensions"] = dimensions
    with RichProgress() as progress:
        info = build_index(
            corpus, out, chunk_words=chunk_words, chunk_overlap=chunk_overlap,
            embedder=embedder, embedder_options=options,
            hnsw=HnswSettings() if hnsw else None, progress=progress,
        )  # fmt: skip
    chunks = f" in {info.chunks:,} chunks ({info.chunking.label()})" if info.chunking else ""
    click.echo(f"indexed {info.documents:,} documents{chunks} into {out} in {info.seconds:.1f} s")
    click.echo(f"embedder {info.embedder}; {info.search}; corpus revision {info.corpus_revision}")


@dense.command("serve")
@serve_options
def serve_command(index_dir: Path, **options: Any) -> None:
    """Serve the index at DIR over gRPC (health and reflection included) until Ctrl-C."""
    from reval_dense.retriever import open_index

    serve_index(open_index, index_dir, _served, **options)


def _served(description: RetrieverDescription) -> str:
    return f"{description.metadata['documents']} documents, {description.model_revision}"
