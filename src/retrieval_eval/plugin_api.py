"""The plugin API: everything a retriever plugin imports of reval, in one module.

A plugin (the reference ``reval_bm25`` and ``reval_dense``, or one of your own) that
imports reval only from here is held to one documented surface while reval's modules
move; an import-linter contract holds the reference plugins to it. It holds:

- the errors a plugin raises (reval turns each into its exit code);
- what a retriever returns and says about itself (``Ranking``, ``RetrieverDescription``);
- the shared corpus reader, chunker and corpus revision, so that lexical, dense, hybrid
  and reranked runs on one corpus read the same documents, cut the same chunks and name
  the same revision;
- the ``Embedder`` interface and the JSON-over-HTTP client that embedders share;
- an index directory's JSON file, validated (``read_index_file``);
- a plugin's commands: the options of its ``index`` and ``serve`` commands, the serving
  loop (``serve_index``) and the progress bar (``RichProgress``).

Searching an index loads none of the rest: the corpus reader and the HTTP client load
when first asked for (``ON_FIRST_USE``), the gRPC server, click and rich with the functions
of a plugin's command line that use them.
"""

from __future__ import annotations

import importlib
import json
import signal
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from retrieval_eval.cli.progress import RichProgress
from retrieval_eval.corpus.chunking import CHUNK_SEPARATOR, Chunking
from retrieval_eval.errors import (
    ConfigError,
    CorpusError,
    InputError,
    RetrieverUnavailable,
)
from retrieval_eval.records.run import RetrieverDescription
from retrieval_eval.retrievers.embedding import (
    Embedder,
    EmbedderIdentity,
    EmbeddingError,
    load_embedder,
    normalise,
)
from retrieval_eval.retrievers.protocol import Ranking, Retriever

if TYPE_CHECKING:
    from retrieval_eval.corpus.reader import (
        CorpusDocument,
        CorpusScan,
        count_documents,
        duplicate_error,
        empty_error,
        iter_documents,
        scan_corpus,
    )
    from retrieval_eval.corpus.revision import corpus_fingerprint
    from retrieval_eval.retrievers.http_json import HttpCallError, RetryPolicy, post_json

#: Imported when first asked for: searching an index needs neither the corpus reader and
#: the revision (about 8 ms of start-up) nor the HTTP client (about 30 ms: urllib.request,
#: ssl, email), which only building an index and an endpoint's embedder use.
ON_FIRST_USE = {
    "retrieval_eval.corpus.reader": (
        "CorpusDocument", "CorpusScan", "count_documents", "duplicate_error", "empty_error",
        "iter_documents", "scan_corpus",
    ),
    "retrieval_eval.corpus.revision": ("corpus_fingerprint",),
    "retrieval_eval.retrievers.http_json": ("HttpCallError", "RetryPolicy", "post_json"),
}  # fmt: skip
_MODULE_OF = {name: module for module, names in ON_FIRST_USE.items() for name in names}

__all__ = [  # noqa: RUF022 (grouped by what the names are for)
    # errors
    "ConfigError", "CorpusError", "EmbeddingError", "InputError", "RetrieverUnavailable",
    # what a retriever returns and says about itself
    "Ranking", "RetrieverDescription",
    # the shared corpus reader, chunker and corpus revision
    "CHUNK_SEPARATOR", "Chunking", "CorpusDocument", "CorpusScan", "corpus_fingerprint",
    "count_documents", "duplicate_error", "empty_error", "iter_documents", "scan_corpus",
    # embedders, and the HTTP client of an endpoint's embedder
    "Embedder", "EmbedderIdentity", "load_embedder", "normalise",
    "HttpCallError", "RetryPolicy", "post_json",
    # an index directory's file, a plugin's commands
    "read_index_file", "index_options", "serve_options", "serve_index", "RichProgress",
]  # fmt: skip

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")


class ServedIndex(Retriever, Protocol):
    """What ``serve_index`` serves: an index's retriever, which describes itself and closes."""

    def describe(self) -> RetrieverDescription: ...

    def close(self) -> None: ...


def read_index_file(
    directory: Path,
    file_name: str,
    *,
    plugin: str,
    fmt: str,
    version: int,
    what: str,
    parse: Callable[[dict[str, Any]], T],
    error: type[InputError],
) -> T:
    """``parse`` of the JSON file ``file_name`` of the ``plugin``'s index at ``directory``,
    checked first: the directory exists and holds the file, the file is JSON, it says it is
    a ``fmt`` file of format ``version``. Anything else is ``error``, naming the path, what
    the file is to the plugin (``what``: "metadata", "manifest") and the fix."""
    rebuild = f"'reval {plugin} index'"
    if not directory.exists():
        raise error(f"index not found: {directory} (build it with {rebuild})")
    path = directory / file_name
    if not directory.is_dir() or not path.is_file():
        raise error(f"{directory}: not a {plugin} index (no {file_name})")
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise error(f"{path}: corrupt index {what}: {e}") from e
    if not isinstance(data, dict) or data.get("format") != fmt:
        raise error(f"{path}: not a {plugin} index {what}")
    found = data.get("format_version")
    if found != version:
        raise error(
            f"{directory}: index format version {found} is not supported (this version reads "
            f"{version}); rebuild it with {rebuild}"
        )
    try:
        return parse(data)
    except (KeyError, TypeError, ValueError) as e:
        raise error(f"{path}: corrupt index {what}: missing or bad {e}") from e


def index_options(out_help: str) -> Callable[[F], F]:
    """``CORPUS``, ``--out`` (described by ``out_help``), ``--chunk-words`` and
    ``--chunk-overlap``: a plugin's ``index`` command, spelt as every plugin spells it."""
    import click  # a plugin's command line only: searching an index loads no click

    def decorate(function: F) -> F:
        for option in reversed(
            [
                click.argument("corpus", type=click.Path(path_type=Path)),
                click.option(
                    "--out", "out", required=True, type=click.Path(path_type=Path), help=out_help
                ),
                click.option(
                    "--chunk-words",
                    type=click.IntRange(min=1),
                    default=None,
                    help="Split documents into chunks of N words (ids '<doc id>#<n>').",
                ),
                click.option(
                    "--chunk-overlap",
                    type=click.IntRange(min=0),
                    default=0,
                    show_default=True,
                    help="Words shared by consecutive chunks.",
                ),
            ]
        ):
            function = option(function)
        return function

    return decorate


def serve_options(function: F) -> F:
    """``DIR`` and the options ``reval serve`` takes too (address, token, concurrency,
    TLS): a plugin's ``serve`` command, whose function passes them to ``serve_index``."""
    import click  # a plugin's command line only: searching an index loads no click

    from retrieval_eval.cli.options import serve_options as options

    function = options(function)
    return click.argument("index_dir", metavar="DIR", type=click.Path(path_type=Path))(function)


def serve_index(
    open_index: Callable[[Path], ServedIndex],
    index_dir: Path,
    summary: Callable[[RetrieverDescription], str],
    *,
    address: str,
    token_env: str | None,
    max_concurrency: int,
    tls_cert: Path | None,
    tls_key: Path | None,
    tls_client_ca: Path | None,
) -> None:
    """Serve ``open_index(index_dir)`` over gRPC (health and reflection included) until
    Ctrl-C or SIGTERM, saying what is served (``summary`` of its description: documents,
    model) and where; the index is closed at the end."""
    import click  # a plugin's command line only: searching an index loads no click

    from retrieval_eval.cli.options import read_token, server_tls
    from retrieval_eval.retrievers.server.sdk import serve  # gRPC: only to serve

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
            f"serving {index_dir} ({summary(description)}, corpus revision "
            f"{description.corpus_revision}) on {handle.address}"
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


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # a plain attribute from now on
    return value
