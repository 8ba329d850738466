"""``reval dense``: embed a corpus into an index, serve an index over gRPC."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import click

from retrieval_eval.cli.options import read_token, server_tls, server_tls_options, token_env_option
from retrieval_eval.cli.progress import RichProgress


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
@click.argument("corpus", type=click.Path(path_type=Path))
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(path_type=Path),
    help="Index directory (replaced atomically if it holds a dense index).",
)
@click.option(
    "--chunk-words",
    type=click.IntRange(min=1),
    default=None,
    help="Split documents into chunks of N words (ids '<doc id>#<n>').",
)
@click.option(
    "--chunk-overlap",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Words shared by consecutive chunks.",
)
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
    from retrieval_eval.errors import InputError
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
@click.argument("index_dir", metavar="DIR", type=click.Path(path_type=Path))
@click.option(
    "--address",
    default="127.0.0.1:0",
    show_default=True,
    help="host:port to bind (port 0 picks a free port).",
)
@token_env_option("Require 'authorization: Bearer <token>', the token read from $VAR.")
@click.option(
    "--max-concurrency",
    type=click.IntRange(min=1),
    default=64,
    show_default=True,
    help="Requests answered at once.",
)
@server_tls_options
def serve_command(
    index_dir: Path, address: str, token_env: str | None, max_concurrency: int,
    tls_cert: Path | None, tls_key: Path | None, tls_client_ca: Path | None,
) -> None:  # fmt: skip
    """Serve the index at DIR over gRPC (health and reflection included) until Ctrl-C."""
    from retrieval_eval import serve
    from reval_dense.retriever import open_index

    token = read_token(token_env)
    tls = server_tls(tls_cert, tls_key, tls_client_ca)
    retriever = open_index(index_dir)
    try:
        description = retriever.describe()
        handle = serve(
            retriever, address, describe=description, token=token, tls=tls,
            max_concurrency=max_concurrency,
        )  # fmt: skip
        signal.signal(signal.SIGTERM, _interrupt)  # a process manager's stop = Ctrl-C
        click.echo(
            f"serving {index_dir} ({description.metadata['documents']} documents, "
            f"{description.model_revision}, corpus revision {description.corpus_revision}) "
            f"on {handle.address}{' with TLS' if tls else ''}; Ctrl-C to stop"
        )
        try:
            handle.wait()
        except KeyboardInterrupt:
            pass
        finally:
            handle.stop()
    finally:
        retriever.close()
    click.echo("stopped", err=True)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
