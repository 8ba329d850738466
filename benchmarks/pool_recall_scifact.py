"""Pool recall on BEIR SciFact: how much of the qrels' relevant documents a pooled draft
holds, per pool depth, and the candidates a judge reads per question.

Drafts the first N test queries (by id) with two BM25 retrievers (whole abstracts; 60-word
chunks) at depths 5, 10 and 20, then judges the depth-20 draft through the library
following the test qrels (the "truth"), validates it and evaluates it.

    nice -n 10 python benchmarks/pool_recall_scifact.py [--questions 20] [--data DIR]
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import tempfile
import time
from pathlib import Path

import yaml

from retrieval_eval.labelling.draft import DraftQuestion, draft_set
from retrieval_eval.labelling.form_suggestion import form_suggester
from retrieval_eval.labelling.judge import Judgement, save_judgement
from retrieval_eval.labelling.pool import PoolOptions

DATA = Path(__file__).resolve().parents[1].parent.parent / "shared" / "datasets" / "scifact"


def load(data: Path, count: int) -> tuple[list[DraftQuestion], dict[str, set[str]]]:
    qrels: dict[str, set[str]] = {}
    with open(data / "qrels" / "test.tsv", newline="") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            if int(row["score"]) > 0:
                qrels.setdefault(row["query-id"], set()).add(row["corpus-id"])
    texts = {}
    with gzip.open(data / "queries.jsonl.gz", "rt") as f:
        for line in f:
            q = json.loads(line)
            texts[str(q["_id"])] = q["text"]
    ids = sorted(qrels, key=int)[:count]
    return [DraftQuestion(i, texts[i]) for i in ids], {i: qrels[i] for i in ids}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    from reval_bm25.index import build_index

    questions, truth = load(args.data, args.questions)
    corpus = args.data / "corpus.jsonl.gz"
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        started = time.perf_counter()
        build_index(corpus, work / "pages")
        build_index(corpus, work / "chunks", chunk_words=60, chunk_overlap=10)
        print(f"indexed SciFact twice in {time.perf_counter() - started:.1f} s")
        specs = [f"bm25:{work / 'pages'}", f"bm25:{work / 'chunks'}"]
        suggest = form_suggester(corpus)
        relevant_total = sum(len(v) for v in truth.values())
        print(f"{len(questions)} test queries, {relevant_total} relevant documents in the qrels")
        print("depth  candidates/question (min-max)  pool recall  pages alone  chunks alone")
        for depth in (5, 10, 20):
            out = work / f"draft-{depth}.yaml"
            draft_set(questions, corpus, specs, out, PoolOptions(depth=depth), suggest=suggest)
            data = yaml.safe_load(out.read_text())["questions"]
            sizes = [len(q["labelling"]["candidates"]) for q in data]
            found = {spec: 0 for spec in specs}
            pooled = 0
            for q in data:
                relevant = truth[q["id"]]
                for c in q["labelling"]["candidates"]:
                    if c["document_id"] in relevant:
                        pooled += 1
                        for spec in c["found_by"]:
                            found[spec] += 1
            print(
                f"{depth:5d}  {sum(sizes) / len(sizes):10.1f} ({min(sizes)}-{max(sizes)})"
                f"           {pooled / relevant_total:.3f} ({pooled}/{relevant_total})"
                f"  {found[specs[0]] / relevant_total:.3f}       "
                f"{found[specs[1]] / relevant_total:.3f}"
            )
        judge(work / "draft-20.yaml", truth, specs[0])


def judge(draft: Path, truth: dict[str, set[str]], spec: str) -> None:
    """Judge like a person following the qrels: a pooled relevant document is relevant,
    every other candidate is not; a question with none pooled stays to review."""
    from retrieval_eval.evaluation.coordinator import EvalOptions, evaluate
    from retrieval_eval.questions.loading import load_question_set

    data = yaml.safe_load(draft.read_text())["questions"]
    open_questions = []
    started = time.perf_counter()
    for q in data:
        pooled = {c["document_id"] for c in q["labelling"]["candidates"]} & truth[q["id"]]
        result = save_judgement(
            draft, Judgement(q["id"], frozenset(pooled), complete=True, judge="qrels")
        )
        if result.state != "judged":
            open_questions.append(q["id"])
    elapsed = time.perf_counter() - started
    print(f"judged {len(data)} questions in {elapsed:.2f} s; left to review: {open_questions}")
    if open_questions:
        print("the set is refused until those are reviewed (their answer is outside the pool)")
        return
    (run,) = evaluate([load_question_set(draft)], [spec], EvalOptions())
    top1 = sum(o.hits.get(1, False) for o in run.questions) / len(run.questions)
    top3 = sum(o.hits.get(3, False) for o in run.questions) / len(run.questions)
    print(f"judged set evaluated with whole abstracts: top-1 {top1:.3f}, top-3 {top3:.3f}")


if __name__ == "__main__":
    main()
