"""Several real ``reval eval`` processes, started at once against one live gRPC retriever,
all store their runs in the same store (a fresh SQLite file or PostgreSQL schema)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

from retrieval_eval.records.run import RetrieverDescription
from retrieval_eval.retrievers.protocol import RetrievedItem
from retrieval_eval.store.store import RunStore

REVAL = Path(sys.executable).parent / "reval"
PROCESSES = 4


class Echo:
    """Returns the document named in the question, then two others."""

    def retrieve(self, question: str, limit: int) -> list[RetrievedItem]:
        doc = question.rsplit(" ", 1)[-1]
        return [RetrievedItem(d) for d in (doc, "other-1", "other-2")][:limit]

    def describe(self) -> RetrieverDescription:
        return RetrieverDescription("echo", "1")


def test_concurrent_reval_eval_processes_all_store_their_runs(store_url, tmp_path):
    from retrieval_eval import serve

    set_file = tmp_path / "echo.yaml"
    questions = [
        {"id": f"q{i}", "question": f"where is d{i}", "form": "MATCH",
         "expected_document_ids": [f"d{i}" if i % 4 else "nowhere"]}
        for i in range(20)
    ]  # fmt: skip
    set_file.write_text(yaml.safe_dump({"name": "echo", "questions": questions}))
    env = {**os.environ, "REVAL_DATABASE_URL": store_url}
    with serve(Echo(), "127.0.0.1:0") as server:
        target = f"grpc://127.0.0.1:{server.port}"
        command = [str(REVAL), "eval", "--set", str(set_file), "--retriever", target]
        procs = [
            subprocess.Popen(
                [*command, "--label", f"writer=w{n}", "--format", "json"],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for n in range(PROCESSES)
        ]
        results = [p.communicate(timeout=120) for p in procs]
    for proc, (_, err) in zip(procs, results, strict=True):
        assert proc.returncode == 0, err
    with RunStore.open(store_url) as store:
        runs = store.list_runs(set_name="echo", retriever="echo", limit=None)
        assert sorted(r.labels["writer"] for r in runs) == [f"w{n}" for n in range(PROCESSES)]
        for summary in runs:
            assert summary.question_count == 20 and summary.top1_hit_rate == 0.75
            assert len(store.get(summary.run_id).questions) == 20
