"""``kind = "run"``: rankings already on disk, a TREC run file, as a retriever::

    [retrievers.bm25-run]
    kind = "run"
    path = "runs/bm25.trec"      # relative to reval.toml's folder; .gz ok
    chunk_separator = "#"        # optional: the run's ids are chunk ids "<doc>#<n>"

or, with ids taken whole, straight on the command line: ``--retriever run:runs/bm25.trec``.

The file answers each golden question by its id (the run's topic column): the question's
ranking as trec_eval ranks it (``runfile``), its best ``limit`` lines; a question the
file has no line for gets an empty answer. Its identity is the file's content (SHA-256
of its text), so a regenerated run is a new variant of the same lineage (the reval.toml
name, or the path after ``run:``), and the same run at another path the same variant.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from retrieval_eval.errors import ConfigError, InputError
from retrieval_eval.retrievers.kinds.base import Common, KindEntry, TableReader

if TYPE_CHECKING:
    from retrieval_eval.retrievers.protocol import AsyncRetriever

KEYS = ("path",)


@dataclass(frozen=True, slots=True)
class RunConfig(KindEntry):
    common: Common
    #: The run file (absolute).
    path: Path
    #: The spec typed on the command line (``run:FILE``); None for a reval.toml entry.
    spec: str | None = None

    @property
    def where(self) -> str:
        return f"--retriever {self.spec}" if self.spec is not None else self.common.where

    def detail(self) -> str:
        return f"run {self.path}"

    def identity(self) -> Mapping[str, object]:
        return {"sha256": file_sha256(self.path)}

    def open(self, timeout_s: float | None) -> AsyncRetriever:
        from retrieval_eval.retrievers.kinds.run.retriever import RunRetriever

        return RunRetriever(self, timeout_s, target=self.spec)


def parse(common: Common, reader: TableReader) -> RunConfig:
    path = reader.path.parent / reader.string("path", required=True)
    if not path.is_file():
        raise reader.fail("path", f"run file not found: {path}")
    return RunConfig(common=common, path=path.resolve())


def from_spec(spec: str, file: str, timeout_s: float | None = None) -> RunConfig:
    """The config of ``spec`` (``run:FILE``) typed as a retriever, ``file`` its path (ids
    whole, the spec its name); ``InputError`` when it is not a file."""
    text = file.strip()
    path = Path(text).expanduser()
    if not text or not path.is_file():
        raise InputError(f"--retriever {spec}: run file not found: {text or '(empty)'}")
    common = Common(name=spec, kind="run", source=path, timeout_s=timeout_s)
    return RunConfig(common=common, path=path.resolve(), spec=spec)


def file_sha256(path: Path) -> str:
    """``sha256:<hex>`` of the run's text (decompressed for ``.gz``), as ``read_run`` has it."""
    import gzip

    digest = hashlib.sha256()
    try:
        with gzip.open(path, "rb") if path.suffix.lower() == ".gz" else path.open("rb") as f:
            while chunk := f.read(1 << 20):
                digest.update(chunk)
    except OSError as e:
        raise ConfigError(f"{path}: cannot read the run file: {e.strerror or e}") from None
    return "sha256:" + digest.hexdigest()
