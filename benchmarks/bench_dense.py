"""The dense plugin on BEIR SciFact, in one run, each figure beside a baseline measured here.

1. Index build (each in a fresh interpreter, so its peak RSS is its own): the plugin's
   ``build_index`` (exact; then with ``--hnsw``) against the raw libraries doing the same
   work: WordLlama's ``embed`` + numpy (normalise, save), and + usearch for the graph.
   Target: within 1.1x of raw.
2. Query latency, one question at a time over the test questions at reval's default
   request (12 results): the plugin in-process against WordLlama + numpy (one matrix
   product, argpartition) and against WordLlama + usearch on the same graph (target:
   within 1.1x); the sides alternate question by question, medians over the rounds.
3. HNSW recall@10 against exact search over the test questions (target >= 0.99).
4. nDCG@10 computed through reval over gRPC (``evaluate`` on servers started with the
   SDK, a temporary reval.toml for the fusion and the rerank, exactly as the quickstart
   does) for BM25, dense, RRF(BM25, dense) and BM25 reranked by the dense model (depth
   50), each cross-checked by ir-measures on the exported ranking.
5. A synthetic 100,000-document corpus (100 words each, drawn from SciFact's vocabulary):
   build time, peak RSS, size on disk, and the memory a process holding the open index
   takes beyond one holding the model only.

    python benchmarks/bench_dense.py [--data ../shared/datasets/scifact] [--rounds 3]
    python benchmarks/bench_dense.py --scale-docs 0        # skip the 100,000-doc index
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ir_measures
import numpy as np
from ir_measures import nDCG

LIMIT = 12  # reval's default request: top-3 x overfetch 4
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "scifact"

BUILD_PLUGIN = """
import sys, time
from pathlib import Path
from reval_dense.index import build_index
from reval_dense.manifest import HnswSettings
t = time.perf_counter()
hnsw = HnswSettings() if sys.argv[3] == "1" else None
build_index(Path(sys.argv[1]), Path(sys.argv[2]), hnsw=hnsw)
print(time.perf_counter() - t, PEAK_KIB())
"""

BUILD_RAW = """
import gzip, json, os, sys, time
import numpy as np
import wordllama
from wordllama import WordLlama
t = time.perf_counter()
model = WordLlama.load(cache_dir=os.path.dirname(wordllama.__file__), disable_download=True)
docs = [json.loads(line) for line in gzip.open(sys.argv[1], "rt", encoding="utf-8")]
texts = [d["title"] + "\\n" + d["text"] if d.get("title") else d["text"] for d in docs]
vectors = model.embed(texts, norm=True).astype(np.float32)
os.makedirs(sys.argv[2], exist_ok=True)
np.save(os.path.join(sys.argv[2], "vectors.npy"), vectors)
json.dump([d["_id"] for d in docs], open(os.path.join(sys.argv[2], "ids.json"), "w"))
if sys.argv[3] == "1":
    from usearch.index import Index
    graph = Index(ndim=vectors.shape[1], metric="ip", dtype="f32", connectivity=16,
                  expansion_add=128, expansion_search=128)
    graph.add(np.arange(len(vectors), dtype=np.uint64), vectors, threads=1)
    graph.save(os.path.join(sys.argv[2], "hnsw.usearch"))
print(time.perf_counter() - t, PEAK_KIB())
"""

HOLD = """
import sys
from pathlib import Path
from reval_dense.embedders.wordllama import WordLlamaEmbedder
if sys.argv[1] == "model":
    WordLlamaEmbedder(256).embed(["warm up"])
else:
    from reval_dense.retriever import open_index
    open_index(Path(sys.argv[1])).retrieve("warm up", 12)
print(PEAK_KIB())
"""

#: The child's own peak RSS: VmHWM of its address space. (``ru_maxrss`` would report the
#: parent's peak when that was higher: Linux carries it across fork and exec.)
PEAK = """
def PEAK_KIB():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
"""


def child(script: str, *args: str) -> list[float]:
    code = PEAK + script
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(out.stderr)
    return [float(x) for x in out.stdout.split()]


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


def size_mib(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 2**20


def builds(corpus: Path, tmp: Path, rounds: int) -> None:
    print("\n1. index build (fresh interpreter each; median seconds, peak RSS MiB)")
    for hnsw in ("0", "1"):
        plugin, raw = [], []
        for r in range(rounds):  # alternating, first side rotating: load hits both alike
            sides = [
                (plugin, BUILD_PLUGIN, tmp / f"p{hnsw}{r}"),
                (raw, BUILD_RAW, tmp / f"r{hnsw}{r}"),
            ]
            for figures, script, out in sides if r % 2 == 0 else sides[::-1]:
                figures.append(child(script, str(corpus), str(out), hnsw))
        p = statistics.median(s for s, _ in plugin)
        q = statistics.median(s for s, _ in raw)
        label = "exact" if hnsw == "0" else "hnsw "
        other = "WordLlama+numpy " if hnsw == "0" else "WordLlama+usearch"
        print(
            f"  {label} plugin {p:7.1f} s  {max(m for _, m in plugin) / 1024:6.0f} MiB · "
            f"raw {other} {q:7.1f} s  {max(m for _, m in raw) / 1024:6.0f} MiB · "
            f"ratio {p / q:.2f}x · on disk {size_mib(tmp / f'p{hnsw}0'):.1f} MiB"
        )


def percentiles(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered), ordered[int(0.95 * (len(ordered) - 1))]


def timed_pair(
    ours: Callable[[str], object], theirs: Callable[[str], object], questions: list[str]
) -> tuple[list[float], list[float]]:
    """Per-question latency (ms) of both sides, alternated question by question (the side
    that goes first alternating too), so a neighbour's burst of load hits both alike."""
    out: tuple[list[float], list[float]] = ([], [])
    for i, q in enumerate(questions):
        order = ((0, ours), (1, theirs)) if i % 2 == 0 else ((1, theirs), (0, ours))
        for side, search in order:
            t = time.perf_counter()
            search(q)
            out[side].append((time.perf_counter() - t) * 1000)
    return out


def latency(exact_dir: Path, hnsw_dir: Path, questions: list[str], rounds: int) -> None:
    import wordllama
    from reval_dense.retriever import open_index
    from usearch.index import Index
    from wordllama import WordLlama

    model = WordLlama.load(cache_dir=os.path.dirname(wordllama.__file__), disable_download=True)
    matrix = np.load(exact_dir / "vectors.npy")
    ids = json.loads((exact_dir / "ids.json").read_text())
    graph = Index.restore(str(hnsw_dir / "hnsw.usearch"), view=True)
    graph.expansion_search = 128

    def raw_exact(q: str) -> list[tuple[str, float]]:
        v = model.embed([q], norm=True)[0]
        sims = np.einsum("ij,j->i", matrix, v)  # the same single-threaded product
        top = np.argpartition(-sims, LIMIT - 1)[:LIMIT]
        top = top[np.argsort(-sims[top], kind="stable")]
        return [(ids[i], float(sims[i])) for i in top]

    def raw_hnsw(q: str) -> list[tuple[str, float]]:
        found = graph.search(model.embed([q], norm=True)[0], LIMIT)
        return [
            (ids[int(k)], 1.0 - float(d)) for k, d in zip(found.keys, found.distances, strict=True)
        ]

    exact, approximate = open_index(exact_dir), open_index(hnsw_dir)
    pairs = {
        "exact": (lambda q: exact.retrieve(q, LIMIT), raw_exact, "WordLlama+numpy"),
        "hnsw ": (lambda q: approximate.retrieve(q, LIMIT), raw_hnsw, "WordLlama+usearch"),
    }
    print(f"\n2. query latency, {len(questions)} questions one at a time, the sides "
          f"alternated question by question, median of {rounds} rounds (ms)")  # fmt: skip
    for label, (plugin, raw, name) in pairs.items():
        ours, theirs = [], []
        for _ in range(rounds):
            mine, other = timed_pair(plugin, raw, questions)
            ours.append(percentiles(mine))
            theirs.append(percentiles(other))
        p50, p95 = (statistics.median(x[i] for x in ours) for i in (0, 1))
        r50, r95 = (statistics.median(x[i] for x in theirs) for i in (0, 1))
        print(
            f"  {label} plugin p50 {p50:.3f} p95 {p95:.3f} · raw {name} p50 {r50:.3f} "
            f"p95 {r95:.3f} · ratio p50 {p50 / r50:.2f}x p95 {p95 / r95:.2f}x"
        )
    recall = []
    for q in questions:
        want = set(exact.retrieve(q, 10).document_ids)
        recall.append(len(want & set(approximate.retrieve(q, 10).document_ids)) / 10)
    print(f"\n3. HNSW recall@10 against exact search: {statistics.mean(recall):.4f} "
          f"(min {min(recall):.1f}, {len(recall)} questions)")  # fmt: skip


def ndcg(corpus: Path, tmp: Path, exact_dir: Path, queries: dict[str, str], qrels: Any) -> None:
    from reval_bm25.index import build_index as build_bm25
    from reval_bm25.retriever import open_index as open_bm25
    from reval_dense.retriever import open_index

    from retrieval_eval import serve
    from retrieval_eval.evaluation.coordinator import EvalOptions, evaluate
    from retrieval_eval.questions.model import GoldenQuestion, GoldenQuestionSet
    from retrieval_eval.records.outcome import Form

    build_bm25(corpus, tmp / "bm25")
    questions = tuple(
        GoldenQuestion(qid, text, Form.UNLABELLED, tuple(qrels[qid]))
        for qid, text in queries.items()
    )
    question_set = GoldenQuestionSet("scifact-test", questions, "BEIR SciFact test")
    names = ("bm25", "dense", "hybrid", "bm25-reranked")
    lexical, vector = open_bm25(tmp / "bm25"), open_index(exact_dir)
    with serve(lexical, "127.0.0.1:0") as a, serve(vector, "127.0.0.1:0") as b:
        config = tmp / "reval.toml"
        config.write_text(
            f'[retrievers.bm25]\naddress = "grpc://{a.address}"\n'
            f'[retrievers.dense]\naddress = "grpc://{b.address}"\n'
            '[retrievers.hybrid]\nfuse = ["bm25", "dense"]\n'
            f'[retrievers.bm25-reranked]\nrerank = "bm25"\ndepth = 50\ncorpus = "{corpus}"\n'
        )
        t = time.perf_counter()
        options = EvalOptions(ks=(10,), timeout_s=120.0)
        runs = evaluate([question_set], list(names), options, config_path=config)
        seconds = time.perf_counter() - t
    print(f"\n4. nDCG@10 through reval over gRPC ({len(questions)} test questions, "
          f"4 retrievers in {seconds:.1f} s), cross-checked by ir-measures")  # fmt: skip
    for name, run in zip(names, runs, strict=True):
        answered = [q for q in run.questions if q.error is None]
        exported = {
            q.question_id: {d: 1.0 / (rank + 1) for rank, d in enumerate(q.ranked_document_ids)}
            for q in answered
        }
        judged = {q.question_id: qrels[q.question_id] for q in answered}
        independent = ir_measures.calc_aggregate([nDCG @ 10], judged, exported)[nDCG @ 10]
        ours = run.metrics.values["binary_ndcg@10"]
        kinds = sorted({q.error.kind for q in run.questions if q.error is not None})
        p50 = run.latency.p50_ms if run.latency else float("nan")
        print(f"  {name:14} reval {ours:.4f} · ir-measures {independent:.4f} · "
              f"errors {run.error_count} {kinds or ''} · p50 {p50:.1f} ms")  # fmt: skip


def scale(data: Path, tmp: Path, documents: int) -> None:
    rng = random.Random(0)
    vocabulary: list[str] = []
    with gzip.open(data / "corpus.jsonl.gz", "rt", encoding="utf-8") as f:
        for d in map(json.loads, f):
            vocabulary += d["text"].split()
    corpus = tmp / "scale.jsonl"
    with corpus.open("w", encoding="utf-8") as out:
        for i in range(documents):
            text = " ".join(rng.choices(vocabulary, k=100))
            out.write(json.dumps({"_id": f"d{i}", "text": text}) + "\n")
    index = tmp / "scale-index"
    seconds, build_rss = child(BUILD_PLUGIN, str(corpus), str(index), "0")
    (model_rss,) = child(HOLD, "model")
    (index_rss,) = child(HOLD, str(index))
    print(
        f"\n5. {documents:,} documents of 100 words: built in {seconds:.1f} s "
        f"({documents / seconds:,.0f} documents/s), build peak RSS {build_rss / 1024:.0f} MiB, "
        f"{size_mib(index):.1f} MiB on disk; a process holding the open index "
        f"{index_rss / 1024:.0f} MiB, {(index_rss - model_rss) / 1024:.0f} MiB beyond one "
        f"holding the model only"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--scale-docs", type=int, default=100_000)
    args = parser.parse_args()
    # Absolute: the rerank entry's corpus is written into a reval.toml in a temporary
    # folder, where a relative path would be read relative to that folder.
    data = args.data.resolve()
    if not (data / "corpus.jsonl.gz").is_file():
        raise SystemExit(f"--data {args.data}: no corpus.jsonl.gz there (a BEIR SciFact folder)")
    corpus = data / "corpus.jsonl.gz"
    queries, qrels = load(data)
    with gzip.open(corpus) as f:
        documents = sum(1 for _ in f)
    print(f"{os.cpu_count()} CPUs · load average {os.getloadavg()[0]:.2f} · SciFact "
          f"{documents} documents, {len(queries)} test questions")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="bench-dense-") as scratch:
        tmp = Path(scratch)
        builds(corpus, tmp, args.rounds)
        latency(tmp / "p00", tmp / "p10", list(queries.values()), args.rounds)
        ndcg(corpus, tmp, tmp / "p00", queries, qrels)
        if args.scale_docs:
            scale(data, tmp, args.scale_docs)
    print(f"load average at the end {os.getloadavg()[0]:.2f}; peak RSS of this process "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")  # fmt: skip


if __name__ == "__main__":
    main()
