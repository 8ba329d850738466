"""Model calls as a job makes them: the cache first, then the budget, then the server."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from retrieval_eval.labelling.llm.budget import BudgetExhausted, Spend
from retrieval_eval.labelling.llm.cache import ResponseCache, request_key
from retrieval_eval.retrievers.chat import ChatAnswer, ChatClient, ChatFailure, ChatRequest

T = TypeVar("T")
#: An answer that is not the JSON shape asked for: a failure like any other, never a label.
OFF_FORMAT = "off-format"


@dataclass
class Tally:
    """What a job's calls gave nothing for: failures by kind, and the items the budget left
    unasked (with the limit that stopped it)."""

    failures: Counter[str] = field(default_factory=Counter)
    not_asked: int = 0
    stopped_by: str | None = None


async def ask_and_read(
    calls: ModelCalls, request: ChatRequest, read: Callable[[str], T], tally: Tally
) -> T | None:
    """``read`` of the model's answer, or None with the reason counted in ``tally``: a
    call that failed, one the budget did not allow, an answer ``read`` refuses
    (``ValueError``: off the asked shape)."""
    try:
        answer = await calls.ask(request)
    except BudgetExhausted as e:
        tally.not_asked += 1
        tally.stopped_by = str(e)
        return None
    except ChatFailure as e:
        tally.failures[e.kind] += 1
        return None
    try:
        return read(answer.content)
    except ValueError:
        tally.failures[OFF_FORMAT] += 1
        return None


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
        #: A call takes its slot before the budget is asked, so the budget sees every
        #: answer but those still in flight (at most ``concurrency - 1`` more).
        self._slots = asyncio.Semaphore(client.concurrency)

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
        async with self._slots:
            self.spend.allow()
            self.spend.requests += 1
            answer = await self.client.complete(request)
            self.spend.record(prompt, answer, cached=False)
        if self.cache is not None:
            self.cache.put(key, payload, answer)
        return answer
