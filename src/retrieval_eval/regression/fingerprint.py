"""What makes two runs' numbers comparable, kept apart from what was measured.

The *benchmark* is what a number is a measurement *of*: the labels (set fingerprint), the
scoring protocol version, the parameters that move numbers (cutoffs, overfetch and the
resulting request limit) and the corpus revision the retriever declares. Only runs with
the same benchmark are compared numerically.

The *variant* is what is being measured: retriever identifier and version, model
revision, chunking, pipeline, and the chunk-id separator its result ids use. Changing the
variant is the point of a comparison: chunked against unchunked retrieval of one corpus
is scored over the same documents, so the separator belongs here, not to the benchmark.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from retrieval_eval.records.run import RunResult

#: Benchmark parts in the order they are reported.
BENCHMARK_PARTS = ("labels", "protocol", "parameters", "corpus")
#: Parts whose difference makes even an explicit comparison of two runs meaningless
#: (other differences are reported and compared anyway).
HARD_PARTS = ("labels", "protocol")


def benchmark_parts(run: RunResult) -> dict[str, str]:
    """Each part of the benchmark as readable text (empty corpus: none declared)."""
    p = run.parameters
    ks = ",".join(str(k) for k in p.ks)
    return {
        "labels": run.set_fingerprint,
        "protocol": p.protocol_version,
        "parameters": f"ks={ks} overfetch={p.overfetch} limit={p.limit}",
        "corpus": run.retriever.corpus_revision,
    }


def variant_parts(run: RunResult) -> dict[str, str]:
    d = run.retriever
    return {
        "identifier": d.identifier,
        "version": d.version,
        "model": d.model_revision,
        "chunking": d.chunking,
        "pipeline": d.pipeline,
        "separator": run.parameters.doc_id_separator,
    }


def _digest(parts: dict[str, str]) -> str:
    canonical = json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def benchmark_fingerprint(run: RunResult) -> str:
    return _digest(benchmark_parts(run))


def variant_fingerprint(run: RunResult) -> str:
    return _digest(variant_parts(run))


@dataclass(frozen=True, slots=True)
class BenchmarkDifference:
    """One benchmark part whose value differs between two runs; ``str()`` reads e.g.
    ``corpus: 'c7' (current) vs 'c6' (baseline)``."""

    part: str  # one of BENCHMARK_PARTS
    current: str
    baseline: str

    def __str__(self) -> str:
        return f"{self.part}: {_show(self.current)} (current) vs {_show(self.baseline)} (baseline)"


def benchmark_differences(
    current: RunResult, baseline: RunResult
) -> tuple[BenchmarkDifference, ...]:
    """Each benchmark part that differs, in report order; empty when comparable."""
    now, before = benchmark_parts(current), benchmark_parts(baseline)
    return tuple(
        BenchmarkDifference(name, now[name], before[name])
        for name in BENCHMARK_PARTS
        if now[name] != before[name]
    )


def _show(value: str) -> str:
    if not value:
        return "(none declared)"
    if value.startswith("sha256:"):
        return value[:19] + "…"
    return repr(value) if " " not in value else value
