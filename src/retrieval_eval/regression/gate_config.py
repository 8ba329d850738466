"""reval.toml's ``[gate]`` table: a project's own thresholds, globally and per retriever.

Example::

    [gate]                          # every lineage
    max_top1_drop = 0.03
    max_top3_drop = 0.03
    max_errors = 0                  # or "2%"
    unjudged_incomparable = false   # true: all lost hits unjudged -> incomparable

    [gate.retrievers.prod]          # a reval.toml name, a target, or a lineage key
    max_top1_drop = 0.01
    max_p95_latency_increase = 50   # milliseconds

Keys: ``max_top1_drop``, ``max_top3_drop``, ``max_drift`` (rates 0-1),
``max_p95_latency_increase`` (ms), ``max_errors`` (a count or "N%"),
``unjudged_incomparable`` (a boolean: a regression whose every lost hit rests on
unjudged documents is ``incomparable``, still failing; default false). Every problem is
one ``ConfigError`` naming the file and the key.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from retrieval_eval.errors import ConfigError, InputError
from retrieval_eval.regression.gate import Gate, ThresholdChoice
from retrieval_eval.regression.verdict_records import ErrorBudget
from retrieval_eval.retrievers.config_file import default_config_path

TABLE = "gate"
_RATES = ("max_top1_drop", "max_top3_drop", "max_drift")
KEYS = (*_RATES, "max_p95_latency_increase", "max_errors", "unjudged_incomparable")


def load_gate(path: Path | None = None, options: ThresholdChoice | None = None) -> Gate:
    """The ``[gate]`` of ``path`` (default ``./reval.toml``; none there: the defaults)
    with the command line's ``options`` over it."""
    explicit = path is not None
    path = Path(path) if path is not None else default_config_path()
    options = options or ThresholdChoice()
    if not path.is_file():
        if explicit:
            raise ConfigError(f"{path}: configuration file not found")
        return Gate(options=options)
    from retrieval_eval.retrievers.config import load_toml  # the TOML reader, only for a file

    table = load_toml(path).get(TABLE)
    if table is None:
        return Gate(options=options, source=path.name)
    where = f"{path} [{TABLE}]"
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: must be a table of thresholds")
    entries_table = table.get("retrievers", {})
    if not isinstance(entries_table, dict):
        raise ConfigError(f"{where}: 'retrievers' must hold one table per retriever")
    entries = {}
    for key, entry in entries_table.items():
        entry_where = f"{path} [{TABLE}.retrievers.{key}]"
        if not isinstance(entry, dict):
            raise ConfigError(f"{entry_where}: must be a table of thresholds")
        entries[key] = _choice(entry, entry_where)
    glob = {k: v for k, v in table.items() if k != "retrievers"}
    return Gate(_choice(glob, where), entries, options, path.name)


def _choice(table: Mapping[str, Any], where: str) -> ThresholdChoice:
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key not in KEYS:
            close = difflib.get_close_matches(key, KEYS, n=1)
            hint = f"did you mean {close[0]!r}?" if close else f"expected one of {', '.join(KEYS)}"
            raise ConfigError(f"{where}: unknown key {key!r}; {hint}")
        if key == "max_errors":
            values[key] = _budget(value, where)
        elif key == "unjudged_incomparable":
            if not isinstance(value, bool):
                shown = _shown(value)
                raise ConfigError(f"{where}: key {key!r} must be true or false, got {shown}")
            values[key] = value
        elif key == "max_p95_latency_increase":
            values["max_p95_latency_increase_ms"] = _number(value, where, key, None)
        else:
            values[key] = _number(value, where, key, 1.0)
    return ThresholdChoice(**values)


def _number(value: Any, where: str, key: str, top: float | None) -> float:
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if not number or not 0 <= value <= (top if top is not None else float("inf")):
        span = "a rate from 0 to 1" if top is not None else "a number of milliseconds, 0 or more"
        raise ConfigError(f"{where}: key {key!r} must be {span}, got {_shown(value)}")
    return float(value)


def _shown(value: Any) -> str:
    """``repr`` of a config value, short: a huge integer has no repr (Python refuses to
    print over 4,300 digits) and would be unreadable anyway."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**18:
        return f"an integer of {value.bit_length()} bits"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _budget(value: Any, where: str) -> ErrorBudget:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ConfigError(
            f"{where}: key 'max_errors' must be a count or \"N%\", got {_shown(value)}"
        )
    try:
        if isinstance(value, int) and abs(value) >= 10**18:
            raise InputError(str(value.bit_length()))
        return ErrorBudget.parse(str(value))
    except InputError:
        raise ConfigError(
            f"{where}: key 'max_errors' must be a count (e.g. 3) or a percentage (\"2%\"), "
            f"got {_shown(value)}"
        ) from None
