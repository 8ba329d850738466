"""Options shared by ``reval eval`` and ``reval runs``: parsing only, no work."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])


def db_option(function: F) -> F:
    return click.option(
        "--db",
        "db_url",
        metavar="URL",
        help="Run store URL (default: $REVAL_DATABASE_URL, else $REVAL_HOME/runs.sqlite, "
        "REVAL_HOME defaulting to ~/.reval).",
    )(function)


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
    try:
        ks = {int(part) for part in value.split(",") if part.strip()}
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a comma-separated list of integers") from None
    if any(k < 1 or k > 1000 for k in ks):
        raise click.BadParameter(f"{value!r}: every k must be between 1 and 1000")
    return tuple(sorted(ks | {1, 3}))


def threshold_options(function: F) -> F:
    """``--max-top1-drop``, ``--max-top3-drop``, ``--max-p95-latency-increase``: the
    regression thresholds, defaults from the library's ``Thresholds``."""
    from retrieval_eval.regression.types import Thresholds

    defaults = Thresholds()
    for option in reversed(
        (
            click.option(
                "--max-top1-drop",
                type=click.FloatRange(0, 1),
                default=defaults.max_top1_drop,
                show_default=True,
                metavar="RATE",
                help="Largest allowed drop of the top-1 hit rate (absolute, e.g. 0.05).",
            ),
            click.option(
                "--max-top3-drop",
                type=click.FloatRange(0, 1),
                default=defaults.max_top3_drop,
                show_default=True,
                metavar="RATE",
                help="Largest allowed drop of the top-3 hit rate (absolute).",
            ),
            click.option(
                "--max-p95-latency-increase",
                "max_p95_ms",
                type=click.FloatRange(min=0),
                metavar="MS",
                help="Largest allowed rise of p95 latency in milliseconds (default: unchecked).",
            ),
        )
    ):
        function = option(function)
    return function


def timeout_option(function: F) -> F:
    """``--timeout SECONDS``: one option, one default, for every command that calls a
    retriever."""
    from retrieval_eval.records import DEFAULT_TIMEOUT_S

    return click.option(
        "--timeout",
        "timeout_s",
        type=click.FloatRange(min=0, min_open=True),
        default=None,
        metavar="SECONDS",
        help="Deadline of each call in seconds [default: the retriever's timeout in "
        f"reval.toml, else {DEFAULT_TIMEOUT_S:g}].",
    )(function)
