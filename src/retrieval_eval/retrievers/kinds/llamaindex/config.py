"""``kind = "llamaindex"``: a LlamaIndex retriever, built by a factory function you name::

    [retrievers.index]
    kind = "llamaindex"
    factory = "my_index:make_retriever"     # module:function, called with no arguments
    id_key = "doc_id"                       # the node metadata key holding the document id
    # limit_attribute = "similarity_top_k"  # optional: set reval's limit on this attribute
    # pythonpath = "."                      # folder the module is imported from (this file's)

The factory returns a LlamaIndex ``BaseRetriever`` (``index.as_retriever()``), or any
object with ``aretrieve`` or ``retrieve`` taking the question and returning
``NodeWithScore``-like objects (a ``node`` with ``metadata``, a ``score``). Needs the
``llamaindex`` extra; ``llama_index`` is imported only when such an entry opens.
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

KEYS = (*FACTORY_KEYS, "id_key", "limit_attribute")


@dataclass(frozen=True, slots=True)
class LlamaIndexConfig(FactoryEntry):
    KIND = "llamaindex"
    #: ``llama_index`` itself is an empty namespace package.
    MODULE = "llama_index.core"
    PACKAGE = "llama-index-core"
    INSTALL = install_extra("llamaindex")

    limit_attribute: str = ""

    def options(self) -> Mapping[str, object]:
        return {"limit_attribute": self.limit_attribute}

    def retriever(self, timeout_s: float | None) -> AsyncRetriever:
        from retrieval_eval.retrievers.kinds.llamaindex.retriever import LlamaIndexRetriever

        return LlamaIndexRetriever(self, timeout_s)


def parse(common: Common, reader: TableReader) -> LlamaIndexConfig:
    return LlamaIndexConfig(
        common=common,
        factory=parse_factory(reader),
        id_key=reader.string("id_key", required=True),
        limit_attribute=name_key(reader, "limit_attribute", "an attribute name"),
    )
