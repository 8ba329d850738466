"""The kinds a ``[retrievers.NAME]`` table may name, and the one parse entry point.

Each kind is a module with ``KEYS`` (its own keys) and ``parse(common, reader) ->
KindConfig``; it is imported only
when a table names it, so that reading reval.toml never loads an HTTP client, a process
manager or a database driver. Opening the retriever (``KindConfig.open``) imports the rest.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from retrieval_eval.errors import ConfigError
from retrieval_eval.retrievers.kinds.base import COMMON_KEYS, KindConfig, TableReader, parse_common

#: kind -> the module holding its ``parse``.
KINDS: dict[str, str] = {
    "http": "retrieval_eval.retrievers.kinds.http.config",
    "command": "retrieval_eval.retrievers.kinds.command.config",
    "postgres": "retrieval_eval.retrievers.kinds.postgres.config",
    "qdrant": "retrieval_eval.retrievers.kinds.qdrant.config",
    "langchain": "retrieval_eval.retrievers.kinds.langchain.config",
    "llamaindex": "retrieval_eval.retrievers.kinds.llamaindex.config",
    "run": "retrieval_eval.retrievers.kinds.run.config",
}


def parse_kind(name: str, table: Mapping[str, Any], path: Path, where: str) -> KindConfig:
    """The ``KindConfig`` of a table with a ``kind`` key; ``ConfigError`` naming the file,
    the entry and the key for anything wrong (an unknown kind or key, a bad value)."""
    kind = table["kind"]
    if not isinstance(kind, str) or kind not in KINDS:
        close = difflib.get_close_matches(str(kind), KINDS, n=1)
        hint = f"did you mean {close[0]!r}?" if close else f"known kinds: {', '.join(KINDS)}"
        raise ConfigError(f"{where}: key 'kind': unknown kind {kind!r}; {hint}")
    module = importlib.import_module(KINDS[kind])
    reader = TableReader(table, where, path)
    reader.check_keys(kind, (*COMMON_KEYS, *module.KEYS))
    config: KindConfig = module.parse(parse_common(name, kind, reader), reader)
    return config
