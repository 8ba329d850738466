"""Every name a retriever spec can use, for ``reval retrievers list``: reval.toml's entries
first (they win on a clash), then the installed plugins."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from retrieval_eval.retrievers.resolve import (
    KIND_CONFIG,
    KIND_FUSION,
    KIND_PLUGIN,
    KIND_RERANK,
    load_config_entries,
)
from retrieval_eval.retrievers.specs import RetrieverInfo

if TYPE_CHECKING:
    from retrieval_eval.retrievers.config import RetrieverConfig
    from retrieval_eval.retrievers.fusion.config import FusionConfig
    from retrieval_eval.retrievers.kinds.base import KindConfig
    from retrieval_eval.retrievers.rerank.config import RerankConfig


def list_retrievers(config_path: Path | None = None) -> list[RetrieverInfo]:
    """Every resolvable name: reval.toml entries first (they win on a clash), then plugins."""
    # the plugins' entry points only when listing
    from retrieval_eval.plugins import RETRIEVERS, list_plugins

    configs = load_config_entries(config_path, used=())  # a bad entry is left out, with a warning
    infos = [_config_info(entry) for entry in configs.values()]
    infos += [
        RetrieverInfo(
            p.name, KIND_PLUGIN, f"entry point in {p.distribution}", p.target, p.name in configs
        )
        for p in list_plugins(RETRIEVERS)
    ]
    return infos


def _config_info(
    entry: RetrieverConfig | FusionConfig | KindConfig | RerankConfig,
) -> RetrieverInfo:
    # reval.toml's records only when it names retrievers
    from retrieval_eval.retrievers.config import RetrieverConfig
    from retrieval_eval.retrievers.fusion.config import FusionConfig
    from retrieval_eval.retrievers.rerank.config import RerankConfig

    if isinstance(entry, FusionConfig):
        return RetrieverInfo(entry.name, KIND_FUSION, str(entry.source), _fusion_detail(entry))
    if isinstance(entry, RerankConfig):
        return RetrieverInfo(entry.name, KIND_RERANK, str(entry.source), entry.describe())
    if isinstance(entry, RetrieverConfig):
        return RetrieverInfo(entry.name, KIND_CONFIG, str(entry.source), entry.address)
    common = entry.common
    return RetrieverInfo(common.name, common.kind, str(common.source), entry.detail())


def _fusion_detail(entry: FusionConfig) -> str:
    """``rrf k=60 of bm25-local, dense``."""
    return f"{entry.params.describe()} of {', '.join(entry.members)}"
