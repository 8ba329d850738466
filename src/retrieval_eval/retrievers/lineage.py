"""Which runs are "the same retriever": the lineage that shares a baseline and a history.

Rules (computed from the target a run was made with and its Describe identifier):

1. A gRPC address (``grpc://``, ``grpcs://`` or a raw target) is followed by its Describe
   identifier, across addresses and replicas: ``grpc:IDENTIFIER``.
2. A reval.toml name (``NAME (grpc://...)`` as stored, or a fusion's bare name) and a
   plugin named without argument are their name: ``name:NAME``.
3. A plugin with an argument (``bm25:./index``) is its name and argument; an argument that
   names an existing path is made absolute (symlinks resolved), so ``bm25:./index`` typed
   in the project and ``bm25:/abs/project/index`` given by the pytest fixture agree, while
   ``bm25:./a`` and ``bm25:./b`` stay apart. Rebuilding the index at the same path
   continues the lineage: that is the before/after a chunking retune needs.

Relative paths are resolved against the working directory of the process that makes the
run, so the lineage is computed when a run is judged and stored with it.
"""

from __future__ import annotations

import os
from pathlib import Path

from retrieval_eval.retrievers.addresses import RAW_TARGET_PREFIXES, SCHEMES


def lineage_of(target: str, identifier: str, *, resolve_paths: bool = True) -> str:
    """The lineage key of a run made with ``target`` whose retriever described itself as
    ``identifier``. ``resolve_paths=False`` keeps a plugin's argument as typed (for runs
    stored before lineages were, whose working directory is unknown)."""
    target = target.strip()
    if target.startswith(SCHEMES) or target.startswith(RAW_TARGET_PREFIXES):
        return f"grpc:{identifier}"
    if target.endswith(")") and " (" in target:
        name, _, rest = target.partition(" (")
        if rest[:-1].startswith(SCHEMES) or rest[:-1].startswith(RAW_TARGET_PREFIXES):
            return f"name:{name}"
    name, sep, argument = target.partition(":")
    if not sep:
        return f"name:{target or identifier}"
    return f"plugin:{name}:{_normalised(argument) if resolve_paths else argument}"


def _normalised(argument: str) -> str:
    if not argument:
        return argument
    path = Path(argument).expanduser()
    try:
        if path.exists():
            return os.path.realpath(path)
    except OSError:  # a name too long for a path, a permission problem: keep as typed
        pass
    return argument
