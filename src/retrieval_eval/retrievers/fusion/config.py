"""``[retrievers.NAME]`` entries that fuse other named retrievers.

Example::

    [retrievers.hybrid]
    fuse = ["bm25-local", "dense"]   # members: names, addresses or plugins, in order
    method = "rrf"                    # or "combsum" / "combmnz" (min-max normalised scores)
    k = 60                            # rrf only
    weights = [1.0, 2.0]              # optional, one per member
    on_member_error = "error"         # or "skip": fuse the members that answered
    timeout = 5.0                     # seconds per member call

Every problem is a ``ConfigError`` naming the file, the entry and the key.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

from retrieval_eval.errors import ConfigError
from retrieval_eval.retrievers.fusion.methods import (
    DEFAULT_RRF_K,
    PLAIN_RRF,
    FusionMethod,
    FusionParams,
)

_E = TypeVar("_E", bound=StrEnum)

KEYS = ("fuse", "method", "k", "weights", "on_member_error", "timeout")


class OnMemberError(StrEnum):
    #: A failed member makes the question an error (the default; never a silent fallback).
    ERROR = "error"
    #: Fuse the members that answered and record the skipped ones on the question.
    SKIP = "skip"


@dataclass(frozen=True, slots=True)
class FusionConfig:
    """One fusion entry of reval.toml."""

    name: str
    members: tuple[str, ...]
    source: Path
    params: FusionParams = PLAIN_RRF
    on_member_error: OnMemberError = OnMemberError.ERROR
    timeout_s: float | None = None

    @property
    def where(self) -> str:
        return f"{self.source} [retrievers.{self.name}]"


def parse_fusion(name: str, table: Mapping[str, Any], path: Path, where: str) -> FusionConfig:
    """The fusion entry ``table`` (it has a ``fuse`` key)."""
    for key in table:
        if key not in KEYS:
            close = difflib.get_close_matches(key, KEYS, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f"; expected one of {KEYS}"
            raise ConfigError(f"{where}: unknown key {key!r} in a fusion{hint}")
    members = _members(table["fuse"], name, where)
    method = _choice(table.get("method", "rrf"), FusionMethod, where, "method")
    if "k" in table and method is not FusionMethod.RRF:
        raise ConfigError(f"{where}: key 'k' applies to method 'rrf' only, not {method.value!r}")
    k = table.get("k", DEFAULT_RRF_K)
    if isinstance(k, bool) or not isinstance(k, int) or k < 0:
        raise ConfigError(f"{where}: key 'k' must be an integer >= 0, got {k!r}")
    weights = _weights(table.get("weights", []), len(members), where)
    on_error = _choice(
        table.get("on_member_error", "error"), OnMemberError, where, "on_member_error"
    )
    timeout = table.get("timeout")
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0
    ):
        raise ConfigError(f"{where}: key 'timeout' must be a positive number of seconds")
    return FusionConfig(
        name=name,
        members=members,
        source=path,
        params=FusionParams(method, k, weights),
        on_member_error=on_error,
        timeout_s=float(timeout) if timeout is not None else None,
    )


def _members(value: Any, name: str, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(m, str) and m.strip() for m in value):
        raise ConfigError(f"{where}: key 'fuse' must be a list of retriever names, got {value!r}")
    members = tuple(m.strip() for m in value)
    if len(members) < 2:
        raise ConfigError(f"{where}: key 'fuse' needs at least two members, got {len(members)}")
    if len(set(members)) != len(members):
        raise ConfigError(f"{where}: key 'fuse' names a member twice: {list(members)}")
    if name in members:
        raise ConfigError(f"{where}: key 'fuse': a fusion cannot contain itself ({name!r})")
    return members


def _weights(value: Any, count: int, where: str) -> tuple[float, ...]:
    if not isinstance(value, list):
        raise ConfigError(f"{where}: key 'weights' must be a list of numbers, got {value!r}")
    if not value:
        return ()
    if len(value) != count:
        raise ConfigError(
            f"{where}: key 'weights' has {len(value)} values for {count} members in 'fuse'"
        )
    for w in value:
        bad = isinstance(w, bool) or not isinstance(w, int | float)
        if bad or not math.isfinite(w) or w < 0:
            raise ConfigError(f"{where}: key 'weights': {w!r} is not a number >= 0")
    if not any(value):
        raise ConfigError(f"{where}: key 'weights': at least one weight must be > 0")
    return tuple(float(w) for w in value)


def _choice(value: Any, enum: type[_E], where: str, key: str) -> _E:
    try:
        return enum(value)
    except ValueError:
        allowed = ", ".join(repr(e.value) for e in enum)
        raise ConfigError(f"{where}: key {key!r} must be one of {allowed}, got {value!r}") from None
