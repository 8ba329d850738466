"""Benchmark: load a 100,000-question golden set (JSONL, JSON, YAML) and compare with bare parsing.

Each format is timed twice: ``load_question_set`` (parse + validate + build the frozen set
+ fingerprint) and the bare parser alone (``json.loads`` per line / ``json.loads`` /
libyaml ``CSafeLoader``) as the baseline measured in the same run; the ratio is reval's
overhead over merely reading the file. Best of ``--repeat`` runs. libyaml parses ~30x
slower than json, so YAML is timed on ``--yaml-questions`` (default 10,000) and compared
by rate (questions per second).

    python benchmarks/bench_load_questions.py [--questions 100000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import yaml

from retrieval_eval.questions.formats import write_question_set
from retrieval_eval.questions.loading import load_question_set
from retrieval_eval.questions.model import GoldenQuestion, GoldenQuestionSet
from retrieval_eval.records.outcome import Form

CLASSES = [None, "near-duplicate", "specific-vs-general", "prose-free", "boilerplate", "normal"]
WORDS = [
    "how",
    "do",
    "i",
    "reset",
    "configure",
    "export",
    "delete",
    "billing",
    "invoice",
    "account",
    "password",
    "team",
]


def make_set(n: int, seed: int = 7) -> GoldenQuestionSet:
    rng = random.Random(seed)
    questions = []
    for i in range(n):
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 14))) + "?"
        docs = tuple(f"doc-{d}" for d in rng.sample(range(5 * n), rng.choice([0, 1, 1, 2, 3])))
        form = rng.choice([Form.MATCH, Form.GAP])
        gist = "a short note for the labeller" if i % 4 == 0 else None
        questions.append(GoldenQuestion(f"q{i:06d}", text, form, docs, rng.choice(CLASSES), gist))
    return GoldenQuestionSet("bench", tuple(questions), "synthetic benchmark set")


def best_of(repeat: int, run: Callable[[], object]) -> tuple[float, float]:
    """Best wall-clock and best CPU seconds (CPU time is steadier on a busy machine)."""
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        run()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus)


def bare_jsonl(path: Path) -> object:
    return [json.loads(line) for line in path.read_text("utf-8").split("\n") if line]


def bare_json(path: Path) -> object:
    return json.loads(path.read_text("utf-8"))


def bare_yaml(path: Path) -> object:
    return yaml.load(path.read_text("utf-8"), Loader=yaml.CSafeLoader)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--yaml-questions", type=int, default=10_000)
    args = parser.parse_args()
    full = make_set(args.questions)
    small = GoldenQuestionSet("bench", full.questions[: args.yaml_questions], full.description)
    print(f"best of {args.repeat} runs; wall-clock seconds, CPU seconds in brackets")
    header = f"{'format':<7}{'questions':>10}{'MB':>6}{'load s':>15}{'q/s (CPU)':>11}"
    print(f"{header}{'bare parse s':>17}{'load/bare (CPU)':>17}")
    with tempfile.TemporaryDirectory() as tmp:
        for fmt, bare, qs in [
            ("jsonl", bare_jsonl, full),
            ("json", bare_json, full),
            ("yaml", bare_yaml, small),
        ]:
            path = Path(tmp) / f"bench.{fmt}"
            write_question_set(qs, path)
            loaded = load_question_set(path)
            assert loaded.fingerprint == qs.fingerprint and len(loaded) == len(qs)
            load_wall, load_cpu = best_of(args.repeat, lambda p=path: load_question_set(p))
            bare_wall, bare_cpu = best_of(args.repeat, lambda p=path, b=bare: b(p))
            size = path.stat().st_size / 1e6
            print(
                f"{fmt:<7}{len(qs):>10,}{size:>6.1f}{load_wall:>8.2f} ({load_cpu:4.2f})"
                f"{len(qs) / load_cpu:>11,.0f}{bare_wall:>10.2f} ({bare_cpu:4.2f})"
                f"{load_cpu / bare_cpu:>17.2f}"
            )


if __name__ == "__main__":
    main()
