"""What a model job costs and when it must stop.

Tokens are the counts the server reports; a server that reports none is counted by an
estimate (four characters a token), and the report says which. The price is per million
tokens, in and out, as the team configures it (reval knows no price list). A job stops
before the request that would pass ``max_requests``, and before any request once what was
spent reaches ``max_cost``; what was answered until then is kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from retrieval_eval.retrievers.chat import ChatAnswer

CHARS_PER_TOKEN = 4


@dataclass(frozen=True, slots=True)
class Prices:
    """Currency units per million tokens (prompt, completion)."""

    input_per_million: float = 0.0
    output_per_million: float = 0.0

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (
            prompt_tokens * self.input_per_million + completion_tokens * self.output_per_million
        ) / 1_000_000


@dataclass(frozen=True, slots=True)
class Limits:
    max_requests: int | None = None
    max_cost: float | None = None


class BudgetExhausted(Exception):
    """No further request may be sent (the message says which limit)."""


def estimate_tokens(text: str) -> int:
    return max(1, len(text) // CHARS_PER_TOKEN)


@dataclass
class Spend:
    """Requests sent and answers reused, tokens and cost, as the job goes."""

    prices: Prices = field(default_factory=Prices)
    limits: Limits = field(default_factory=Limits)
    requests: int = 0
    cached: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    #: Answers whose server reported no usage (their tokens are estimates).
    estimated: int = 0

    @property
    def cost(self) -> float:
        return self.prices.cost(self.prompt_tokens, self.completion_tokens)

    def allow(self) -> None:
        """Before a request: ``BudgetExhausted`` when a limit says stop."""
        if self.limits.max_requests is not None and self.requests >= self.limits.max_requests:
            raise BudgetExhausted(f"--max-requests {self.limits.max_requests} reached")
        if self.limits.max_cost is not None and self.cost >= self.limits.max_cost:
            raise BudgetExhausted(f"--max-cost {self.limits.max_cost:g} reached ({self.cost:.4f})")

    def record(self, prompt: str, answer: ChatAnswer, *, cached: bool) -> None:
        if cached:
            self.cached += 1
            return
        usage = answer.usage
        if usage.prompt_tokens is None or usage.completion_tokens is None:
            self.estimated += 1
        self.prompt_tokens += (
            usage.prompt_tokens if usage.prompt_tokens is not None else estimate_tokens(prompt)
        )
        self.completion_tokens += (
            usage.completion_tokens
            if usage.completion_tokens is not None
            else estimate_tokens(answer.content)
        )

    def summary(self) -> str:
        tokens = f"{self.prompt_tokens} prompt + {self.completion_tokens} completion tokens"
        if self.estimated:
            tokens += f" ({self.estimated} answers without usage: estimated)"
        cost = f", cost {self.cost:.4f}" if self.prices != Prices() else ""
        return (
            f"{self.requests} requests sent, {self.cached} answers from the cache; {tokens}{cost}"
        )
