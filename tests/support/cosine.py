"""An independent dense reference: the example corpus embedded by wordllama, ranked by a
plain numpy cosine (dot product of unit vectors), and hit rates counted by hand. The
vector-store kinds' figures are checked against it."""

from __future__ import annotations

import importlib.util
import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from retrieval_eval.example_data import corpus_path, questions_path
from retrieval_eval.questions.loading import load_question_set
from support.env import require

DIMENSIONS = 64


@dataclass(frozen=True)
class Reference:
    ids: list[str]
    texts: list[str]
    vectors: Any  # float32 rows, unit length
    embedder: Any

    def ranking(self, question: str, limit: int) -> tuple[list[str], list[float]]:
        [query] = self.embedder.embed([question])
        scores = self.vectors @ query
        order = np.argsort(-scores, kind="stable")[:limit]
        return [self.ids[i] for i in order], [float(scores[i]) for i in order]

    def hit_rates(self, limit: int) -> dict[str, float]:
        """top1/top3 hit rates over the example set (a question that expects no document
        is a hit only when nothing is returned)."""
        scored = load_question_set(questions_path()).questions
        hits = {1: 0, 3: 0}
        for q in scored:
            ranked, _ = self.ranking(q.question, limit)
            for k in hits:
                expected = set(q.expected_document_ids)
                hits[k] += bool(set(ranked[:k]) & expected) if expected else not ranked
        return {f"top{k}_hit_rate": n / len(scored) for k, n in hits.items()}


def reference() -> Reference:
    require(
        importlib.util.find_spec("reval_dense") is not None, "the dense plugin is not installed"
    )
    from retrieval_eval.retrievers.embedding import load_embedder

    rows = [json.loads(line) for line in corpus_path().read_text().splitlines() if line]
    embedder = load_embedder("wordllama", {"dimensions": DIMENSIONS})
    texts = [f"{r['title']} {r['text']}" for r in rows]
    return Reference([r["_id"] for r in rows], texts, embedder.embed(texts), embedder)
