"""The ``langchain`` kind's retriever: the factory's object, asked one question at a time
(what the framework kinds share is in ``kinds.framework``).

- The factory runs when the retriever opens: a module that cannot be imported, a missing
  function, a factory that raises, or an object without ``ainvoke``/``invoke`` is a
  configuration error naming the key.
- ``ainvoke`` is awaited (``invoke`` runs in a worker thread) inside the call's deadline;
  ``limit_kwarg`` passes reval's limit (``k`` for a vector store's retriever). A retriever
  with its own fixed ``k`` may return more: the first ``limit`` are kept, in order.
- An exception from the retriever is that question's ``internal`` error; a document
  without the ``id_key`` metadata (or whose id is not a string or integer), or a
  ``score_key`` value that is not a number, is a ``contract`` error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from retrieval_eval.errors import RetrieverContractError
from retrieval_eval.retrievers.kinds.framework import FrameworkRetriever
from retrieval_eval.retrievers.protocol import Ranking

if TYPE_CHECKING:
    from retrieval_eval.retrievers.kinds.langchain.config import LangChainConfig


class LangChainRetriever(FrameworkRetriever):
    """``AsyncRetriever`` over a ``langchain`` entry of reval.toml."""

    METHODS = ("ainvoke", "invoke")
    config: LangChainConfig

    async def ask(self, question: str, limit: int) -> Any:
        kwargs = {self.config.limit_kwarg: limit} if self.config.limit_kwarg else {}
        return await self.call(self.retriever, question, **kwargs)

    def ranking(self, answer: Any, limit: int) -> Ranking:
        score_key = self.config.score_key
        ids: list[str] = []
        scores: list[float] = []
        for rank, document in enumerate(self.results(answer, "Documents", limit), start=1):
            metadata = getattr(document, "metadata", None)
            ids.append(self.document_id(metadata, "document", rank))
            if score_key:
                score = cast(dict[str, Any], metadata).get(score_key)  # a dict: checked
                if isinstance(score, bool) or not isinstance(score, int | float):
                    raise RetrieverContractError(
                        self.target,
                        f"document {rank}: metadata {score_key!r} is {score!r}, not a number",
                    )
                scores.append(float(score))
        return self.checked(Ranking(tuple(ids), tuple(scores)), limit)
