"""Protobuf <-> plain records, in ``x_to_proto`` / ``x_from_proto`` pairs.

The only place that maps between the generated messages and the records in ``protocol.py``,
so that protobuf types never leave the retrievers package.
"""

from __future__ import annotations

from retrieval_eval.records import RetrieverDescription
from retrieval_eval.retrievers.protocol import Ranking, RetrievedItem
from retrieval_eval.v1 import retriever_pb2 as pb

#: The fully qualified gRPC service name (health checks and reflection list it).
SERVICE_NAME = pb.DESCRIPTOR.services_by_name["Retriever"].full_name


def ranking_to_proto(ranking: Ranking) -> pb.RetrieveResponse:
    """A response from the columns (unset scores stay unset, no chunk id is empty)."""
    ids = ranking.document_ids
    scores = ranking.scores or (None,) * len(ids)
    chunks = ranking.chunk_ids or ("",) * len(ids)
    item = pb.RetrievedItem
    return pb.RetrieveResponse(
        results=[
            item(document_id=d, score=s, chunk_id=c or "")
            for d, s, c in zip(ids, scores, chunks, strict=True)
        ]
    )


def ids_from_wire(data: bytes, limit: int) -> tuple[str, ...] | None:
    """The ids of a serialized ``RetrieveResponse`` that holds nothing but at most
    ``limit`` results with a document id each, of at most 125 bytes, encoded the canonical
    way (as every protobuf library writes them): each result is then exactly
    ``0x0a, n + 2, 0x0a, n, <n bytes of UTF-8>``. ``None`` for anything else (scores,
    chunk ids, other fields, more results, bytes that do not decode): parse it whole.

    The evaluator's hot path: read straight from the bytes the channel received, so that
    no message and no per-result wrapper object is built for the usual answer.
    """
    ids: list[str] = []
    append = ids.append
    at, end = 0, len(data)
    try:
        while at < end:
            size = data[at + 1]
            if data[at] != 0x0A or size > 127 or data[at + 2] != 0x0A or data[at + 3] != size - 2:
                return None
            if len(ids) == limit:  # more than asked for: judged on the whole message
                return None
            stop = at + 2 + size
            append(data[at + 4 : stop].decode())
            at = stop
    except (IndexError, UnicodeDecodeError):
        return None
    return tuple(ids) if at == end else None


def items_from_proto(message: pb.RetrieveResponse) -> list[RetrievedItem]:
    """Ranked records from a response, in rank order."""
    return ranking_from_proto(message).items()


def ranking_from_proto(message: pb.RetrieveResponse) -> Ranking:
    """The response's columns, in rank order: the evaluator's hot path, so no record is
    built per result (one pass over the messages, columns split by ``zip``); an unset
    score is ``None`` and an empty chunk id ``None``."""
    results = message.results
    ids = tuple([r.document_id for r in results])
    if _ids_only(message, ids):  # the usual answer: skip reading two more fields per result
        return Ranking(ids)
    rows = [(r.document_id, r.score if r.HasField("score") else None, r.chunk_id) for r in results]
    if not rows:
        return Ranking(())
    ids, scores, chunks = zip(*rows, strict=True)
    return Ranking(
        ids,
        scores if scores.count(None) != len(scores) else (),
        tuple([c or None for c in chunks]) if any(chunks) else (),
    )


def _ids_only(message: pb.RetrieveResponse, ids: tuple[str, ...]) -> bool:
    """Whether ``message`` holds nothing but ``ids``, judged from sizes alone: with every
    id 1 to 125 bytes, a result holding only its id encodes in exactly 4 bytes more than
    the id (two tags, two one-byte lengths); any score, chunk id or unknown field would
    make the message larger than that sum."""
    if not ids:
        return False
    sizes = list(map(len, map(str.encode, ids)))
    return (
        min(sizes) > 0 and max(sizes) <= 125 and message.ByteSize() == sum(sizes) + 4 * len(sizes)
    )


def description_to_proto(description: RetrieverDescription) -> pb.DescribeResponse:
    return pb.DescribeResponse(
        identifier=description.identifier,
        version=description.version,
        chunk_separator=description.chunk_separator,
        provenance=pb.Provenance(
            corpus_revision=description.corpus_revision,
            model_revision=description.model_revision,
            chunking=description.chunking,
            pipeline=description.pipeline,
        ),
        metadata=dict(description.metadata),
    )


def description_from_proto(message: pb.DescribeResponse) -> RetrieverDescription:
    provenance = message.provenance
    return RetrieverDescription(
        identifier=message.identifier,
        version=message.version,
        chunk_separator=message.chunk_separator,
        corpus_revision=provenance.corpus_revision,
        model_revision=provenance.model_revision,
        chunking=provenance.chunking,
        pipeline=provenance.pipeline,
        metadata=dict(message.metadata),
    )
