"""``reval bm25``: index a corpus, serve an index over gRPC. Thin layer over the library."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from retrieval_eval.plugin_api import (
    Chunking,
    RetrieverDescription,
    RichProgress,
    index_options,
    serve_index,
    serve_options,
)
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
@index_options("Index directory (replaced atomically if it holds an index).")
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
@serve_options
def serve_command(index_dir: Path, **options: Any) -> None:
    """Serve the index at DIR over gRPC (health and reflection included) until Ctrl-C."""
    from reval_bm25.retriever import open_index

    serve_index(open_index, index_dir, _documents, **options)


def _documents(description: RetrieverDescription) -> str:
    return f"{description.metadata['documents']} documents"
