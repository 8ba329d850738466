"""A run's parameters and their defaults: the cut-offs, the overfetch (results asked per
question = the deepest cut-off times it), calls in flight, the per-call deadline, and the
scoring protocol's version, which keeps runs across a protocol change apart."""

from __future__ import annotations

from dataclasses import dataclass

#: Bumped whenever the scoring protocol changes in a way that moves numbers;
#: part of the benchmark fingerprint, so runs across a change are not compared.
SCORING_PROTOCOL_VERSION = "1"
DEFAULT_TOP_K = 3
DEFAULT_OVERFETCH = 4
DEFAULT_KS = (1, 3)
DEFAULT_TIMEOUT_S = 10.0
#: Calls in flight per retriever.
DEFAULT_CONCURRENCY = 8


@dataclass(frozen=True, slots=True)
class RunParameters:
    ks: tuple[int, ...] = DEFAULT_KS
    overfetch: int = DEFAULT_OVERFETCH
    #: Results requested per question: max(ks) * overfetch.
    limit: int = DEFAULT_TOP_K * DEFAULT_OVERFETCH
    #: Separator actually used to map chunk ids to documents ("" = none).
    doc_id_separator: str = ""
    concurrency: int = DEFAULT_CONCURRENCY
    timeout_s: float = DEFAULT_TIMEOUT_S
    protocol_version: str = SCORING_PROTOCOL_VERSION
