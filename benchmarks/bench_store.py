"""Run store: time and peak memory to save and to reload a run of 100,000 questions.

The run is realistic: each question's text (about 50 characters), 12 raw ids (chunk ids)
and their distinct documents per question, hits at 1 and 3, latency, a few failures. It
is saved to a fresh SQLite file through ``RunStore.save`` (one transaction; per-question
rows go to the driver as tuples: executemany on SQLite, COPY on PostgreSQL) and loaded
back with ``RunStore.get`` (checked equal to what was saved). The baseline, measured in
the same run, writes and reads the same data as one JSON document (the shape of
``--format json`` questions) with the standard library, and reads it back into the same
typed records. The same run without question texts, saved and reloaded in a store of its
own, gives what keeping the texts costs. Each step is timed ``--repeat`` times (median),
then run once more under ``tracemalloc`` for its peak Python memory.

    python benchmarks/bench_store.py                       # 100,000 questions, SQLite
    python benchmarks/bench_store.py --questions 20000 --db postgresql://USER@HOST/DB
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from retrieval_eval.evaluation.latency import run_latency
from retrieval_eval.questions.model import GoldenQuestion, label_fingerprint
from retrieval_eval.records.failures import FailureKind, RetrievalFailure
from retrieval_eval.records.outcome import Form, QuestionOutcome
from retrieval_eval.records.parameters import RunParameters
from retrieval_eval.records.run import RetrieverDescription, RunResult, RunState
from retrieval_eval.scoring.metrics import breakdowns, summarize
from retrieval_eval.scoring.protocol import score_question
from retrieval_eval.store.store import RunStore
from retrieval_eval.store.url import mask, resolve_url


def build_run(n: int) -> RunResult:
    p = RunParameters(doc_id_separator="#")
    questions = [
        GoldenQuestion(f"q{i:06d}", f"How do I restore version {i} of a file I deleted?",
                       (Form.MATCH, Form.GAP)[i % 2],
                       (f"doc{i % 5000}",), hard_class=("near-duplicate", None)[i % 3 > 0])
        for i in range(n)
    ]  # fmt: skip
    outcomes = []
    for i, q in enumerate(questions):
        if i % 997 == 0:
            failure = RetrievalFailure(FailureKind.TIMEOUT, "deadline of 10s exceeded")
            outcomes.append(score_question(q, None, ks=p.ks, limit=p.limit, separator="#",
                                           latency_ms=10_000.0, error=failure))  # fmt: skip
            continue
        raw = [f"doc{(i + j // 2 + (i % 4)) % 5000}#{j % 2}" for j in range(p.limit)]
        items = [_Item(r) for r in raw]
        outcomes.append(score_question(q, items, ks=p.ks, limit=p.limit, separator="#",
                                       latency_ms=3 + (i % 89) / 7, error=None))  # fmt: skip
    by_form, by_class = breakdowns(outcomes, p.ks)
    start = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
    return RunResult(
        set_name="bench", set_fingerprint=label_fingerprint(questions),
        retriever_target="grpc://127.0.0.1:50051",
        retriever=RetrieverDescription("bm25", "1.0", chunk_separator="#"),
        parameters=p, started_at=start, finished_at=start + timedelta(minutes=3),
        state=RunState.INCOMPLETE, metrics=summarize(outcomes, p.ks), by_form=by_form,
        by_hard_class=by_class, latency=run_latency(outcomes), questions=tuple(outcomes),
    )  # fmt: skip


@dataclasses.dataclass(frozen=True, slots=True)
class _Item:
    document_id: str
    score: float | None = None
    chunk_id: str | None = None


def json_document(run: RunResult) -> dict[str, Any]:
    questions = [
        {"id": q.question_id, "text": q.question_text, "form": q.form.value,
         "hard_class": q.hard_class,
         "expected_document_ids": list(q.expected_document_ids), "raw_ids": list(q.raw_ids),
         "ranked_document_ids": list(q.ranked_document_ids),
         "hits": {str(k): v for k, v in q.hits.items()}, "latency_ms": q.latency_ms,
         "error": None if q.error is None else [q.error.kind, q.error.message],
         "underfilled": q.underfilled}
        for q in run.questions
    ]  # fmt: skip
    return {"set": run.set_name, "questions": questions}


def records_from_json(document: dict[str, Any]) -> tuple[QuestionOutcome, ...]:
    """The JSON baseline carried through to the same typed records the store returns."""
    return tuple(
        QuestionOutcome(
            question_id=q["id"], question_text=q["text"], form=Form(q["form"]),
            hard_class=q["hard_class"],
            expected_document_ids=tuple(q["expected_document_ids"]), raw_ids=tuple(q["raw_ids"]),
            ranked_document_ids=tuple(q["ranked_document_ids"]),
            hits={int(k): v for k, v in q["hits"].items()}, latency_ms=q["latency_ms"],
            error=None if q["error"] is None else RetrievalFailure(*q["error"]),
            underfilled=q["underfilled"],
        )
        for q in document["questions"]
    )  # fmt: skip


def measure(step: Callable[[], Any], repeat: int) -> tuple[float, float, Any]:
    """(median seconds, peak MiB of Python allocations, result): timed untraced ``repeat``
    times, then once more traced."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        result = step()
        times.append(time.perf_counter() - started)
    seconds = statistics.median(times)
    tracemalloc.start()
    step()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return seconds, peak / 2**20, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=100_000)
    parser.add_argument("--db", help="database URL (default: a fresh SQLite file)")
    parser.add_argument("--repeat", type=int, default=3, help="timed repetitions (median)")
    args = parser.parse_args()
    run = build_run(args.questions)
    with tempfile.TemporaryDirectory() as tmp:
        url = args.db or f"sqlite:///{Path(tmp) / 'runs.sqlite'}"
        json_path = Path(tmp) / "run.json"
        with RunStore.open(url) as store:
            ids: list[str] = []
            save = measure(lambda: ids.append(store.save(run)), args.repeat)
            load = measure(lambda: store.get(ids[0]), args.repeat)
            assert load[2] == dataclasses.replace(run, run_id=ids[0]), "round trip differs"
            files = [Path(tmp, "runs.sqlite"), Path(tmp, "runs.sqlite-wal")]
            size = sum(f.stat().st_size for f in files if f.exists()) if not args.db else 0
        dump = measure(lambda: json_path.write_text(json.dumps(json_document(run))), args.repeat)
        read = measure(lambda: json.loads(json_path.read_text()), args.repeat)
        typed = measure(lambda: records_from_json(json.loads(json_path.read_text())), args.repeat)
        # what storing question texts costs: the same run without them, in a store of its own
        bare = dataclasses.replace(
            run, questions=tuple(dataclasses.replace(q, question_text=None) for q in run.questions)
        )
        bare_url = args.db or f"sqlite:///{Path(tmp) / 'bare.sqlite'}"
        with RunStore.open(bare_url) as store:
            bare_ids: list[str] = []
            bare_save = measure(lambda: bare_ids.append(store.save(bare)), args.repeat)
            bare_load = measure(lambda: store.get(bare_ids[0]), args.repeat)
            bare_files = [Path(tmp, "bare.sqlite"), Path(tmp, "bare.sqlite-wal")]
            bare_size = sum(f.stat().st_size for f in bare_files if f.exists())
        assert typed[2] == run.questions, "JSON baseline differs"
        json_size = json_path.stat().st_size
    where = "SQLite" if not args.db else mask(resolve_url(args.db))
    print(f"run store benchmark: {args.questions:,} questions, {where}, "
          f"median of {args.repeat} (memory: one more traced pass)")  # fmt: skip
    print(f"{'step':<34}{'seconds':>9}{'peak MiB':>10}{'vs JSON':>9}{'vs records':>12}")
    for name, (s, mib, _), (bs, _, _), (rs, _, _) in (
        ("save (RunStore.save)", save, dump, dump),
        ("reload (RunStore.get)", load, read, typed),
        ("baseline: json write", dump, dump, dump),
        ("baseline: json read", read, read, typed),
        ("baseline: json read into records", typed, read, typed),
    ):
        print(f"{name:<34}{s:>9.2f}{mib:>10.1f}{s / bs:>8.2f}x{s / rs:>11.2f}x")
    for name, with_text, without in (("save", save, bare_save), ("reload", load, bare_load)):
        print(f"{name} with question texts vs without: {with_text[0] / without[0]:.2f}x time, "
              f"{with_text[1] / without[1]:.2f}x peak memory")  # fmt: skip
    if size:
        print(f"SQLite file + WAL {size / 2**20:.1f} MiB ({args.repeat + 1} copies of the run), "
              f"JSON {json_size / 2**20:.1f} MiB; without texts "
              f"{bare_size / 2**20:.1f} MiB")  # fmt: skip


if __name__ == "__main__":
    main()
