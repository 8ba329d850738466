"""Model calls as a job makes them: the cache first, then the budget, then the server."""

from __future__ import annotations

from retrieval_eval.labelling.llm.budget import Spend
from retrieval_eval.labelling.llm.cache import ResponseCache, request_key
from retrieval_eval.retrievers.chat import ChatAnswer, ChatClient, ChatFailure, ChatRequest


class ModelCalls:
    """``ask`` answers from the cache when it can (``cache_only``: never from the server,
    to replay a job offline), else asks the server within the budget and keeps the answer."""

    def __init__(
        self,
        client: ChatClient,
        cache: ResponseCache | None,
        spend: Spend,
        *,
        cache_only: bool = False,
    ) -> None:
        self.client = client
        self.cache = cache
        self.spend = spend
        self.cache_only = cache_only

    async def ask(self, request: ChatRequest) -> ChatAnswer:
        payload = request.payload()
        key = request_key(self.client.endpoint, payload)
        prompt = "\n".join(m.content for m in request.messages)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                self.spend.record(prompt, hit, cached=True)
                return hit
        if self.cache_only:
            raise ChatFailure("not-cached", "no cached answer (--cache-only)")
        self.spend.allow()
        self.spend.requests += 1
        answer = await self.client.complete(request)
        self.spend.record(prompt, answer, cached=False)
        if self.cache is not None:
            self.cache.put(key, payload, answer)
        return answer
