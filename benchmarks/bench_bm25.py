"""The BM25 plugin on BEIR SciFact, in one run: build, in-process latency, gRPC throughput.

1. Index build (in a child process, so its peak RSS is the build's alone): the plugin's
   ``build_index`` vs tantivy called directly with the same schema and analyzer.
2. Single-query latency (p50/p95) and queries/s, one query at a time, over the test
   questions at reval's default request (12 results): the plugin in-process vs tantivy
   called directly on the same index files with the same analyzer and query (targets:
   plugin within 10% of raw tantivy) vs ``rank_bm25`` (BM25Okapi over the same tokens;
   timed on a subset since it scores every document per query; target: plugin >= 20x).
3. Questions/s of reval's evaluation (``evaluate_set`` over gRPC at concurrency 8, the
   engine under ``reval eval``) against ``reval bm25 serve`` running in its own process
   (target >= 1,000/s), beside a bare grpc.aio loop making the same calls: the server's
   own ceiling on this machine.

    python benchmarks/bench_bm25.py [--data ../shared/datasets/scifact] [--rounds 5]
    python benchmarks/bench_bm25.py --scale-docs 200000   # also a synthetic 200k corpus
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import gzip
import json
import random
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import ir_measures
import numpy as np
import tantivy
from ir_measures import nDCG
from rank_bm25 import BM25Okapi
from reval_bm25.analyzer import TOKENIZER_NAME, AnalyzerSettings
from reval_bm25.engine import BODY, ID
from reval_bm25.metadata import ENGINE_DIR
from reval_bm25.retriever import open_index

from retrieval_eval.evaluation.coordinator import EvalOptions, evaluate_set
from retrieval_eval.questions.model import GoldenQuestion, GoldenQuestionSet
from retrieval_eval.records.outcome import Form

LIMIT = 12  # reval's default request: top-3 x overfetch 4
CONCURRENCY = 8
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "scifact"

BUILD_PLUGIN = """
import sys, time, resource
from pathlib import Path
from reval_bm25.index import build_index
t = time.perf_counter()
build_index(Path(sys.argv[1]), Path(sys.argv[2]))
print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""

BUILD_RAW = """
import gzip, json, sys, time, resource
import tantivy
from reval_bm25.analyzer import AnalyzerSettings
t = time.perf_counter()
b = tantivy.SchemaBuilder()
b.add_text_field("id", stored=True, tokenizer_name="raw", index_option="basic")
b.add_text_field("body", tokenizer_name="en", index_option="freq")
index = tantivy.Index(b.build(), path=sys.argv[2], reuse=False)
index.register_tokenizer("en", AnalyzerSettings().build())
writer = index.writer(heap_size=1_000_000_000, num_threads=1)
for line in gzip.open(sys.argv[1], "rt", encoding="utf-8"):
    d = json.loads(line)
    writer.add_document(tantivy.Document(id=d["_id"], body=d["title"] + "\\n" + d["text"]))
writer.commit()
writer.wait_merging_threads()
print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def child(script: str, *args: str) -> tuple[float, float]:
    """(seconds, peak RSS in MiB) of a build run in a fresh interpreter."""
    out = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(out.stderr)
    seconds, rss_kib = out.stdout.split()
    return float(seconds), int(rss_kib) / 1024


def load(data: Path) -> tuple[dict[str, str], dict[str, dict[str, int]]]:
    with (data / "qrels" / "test.tsv").open(newline="") as f:
        rows = csv.reader(f, delimiter="\t")
        next(rows)
        qrels: dict[str, dict[str, int]] = {}
        for qid, doc, score in rows:
            qrels.setdefault(qid, {})[doc] = int(score)
    with gzip.open(data / "queries.jsonl.gz", "rt", encoding="utf-8") as f:
        queries = {q["_id"]: q["text"] for q in map(json.loads, f) if q["_id"] in qrels}
    return queries, qrels


def raw_tantivy(index_dir: Path) -> Callable[[str], list[tuple[str, float]]]:
    """Tantivy called directly: the same files, analyzer and disjunction of term queries."""
    index = tantivy.Index.open(str(index_dir / ENGINE_DIR))
    index.register_tokenizer(TOKENIZER_NAME, AnalyzerSettings().build())
    index.config_reader(reload_policy="manual")
    searcher, schema, analyzer = index.searcher(), index.schema, AnalyzerSettings().build()
    should, term = tantivy.Occur.Should, tantivy.Query.term_query

    def search(question: str) -> list[tuple[str, float]]:
        """(id, score) pairs: the same information the plugin returns, as bare tuples."""
        tokens = analyzer.analyze(question)
        query = tantivy.Query.boolean_query(
            [(should, term(schema, BODY, t, index_option="freq")) for t in tokens]
        )
        hits = searcher.search(query, limit=LIMIT, count=False).hits
        return [(searcher.doc(address).get_first(ID), score) for score, address in hits]

    return search


def rank_bm25_search(data: Path) -> Callable[[str], list[str]]:
    """rank_bm25's BM25Okapi over the same analyzer's tokens (title + text)."""
    analyzer = AnalyzerSettings().build()
    ids, tokens = [], []
    with gzip.open(data / "corpus.jsonl.gz", "rt", encoding="utf-8") as f:
        for d in map(json.loads, f):
            ids.append(d["_id"])
            tokens.append(analyzer.analyze(d["title"] + "\n" + d["text"]))
    model = BM25Okapi(tokens)

    def search(question: str) -> list[str]:
        scores = model.get_scores(analyzer.analyze(question))
        top = np.argsort(-scores, kind="stable")[:LIMIT]
        return [ids[i] for i in top]

    return search


Pass = tuple[list[float], float, float]  # per-query wall seconds, pass wall, pass CPU


def latencies(search: Callable[[str], object], questions: list[str]) -> Pass:
    """One query at a time: per-query wall seconds, and the whole pass's wall and CPU
    time (CPU time is what the code costs even when other processes share the cores)."""
    each = []
    started, cpu = time.perf_counter(), time.thread_time()
    for q in questions:
        t = time.perf_counter()
        search(q)
        each.append(time.perf_counter() - t)
    return each, time.perf_counter() - started, time.thread_time() - cpu


def summary(name: str, passes: list[Pass], n: int) -> dict[str, float]:
    """Median over rounds of p50, p95, queries/s (wall) and CPU microseconds per query."""
    p50 = statistics.median(statistics.quantiles(e, n=100)[49] for e, _, _ in passes) * 1000
    p95 = statistics.median(statistics.quantiles(e, n=100)[94] for e, _, _ in passes) * 1000
    qps = statistics.median(n / wall for _, wall, _ in passes)
    cpu = statistics.median(c / n for _, _, c in passes) * 1e6
    print(f"  {name:<20} p50 {p50:8.3f} ms  p95 {p95:8.3f} ms  {qps:8,.0f} queries/s"
          f"  CPU {cpu:9.1f} us/query")  # fmt: skip
    return {"p50": p50, "p95": p95, "qps": qps, "cpu": cpu}


def ndcg10(search: Callable[[str], list[str]], queries: dict[str, str], qrels) -> float:
    run = {
        qid: {doc: float(LIMIT - r) for r, doc in enumerate(search(text))}
        for qid, text in queries.items()
    }
    return ir_measures.calc_aggregate([nDCG @ 10], qrels, run)[nDCG @ 10]


def serve_and_evaluate(
    index_dir: Path, queries: dict[str, str], qrels, repeat: int, rounds: int
) -> tuple[float, float]:
    """Questions/s of reval's engine and of a bare grpc.aio loop (the same calls, 8 in
    flight) against ``reval bm25 serve`` in its own process; medians over rounds."""
    command = [sys.executable, "-c", "from retrieval_eval.cli.main import main; main()"]
    server = subprocess.Popen(
        [*command, "bm25", "serve", str(index_dir), "--address", "127.0.0.1:0"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        line = server.stdout.readline() if server.stdout else ""
        found = re.search(r" on (127\.0\.0\.1:\d+);", line)
        if not found:
            raise SystemExit(f"reval bm25 serve did not start: {line!r}")
        questions = tuple(
            GoldenQuestion(f"{qid}/{r}", text, Form.UNLABELLED, tuple(qrels[qid]))
            for r in range(repeat)
            for qid, text in queries.items()
        )
        qs = GoldenQuestionSet(f"scifact-test-x{repeat}", questions)
        address = found.group(1)
        engine, bare = [], []
        asyncio.run(engine_pass(address, qs))  # warm-up
        for _ in range(rounds):
            engine.append(len(qs) / asyncio.run(engine_pass(address, qs)))
            bare.append(len(qs) / asyncio.run(bare_pass(address, qs)))
        return statistics.median(engine), statistics.median(bare)
    finally:
        server.terminate()
        server.wait(timeout=10)


async def engine_pass(address: str, qs: GoldenQuestionSet) -> float:
    from retrieval_eval.retrievers.opening import open_retriever

    retriever = open_retriever(f"grpc://{address}")
    try:
        await retriever.describe()  # connected, as the bare loop is
        started = time.perf_counter()
        result = await evaluate_set(qs, retriever, EvalOptions(concurrency=CONCURRENCY))
        seconds = time.perf_counter() - started
    finally:
        await retriever.close()
    if not result.complete:
        raise SystemExit(f"evaluation over gRPC went wrong: {result.state}")
    return seconds


async def bare_pass(address: str, qs: GoldenQuestionSet) -> float:
    import grpc

    from retrieval_eval.v1 import retriever_pb2 as pb
    from retrieval_eval.v1 import retriever_pb2_grpc as pb_grpc

    async with grpc.aio.insecure_channel(address) as channel:
        stub = pb_grpc.RetrieverStub(channel)
        await stub.Describe(pb.DescribeRequest(), timeout=10)
        jobs = iter(q.question for q in qs.questions)

        async def worker() -> None:
            for text in jobs:
                await stub.Retrieve(pb.RetrieveRequest(question=text, limit=LIMIT), timeout=10)

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(CONCURRENCY)))
        return time.perf_counter() - started


def build_phase(corpus: Path, index_dir: Path, raw_dir: Path) -> None:
    print("index build (fresh process each):")
    plugin_build = child(BUILD_PLUGIN, str(corpus), str(index_dir))
    raw_build = child(BUILD_RAW, str(corpus), str(raw_dir))
    for name, (secs, rss) in (("plugin build_index", plugin_build), ("raw tantivy", raw_build)):
        print(f"  {name:<22} {secs:6.2f} s   peak RSS {rss:7.1f} MiB")
    print(f"  ratio plugin/raw: time {plugin_build[0] / raw_build[0]:.2f}x, "
          f"peak RSS {plugin_build[1] / raw_build[1]:.2f}x")  # fmt: skip


def latency_phase(index_dir: Path, data: Path, queries, qrels, rounds: int, rb_n: int) -> None:
    texts = list(queries.values())
    plugin = open_index(index_dir)
    plugin_search = lambda q: plugin.retrieve(q, LIMIT)  # noqa: E731
    raw_search = raw_tantivy(index_dir)
    ids = lambda q: [i.document_id for i in plugin.retrieve(q, LIMIT)]  # noqa: E731
    raw_ids = lambda q: [doc for doc, _ in raw_search(q)]  # noqa: E731
    print(f"nDCG@10 ({len(texts)} test questions, {LIMIT} results): "
          f"plugin {ndcg10(ids, queries, qrels):.4f}, "
          f"raw tantivy {ndcg10(raw_ids, queries, qrels):.4f}")  # fmt: skip
    print(f"single-query latency, median of {rounds} rounds (order alternating ABBA):")
    latencies(plugin_search, texts), latencies(raw_search, texts)  # warm-up
    plugin_passes, raw_passes = [], []
    for i in range(rounds):  # ABBA order: whichever runs first in a round pays for it
        for search in (plugin_search, raw_search)[:: 1 if i % 2 == 0 else -1]:
            passes = plugin_passes if search is plugin_search else raw_passes
            passes.append(latencies(search, texts))
    p = summary("plugin (in-process)", plugin_passes, len(texts))
    r = summary("raw tantivy", raw_passes, len(texts))
    subset = texts[:rb_n]
    rb = summary("rank_bm25", [latencies(rank_bm25_search(data), subset)], len(subset))
    print(f"  plugin p50 / raw tantivy p50: {p['p50'] / r['p50']:.3f}  (target <= 1.10)")
    print(f"  plugin qps / raw tantivy qps: {p['qps'] / r['qps']:.3f}  (target >= 0.91)")
    print(f"  plugin CPU / raw tantivy CPU: {p['cpu'] / r['cpu']:.3f}  (target <= 1.10)")
    print(f"  rank_bm25 p50 / plugin p50:   {rb['p50'] / p['p50']:.1f}x  (target >= 20x)")


def grpc_phase(index_dir: Path, queries, qrels, repeat: int, rounds: int) -> None:
    print(f"over gRPC against `reval bm25 serve`, {CONCURRENCY} in flight, median of "
          f"{rounds} rounds:")  # fmt: skip
    engine, bare = serve_and_evaluate(index_dir, queries, qrels, repeat, rounds)
    n = len(queries) * repeat
    print(f"  reval evaluate_set    {engine:8,.0f} questions/s  ({n:,} questions; "
          "target >= 1,000)")  # fmt: skip
    print(f"  bare grpc.aio loop    {bare:8,.0f} calls/s")
    print(f"  engine / bare: {engine / bare:.2f}")


def scale_phase(data: Path, queries, docs: int, tmp: Path) -> None:
    """Optional: a synthetic corpus of ``docs`` documents (SciFact's, words reshuffled)."""
    rng = random.Random(7)
    with gzip.open(data / "corpus.jsonl.gz", "rt", encoding="utf-8") as f:
        base = [json.loads(line) for line in f]
    corpus = tmp / "scaled.jsonl"
    with corpus.open("w", encoding="utf-8") as out:
        for i in range(docs):
            d = base[i % len(base)]
            words = d["text"].split()
            rng.shuffle(words)
            record = {"_id": f"{d['_id']}-{i}", "title": d["title"], "text": " ".join(words)}
            out.write(json.dumps(record) + "\n")
    print(f"scale: {docs:,} synthetic documents ({corpus.stat().st_size / 2**20:.0f} MiB JSONL)")
    index_dir = tmp / "scaled-index"
    secs, rss = child(BUILD_PLUGIN, str(corpus), str(index_dir))
    plugin = open_index(index_dir)
    segments = plugin.segments
    print(f"  plugin build_index     {secs:6.1f} s   peak RSS {rss:7.1f} MiB   segments {segments}")
    texts = list(queries.values())
    summary("plugin (in-process)", [latencies(lambda q: plugin.retrieve(q, LIMIT), texts)],
            len(texts))  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--rank-bm25-queries", type=int, default=30)
    parser.add_argument("--grpc-repeat", type=int, default=5, help="passes over the questions")
    parser.add_argument("--scale-docs", type=int, default=0, help="also a synthetic corpus")
    args = parser.parse_args()
    corpus = args.data / "corpus.jsonl.gz"
    queries, qrels = load(args.data)
    print(f"SciFact: {corpus}, {len(queries)} test questions, {LIMIT} results per query")
    with tempfile.TemporaryDirectory(prefix="bench-bm25-") as tmp:
        index_dir, raw_dir = Path(tmp) / "index", Path(tmp) / "raw"
        raw_dir.mkdir()
        build_phase(corpus, index_dir, raw_dir)
        latency_phase(index_dir, args.data, queries, qrels, args.rounds, args.rank_bm25_queries)
        grpc_phase(index_dir, queries, qrels, args.grpc_repeat, args.rounds)
        if args.scale_docs:
            scale_phase(args.data, queries, args.scale_docs, Path(tmp))
    usage = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"benchmark process peak RSS: {usage:.0f} MiB")


if __name__ == "__main__":
    main()
