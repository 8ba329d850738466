"""What one hostile retriever costs an evaluation: a 20-question ``reval eval`` against a
raw gRPC server that answers every question with one huge document id, against the same
run with ordinary ids (the baseline, measured in the same run).

Printed per case: wall time, peak memory of the ``reval`` process, bytes written to the
terminal, growth of the SQLite store, and how many questions were errors of kind
``contract``. The hostile server is a raw servicer (not our SDK, which refuses to send
such answers) in a child process on 127.0.0.1.

    python benchmarks/bench_hostile_ids.py                 # a 3 MB id, 20 questions
    python benchmarks/bench_hostile_ids.py --id-bytes 100000 --questions 50
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SERVER = """
import sys, time
from concurrent import futures
import grpc
from grpc_health.v1 import health, health_pb2_grpc
from retrieval_eval.v1 import retriever_pb2 as pb, retriever_pb2_grpc as pb_grpc
ID = "x" * int(sys.argv[1]) if int(sys.argv[1]) else None
class Servicer(pb_grpc.RetrieverServicer):
    def Retrieve(self, request, context):
        ids = [ID] if ID else [f"doc-{i}" for i in range(3)]
        return pb.RetrieveResponse(results=[pb.RetrievedItem(document_id=d) for d in ids])
    def Describe(self, request, context):
        return pb.DescribeResponse(identifier="hostile", version="1")
server = grpc.server(futures.ThreadPoolExecutor(4), options=[
    ("grpc.max_send_message_length", -1)])
pb_grpc.add_RetrieverServicer_to_server(Servicer(), server)
health_pb2_grpc.add_HealthServicer_to_server(health.HealthServicer(), server)
port = server.add_insecure_port("127.0.0.1:0")
server.start()
print(port, flush=True)
sys.stdin.read()
server.stop(None)
"""


def write_set(directory: Path, count: int) -> Path:
    questions = [
        {"id": f"q{i}", "question": f"question number {i}", "expected_document_ids": ["doc-0"]}
        for i in range(count)
    ]
    path = directory / "set.json"
    path.write_text(json.dumps({"name": "bench", "questions": questions}), encoding="utf-8")
    return path


def measure(id_bytes: int, questions: int) -> dict[str, float]:
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(id_bytes)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        with tempfile.TemporaryDirectory() as tmp:
            directory = Path(tmp)
            store = directory / "runs.sqlite"
            set_path = write_set(directory, questions)
            reval = Path(sys.executable).parent / "reval"
            started = time.perf_counter()
            done = subprocess.run(
                [str(reval), "eval", "--set", str(set_path), "--retriever",
                 f"grpc://127.0.0.1:{port}", "--db", f"sqlite:///{store}"],
                capture_output=True,
                timeout=900,
            )  # fmt: skip
            wall = time.perf_counter() - started
            # The largest waited-for child so far: this reval (the server is still running;
            # the baseline's processes, measured first, are smaller).
            peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
            contract = done.stdout.count(b"ERROR contract")
            return {
                "wall_s": wall,
                "peak_rss_mb": peak / 1024,
                "terminal_bytes": len(done.stdout) + len(done.stderr),
                "store_bytes": store.stat().st_size if store.exists() else 0,
                "contract_errors": contract,
                "exit": done.returncode,
            }
    finally:
        if server.stdin is not None:
            server.stdin.close()
        server.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--id-bytes", type=int, default=3_000_000)
    parser.add_argument("--questions", type=int, default=20)
    args = parser.parse_args()
    baseline = measure(0, args.questions)
    hostile = measure(args.id_bytes, args.questions)
    print(f"{'':24}{'ordinary ids':>16}{f'{args.id_bytes:,}-byte id':>20}{'ratio':>10}")
    for key in ("wall_s", "peak_rss_mb", "terminal_bytes", "store_bytes"):
        ratio = hostile[key] / baseline[key] if baseline[key] else float("nan")
        print(f"{key:24}{baseline[key]:>16,.2f}{hostile[key]:>20,.2f}{ratio:>10.2f}")
    print(
        f"{'contract errors':24}{baseline['contract_errors']:>16}{hostile['contract_errors']:>20}"
    )
    print(f"{'exit code':24}{baseline['exit']:>16}{hostile['exit']:>20}")


if __name__ == "__main__":
    main()
