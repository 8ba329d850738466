"""Options shared by reval's commands, parsing only, no work.

A plugin's own commands (``reval bm25 serve``) take their serving options from here and
their progress bar from ``cli.progress``, through ``retrieval_eval.plugin_api``, so that
every command spells them alike.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from retrieval_eval.errors import ConfigError

if TYPE_CHECKING:
    from retrieval_eval.regression.verdict_records import Thresholds
    from retrieval_eval.retrievers.server.sdk import ServerTls

F = TypeVar("F", bound=Callable[..., Any])


def db_option(function: F) -> F:
    return click.option(
        "--db",
        "db_url",
        metavar="URL",
        help="Run store URL (default: $REVAL_DATABASE_URL, else $REVAL_HOME/runs.sqlite, "
        "REVAL_HOME defaulting to ~/.reval).",
    )(function)


def config_option(function: F) -> F:
    """``--config FILE``: the reval.toml to read (named retrievers, ``[gate]``,
    ``[labels]``, ``[llm.prices]``), one definition for every command that reads one."""
    return click.option(
        "--config",
        "config_path",
        type=click.Path(dir_okay=False, path_type=Path),
        help="Read this reval.toml instead of ./reval.toml (named retrievers, [gate], "
        "[labels], [llm.prices]).",
    )(function)


def count_option(
    flag: str, help_text: str, *, default: int, metavar: str = "N"
) -> Callable[[F], F]:
    """A whole number of at least 1 with its default shown: how many, how deep."""
    return click.option(
        flag,
        type=click.IntRange(min=1),
        default=default,
        show_default=True,
        metavar=metavar,
        help=help_text,
    )


def file_option(flag: str, help_text: str) -> Callable[[F], F]:
    """A file to write (``FILE``), parsed to a ``Path``; ``None`` when not given."""
    return click.option(
        flag,
        type=click.Path(dir_okay=False, path_type=Path),
        metavar="FILE",
        help=help_text,
    )


def format_option(*choices: str) -> Callable[[F], F]:
    def decorate(function: F) -> F:
        return click.option(
            "--format",
            "fmt",
            type=click.Choice(list(choices)),
            default=choices[0],
            show_default=True,
            help="Report format.",
        )(function)

    return decorate


def parse_labels(
    ctx: click.Context, param: click.Parameter, values: tuple[str, ...]
) -> dict[str, str]:
    """``KEY=VALUE`` pairs; a later KEY wins."""
    labels: dict[str, str] = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"{item!r} is not KEY=VALUE", ctx=ctx, param=param)
        labels[key.strip()] = value
    return labels


def label_option(help_text: str) -> Callable[[F], F]:
    def decorate(function: F) -> F:
        return click.option(
            "--label",
            "labels",
            multiple=True,
            metavar="KEY=VALUE",
            callback=parse_labels,
            help=help_text,
        )(function)

    return decorate


def parse_ks(ctx: click.Context, param: click.Parameter, value: str) -> tuple[int, ...]:
    """A comma-separated list of cut-offs; 1 and 3 are always measured."""
    from retrieval_eval.retrievers.contract.limits import MAX_LIMIT  # loads the run records

    try:
        ks = {int(part) for part in value.split(",") if part.strip()}
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a comma-separated list of integers") from None
    if any(k < 1 or k > MAX_LIMIT for k in ks):
        raise click.BadParameter(f"{value!r}: every k must be between 1 and {MAX_LIMIT}")
    return tuple(sorted(ks | {1, 3}))


#: The formats ``--report`` writes to a file.
REPORT_FORMATS = ("json", "junit", "markdown", "html")


def parse_report_files(
    ctx: click.Context, param: click.Parameter, value: tuple[str, ...]
) -> tuple[tuple[str, Path], ...]:
    """``FORMAT:FILE`` pairs; two reports to one file would overwrite each other."""
    pairs: list[tuple[str, Path]] = []
    for item in value:
        fmt, sep, name = item.partition(":")
        if not sep or not name or fmt not in REPORT_FORMATS:
            raise click.BadParameter(
                f"{item!r} is not FORMAT:FILE with FORMAT one of {', '.join(REPORT_FORMATS)}"
            )
        pairs.append((fmt, Path(name)))
    files = [path.resolve() for _, path in pairs]
    for path in files:
        if files.count(path) > 1:
            raise click.BadParameter(f"two reports would be written to {path}")
    return tuple(pairs)


def threshold_options(function: F) -> F:
    """``--max-top1-drop``, ``--max-top3-drop``, ``--max-p95-latency-increase``: the
    regression thresholds. Not given, they are None: ``reval eval`` then takes the
    lineage's own (reval.toml ``[gate]``, else the library's ``Thresholds`` defaults,
    see ``thresholds_or_defaults``), so that it can tell an option that loosens them."""
    from retrieval_eval.regression.verdict_records import Thresholds

    defaults = Thresholds()
    for option in reversed(
        (
            click.option(
                "--max-top1-drop",
                type=click.FloatRange(0, 1),
                default=None,
                show_default=f"{defaults.max_top1_drop:g}, or reval.toml [gate]",
                metavar="RATE",
                help="A top-1 hit-rate drop (absolute, e.g. 0.05) strictly greater than this "
                "is a regression.",
            ),
            click.option(
                "--max-top3-drop",
                type=click.FloatRange(0, 1),
                default=None,
                show_default=f"{defaults.max_top3_drop:g}, or reval.toml [gate]",
                metavar="RATE",
                help="A top-3 hit-rate drop (absolute) strictly greater than this is a regression.",
            ),
            click.option(
                "--max-p95-latency-increase",
                "max_p95_ms",
                type=click.FloatRange(min=0),
                metavar="MS",
                help="A p95 latency increase above MS is a regression (default: unchecked; "
                "unloaded p95 when both runs have a --latency-probe; a warning when their "
                "concurrencies differ).",
            ),
        )
    ):
        function = option(function)
    return function


def thresholds_or_defaults(
    max_top1_drop: float | None, max_top3_drop: float | None, max_p95_ms: float | None
) -> Thresholds:
    """The ``threshold_options`` values, the library's defaults where none was given."""
    from retrieval_eval.regression.verdict_records import Thresholds

    defaults = Thresholds()
    return Thresholds(
        defaults.max_top1_drop if max_top1_drop is None else max_top1_drop,
        defaults.max_top3_drop if max_top3_drop is None else max_top3_drop,
        max_p95_ms,
    )


def timeout_option(function: F) -> F:
    """``--timeout SECONDS``: one option, one default, for every command that calls a
    retriever."""
    from retrieval_eval.records.parameters import DEFAULT_TIMEOUT_S

    return click.option(
        "--timeout",
        "timeout_s",
        type=click.FloatRange(min=0, min_open=True),
        default=None,
        metavar="SECONDS",
        help="Deadline of each call in seconds [default: the retriever's timeout in "
        f"reval.toml, else {DEFAULT_TIMEOUT_S:g}].",
    )(function)


def rbo_p_option(function: F) -> F:
    """``--rbo-p P``: the persistence of rank-biased overlap, for every command that
    measures how far rankings moved."""
    from retrieval_eval.comparison.overlap import DEFAULT_RBO_P

    return click.option(
        "--rbo-p",
        type=click.FloatRange(0, 1, min_open=True, max_open=True),
        default=DEFAULT_RBO_P,
        show_default=True,
        metavar="P",
        help="Persistence of rank-biased overlap (higher looks deeper down the rankings).",
    )(function)


def token_env_option(help_text: str) -> Callable[[F], F]:
    """``--token-env VAR``: the name of the variable; ``read_token`` reads it."""

    def decorate(function: F) -> F:
        return click.option("--token-env", metavar="VAR", default=None, help=help_text)(function)

    return decorate


def read_token(variable: str | None) -> str | None:
    """The bearer token held in ``$variable``; ``None`` without the option."""
    if variable is None:
        return None
    token = os.environ.get(variable)
    if not token:
        raise ConfigError(f"--token-env: environment variable {variable} is not set")
    from retrieval_eval.retrievers.config import check_token

    return check_token(token, "--token-env", variable)


def server_tls_options(function: F) -> F:
    """``--tls-cert``, ``--tls-key``, ``--tls-client-ca`` of a command that serves."""
    pem = click.Path(path_type=Path, dir_okay=False)
    for name, help_text in reversed(
        [
            ("--tls-cert", "Serve TLS with this PEM certificate chain (needs --tls-key)."),
            ("--tls-key", "PEM key."),
            ("--tls-client-ca", "Require client certificates signed by this CA (mutual TLS)."),
        ]
    ):
        function = click.option(name, type=pem, default=None, help=help_text)(function)
    return function


def serve_options(function: F) -> F:
    """``--address``, ``--token-env``, ``--max-concurrency`` and the TLS options: every
    command that serves a retriever over gRPC (``reval serve``, a plugin's ``serve``)."""
    function = server_tls_options(function)
    function = click.option(
        "--max-concurrency",
        type=click.IntRange(min=1),
        default=64,
        show_default=True,
        help="Requests answered at once.",
    )(function)
    function = token_env_option(
        "Require 'authorization: Bearer <token>', the token read from $VAR."
    )(function)
    return click.option(
        "--address",
        default="127.0.0.1:0",
        show_default=True,
        help="host:port to bind (port 0 picks a free port).",
    )(function)


def server_tls(cert: Path | None, key: Path | None, client_ca: Path | None) -> ServerTls | None:
    """The server's TLS from ``server_tls_options``; ``None`` for plaintext."""
    if cert is None and key is None:
        if client_ca is not None:
            raise click.UsageError("--tls-client-ca needs --tls-cert and --tls-key")
        return None
    if cert is None or key is None:
        raise click.UsageError("--tls-cert and --tls-key go together")
    from retrieval_eval.retrievers.server.sdk import ServerTls

    return ServerTls(cert, key, client_ca)
