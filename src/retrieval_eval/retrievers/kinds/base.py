"""What every retriever kind shares: the common keys, checked reading, and its identity.

Common keys of every ``[retrievers.NAME]`` table with a ``kind``::

    kind = "http"               # which kind (see registry.KINDS)
    timeout = 5.0               # seconds per call (default: reval's, or --timeout)
    version = "2"               # optional: your own label for what is behind it
    corpus_revision = "c7"      # optional: what the retriever searches (part of the benchmark)
    chunk_separator = "#"       # optional: result ids are chunk ids "<doc><sep><n>"

Identity in run history (the Describe answer): the identifier is the reval.toml name (a
name is its own lineage); the version is the kind and a fingerprint of what the entry
says it is (endpoint, template, paths, query; never a secret's value), plus ``version``,
so that a changed template is a new variant of the same lineage, compared against the
old one. ``pipeline`` says it in words (``http POST 127.0.0.1:9200/docs/_search``).
"""

from __future__ import annotations

import difflib
import hashlib
import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from retrieval_eval.errors import ConfigError, RetrieverRejected
from retrieval_eval.records.parameters import DEFAULT_TIMEOUT_S
from retrieval_eval.records.run import RetrieverDescription
from retrieval_eval.retrievers.contract.limits import request_problem
from retrieval_eval.retrievers.protocol import AsyncRetriever

COMMON_KEYS = ("kind", "timeout", "version", "corpus_revision", "chunk_separator")


class TableReader:
    """Typed reads of one table, each failure a ``ConfigError`` naming file, entry, key."""

    def __init__(self, table: Mapping[str, Any], where: str, path: Path) -> None:
        self.table = table
        self.where = where
        #: The reval.toml file: relative paths are relative to its folder.
        self.path = path

    def fail(self, key: str, problem: str) -> ConfigError:
        return ConfigError(f"{self.where}: key {key!r}: {problem}")

    def check_keys(self, kind: str, allowed: Sequence[str]) -> None:
        for key in self.table:
            if key not in allowed:
                close = difflib.get_close_matches(key, allowed, n=1)
                hint = f"did you mean {close[0]!r}?" if close else f"expected one of {allowed}"
                raise ConfigError(f"{self.where}: unknown key {key!r} for kind {kind!r}; {hint}")

    def has(self, key: str) -> bool:
        return key in self.table

    def string(self, key: str, *, required: bool = False, default: str = "") -> str:
        if key not in self.table:
            if required:
                raise ConfigError(f"{self.where}: missing required key {key!r}")
            return default
        value = self.table[key]
        if not isinstance(value, str) or not value.strip():
            raise self.fail(key, f"must be a non-empty string, got {value!r}")
        return value.strip()

    def positive(self, key: str, default: float | None = None) -> float | None:
        if key not in self.table:
            return default
        value = self.table[key]
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
            or not value > 0
        ):
            raise self.fail(key, f"must be a positive number, got {value!r}")
        return float(value)

    def integer(self, key: str, default: int, *, low: int, high: int) -> int:
        value = self.table.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise self.fail(key, f"must be an integer from {low} to {high}, got {value!r}")
        return value

    def string_list(self, key: str, *, required: bool = False) -> tuple[str, ...]:
        if key not in self.table:
            if required:
                raise ConfigError(f"{self.where}: missing required key {key!r}")
            return ()
        value = self.table[key]
        if (
            not isinstance(value, list)
            or not value
            or not all(isinstance(v, str) and v for v in value)
        ):
            raise self.fail(key, f"must be a non-empty list of strings, got {value!r}")
        return tuple(value)

    def string_table(self, key: str) -> dict[str, str]:
        value = self.table.get(key, {})
        if not isinstance(value, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in value.items()
        ):
            raise self.fail(key, "must be a table of strings")
        return dict(value)

    def env_name(self, key: str) -> str | None:
        """An environment variable's name (its value is read when the retriever opens)."""
        if key not in self.table:
            return None
        name = self.string(key)
        if not name.replace("_", "").isalnum() or name[0].isdigit():
            raise self.fail(key, f"{name!r} is not an environment variable name")
        return name

    def directory(self, key: str) -> Path:
        """A folder, relative to reval.toml's (default: reval.toml's own folder)."""
        return (self.path.parent / self.string(key, default=".")).resolve()


@dataclass(frozen=True, slots=True)
class Common:
    """The keys every kind shares."""

    name: str
    kind: str
    source: Path
    timeout_s: float | None = None
    version: str = ""
    corpus_revision: str = ""
    chunk_separator: str = ""

    @property
    def where(self) -> str:
        return f"{self.source} [retrievers.{self.name}]"


def parse_common(name: str, kind: str, reader: TableReader) -> Common:
    separator = reader.table.get("chunk_separator", "")
    if not isinstance(separator, str):
        raise reader.fail("chunk_separator", f"must be a string, got {separator!r}")
    return Common(
        name=name,
        kind=kind,
        source=reader.path,
        timeout_s=reader.positive("timeout"),
        version=reader.string("version"),
        corpus_revision=reader.string("corpus_revision"),
        chunk_separator=separator,
    )


class KindEntry:
    """Mixin of every kind's config dataclass: the names messages and callers use."""

    __slots__ = ()
    common: Common

    @property
    def name(self) -> str:
        return self.common.name

    @property
    def source(self) -> Path:
        return self.common.source

    @property
    def where(self) -> str:
        return self.common.where


class KindConfig(Protocol):
    """One parsed kind entry: what it is, and how to open it."""

    @property
    def common(self) -> Common: ...

    @property
    def name(self) -> str: ...

    @property
    def source(self) -> Path: ...

    @property
    def where(self) -> str: ...

    def detail(self) -> str:
        """What it reaches, in words, for ``reval retrievers list`` and the pipeline
        (``http POST 127.0.0.1:9200/docs/_search``); never a secret."""
        ...

    def identity(self) -> Mapping[str, object]:
        """Everything that makes it what it is (fingerprinted); never a secret's value."""
        ...

    def open(self, timeout_s: float | None) -> AsyncRetriever:
        """A retriever for this entry; it connects (or starts) on first use, on the
        caller's event loop. ``ConfigError`` for what can only be checked now (an
        environment variable that is not set)."""
        ...


def fingerprint(identity: Mapping[str, object]) -> str:
    canonical = json.dumps(identity, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def describe_kind(config: KindConfig) -> RetrieverDescription:
    """The Describe answer of a kind entry (see the module docstring)."""
    common = config.common
    digest = fingerprint({"kind": common.kind, **config.identity()})
    version = f"{common.kind} {digest[7:19]}"
    if common.version:
        version += f" {common.version}"
    return RetrieverDescription(
        identifier=common.name,
        version=version,
        chunk_separator=common.chunk_separator,
        corpus_revision=common.corpus_revision,
        pipeline=config.detail(),
        metadata={"kind": common.kind, "kind.fingerprint": digest},
    )


def env_value(common: Common, key: str, variable: str) -> str:
    """The value of environment variable ``variable`` (named by ``key``); ``ConfigError``
    when it is unset or empty. The message names the variable, never a value."""
    value = os.environ.get(variable)
    if not value:
        raise ConfigError(
            f"{common.where}: key {key!r}: environment variable {variable} is not set"
        )
    return value


def admit(
    target: str, question: str, limit: int, timeout_s: float | None, configured_s: float | None
) -> float:
    """Refuse a request the contract forbids before it leaves (a question error of kind
    ``rejected``), and return the call's deadline: the caller's, else the entry's, else
    reval's default."""
    problem = request_problem(question, limit)
    if problem is not None:
        raise RetrieverRejected(target, problem, "INVALID_ARGUMENT")
    deadline = timeout_s if timeout_s is not None else configured_s
    return deadline if deadline is not None else DEFAULT_TIMEOUT_S
