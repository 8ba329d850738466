"""Named retrievers from ``reval.toml``: a short name stands for an address plus options.

Example::

    [retrievers.prod]
    address = "grpcs://search.internal:443"
    timeout = 5.0                 # seconds per call
    token_env = "PROD_TOKEN"      # bearer token read from this environment variable
    tls_ca = "certs/ca.pem"       # relative paths are relative to reval.toml
    tls_cert = "certs/client.pem" # client certificate and key: mutual TLS
    tls_key = "certs/client.key"
    tls_server_name = "search.internal"

An entry with ``fuse = [...]`` instead of ``address`` is a fused retriever (see
``retrievers.fusion.config``); one with ``rerank = "NAME"`` reranks NAME's candidates (see
``retrievers.rerank.config``); one with ``kind = "..."`` reaches an HTTP endpoint, a
process or a database directly (see ``retrievers.kinds``). reval reads ``[retrievers]``
here, ``[pytest]`` in its pytest plugin, ``[gate]`` (regression thresholds,
``retrieval_eval.regression.gate_config``) when judging and ``[labels]`` in ``sets
agreement --accept`` (``KNOWN_TABLES``); any other
table is a ``ConfigError``, like every problem, naming the file and the key: a misspelt or misplaced
table is never silently ignored.
"""

from __future__ import annotations

import difflib
import logging
import re
import sys
import tomllib
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from retrieval_eval.errors import ConfigError
from retrieval_eval.retrievers.config_file import default_config_path

if TYPE_CHECKING:  # parsed only when reval.toml has such entries: not on every start-up
    from retrieval_eval.retrievers.fusion.config import FusionConfig
    from retrieval_eval.retrievers.kinds.base import KindConfig
    from retrieval_eval.retrievers.rerank.config import RerankConfig

log = logging.getLogger(__name__)

SECTION = "retrievers"
#: Every top-level table reval.toml may hold.
#: ``[pytest]`` holds the pytest plugin's settings (``retrieval_eval.pytest_plugin``).
#: ``[gate]`` holds the regression thresholds (``retrieval_eval.regression.gate_config``),
#: ``[labels]`` the rule for taking a model's grades as labels (``labelling.llm.accept``).
KNOWN_TABLES = (SECTION, "pytest", "gate", "labels")
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_STRING_KEYS = ("address", "token_env", "tls_server_name")
_PATH_KEYS = ("tls_ca", "tls_cert", "tls_key")
KEYS = ("address", "timeout", *_STRING_KEYS[1:], *_PATH_KEYS)


@dataclass(frozen=True, slots=True)
class RetrieverConfig:
    """One ``[retrievers.NAME]`` entry; paths are already absolute."""

    name: str
    address: str
    source: Path
    timeout_s: float | None = None
    token_env: str | None = None
    tls_ca: Path | None = None
    tls_cert: Path | None = None
    tls_key: Path | None = None
    tls_server_name: str | None = None

    @property
    def where(self) -> str:
        """``reval.toml [retrievers.NAME]``, for messages."""
        return f"{self.source} [{SECTION}.{self.name}]"

    @property
    def uses_tls_files(self) -> bool:
        return any(v is not None for v in (self.tls_ca, self.tls_cert, self.tls_key))


#: What a ``[retrievers.NAME]`` table can be.
Entry: TypeAlias = "RetrieverConfig | FusionConfig | KindConfig | RerankConfig"


def load_config(
    path: Path | None = None, *, used: Collection[str] | None = None
) -> dict[str, Entry]:
    """The named retrievers of ``path`` (default ``./reval.toml``), by name.

    A missing default file means "no named retrievers"; a missing explicit file is an error.
    With ``used`` (the names a command asks for), a bad entry it does not name is left out
    with a warning naming the entry, so that one typo does not stop every command; a bad
    entry it names, or a file that is not valid, is a ``ConfigError`` as always.
    """
    explicit = path is not None
    path = Path(path) if path is not None else default_config_path()
    if not path.is_file():
        if explicit:
            raise ConfigError(f"{path}: configuration file not found")
        return {}
    return _parse_document(load_toml(path), path, used)


def check_token(token: str, where: str, variable: str) -> str:
    """A bearer token read from ``$variable``, refused (``ConfigError``) when it holds a
    control character: gRPC metadata cannot carry one, and a trailing newline
    (``TOKEN=$'x\\n'``) or carriage return (an env file with CRLF lines) is the usual cause."""
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in token):
        raise ConfigError(
            f"{where}: environment variable {variable} holds a control character (a "
            "trailing newline?); a bearer token is one line: set it without one, e.g. "
            f'{variable}="$(cat token-file)"'
        )
    return token


def load_toml(path: Path) -> dict[str, Any]:
    """``path`` parsed as TOML; every way it can fail is one ``ConfigError`` line:
    unreadable, not UTF-8 (a UTF-16 file from an editor), invalid, nested too deeply."""
    try:
        data = path.read_bytes()
    except OSError as e:
        raise ConfigError(f"{path}: cannot read: {e.strerror or e}") from e
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise ConfigError(f"{path}: the file is UTF-16; TOML files are UTF-8: save it as UTF-8")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise ConfigError(
            f"{path}: not UTF-8 text (byte {e.start}); TOML files are UTF-8: save it as UTF-8"
        ) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: invalid TOML: {e}") from e
    except ValueError as e:  # an integer over Python's digit limit (int() refuses it)
        raise ConfigError(f"{path}: invalid TOML: {_long_number(text)}") from e
    except RecursionError:
        raise ConfigError(f"{path}: invalid TOML: arrays or tables nested too deeply") from None


def _long_number(text: str) -> str:
    """Where the number too long for ``int()`` is, and what to do about it."""
    limit = sys.get_int_max_str_digits()
    found = re.search(rf"\d[\d_]{{{limit},}}", text)
    if found is None:  # pragma: no cover - int() refuses nothing else
        return f"a number over {limit} digits"
    line = text.count("\n", 0, found.start()) + 1
    digits = sum(c.isdigit() for c in found.group())
    return f"line {line}: a number of {digits} digits (over {limit}); quote it if it is text"


def _parse_document(
    document: Mapping[str, Any], path: Path, used: Collection[str] | None = None
) -> dict[str, Entry]:
    for key in document:
        if key in KNOWN_TABLES:
            continue
        close = difflib.get_close_matches(key, KNOWN_TABLES, n=1, cutoff=0.75)
        known = ", ".join(f"[{t}]" for t in KNOWN_TABLES)
        hint = f"did you mean [{close[0]}]?" if close else f"reval.toml has {known} only"
        raise ConfigError(f"{path}: unknown table [{key}]; {hint}")
    section = document.get(SECTION, {})
    if not isinstance(section, dict):
        raise ConfigError(f"{path}: [{SECTION}] must be a table of named retrievers")
    entries: dict[str, Entry] = {}
    bad: dict[str, ConfigError] = {}
    for name, table in section.items():
        try:
            entries[name] = _parse_named(name, table, path)
        except ConfigError as e:
            if used is None:
                raise
            bad[name] = e
    needed = _with_parts(used or (), entries)
    for name, error in bad.items():
        if name in needed:
            raise error
        _warn_once(f"{error} (left out: this command does not use it)")
    return entries


def _with_parts(names: Collection[str], entries: Mapping[str, Entry]) -> set[str]:
    """``names`` and every entry they are made of: a fusion's members, a rerank's
    candidate, and theirs."""
    needed, todo = set(), list(names)
    while todo:
        name = todo.pop()
        if name in needed:
            continue
        needed.add(name)
        entry = entries.get(name)
        todo += getattr(entry, "members", ())
        todo += [candidate] if (candidate := getattr(entry, "candidate", None)) else []
    return needed


#: Warnings already given in this process: a spec is resolved more than once a command.
_WARNED: set[str] = set()


def _warn_once(message: str) -> None:
    if message not in _WARNED:
        _WARNED.add(message)
        log.warning("warning: %s", message)


def _parse_named(name: str, table: Any, path: Path) -> Entry:
    """One ``[retrievers.NAME]`` table, whatever its form."""
    where = f"{path} [{SECTION}.{name}]"
    if not NAME_PATTERN.match(name):
        raise ConfigError(
            f"{where}: invalid retriever name {name!r}; use letters, digits, '_', '.', '-'"
        )
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: must be a table with at least 'address'")
    if "fuse" in table:
        from retrieval_eval.retrievers.fusion.config import parse_fusion

        return parse_fusion(name, table, path, where)
    if "rerank" in table:
        from retrieval_eval.retrievers.rerank.config import parse_rerank

        return parse_rerank(name, table, path, where)
    if "kind" in table:
        from retrieval_eval.retrievers.kinds.registry import parse_kind

        return parse_kind(name, table, path, where)
    return _parse_entry(name, table, path, where)


def _parse_entry(name: str, table: Mapping[str, Any], path: Path, where: str) -> RetrieverConfig:
    for key in table:
        if key not in KEYS:
            close = difflib.get_close_matches(key, KEYS, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f"; expected one of {KEYS}"
            raise ConfigError(f"{where}: unknown key {key!r}{hint}")
    if "address" not in table:
        raise ConfigError(
            f"{where}: missing required key 'address' (or 'fuse' for a fused retriever, "
            "'rerank' for a reranked one, 'kind' for an http, command or postgres retriever)"
        )
    values: dict[str, Any] = {}
    for key in _STRING_KEYS:
        if key in table:
            values[key] = _non_empty_string(table[key], where, key)
    for key in _PATH_KEYS:
        if key in table:
            values[key] = (path.parent / _non_empty_string(table[key], where, key)).resolve()
    if "timeout" in table:
        values["timeout_s"] = _positive_number(table["timeout"], where, "timeout")
    entry = RetrieverConfig(name=name, source=path, **values)
    if (entry.tls_cert is None) != (entry.tls_key is None):
        raise ConfigError(f"{where}: 'tls_cert' and 'tls_key' must be given together")
    if entry.uses_tls_files and entry.address.startswith("grpc://"):
        raise ConfigError(
            f"{where}: key 'address': TLS files are set but {entry.address!r} is plaintext; "
            "use grpcs://"
        )
    return entry


def _non_empty_string(value: Any, where: str, key: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{where}: key {key!r} must be a non-empty string, got {value!r}")
    return value.strip()


def _positive_number(value: Any, where: str, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise ConfigError(
            f"{where}: key {key!r} must be a positive number of seconds, got {value!r}"
        )
    return float(value)
