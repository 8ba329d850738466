"""What a model's tokens cost, as a team configures it once in reval.toml instead of on
every command line::

    [llm.prices]
    "gpt-4o-mini" = { prompt = 0.15, completion = 0.60 }   # per million tokens

A job's estimate and its ``--max-cost`` stop use the price of the model it asks;
``--price-in`` / ``--price-out`` override it. A malformed table is a ``ConfigError``
naming the file and the key.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from retrieval_eval.errors import ConfigError
from retrieval_eval.labelling.llm.budget import Prices

TABLE = "llm"
KEYS = ("prompt", "completion")


def configured_prices(document: dict[str, Any], path: Path, model: str) -> Prices | None:
    """``model``'s prices from the ``[llm.prices]`` table of ``document`` (read from
    ``path``), or None when it names none."""
    llm = document.get(TABLE)
    if llm is None:
        return None
    if not isinstance(llm, dict) or set(llm) - {"prices"}:
        raise ConfigError(f"{path} [{TABLE}]: must be a table with one key, prices")
    prices = llm.get("prices", {})
    if not isinstance(prices, dict):
        raise ConfigError(f"{path} [{TABLE}.prices]: must be a table of model = {{prompt, "
                          "completion}")  # fmt: skip
    entry = prices.get(model)
    if entry is None:
        return None
    where = f"{path} [{TABLE}.prices] {model!r}"
    if not isinstance(entry, dict) or set(entry) - set(KEYS):
        raise ConfigError(f"{where}: must be {{prompt = PRICE, completion = PRICE}} (per "
                          "million tokens)")  # fmt: skip
    values = [entry.get(key, 0.0) for key in KEYS]
    if any(isinstance(v, bool) or not isinstance(v, int | float) or v < 0 for v in values):
        raise ConfigError(f"{where}: prices must be numbers >= 0 (per million tokens)")
    return Prices(float(values[0]), float(values[1]))
