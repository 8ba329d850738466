"""Every proto <-> record pair round-trips, also through the wire bytes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval.records import RetrieverDescription
from retrieval_eval.retrievers import convert
from retrieval_eval.retrievers.protocol import Ranking, RetrievedItem
from retrieval_eval.v1 import retriever_pb2 as pb

ITEMS = [
    RetrievedItem("doc-1"),
    RetrievedItem("doc-2", score=0.0),
    RetrievedItem("doc-3#2", score=-1.5, chunk_id="doc-3#2"),
    RetrievedItem("ünïcode/ id", score=1e300, chunk_id=None),
]


@pytest.mark.parametrize("item", ITEMS, ids=repr)
def test_item_round_trip(item: RetrievedItem) -> None:
    wire = convert.item_to_proto(item).SerializeToString()
    assert convert.item_from_proto(pb.RetrievedItem.FromString(wire)) == item


def test_score_zero_is_kept_apart_from_no_score() -> None:
    assert convert.item_to_proto(RetrievedItem("a", score=0.0)).HasField("score")
    assert not convert.item_to_proto(RetrievedItem("a")).HasField("score")


@pytest.mark.parametrize("items", [[], ITEMS, list(reversed(ITEMS))], ids=["empty", "fwd", "rev"])
def test_items_round_trip_keeps_rank_order(items: list[RetrievedItem]) -> None:
    wire = convert.items_to_proto(items).SerializeToString()
    assert convert.items_from_proto(pb.RetrieveResponse.FromString(wire)) == items


@pytest.mark.parametrize("question, limit", [("what is bm25?", 12), ("x" * 5000, 1000)])
def test_request_round_trip(question: str, limit: int) -> None:
    wire = convert.request_to_proto(question, limit).SerializeToString()
    assert convert.request_from_proto(pb.RetrieveRequest.FromString(wire)) == (question, limit)


DESCRIPTIONS = [
    RetrieverDescription("bm25"),
    RetrieverDescription(
        "acme-dense",
        version="2.1.0",
        chunk_separator="#",
        corpus_revision="c0ffee",
        model_revision="e5-large@3",
        chunking="words-200-overlap-20",
        pipeline="rerank-v2",
        metadata={"k1": "0.9", "b": "0.4"},
    ),
]


@pytest.mark.parametrize("description", DESCRIPTIONS, ids=lambda d: d.identifier)
def test_description_round_trip(description: RetrieverDescription) -> None:
    wire = convert.description_to_proto(description).SerializeToString()
    back = convert.description_from_proto(pb.DescribeResponse.FromString(wire))
    assert back == description


@pytest.mark.parametrize(
    "ranking",
    [
        Ranking(()),
        Ranking(("a", "b")),  # no scores, no chunk ids: both columns stay empty
        Ranking(("a", "b"), (0.0, None)),  # a zero score is kept apart from no score
        Ranking(("d#1", "e"), (2.0, 1.0), ("d#1", None)),
    ],
    ids=repr,
)
def test_ranking_round_trip_keeps_its_columns(ranking: Ranking) -> None:
    wire = convert.ranking_to_proto(ranking).SerializeToString()
    message = pb.RetrieveResponse.FromString(wire)
    assert convert.ranking_from_proto(message) == ranking
    assert convert.items_from_proto(message) == list(ranking)


def test_ranking_reads_as_records_on_demand() -> None:
    ranking = Ranking.of(ITEMS)
    assert list(ranking) == list(ITEMS) and len(ranking) == len(ITEMS)
    assert ranking[0] == ITEMS[0] and ranking[-1] == ITEMS[-1]
    assert list(ranking[1:]) == list(ITEMS[1:])
    assert Ranking.of([RetrievedItem("a"), RetrievedItem("b")]) == Ranking(("a", "b"))
    with pytest.raises(IndexError):
        ranking[len(ITEMS)]


def _read_field_by_field(message: pb.RetrieveResponse) -> Ranking:
    """The plain reading of a response, every field of every result, for comparison."""
    items = [convert.item_from_proto(r) for r in message.results]
    return Ranking.of(items)


_IDS = st.text(min_size=0, max_size=130) | st.sampled_from(
    ["", "a", "é" * 62, "x" * 125, "x" * 126]
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(_IDS, st.none() | st.floats(allow_nan=False), st.sampled_from(["", "c#1"])),
        max_size=12,
    ),
    st.binary(max_size=3),
)
def test_reading_ids_alone_when_sizes_say_so_gives_the_full_reading(
    rows: list[tuple[str, float | None, str]], unknown: bytes
) -> None:
    """The shortcut for answers of ids only (judged from encoded sizes) reads exactly what
    reading every field does: scores of 0.0, chunk ids, empty or long or multi-byte ids
    and unknown trailing fields all fall back to the full reading."""
    message = pb.RetrieveResponse(
        results=[pb.RetrievedItem(document_id=d, score=s, chunk_id=c) for d, s, c in rows]
    )
    wire = message.SerializeToString()
    if unknown:  # an unknown varint field (number 15) appended to the message
        wire += bytes([15 << 3]) + bytes([unknown[0] & 0x7F])
    parsed = pb.RetrieveResponse.FromString(wire)
    assert convert.ranking_from_proto(parsed) == _read_field_by_field(parsed)
