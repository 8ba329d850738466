"""``kind = "langchain"``: a LangChain retriever, built by a factory function you name::

    [retrievers.chain]
    kind = "langchain"
    factory = "my_search:make_retriever"   # module:function, called with no arguments
    id_key = "doc_id"                      # the Document metadata key holding the id
    # score_key = "score"                  # optional: a metadata key holding its score
    # limit_kwarg = "k"                    # optional: pass reval's limit as this keyword
    # pythonpath = "."                     # folder the module is imported from (this file's)

The factory returns anything with LangChain's retriever interface (a ``BaseRetriever``,
or any object with ``ainvoke`` or ``invoke`` taking the question and returning
``Document``-like objects with ``metadata``). Needs the ``langchain`` extra.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping
from dataclasses import dataclass

from retrieval_eval.errors import ConfigError
from retrieval_eval.retrievers.kinds.base import Common, KindEntry, TableReader
from retrieval_eval.retrievers.kinds.factory import FACTORY_KEYS, Factory, parse_factory
from retrieval_eval.retrievers.protocol import AsyncRetriever
from retrieval_eval.version import install_extra

KEYS = (*FACTORY_KEYS, "id_key", "score_key", "limit_kwarg")
INSTALL = install_extra("langchain")


@dataclass(frozen=True, slots=True)
class LangChainConfig(KindEntry):
    common: Common
    factory: Factory
    id_key: str
    score_key: str = ""
    limit_kwarg: str = ""

    def detail(self) -> str:
        return f"langchain {self.factory.path}"

    def identity(self) -> Mapping[str, object]:
        return {
            "factory": self.factory.path,
            "module_sha256": self.factory.module_sha256(),
            "id_key": self.id_key,
            "score_key": self.score_key,
            "limit_kwarg": self.limit_kwarg,
        }

    def open(self, timeout_s: float | None) -> AsyncRetriever:
        if importlib.util.find_spec("langchain_core") is None:
            raise ConfigError(f"{self.where}: langchain-core is not installed; {INSTALL}")
        # the kind's retriever loads when it is opened, not when reval.toml is read
        from retrieval_eval.retrievers.kinds.langchain.retriever import LangChainRetriever

        return LangChainRetriever(self, timeout_s)


def parse(common: Common, reader: TableReader) -> LangChainConfig:
    limit_kwarg = reader.string("limit_kwarg")
    if limit_kwarg and not limit_kwarg.isidentifier():
        raise reader.fail("limit_kwarg", f"must be a keyword name, got {limit_kwarg!r}")
    return LangChainConfig(
        common=common,
        factory=parse_factory(reader),
        id_key=reader.string("id_key", required=True),
        score_key=reader.string("score_key"),
        limit_kwarg=limit_kwarg,
    )
