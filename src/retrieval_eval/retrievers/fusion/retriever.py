"""A fused retriever: asks every member concurrently, fuses, answers like any retriever.

- Every member is asked for the same ``limit``; each answer is collapsed to distinct
  documents with the member's own chunk-id separator (from its Describe), then fused
  (``methods.fuse``). The fused results are document ids, so the fusion declares no
  separator of its own.
- The call's latency is the wall time of the whole (members run concurrently).
- A failed member makes the question an error naming the member (same error kind), never a
  silent fallback to the others; with ``on_member_error = "skip"`` the answering members are
  fused and the skipped ones are recorded on the question (``Ranking.notes``); if every
  member fails the question is an error all the same.
- ``describe`` reports the method, the parameters and every member's identity and version
  (see ``describe_fusion``), so that run history separates ``rrf(bm25, dense)`` from
  either member and from the same members fused with other parameters.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from retrieval_eval.errors import RetrieverError, RetrieverInternal, RetrieverTimeout
from retrieval_eval.records.failures import SKIPPED_MEMBER_NOTE
from retrieval_eval.records.run import RetrieverDescription
from retrieval_eval.retrievers.documents import distinct_scored
from retrieval_eval.retrievers.fusion.config import OnMemberError
from retrieval_eval.retrievers.fusion.methods import (
    PLAIN_RRF,
    FusionParams,
    FusionScoreError,
    fuse,
)
from retrieval_eval.retrievers.protocol import AsyncRetriever, Ranking

log = logging.getLogger(__name__)
_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class Member:
    """One member: the name it has in ``fuse`` and the retriever it was opened as."""

    name: str
    retriever: AsyncRetriever


class FusedRetriever:
    """``AsyncRetriever`` over members fused by ``params``; owns (and closes) the members."""

    def __init__(
        self,
        name: str,
        members: Sequence[Member],
        params: FusionParams = PLAIN_RRF,
        *,
        on_member_error: OnMemberError = OnMemberError.ERROR,
        timeout_s: float | None = None,
    ) -> None:
        if len(members) < 2:
            raise ValueError("a fusion needs at least two members")
        if params.weights and len(params.weights) != len(members):
            raise ValueError(f"{len(params.weights)} weights for {len(members)} members")
        self.name = name
        self.target = name
        self.members = tuple(members)
        self.params = params
        self.on_member_error = on_member_error
        self.timeout_s = timeout_s
        self._descriptions: tuple[RetrieverDescription, ...] | None = None
        self._lock = asyncio.Lock()

    @property
    def configured_timeout_s(self) -> float | None:
        return self.timeout_s

    async def member_descriptions(
        self, *, timeout_s: float | None = None
    ) -> tuple[RetrieverDescription, ...]:
        """Each member's Describe, asked once (concurrently) and kept."""
        async with self._lock:
            if self._descriptions is None:
                calls = [self._describe_member(m, timeout_s) for m in self.members]
                self._descriptions = tuple(await asyncio.gather(*calls))
            return self._descriptions

    async def _describe_member(
        self, member: Member, timeout_s: float | None
    ) -> RetrieverDescription:
        try:
            return await _bounded(member.retriever.describe, timeout_s, member)
        except RetrieverError as e:
            raise _member_error(self.target, member, e) from e

    async def describe(self, *, timeout_s: float | None = None) -> RetrieverDescription:
        members = await self.member_descriptions(timeout_s=timeout_s)
        return describe_fusion(self.name, self.params, self.members, members, self.on_member_error)

    async def retrieve(
        self, question: str, limit: int, *, timeout_s: float | None = None
    ) -> Ranking:
        descriptions = await self.member_descriptions(timeout_s=timeout_s or self.timeout_s)
        deadline = timeout_s if timeout_s is not None else self.timeout_s
        answers = await asyncio.gather(
            *(self._ask(m, question, limit, deadline) for m in self.members),
            return_exceptions=True,
        )
        rankings, notes, weights, answered = [], [], [], []
        for index, (member, answer) in enumerate(zip(self.members, answers, strict=True)):
            if isinstance(answer, BaseException):
                error = _as_retriever_error(self.target, member, answer)
                if self.on_member_error is OnMemberError.ERROR:
                    raise error from answer
                notes.append(f"{SKIPPED_MEMBER_NOTE}{member.name}: {error.kind}: {error.details}")
                continue
            rankings.append(distinct_scored(answer, descriptions[index].chunk_separator))
            weights.append(self.params.weight(index))
            answered.append(member.name)
        if not rankings:
            raise RetrieverInternal(self.target, "every member failed: " + "; ".join(notes))
        return self._fused(rankings, weights, answered, limit, notes)

    def _fused(
        self,
        rankings: list[list[tuple[str, float | None]]],
        weights: list[float],
        answered: list[str],
        limit: int,
        notes: list[str],
    ) -> Ranking:
        """Fuse the answering members' rankings (their own weights, in member order)."""
        params = replace(self.params, weights=tuple(weights))
        try:
            fused = fuse(rankings, params, limit)
        except FusionScoreError as e:
            raise RetrieverInternal(self.target, f"member {answered[e.member]}: {e}") from e
        return Ranking(
            tuple([f.document_id for f in fused]), tuple([f.score for f in fused]), (), tuple(notes)
        )

    async def _ask(
        self, member: Member, question: str, limit: int, timeout_s: float | None
    ) -> Ranking:
        return await _bounded(member.retriever.retrieve, timeout_s, member, question, limit)

    async def ask_member(
        self, member: Member, question: str, limit: int, timeout_s: float | None
    ) -> Ranking:
        """One member's own answer (for tuning); any failure is a ``RetrieverError``
        addressed to the fusion and naming the member."""
        try:
            return await self._ask(member, question, limit, timeout_s)
        except Exception as e:
            raise _as_retriever_error(self.target, member, e) from e

    async def close(self) -> None:
        for member in self.members:
            try:
                await member.retriever.close()
            except Exception:
                log.warning("closing fusion member %s failed", member.name, exc_info=True)

    async def __aenter__(self) -> FusedRetriever:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    def __repr__(self) -> str:
        names = ", ".join(m.name for m in self.members)
        return f"FusedRetriever({self.name!r}, {self.params.method.value}({names}))"


def describe_fusion(
    name: str,
    params: FusionParams,
    members: Sequence[Member],
    descriptions: Sequence[RetrieverDescription],
    on_member_error: OnMemberError = OnMemberError.ERROR,
) -> RetrieverDescription:
    """The fusion's identity.

    The identifier is the method over the members as ``fuse`` names them (``rrf(bm25-local,
    dense)``: distinct even when two members run the same software); the version holds the
    parameters and each member's identifier and version, so a run with other parameters or
    an upgraded member is a different variant of the same fusion, judged against it.
    """
    identifier = f"{params.method.value}({', '.join(m.name for m in members)})"
    member_versions = " ".join(f"{d.identifier}@{d.version or '-'}" for d in descriptions)
    metadata = {"fusion.name": name, "fusion.parameters": params.describe()}
    metadata["fusion.on_member_error"] = on_member_error.value
    for i, (m, d) in enumerate(zip(members, descriptions, strict=True)):
        metadata[f"fusion.member.{i}"] = (
            f"{m.name}: {d.identifier} {d.version}".strip() + f" ({m.retriever.target})"
        )
        for key in ("model_revision", "chunking", "pipeline", "chunk_separator"):
            if getattr(d, key):
                metadata[f"fusion.member.{i}.{key}"] = getattr(d, key)
    corpora = dict.fromkeys(d.corpus_revision for d in descriptions)
    return RetrieverDescription(
        identifier=identifier,
        version=f"{params.describe()}; {member_versions}",
        corpus_revision=" + ".join(c for c in corpora if c) if any(corpora) else "",
        model_revision=" + ".join(d.model_revision for d in descriptions if d.model_revision),
        pipeline=f"{params.describe()} on_member_error={on_member_error.value}",
        metadata=metadata,
    )


async def _bounded(
    method: Callable[..., Awaitable[_T]], timeout_s: float | None, member: Member, *args: Any
) -> _T:
    """Call ``method`` under the deadline: passed on as ``timeout_s`` when it takes one
    (our gRPC client and in-process adapter do), else enforced here."""
    if timeout_s is None:
        return await method(*args)
    try:
        parameters = inspect.signature(method).parameters.values()
    except (TypeError, ValueError):
        parameters = []  # type: ignore[assignment]
    if any(p.name == "timeout_s" or p.kind is p.VAR_KEYWORD for p in parameters):
        return await method(*args, timeout_s=timeout_s)
    try:
        async with asyncio.timeout(timeout_s):
            return await method(*args)
    except TimeoutError as e:
        raise RetrieverTimeout(
            member.retriever.target, f"no answer within {timeout_s:g} s", "DEADLINE_EXCEEDED"
        ) from e


def _as_retriever_error(target: str, member: Member, error: BaseException) -> RetrieverError:
    if isinstance(error, RetrieverError):
        return _member_error(target, member, error)
    if isinstance(error, asyncio.CancelledError | KeyboardInterrupt | SystemExit):
        raise error
    log.debug("fusion member %s raised", member.name, exc_info=error)
    return RetrieverInternal(
        target, f"member {member.name}: {type(error).__name__}: {error}", "INTERNAL"
    )


def _member_error(target: str, member: Member, error: RetrieverError) -> RetrieverError:
    """The member's error, re-addressed to the fusion and naming the member; same kind."""
    return type(error)(target, f"member {member.name}: {error.details}", error.code)
