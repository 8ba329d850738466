"""Aggregate question outcomes into metrics: hit rates, MRR@k, recall@k and nDCG@k.

Which questions enter which figure:

- Errors (failed retrievals) enter nothing but the ``errors`` count: rates are over the
  answered questions.
- Hit rates count every answered question, no-answer questions included (a no-answer
  question is a hit when nothing came back, per the protocol).
- MRR@k, recall@k and nDCG@k are over answered questions that HAVE expected documents:
  with no relevant document those measures are undefined (as in trec_eval, where a
  query without relevance judgements is skipped). No-answer questions are reported apart
  in ``GroupMetrics.no_answer`` (correctly empty vs returned something).
- A metric whose denominator is zero is absent from ``values`` rather than a made-up 0.

Labels are binary: a document is relevant iff it is one of the expected documents.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence

from retrieval_eval.evaluation.results import GroupMetrics, NoAnswerStats, QuestionOutcome
from retrieval_eval.scoring.intervals import wilson
from retrieval_eval.scoring.protocol import hits_at, normalize_ks

#: Breakdown label for questions without a hard class.
UNCLASSIFIED = "unclassified"


def hit_rate_key(k: int) -> str:
    """Canonical name of the hit rate at k: the methodology's names for 1 and 3."""
    if k in (1, 3):
        return f"top{k}_hit_rate"
    return f"hit_rate@{k}"


def _discount(rank: int) -> float:
    return 1.0 / math.log2(rank + 2)


def rank_metrics(
    ranked: Sequence[str], expected: Iterable[str], ks: Sequence[int]
) -> dict[str, float]:
    """Per-question ``mrr@k``, ``recall@k``, ``ndcg@k`` on binary labels.

    ``ranked`` holds distinct documents; ``expected`` must not be empty.
    """
    targets = frozenset(expected)
    if not targets:
        raise ValueError("rank metrics need at least one expected document")
    deepest = max(ks)
    positions = [i for i, doc in enumerate(ranked[:deepest]) if doc in targets]
    values: dict[str, float] = {}
    for k in ks:
        within = [p for p in positions if p < k]
        ideal = sum(_discount(i) for i in range(min(k, len(targets))))
        values[f"mrr@{k}"] = 1.0 / (within[0] + 1) if within else 0.0
        values[f"recall@{k}"] = len(within) / len(targets)
        values[f"ndcg@{k}"] = sum(_discount(p) for p in within) / ideal
    return values


def _hits(outcome: QuestionOutcome, ks: Sequence[int]) -> dict[int, bool]:
    if all(k in outcome.hits for k in ks):
        return {k: outcome.hits[k] for k in ks}
    return hits_at(outcome.ranked_document_ids, outcome.expected_document_ids, ks)


def summarize(outcomes: Iterable[QuestionOutcome], ks: Iterable[int]) -> GroupMetrics:
    """Metrics over one group of outcomes (see the module docstring for denominators)."""
    cutoffs = normalize_ks(ks)
    answered: list[QuestionOutcome] = []
    errors = 0
    for outcome in outcomes:
        if outcome.error is None:
            answered.append(outcome)
        else:
            errors += 1
    hit_counts = dict.fromkeys(cutoffs, 0)
    rank_sums: dict[str, float] = {}
    ranked_count = empty_ok = 0
    for outcome in answered:
        for k, hit in _hits(outcome, cutoffs).items():
            hit_counts[k] += hit
        if not outcome.expected_document_ids:
            empty_ok += not outcome.ranked_document_ids
            continue
        ranked_count += 1
        per_question = rank_metrics(
            outcome.ranked_document_ids, outcome.expected_document_ids, cutoffs
        )
        for name, value in per_question.items():
            rank_sums[name] = rank_sums.get(name, 0.0) + value
    values: dict[str, float] = {}
    intervals = {}
    if answered:
        for k in cutoffs:
            estimate = wilson(hit_counts[k], len(answered))
            values[hit_rate_key(k)] = estimate.rate
            intervals[hit_rate_key(k)] = estimate
    for name, total in rank_sums.items():
        values[name] = total / ranked_count
    no_answer_count = len(answered) - ranked_count
    no_answer = (
        NoAnswerStats(no_answer_count, empty_ok, no_answer_count - empty_ok)
        if no_answer_count
        else None
    )
    return GroupMetrics(
        count=len(answered),
        errors=errors,
        values=values,
        intervals=intervals,
        no_answer=no_answer,
    )


def _group_by(
    outcomes: Iterable[QuestionOutcome],
    ks: Iterable[int],
    label: Callable[[QuestionOutcome], str],
) -> dict[str, GroupMetrics]:
    groups: dict[str, list[QuestionOutcome]] = {}
    for outcome in outcomes:
        groups.setdefault(label(outcome), []).append(outcome)
    cutoffs = normalize_ks(ks)
    return {name: summarize(groups[name], cutoffs) for name in sorted(groups)}


def breakdowns(
    outcomes: Iterable[QuestionOutcome], ks: Iterable[int]
) -> tuple[dict[str, GroupMetrics], dict[str, GroupMetrics]]:
    """Metrics by form (``"MATCH"``, ``"GAP"``, ``"UNLABELLED"``) and by hard class.

    Questions without a hard class are grouped under ``"unclassified"``. Only labels that
    occur are present; groups are sorted by label.
    """
    items = list(outcomes)
    by_form = _group_by(items, ks, lambda o: o.form.value)
    by_class = _group_by(items, ks, lambda o: o.hard_class or UNCLASSIFIED)
    return by_form, by_class
