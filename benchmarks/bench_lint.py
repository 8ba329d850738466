"""Benchmark: ``reval sets lint`` on a 10,000-question set over a 100,000-document corpus,
and on BEIR SciFact when present.

The synthetic corpus draws words from a Zipf-distributed vocabulary (documents of 60-240
words), gives a third of the documents a shared footer (boilerplate) and plants 500 edited
copies (near-duplicates); the set asks MATCH questions with words of their target and GAP
questions with words drawn from the whole vocabulary, plus 50 reworded duplicates. The
baseline, measured in the same run, is loading the set and reading the corpus (JSON
parsing and file I/O): what any label check must do anyway. ``lint_set`` is timed from
the loaded set and the read documents; the ratio is lint's cost over that baseline.
Times are CPU seconds of this process (wall time on a shared machine mostly measures the
neighbours); lint is single-threaded.
With ``datasketch`` installed, the time to build its MinHash (128 permutations) for 2,000
documents is printed as well, scaled to the corpus, to compare with the exact
inverted-index search used here (which needs no signatures at all).

    python benchmarks/bench_lint.py [--documents 100000] [--questions 10000] [--scifact DIR]
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from retrieval_eval.questions.beir import import_beir
from retrieval_eval.questions.corpus import CorpusDocument, read_corpus
from retrieval_eval.questions.formats import write_question_set
from retrieval_eval.questions.lint.lint import lint_set
from retrieval_eval.questions.loading import load_question_set
from retrieval_eval.questions.model import GoldenQuestion, GoldenQuestionSet
from retrieval_eval.records.outcome import Form

FOOTER = (
    "Was this page helpful? Contact our support team any time from the help menu. "
    "Copyright 2026 Example Corp. All rights reserved."
)
SCIFACT = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "scifact"


def make_corpus(n: int, seed: int = 11) -> list[dict[str, str]]:
    rng = np.random.default_rng(seed)
    vocabulary = np.array([f"w{i}x" for i in range(60_000)])
    lengths = rng.integers(60, 240, size=n)
    words = vocabulary[np.minimum(rng.zipf(1.2, size=int(lengths.sum())) - 1, 59_999)]
    starts = np.concatenate(([0], np.cumsum(lengths)))
    docs = []
    for i in range(n):
        text = " ".join(words[starts[i] : starts[i + 1]].tolist())
        if i % 3 == 0:
            text = f"{text} {FOOTER}"
        docs.append({"_id": f"d{i}", "title": f"Page {i}", "text": text})
    for i in range(500):  # edited copies: near-duplicates of d0..d499
        source = docs[i]["text"].split()
        for j in rng.choice(len(source), size=len(source) // 10, replace=False):
            source[j] = str(vocabulary[rng.integers(0, 60_000)])
        docs[n - 1 - i] = {"_id": f"d{n - 1 - i}", "title": "copy", "text": " ".join(source)}
    return docs


def make_set(docs: list[dict[str, str]], n: int, seed: int = 7) -> GoldenQuestionSet:
    rng = random.Random(seed)
    questions = []
    for i in range(n):
        target = rng.randrange(len(docs))
        words = docs[target]["text"].split()
        if i % 2:
            text = " ".join(rng.sample(words, min(6, len(words))))
        else:
            text = " ".join(f"w{rng.randrange(60_000)}x" for _ in range(6))
        form = Form.MATCH if i % 2 else Form.GAP
        questions.append(GoldenQuestion(f"q{i}", text + "?", form, (f"d{target}",)))
    for i in range(50):  # reworded duplicates: same words, another order and case
        words = questions[i].question.rstrip("?").split()
        text = " ".join(reversed(words)).upper()
        questions.append(
            GoldenQuestion(f"dup{i}", text, questions[i].form, questions[i].expected_document_ids)
        )
    return GoldenQuestionSet("bench-lint", tuple(questions))


def timed(run: Callable[[], Any]) -> tuple[float, Any]:
    """CPU seconds (steadier than wall time on a shared machine) and the result."""
    start = time.process_time()
    result = run()
    return time.process_time() - start, result


def bench(set_path: Path, corpus_path: Path, label: str) -> None:
    load_s, (qs, docs) = timed(
        lambda: (load_question_set(set_path), list(read_corpus(corpus_path)))
    )
    lint_s, report = timed(lambda: lint_set(qs, docs, corpus_name=str(corpus_path)))
    kinds: dict[str, int] = {}
    for f in report.findings:
        kinds[f.kind.value] = kinds.get(f.kind.value, 0) + 1
    print(f"{label}: {len(qs)} questions, {len(docs)} documents", flush=True)
    print(f"  baseline (load set + read corpus) {load_s:7.2f} s CPU")
    print(f"  lint_set                          {lint_s:7.2f} s  ({lint_s / load_s:.2f}x baseline)")
    print(f"  load + lint                       {load_s + lint_s:7.2f} s")
    print(f"  findings: {kinds}")
    _datasketch(docs)


def _datasketch(docs: list[CorpusDocument]) -> None:
    try:
        from datasketch import MinHash
    except ImportError:
        return
    sample = docs[:2_000]
    start = time.process_time()
    for d in sample:
        words = d.text.lower().split()
        shingles = {" ".join(words[i : i + 3]).encode() for i in range(max(len(words) - 2, 1))}
        m = MinHash(num_perm=128)
        m.update_batch(shingles)
    took = time.process_time() - start
    print(
        f"  datasketch MinHash(128) for {len(sample)} documents {took:.2f} s "
        f"(~{took * len(docs) / len(sample):.1f} s for all {len(docs)})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--questions", type=int, default=10_000)
    parser.add_argument("--scifact", type=Path, default=SCIFACT)
    args = parser.parse_args()
    started = time.process_time()
    with tempfile.TemporaryDirectory() as tmp:
        corpus_path, set_path = Path(tmp) / "corpus.jsonl", Path(tmp) / "set.jsonl"
        docs = make_corpus(args.documents)
        with corpus_path.open("w", encoding="utf-8") as f:
            f.writelines(json.dumps(d) + "\n" for d in docs)
        write_question_set(make_set(docs, args.questions), set_path)
        del docs
        print(f"(generating the synthetic data: {time.process_time() - started:.1f} s CPU)")
        bench(set_path, corpus_path, "synthetic")
        if (args.scifact / "corpus.jsonl.gz").exists():
            scifact_set = Path(tmp) / "scifact.jsonl"
            write_question_set(import_beir(args.scifact, "test", None), scifact_set)
            bench(scifact_set, args.scifact / "corpus.jsonl.gz", "BEIR SciFact test")
        else:
            print(f"SciFact not found at {args.scifact}: skipped")


if __name__ == "__main__":
    main()
