"""The options every model command shares (``sets generate``, ``sets judge --llm-url``):
where the server is, the key's variable, concurrency, deadline, budget and cache."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from retrieval_eval.cli.options import config_option

if TYPE_CHECKING:
    from retrieval_eval.labelling.llm.budget import Prices
    from retrieval_eval.labelling.llm.job import Estimate, ModelEndpoint

F = TypeVar("F", bound=Callable[..., Any])

_OPTIONS = (
    click.option("--api-key-env", metavar="VAR", default=None,
                 help="Environment variable holding the server's API key (never an option "
                 "value)."),
    click.option("--concurrency", type=click.IntRange(min=1), default=4, show_default=True,
                 help="Model calls in flight."),
    click.option("--llm-timeout", "timeout_s", type=click.FloatRange(min=0, min_open=True),
                 default=120.0, show_default=True, metavar="SECONDS",
                 help="Seconds for each call to the model, retries included."),
    click.option("--max-requests", type=click.IntRange(min=0), default=None,
                 help="Stop before sending more requests than this."),
    click.option("--max-cost", type=click.FloatRange(min=0), default=None,
                 help="Stop once the priced tokens reach this."),
    click.option("--price-in", type=click.FloatRange(min=0), default=None,
                 help="Price of a million prompt tokens (for the estimate and --max-cost) "
                 "[default: the model's in reval.toml [llm.prices], else none]."),
    click.option("--price-out", type=click.FloatRange(min=0), default=None,
                 help="Price of a million completion tokens [default: as --price-in]."),
    click.option("--cache-only", is_flag=True,
                 help="Answer from the cache alone, sending nothing (replay a job offline)."),
    click.option("--no-cache", is_flag=True, help="Neither read nor keep answers."),
)  # fmt: skip


def model_options(function: F) -> F:
    """The shared options, and ``--config`` (where ``[llm.prices]`` is read)."""
    for option in reversed(_OPTIONS):
        function = option(function)
    return config_option(function)


def model_endpoint(url: str, model: str, params: dict[str, Any]) -> ModelEndpoint:
    """The endpoint the shared options describe for ``model``; they are taken out of
    ``params``."""
    from retrieval_eval.errors import ConfigError
    from retrieval_eval.labelling.llm.budget import Limits
    from retrieval_eval.labelling.llm.job import ModelEndpoint
    from retrieval_eval.store.url import reval_home

    variable = params.pop("api_key_env")
    api_key = None
    if variable is not None:
        api_key = os.environ.get(variable)
        if not api_key:
            raise ConfigError(f"--api-key-env {variable}: the variable is not set")
    cache: Path | None = None if params.pop("no_cache") else reval_home() / "llm-cache"
    return ModelEndpoint(
        url, api_key, params.pop("timeout_s"), params.pop("concurrency"), cache,
        params.pop("cache_only"), _prices(model, params),
        Limits(params.pop("max_requests"), params.pop("max_cost")),
    )  # fmt: skip


def _prices(model: str, params: dict[str, Any]) -> Prices:
    """The options' prices when either is given, else the model's in reval.toml."""
    from retrieval_eval.labelling.llm.budget import Prices
    from retrieval_eval.labelling.llm.prices import configured_prices
    from retrieval_eval.retrievers.config import load_toml
    from retrieval_eval.retrievers.config_file import default_config_path

    given, path = (params.pop("price_in"), params.pop("price_out")), params.pop("config_path")
    if any(price is not None for price in given):
        return Prices(*(price or 0.0 for price in given))
    config = path or default_config_path()
    if not config.is_file():
        return Prices()
    return configured_prices(load_toml(config), config, model) or Prices()


def tokens_line(estimate: Estimate) -> str:
    """``about P prompt + C completion tokens[, about X at the given prices]``, the
    estimate a job prints before its first call."""
    cost = f", about {estimate.cost:.4f} at the given prices" if estimate.cost is not None else ""
    return (f"about {estimate.prompt_tokens} prompt + {estimate.completion_tokens} completion "
            f"tokens{cost} (cached answers cost nothing)")  # fmt: skip
