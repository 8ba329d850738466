"""The contract's limits, defined once, and the rules every side judges by.

Servers we ship refuse requests that break them (INVALID_ARGUMENT) and never send answers
that break them; the client turns a breaching answer into an error of kind ``contract``;
``reval check-retriever`` fails on the same rules. The values are written in the
``.proto`` comments too (a test keeps both in step). What "blank" means is
``retrieval_eval.text``'s rule, shared with the question sets.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from retrieval_eval.records.run import RetrieverDescription
from retrieval_eval.retrievers.protocol import Ranking, RetrievedItem
from retrieval_eval.text import is_blank

#: Inclusive bounds of ``RetrieveRequest.limit``.
MIN_LIMIT = 1
MAX_LIMIT = 1000
#: Largest accepted question, in UTF-8 bytes.
MAX_QUESTION_BYTES = 16 * 1024
#: Largest document id, in UTF-8 bytes: room for a URL, a file path (Linux PATH_MAX is
#: 4096) or a composite chunk id, while 1000 results of such ids stay a few MiB.
MAX_ID_BYTES = 4 * 1024
#: Largest chunk id, in UTF-8 bytes (the same reasoning as document ids).
MAX_CHUNK_ID_BYTES = 4 * 1024
#: Largest Retrieve response on the wire, in bytes: the client's gRPC receive limit. The
#: largest conforming answer (1000 results with ids and chunk ids at their limits, about
#: 8.2 MB) fits; anything larger is refused by the transport before it is parsed.
MAX_RESPONSE_BYTES = 16 * 1024 * 1024


class ContractBreach(ValueError):
    """An answer breaks the contract; raised by the SDK's own checks of user code."""


def request_problem(question: str, limit: int) -> str | None:
    """Why a Retrieve request is invalid (the INVALID_ARGUMENT message), or ``None``."""
    if not question:
        return "question must not be empty"
    if is_blank(question):
        return "question must not be blank (only white space)"
    if not MIN_LIMIT <= limit <= MAX_LIMIT:
        return f"limit must be in [{MIN_LIMIT}, {MAX_LIMIT}], got {limit}"
    # A character takes at most 4 bytes: only long questions need encoding to check.
    if len(question) * 4 > MAX_QUESTION_BYTES:
        size = question_bytes(question)
        if size > MAX_QUESTION_BYTES:
            return f"question is {size} bytes, more than the {MAX_QUESTION_BYTES}-byte maximum"
    return None


def question_bytes(question: str) -> int:
    return len(question.encode("utf-8", "surrogatepass"))


def long_questions(questions: Iterable[tuple[str, str]]) -> list[tuple[str, int]]:
    """``(id, bytes)`` of each ``(id, text)`` over ``MAX_QUESTION_BYTES``: questions every
    conforming retriever rejects, so they could only ever be errors."""
    limit = MAX_QUESTION_BYTES
    return [
        (qid, question_bytes(text))
        for qid, text in questions
        if len(text) * 4 > limit and question_bytes(text) > limit
    ]


def count_breach(count: int, limit: int) -> str | None:
    """Why ``count`` results break a request for ``limit``, or ``None``."""
    if count > limit:
        return f"{count} results for limit {limit}"
    return None


def item_breach(rank: int, item: RetrievedItem) -> str | None:
    """Why the result at ``rank`` (from 1) breaks the contract, or ``None``."""
    return id_breach(rank, item.document_id) or chunk_breach(rank, item.chunk_id)


def id_breach(rank: int, doc: str) -> str | None:
    """Why the document id at ``rank`` (from 1) breaks the contract, or ``None``."""
    if not doc:
        return f"result {rank} has an empty document id"
    if is_blank(doc):
        return f"result {rank} has a blank document id ({doc!r}, only white space)"
    # A character takes at most 4 bytes: only long ids need encoding to check.
    if len(doc) * 4 > MAX_ID_BYTES and _size(doc) > MAX_ID_BYTES:
        return (
            f"result {rank} has a document id of {_size(doc):,} bytes, "
            f"over the {MAX_ID_BYTES:,}-byte limit"
        )
    return None


def chunk_breach(rank: int, chunk: str | None) -> str | None:
    """Why the chunk id at ``rank`` (from 1) breaks the contract, or ``None``."""
    if chunk and len(chunk) * 4 > MAX_CHUNK_ID_BYTES and _size(chunk) > MAX_CHUNK_ID_BYTES:
        return (
            f"result {rank} has a chunk id of {_size(chunk):,} bytes, "
            f"over the {MAX_CHUNK_ID_BYTES:,}-byte limit"
        )
    return None


def response_breach(ranking: Ranking | Sequence[RetrievedItem], limit: int) -> str | None:
    """The first way an answer to ``limit`` breaks the contract, or ``None``: the one
    rule set the client, the server SDK and ``check-retriever`` all judge by.

    Runs on the columns: a conforming answer is recognised by a few passes in C (no id
    empty, none long enough to need measuring in bytes, no white space in any id, so no
    blank one); only otherwise are results judged one by one. The first breach by rank is
    reported (its id before its chunk).
    """
    if not isinstance(ranking, Ranking):
        ranking = Ranking.of(ranking)
    ids = ranking.document_ids
    if len(ids) > limit:
        return count_breach(len(ids), limit)
    id_room, chunk_room = MAX_ID_BYTES // 4, MAX_CHUNK_ID_BYTES // 4
    chunk_ids = ranking.chunk_ids
    # The common case, judged on the ids joined: all the ids together fit in one id's
    # room, else the longest must. An ASCII text holds white space only if it holds one
    # of ten characters (each looked for by memchr); str.isspace is true for every blank
    # id (and a few that are not: U+001C..U+001F, judged one by one below).
    joined = "".join(ids)
    if (
        all(ids)
        and (len(joined) <= id_room or max(map(len, ids)) <= id_room)
        and (
            not any(map(joined.__contains__, _ASCII_SPACE))
            if joined.isascii()
            else not any(map(str.isspace, ids))
        )
        and (not chunk_ids or max(map(len, filter(None, chunk_ids)), default=0) <= chunk_room)
    ):
        return None
    breach = None
    for rank, doc in enumerate(ids, start=1):
        if not doc or len(doc) > id_room or doc.isspace():
            breach = id_breach(rank, doc)
            if breach is not None:
                ids = ids[: rank - 1]  # chunks are judged only above this rank
                break
    for rank, chunk in enumerate(chunk_ids[: len(ids)], start=1):
        if chunk and len(chunk) > chunk_room:
            found = chunk_breach(rank, chunk)
            if found is not None:
                return found
    return breach


#: The ASCII characters ``str.isspace`` is true for.
_ASCII_SPACE = tuple(c for c in map(chr, range(128)) if c.isspace())


def description_breach(description: RetrieverDescription) -> str | None:
    """Why a Describe answer cannot key a run, or ``None``: an empty identifier (runs are
    stored and compared by it), or a NUL character (U+0000), which no run store can hold,
    in any of its texts. Caught at the start of a run, so that nothing measured is lost at
    save time."""
    if not description.identifier:
        return "Describe answered with an empty identifier"
    if is_blank(description.identifier):
        return f"Describe answered with a blank identifier ({description.identifier!r})"
    fields = {
        "identifier": description.identifier,
        "version": description.version,
        "chunk_separator": description.chunk_separator,
        "corpus_revision": description.corpus_revision,
        "model_revision": description.model_revision,
        "chunking": description.chunking,
        "pipeline": description.pipeline,
    }
    fields.update({f"metadata {k!r}": f"{k}{v}" for k, v in description.metadata.items()})
    for name, text in fields.items():
        if "\x00" in text:
            return f"Describe {name} holds a NUL character (U+0000)"
    return None


def _size(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))
