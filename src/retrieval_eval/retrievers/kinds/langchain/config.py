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

from collections.abc import Mapping
from dataclasses import dataclass

from retrieval_eval.retrievers.kinds.base import Common, TableReader
from retrieval_eval.retrievers.kinds.factory import (
    FACTORY_KEYS,
    FactoryEntry,
    name_key,
    parse_factory,
)
from retrieval_eval.retrievers.protocol import AsyncRetriever
from retrieval_eval.version import install_extra

KEYS = (*FACTORY_KEYS, "id_key", "score_key", "limit_kwarg")


@dataclass(frozen=True, slots=True)
class LangChainConfig(FactoryEntry):
    KIND = "langchain"
    MODULE = "langchain_core"
    PACKAGE = "langchain-core"
    INSTALL = install_extra("langchain")

    score_key: str = ""
    limit_kwarg: str = ""

    def options(self) -> Mapping[str, object]:
        return {"score_key": self.score_key, "limit_kwarg": self.limit_kwarg}

    def retriever(self, timeout_s: float | None) -> AsyncRetriever:
        from retrieval_eval.retrievers.kinds.langchain.retriever import LangChainRetriever

        return LangChainRetriever(self, timeout_s)


def parse(common: Common, reader: TableReader) -> LangChainConfig:
    return LangChainConfig(
        common=common,
        factory=parse_factory(reader),
        id_key=reader.string("id_key", required=True),
        score_key=reader.string("score_key"),
        limit_kwarg=name_key(reader, "limit_kwarg", "a keyword name"),
    )
