"""Per-response cost of the client's hot path: a record per result vs the columnar Ranking.

For one parsed ``RetrieveResponse`` (12 chunk-id results with scores: the default request,
as ``bench_coordinator.py`` serves it), the client converts the message, checks it against
the contract, and scoring reads the ids and scores. Measured in the same run:

- records (the baseline): a ``RetrievedItem`` per result, checked item by item
  (``limits.item_breach``), ids and scores then read back out of the records;
- ranking: ``convert.ranking_from_proto`` + ``limits.response_breach`` on the columns,
  whose tuples scoring reads as they are.

Both start from the wire bytes (a fresh message each call, as the client gets one); the
parse alone is printed for scale.

    python benchmarks/bench_ranking.py
    python benchmarks/bench_ranking.py --results 100 --repeat 7
"""

from __future__ import annotations

import argparse
import timeit

from retrieval_eval.retrievers import convert
from retrieval_eval.retrievers.contract.limits import count_breach, item_breach, response_breach
from retrieval_eval.retrievers.protocol import RetrievedItem
from retrieval_eval.v1 import retriever_pb2 as pb


def wire(results: int) -> bytes:
    items = [
        pb.RetrievedItem(document_id=f"doc{i // 2}#{i % 2}", score=1.0 / (i + 1))
        for i in range(results)
    ]
    return pb.RetrieveResponse(results=items).SerializeToString()


def with_records(data: bytes, limit: int) -> tuple[object, object]:
    """The record-per-result path, as the client and scoring ran it before columns."""
    message = pb.RetrieveResponse.FromString(data)
    items = [
        RetrievedItem(r.document_id, r.score if r.HasField("score") else None, r.chunk_id or None)
        for r in message.results
    ]
    breach = count_breach(len(items), limit)
    for rank, item in enumerate(items, start=1):
        breach = breach or item_breach(rank, item)
    assert breach is None
    return tuple([i.document_id for i in items]), tuple([i.score for i in items])


def with_ranking(data: bytes, limit: int) -> tuple[object, object]:
    ranking = convert.ranking_from_proto(pb.RetrieveResponse.FromString(data))
    assert response_breach(ranking, limit) is None
    return ranking.document_ids, ranking.scores


def per_call_us(fn: object, repeat: int, number: int) -> float:
    return min(timeit.repeat(fn, repeat=repeat, number=number)) / number * 1e6  # type: ignore[arg-type]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=int, default=12)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--number", type=int, default=20_000)
    args = parser.parse_args()
    data = wire(args.results)
    assert with_records(data, args.results) == with_ranking(data, args.results)
    parse = per_call_us(lambda: pb.RetrieveResponse.FromString(data), args.repeat, args.number)
    records = per_call_us(lambda: with_records(data, args.results), args.repeat, args.number)
    ranking = per_call_us(lambda: with_ranking(data, args.results), args.repeat, args.number)
    print(f"{args.results} results per response, best of {args.repeat} x {args.number:,} calls")
    print(f"  protobuf parse (in both)    : {parse:6.2f} us/response")
    print(f"  records (baseline)          : {records:6.2f} us/response")
    print(f"  ranking (columns)           : {ranking:6.2f} us/response")
    print(f"  ranking / records           : {ranking / records:6.3f}  (target < 1)")
    print(f"  saved per response          : {records - ranking:6.2f} us")


if __name__ == "__main__":
    main()
