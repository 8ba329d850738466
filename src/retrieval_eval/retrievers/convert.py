"""Protobuf <-> plain records, in ``x_to_proto`` / ``x_from_proto`` pairs.

The only place that maps between the generated messages and the records in ``protocol.py``,
so that protobuf types never leave the retrievers package.
"""

from __future__ import annotations

from retrieval_eval.records.run import RetrieverDescription
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


def items_from_proto(message: pb.RetrieveResponse) -> list[RetrievedItem]:
    """Ranked records from a response, in rank order."""
    return ranking_from_proto(message).items()


def ranking_from_proto(message: pb.RetrieveResponse, size: int | None = None) -> Ranking:
    """The response's columns, in rank order: the evaluator's hot path, so no record is
    built per result (one pass over the messages, columns split by ``zip``); an unset
    score is ``None`` and an empty chunk id ``None``. ``size``: the length of the bytes
    the message was parsed from, when the caller has them (else it is measured)."""
    results = message.results
    ids = tuple([r.document_id for r in results])
    if _ids_only(message.ByteSize() if size is None else size, ids):
        return Ranking(ids)  # the usual answer: two more fields per result go unread
    rows = [(r.document_id, r.score if r.HasField("score") else None, r.chunk_id) for r in results]
    if not rows:
        return Ranking(())
    ids, scores, chunks = zip(*rows, strict=True)
    return Ranking(
        ids,
        scores if scores.count(None) != len(scores) else (),
        tuple([c or None for c in chunks]) if any(chunks) else (),
    )


def _ids_only(size: int, ids: tuple[str, ...]) -> bool:
    """Whether a message of ``size`` bytes holds nothing but ``ids``, judged from sizes
    alone: with every id 1 to 125 bytes, a result holding only its id takes exactly 4
    bytes more than the id (two tags, two one-byte lengths), and any score, chunk id or
    unknown field (or a longer encoding of the same) would make the message larger."""
    if not ids:
        return False
    joined = "".join(ids)
    total = len(joined) if joined.isascii() else len(joined.encode())  # ASCII: byte a char
    # No id empty, none over 125 bytes (at most 31 characters take at most 124 bytes).
    return (
        size == total + 4 * len(ids)
        and all(ids)
        and (total <= 125 or max(map(len, ids)) <= 31 or max(map(_utf8_size, ids)) <= 125)
    )


def _utf8_size(text: str) -> int:
    return len(text.encode())


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
