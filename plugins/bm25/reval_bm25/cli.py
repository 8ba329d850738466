"""``reval bm25``: index a corpus, serve an index over gRPC. Thin layer over the library."""

from __future__ import annotations

import signal
from pathlib import Path

import click

from retrieval_eval.cli.options import read_token, server_tls, server_tls_options, token_env_option
from retrieval_eval.cli.progress import RichProgress
from retrieval_eval.corpus import Chunking
from reval_bm25.errors import Bm25IndexError


@click.group()
def bm25() -> None:
    """Reference BM25 retriever (tantivy): build an index, then evaluate or serve it.

    \b
    reval bm25 index corpus.jsonl.gz --out index/
    reval eval --retriever bm25:index/ ...        (in-process, no server)
    reval bm25 serve index/ --address 127.0.0.1:50051
    """


@bm25.command("index")
@click.argument("corpus", type=click.Path(path_type=Path))
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(path_type=Path),
    help="Index directory (replaced atomically if it holds an index).",
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
    "--update",
    is_flag=True,
    help="Bring an existing index in line with CORPUS: add, replace, delete.",
)
def index_command(
    corpus: Path, out: Path, chunk_words: int | None, chunk_overlap: int, update: bool
) -> None:
    """Index CORPUS: a BEIR-style JSONL file (_id, title, text; .gz ok) or a directory
    of .txt/.md files (id = relative path)."""
    from reval_bm25.index import build_index, update_index
    from reval_bm25.metadata import read_metadata

    with RichProgress() as progress:
        if update:
            _check_update_chunking(read_metadata(out).chunking, chunk_words, chunk_overlap)
            info = update_index(corpus, out, progress=progress)
        else:
            info = build_index(
                corpus, out, chunk_words=chunk_words, chunk_overlap=chunk_overlap,
                progress=progress,
            )  # fmt: skip
    chunks = f" in {info.chunks:,} chunks ({info.chunking.label()})" if info.chunking else ""
    if update:
        click.echo(
            f"updated {out}: {info.added:,} added, {info.replaced:,} replaced, "
            f"{info.deleted:,} deleted, {info.unchanged:,} unchanged; "
            f"{info.documents:,} documents{chunks} in {info.seconds:.1f} s"
        )
    else:
        click.echo(
            f"indexed {info.documents:,} documents{chunks} into {out} in {info.seconds:.1f} s"
        )
    click.echo(f"corpus revision {info.corpus_revision}, {info.segments} segment(s)")


def _check_update_chunking(
    existing: Chunking | None, chunk_words: int | None, chunk_overlap: int
) -> None:
    """--update keeps the index's chunking; a different request needs a rebuild."""
    if chunk_words is None and not chunk_overlap:
        return
    built = "no chunking" if existing is None else existing.label()
    if existing is None or (existing.words, existing.overlap) != (chunk_words, chunk_overlap):
        raise Bm25IndexError(
            f"--update keeps the index's chunking ({built}); to change it, rebuild without --update"
        )


@bm25.command("serve")
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
    index_dir: Path,
    address: str,
    token_env: str | None,
    max_concurrency: int,
    tls_cert: Path | None,
    tls_key: Path | None,
    tls_client_ca: Path | None,
) -> None:
    """Serve the index at DIR over gRPC (health and reflection included) until Ctrl-C."""
    from retrieval_eval import serve
    from reval_bm25.retriever import open_index

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
            f"serving {index_dir} ({description.metadata['documents']} documents, corpus "
            f"revision {description.corpus_revision}) on {handle.address}"
            f"{' with TLS' if tls else ''}; Ctrl-C to stop"
        )
        try:
            handle.wait()  # returns after Ctrl-C, the server stopped
        except KeyboardInterrupt:
            pass
        finally:
            handle.stop()
    finally:
        retriever.close()
    click.echo("stopped", err=True)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
