"""Every proto <-> record conversion round-trips, also through the wire bytes, and the
client's shortcut for plain ids reads what protobuf reads."""

from __future__ import annotations

import pytest
from google.protobuf.message import DecodeError
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval.records.run import RetrieverDescription
from retrieval_eval.retrievers import convert
from retrieval_eval.retrievers.client.wire import plain_ids
from retrieval_eval.retrievers.contract.limits import response_breach
from retrieval_eval.retrievers.protocol import Ranking, RetrievedItem
from retrieval_eval.v1 import retriever_pb2 as pb

ITEMS = [
    RetrievedItem("doc-1"),
    RetrievedItem("doc-2", score=0.0),
    RetrievedItem("doc-3#2", score=-1.5, chunk_id="doc-3#2"),
    RetrievedItem("ünïcode/ id", score=1e300, chunk_id=None),
]


def _round_trip(ranking: Ranking) -> Ranking:
    wire = convert.ranking_to_proto(ranking).SerializeToString()
    return convert.ranking_from_proto(pb.RetrieveResponse.FromString(wire))


@pytest.mark.parametrize("item", ITEMS, ids=repr)
def test_item_round_trip(item: RetrievedItem) -> None:
    assert _round_trip(Ranking.of([item])).items() == [item]


def test_score_zero_is_kept_apart_from_no_score() -> None:
    zero, unset = convert.ranking_to_proto(Ranking.of([RetrievedItem("a", score=0.0),
                                                       RetrievedItem("b")])).results  # fmt: skip
    assert zero.HasField("score") and not unset.HasField("score")


@pytest.mark.parametrize("items", [[], ITEMS, list(reversed(ITEMS))], ids=["empty", "fwd", "rev"])
def test_items_round_trip_keeps_rank_order(items: list[RetrievedItem]) -> None:
    assert _round_trip(Ranking.of(items)).items() == items


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
    items = [
        RetrievedItem(r.document_id, r.score if r.HasField("score") else None, r.chunk_id or None)
        for r in message.results
    ]
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


def _wire_cases(id_texts: st.SearchStrategy[str] = _IDS) -> st.SearchStrategy[bytes]:
    """Encoded responses: ids only (the usual answer), with scores or chunk ids, with
    unknown fields inside a result or after the results, with an id written twice (a
    longer encoding of the same message), or cut short or not UTF-8 (then unparsable)."""
    rows = st.lists(
        st.tuples(id_texts, st.none() | st.floats(allow_nan=False), st.sampled_from(["", "c#1"])),
        max_size=14,
    )
    ids_only = st.lists(id_texts, max_size=14).map(lambda ids: [(d, None, "") for d in ids])

    def encode(rows: list[tuple[str, float | None, str]]) -> bytes:
        items = [pb.RetrievedItem(document_id=d, score=s, chunk_id=c) for d, s, c in rows]
        return pb.RetrieveResponse(results=items).SerializeToString()

    def damage(wire: bytes, how: int, at: int) -> bytes:
        if how == 1 and wire:  # cut short
            return wire[: at % len(wire)]
        if how == 2 and len(wire) > 4:  # a byte that is not UTF-8 inside the first id
            return wire[:4] + b"\xff" + wire[5:]
        if how == 3:  # an unknown varint field (number 15) appended
            return wire + bytes([15 << 3, at & 0x7F])
        if how == 4 and len(wire) > 2 and wire[1] < 120 and wire[2] == 0x0A:
            # the first result gets an unknown varint field (number 15) of its own
            return (
                bytes([0x0A, wire[1] + 2])
                + wire[2 : 2 + wire[1]]
                + bytes([15 << 3, at & 0x7F])
                + wire[2 + wire[1] :]
            )
        if how == 5 and len(wire) > 2 and wire[1] < 60 and wire[2] == 0x0A:
            # the first result's fields written twice: the last id wins, as parsers read
            body = wire[2 : 2 + wire[1]]
            return bytes([0x0A, 2 * len(body)]) + body + body + wire[2 + wire[1] :]
        return wire

    return st.builds(damage, (ids_only | rows).map(encode), st.integers(0, 5), st.integers(0, 255))


@settings(max_examples=400, deadline=None)
@given(_wire_cases())
def test_the_columns_read_from_the_bytes_received_are_protobufs_reading(wire: bytes) -> None:
    """Judging the usual answer (ids only) by the length of the bytes received reads
    exactly what reading every field of protobuf's own parse does, whatever the bytes."""
    try:
        parsed = pb.RetrieveResponse.FromString(wire)
    except DecodeError:
        return
    # Compared by repr: a damaged score can be NaN, which equals nothing, not even itself.
    assert repr(convert.ranking_from_proto(parsed, len(wire))) == repr(_read_field_by_field(parsed))


@pytest.mark.parametrize(
    "ids", [["a"], ["doc0#0", "doc0#1", "d"], ["é" * 62, "x" * 125], []], ids=repr
)
def test_the_usual_answer_is_read_from_its_ids_alone(ids: list[str]) -> None:
    wire = convert.ranking_to_proto(Ranking(tuple(ids))).SerializeToString()
    parsed = pb.RetrieveResponse.FromString(wire)
    assert convert.ranking_from_proto(parsed, len(wire)) == Ranking(tuple(ids))
    assert convert._ids_only(len(wire), tuple(ids)) is bool(ids)
    if ids:  # one byte more than ids alone take: every field is read
        assert not convert._ids_only(len(wire) + 1, tuple(ids))


def test_empty_and_long_ids_cannot_hide_a_score_from_the_size_check() -> None:
    """Five empty ids take 10 bytes less than 4 a result and a 126-byte id one more: 9
    bytes, a score's size, which the size check alone would take for ids only."""
    rows = [("", None)] * 5 + [("x" * 126, 0.5)]
    message = pb.RetrieveResponse(
        results=[pb.RetrievedItem(document_id=d, score=s) for d, s in rows]
    )
    wire = message.SerializeToString()
    assert len(wire) == len("x" * 126) + 4 * len(rows)  # the sizes alone would agree
    ranking = convert.ranking_from_proto(pb.RetrieveResponse.FromString(wire), len(wire))
    assert ranking.scores == (None,) * 5 + (0.5,)


_LIMITS = st.integers(1, 16)
_VISIBLE = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1,
                   max_size=125)  # fmt: skip
#: Bytes protobuf reads as ids alone but no library writes: an empty id written out, and
#: a space in an id.
_ODD_WIRES = st.sampled_from([b"\n\x02\n\x00", b"\n\x03\n\x01 ", b"\n\x03\n\x01a\n\x02\n\x00"])


@settings(max_examples=600, deadline=None)
@given(_wire_cases(_VISIBLE | _IDS) | _ODD_WIRES | st.binary(max_size=40), _LIMITS)
def test_plain_ids_read_from_the_bytes_are_protobufs_reading_and_conform(
    wire: bytes, limit: int
) -> None:
    """Whatever the bytes, the client's shortcut reads either nothing (the general way then
    parses them) or exactly what protobuf reads, and only an answer the contract's rules
    accept for ``limit``: it is the one check such an answer gets."""
    ids = plain_ids(wire, limit)
    if ids is None:
        return
    parsed = pb.RetrieveResponse.FromString(wire)  # raises if the shortcut read junk
    assert _read_field_by_field(parsed) == Ranking(ids)
    assert response_breach(Ranking(ids), limit) is None


@settings(max_examples=200, deadline=None)
@given(st.lists(_VISIBLE, max_size=16), _LIMITS)
def test_the_usual_answer_takes_the_shortcut(ids: list[str], limit: int) -> None:
    """Short visible-ASCII ids alone, as any protobuf library writes them: read from the
    bytes whenever there are no more than asked for."""
    wire = convert.ranking_to_proto(Ranking(tuple(ids))).SerializeToString()
    assert plain_ids(wire, limit) == (tuple(ids) if len(ids) <= limit else None)


@pytest.mark.parametrize(
    "ids",
    [["a b"], ["tab\there"], ["x" * 126], ["é"], [""], ["ok", "\x7f"], ["new\nline"]],
    ids=repr,
)
def test_unusual_ids_go_the_general_way(ids: list[str]) -> None:
    """White space, control characters, non-ASCII, empty or long ids: declined, so that
    the contract's rules judge them (a blank id is a breach, an id with a space is not)."""
    wire = convert.ranking_to_proto(Ranking(tuple(ids))).SerializeToString()
    assert plain_ids(wire, 10) is None
