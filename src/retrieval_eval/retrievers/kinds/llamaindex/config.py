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

import importlib.util
from collections.abc import Mapping
from dataclasses import dataclass

from retrieval_eval.errors import ConfigError
from retrieval_eval.retrievers.kinds.base import Common, KindEntry, TableReader
from retrieval_eval.retrievers.kinds.factory import FACTORY_KEYS, Factory, parse_factory
from retrieval_eval.retrievers.protocol import AsyncRetriever
from retrieval_eval.version import install_extra

KEYS = (*FACTORY_KEYS, "id_key", "limit_attribute")
INSTALL = install_extra("llamaindex")


@dataclass(frozen=True, slots=True)
class LlamaIndexConfig(KindEntry):
    common: Common
    factory: Factory
    id_key: str
    limit_attribute: str = ""

    def detail(self) -> str:
        return f"llamaindex {self.factory.path}"

    def identity(self) -> Mapping[str, object]:
        return {
            "factory": self.factory.path,
            "module_sha256": self.factory.module_sha256(),
            "id_key": self.id_key,
            "limit_attribute": self.limit_attribute,
        }

    def open(self, timeout_s: float | None) -> AsyncRetriever:
        if not _installed("llama_index.core"):
            raise ConfigError(f"{self.where}: llama-index-core is not installed; {INSTALL}")
        # the kind's retriever loads when it is opened, not when reval.toml is read
        from retrieval_eval.retrievers.kinds.llamaindex.retriever import LlamaIndexRetriever

        return LlamaIndexRetriever(self, timeout_s)


def parse(common: Common, reader: TableReader) -> LlamaIndexConfig:
    limit_attribute = reader.string("limit_attribute")
    if limit_attribute and not limit_attribute.isidentifier():
        raise reader.fail("limit_attribute", f"must be an attribute name, got {limit_attribute!r}")
    return LlamaIndexConfig(
        common=common,
        factory=parse_factory(reader),
        id_key=reader.string("id_key", required=True),
        limit_attribute=limit_attribute,
    )


def _installed(module: str) -> bool:
    """Whether ``module`` can be imported, without importing it (its parent, the
    ``llama_index`` namespace package, is imported: it is empty)."""
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False
