"""Pooling from stored runs: the documents their rankings brought up that nobody judged.

A retriever that finds documents the labels never saw is scored as if each were wrong;
judging exactly those documents is the cheapest way to a fair verdict. The candidates of
a question are the distinct documents in the top ``depth`` of each run's stored ranking
that carry no judgment in the set (a document judged not relevant, grade 0, is judged;
so are its labels and every candidate already decided). Questions whose hit flipped
between the runs (two or more runs) come first: they decide the comparison.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from retrieval_eval.errors import InputError
from retrieval_eval.labelling.document import update_document
from retrieval_eval.labelling.draft import DraftSummary, merge_pools
from retrieval_eval.labelling.pool import Pool
from retrieval_eval.questions.corpus import read_corpus
from retrieval_eval.questions.judgments import JUDGMENTS_KEY
from retrieval_eval.questions.labelling import LABELLING_KEY
from retrieval_eval.records.run import RunResult


@dataclass(frozen=True, slots=True)
class RunPools:
    #: Question id -> its unjudged candidates ({"run:ID": rank}); flipped questions first,
    #: then set order; questions without an unjudged candidate are left out.
    pools: dict[str, Pool]
    #: Questions whose hit differs between the runs, in set order.
    flipped: tuple[str, ...]

    @property
    def candidates(self) -> int:
        return sum(len(p) for p in self.pools.values())


def run_source(run: RunResult) -> str:
    """How a stored run is named as the finder of a candidate (``found_by``)."""
    return f"run:{run.run_id}"


def check_runs(runs: Sequence[RunResult], set_name: str) -> None:
    """Refuse a run of another set (its rankings answer other questions)."""
    for run in runs:
        if run.set_name != set_name:
            raise InputError(
                f"run {run.run_id} is a run of set {run.set_name!r}, not of {set_name!r}"
            )


def judged_documents(question: Mapping[str, Any]) -> set[str]:
    """Every document a question's labels decide: graded (0 included), expected, or a
    candidate marked relevant or not."""
    judged = {str(d) for d in question.get(JUDGMENTS_KEY) or {}}
    judged.update(str(d) for d in question.get("expected_document_ids") or [])
    labelling = question.get(LABELLING_KEY) or {}
    for candidate in labelling.get("candidates") or []:
        if candidate.get("relevant") is not None:
            judged.add(str(candidate["document_id"]))
    return judged


def pool_from_runs(document: Any, runs: Sequence[RunResult], depth: int) -> RunPools:
    """The unjudged top-``depth`` documents of ``runs`` for each question of ``document``
    (a loaded set file). Raises ``InputError`` for a bad depth, no run, or a run of
    another set."""
    if isinstance(depth, bool) or depth < 1:
        raise InputError(f"invalid --depth {depth}: it must be a positive integer")
    if not runs:
        raise InputError("no stored run to pool: give at least one --pool-from RUN")
    check_runs(runs, str(document.get("name") or ""))
    questions = {str(q["id"]): q for q in document["questions"]}
    rankings: dict[str, list[tuple[str, tuple[str, ...], Mapping[int, bool] | None]]] = {}
    for run in runs:
        for outcome in run.questions:
            hits = outcome.hits if outcome.error is None else None
            rankings.setdefault(outcome.question_id, []).append(
                (run_source(run), outcome.ranked_document_ids[:depth], hits)
            )
    flipped = tuple(q for q in questions if _flipped(rankings.get(q, []), len(runs)))
    pools: dict[str, Pool] = {}
    for qid in sorted(questions, key=lambda q: q not in flipped):
        judged = judged_documents(questions[qid])
        found = [
            (rank, order, doc, source)
            for order, (source, ranking, _) in enumerate(rankings.get(qid, []))
            for rank, doc in enumerate(ranking, 1)
            if doc not in judged
        ]
        pool: Pool = {}
        for rank, _order, doc, source in sorted(found):
            pool.setdefault(doc, {})[source] = rank
        if pool:
            pools[qid] = pool
    return RunPools(pools, flipped)


def _flipped(
    answers: Sequence[tuple[str, tuple[str, ...], Mapping[int, bool] | None]], runs: int
) -> bool:
    """A hit at some cut-off every run measured differs between runs (errors never count)."""
    scored = [hits for _, _, hits in answers if hits is not None]
    if runs < 2 or len(scored) < 2:
        return False
    shared = set.intersection(*(set(h) for h in scored))
    return any(len({h[k] for h in scored}) > 1 for k in shared)


def extend_from_runs(
    path: Path, corpus: Path, runs: Sequence[RunResult], depth: int
) -> tuple[RunPools, DraftSummary]:
    """Add ``runs``' unjudged top-``depth`` documents to the set at ``path`` as candidates
    (under the file lock, comments and order kept, every decision kept); questions that
    gain one need review again."""
    documents = {d.id: d for d in read_corpus(corpus)}
    sources = [run_source(run) for run in runs]
    found: list[tuple[RunPools, int]] = []

    def change(current: Any) -> tuple[int, int, int]:
        pools = pool_from_runs(current, runs, depth)
        found.append((pools, len(current["questions"])))
        return merge_pools(current, pools.pools, documents, sources, depth, corpus)

    (added, to_review, total), _ = update_document(path, change)
    pools, questions = found[-1]
    return pools, DraftSummary(path, questions, total, to_review, added)
