"""The BM25 plugin on a big corpus: build time, peak RSS, on-disk size and query latency,
each against tantivy called directly on the same corpus in the same run.

The corpus is synthetic by default: ``--docs`` documents made of SciFact's words
reshuffled, each cut to ``--words`` words (passage-sized, as chunked corpora are), with
SciFact's titles; or a real corpus file with ``--corpus`` (JSONL or BEIR, .gz or not).

1. Build, each in a fresh process (peak RSS is the build's alone): the plugin's
   ``build_index`` (which also checks and fingerprints every document and keeps a
   doc_id field for updates) and raw tantivy (one writer, the same analyzer and heap,
   only ``id`` and ``body``). On-disk size of each index directory.
2. Single-query latency, p50 and p95 over SciFact's test questions at reval's default
   request (12 results), alternating plugin and raw tantivy round by round (ABBA), the
   median over ``--rounds``; raw tantivy searches the plugin's own index files with the
   same analyzer and query. Targets: build < 180 s and < 1 GiB peak; p50/p95 within 10%.

    python benchmarks/bench_bm25_scale.py --data ../shared/datasets/scifact   # 1,000,000 documents
    python benchmarks/bench_bm25_scale.py --docs 50000 --rounds 3
    python benchmarks/bench_bm25_scale.py --corpus ../shared/datasets/scifact/corpus.jsonl.gz
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_bm25 import BUILD_PLUGIN, DEFAULT_DATA, LIMIT, child, latencies, load, raw_tantivy
from reval_bm25.retriever import open_index

BUILD_RAW = """
import gzip, json, sys, time, resource
import tantivy
from reval_bm25.analyzer import AnalyzerSettings
from reval_bm25.index import WRITER_HEAP_BYTES
t = time.perf_counter()
b = tantivy.SchemaBuilder()
b.add_text_field("id", stored=True, tokenizer_name="raw", index_option="basic")
b.add_text_field("body", tokenizer_name="en", index_option="freq")
index = tantivy.Index(b.build(), path=sys.argv[2], reuse=False)
index.register_tokenizer("en", AnalyzerSettings().build())
writer = index.writer(heap_size=WRITER_HEAP_BYTES, num_threads=1)
opener = gzip.open if sys.argv[1].endswith(".gz") else open
for line in opener(sys.argv[1], "rt", encoding="utf-8"):
    d = json.loads(line)
    body = d["title"] + "\\n" + d["text"] if d.get("title") else d["text"]
    writer.add_document(tantivy.Document(id=d["_id"], body=body))
writer.commit()
writer.wait_merging_threads()
print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def synthesize(data: Path, docs: int, words: int, out: Path) -> None:
    """``docs`` documents of SciFact's words reshuffled (seeded), ``words`` words each."""
    rng = random.Random(7)
    with gzip.open(data / "corpus.jsonl.gz", "rt", encoding="utf-8") as f:
        base = [json.loads(line) for line in f]
    vocabulary = [w for d in base for w in d["text"].split()]
    with out.open("w", encoding="utf-8") as f:
        for i in range(docs):
            d = base[i % len(base)]
            start = rng.randrange(len(vocabulary) - words)
            text = vocabulary[start : start + words]
            rng.shuffle(text)
            f.write(json.dumps({"_id": f"d{i}", "title": d["title"], "text": " ".join(text)}))
            f.write("\n")


def disk_mib(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 2**20


def query_phase(index_dir: Path, texts: list[str], rounds: int) -> None:
    plugin = open_index(index_dir)
    searches = {
        "plugin": lambda q: plugin.retrieve(q, LIMIT),
        "raw tantivy": raw_tantivy(index_dir),
    }
    for search in searches.values():  # warm-up: the pages of the index files
        latencies(search, texts)
    figures: dict[str, list[tuple[float, float]]] = {name: [] for name in searches}
    for i in range(rounds):
        for name in list(searches)[:: 1 if i % 2 == 0 else -1]:
            each, _, _ = latencies(searches[name], texts)
            cuts = statistics.quantiles(each, n=100)
            figures[name].append((cuts[49] * 1000, cuts[94] * 1000))
    p50 = {name: statistics.median(f[0] for f in figs) for name, figs in figures.items()}
    p95 = {name: statistics.median(f[1] for f in figs) for name, figs in figures.items()}
    print(f"single-query latency over {len(texts)} questions, median of {rounds} rounds (ABBA):")
    for name in searches:
        print(f"  {name:<12} p50 {p50[name]:8.3f} ms   p95 {p95[name]:8.3f} ms")
    print(f"  plugin / raw tantivy: p50 {p50['plugin'] / p50['raw tantivy']:.3f}, "
          f"p95 {p95['plugin'] / p95['raw tantivy']:.3f}  (target <= 1.10)")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=1_000_000)
    parser.add_argument("--words", type=int, default=100, help="words per synthetic document")
    parser.add_argument("--corpus", type=Path, help="a real corpus instead of a synthetic one")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="SciFact (questions)")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    queries, _ = load(args.data)
    print(f"{os.cpu_count()} CPUs · load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory(prefix="bench-bm25-scale-") as tmp_name:
        tmp = Path(tmp_name)
        corpus = args.corpus
        if corpus is None:
            corpus = tmp / "synthetic.jsonl"
            synthesize(args.data, args.docs, args.words, corpus)
            print(f"corpus: {args.docs:,} synthetic documents of {args.words} words")
        else:
            print(f"corpus: {corpus}")
        print(f"  {corpus.stat().st_size / 2**20:,.0f} MiB on disk")
        index_dir, raw_dir = tmp / "index", tmp / "raw"
        raw_dir.mkdir()
        plugin_build = child(BUILD_PLUGIN, str(corpus), str(index_dir))
        raw_build = child(BUILD_RAW, str(corpus), str(raw_dir))
        print("index build (fresh process each):")
        for name, (secs, rss), where in (
            ("plugin build_index", plugin_build, index_dir),
            ("raw tantivy", raw_build, raw_dir),
        ):
            print(f"  {name:<20} {secs:7.1f} s   peak RSS {rss:7.0f} MiB   "
                  f"on disk {disk_mib(where):7.0f} MiB")  # fmt: skip
        print(f"  plugin / raw tantivy: time {plugin_build[0] / raw_build[0]:.2f}x, "
              f"peak RSS {plugin_build[1] / raw_build[1]:.2f}x, "
              f"on disk {disk_mib(index_dir) / disk_mib(raw_dir):.2f}x")  # fmt: skip
        query_phase(index_dir, list(queries.values()), args.rounds)


if __name__ == "__main__":
    main()
