"""Which golden question a retriever call is asking, for retrievers that answer by id.

The retriever contract passes the question's text only, and that stays so: a retriever
answers what a user would type. A TREC run file, though, holds its rankings by topic id,
so the coordinator (and fusion tuning, which asks members itself) sets
``ASKED_QUESTION_ID`` before each call it makes for a question of a set. A context
variable reaches the call through every stage between (fusion members, rerank
candidates, threads of the in-process adapter) without a parameter on every retriever;
it is ``None`` in calls made outside an evaluation (``reval serve``, the contract check).
"""

from __future__ import annotations

from contextvars import ContextVar

#: The id of the question being asked, set by the coordinator for each call.
ASKED_QUESTION_ID: ContextVar[str | None] = ContextVar("reval_asked_question_id", default=None)
