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

import itertools
import math
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

from retrieval_eval.metric_keys import MetricFamily, metric_key
from retrieval_eval.records import UNCLASSIFIED as UNCLASSIFIED
from retrieval_eval.records import GroupMetrics, NoAnswerStats, QuestionOutcome
from retrieval_eval.retrievers.contract.limits import MAX_LIMIT
from retrieval_eval.scoring.protocol import hits_at, normalize_ks, target_ranks
from retrieval_eval.stats.intervals import wilson


def hit_rate_key(k: int) -> str:
    """Canonical name of the hit rate at k: the methodology's names for 1 and 3."""
    return metric_key(MetricFamily.HIT_RATE, k)


#: The rank metrics, in the order ``_rank_values`` computes them at each k.
_RANK_FAMILIES = (MetricFamily.MRR, MetricFamily.RECALL, MetricFamily.NDCG)


def _rank_names(ks: Iterable[int]) -> list[str]:
    return [metric_key(family, k) for k in ks for family in _RANK_FAMILIES]


#: 1 / log2(rank + 2) for every rank a response can hold (the contract caps its size).
_DISCOUNTS = tuple(1.0 / math.log2(rank + 2) for rank in range(MAX_LIMIT))
#: Ideal DCG with n relevant documents in the first n ranks: prefix sums of discounts.
_IDEAL = tuple(itertools.accumulate(_DISCOUNTS, initial=0.0))


def rank_metrics(
    ranked: Sequence[str], expected: Iterable[str], ks: Sequence[int]
) -> dict[str, float]:
    """Per-question ``mrr@k``, ``recall@k``, ``ndcg@k`` on binary labels.

    ``ranked`` holds distinct documents; ``expected`` must not be empty.
    """
    cutoffs = sorted(ks)
    values = _rank_values(ranked, tuple(expected), cutoffs)
    return dict(zip(_rank_names(cutoffs), values, strict=True))


def _rank_values(
    ranked: Sequence[str], expected: tuple[str, ...], ks: Sequence[int]
) -> list[float]:
    """[mrr@k, recall@k, ndcg@k for each k in ascending ``ks``], computed in one pass."""
    if not expected:
        raise ValueError("rank metrics need at least one expected document")
    total = len(set(expected)) if len(expected) > 1 else 1
    positions = target_ranks(ranked, expected, ks[-1])
    values: list[float] = []
    found = 0
    dcg = 0.0
    for k in ks:
        while found < len(positions) and positions[found] < k:
            dcg += _DISCOUNTS[positions[found]]
            found += 1
        values.append(1.0 / (positions[0] + 1) if found else 0.0)
        values.append(found / total)
        values.append(dcg / _IDEAL[min(k, total, len(_DISCOUNTS))])
    return values


class _Row(NamedTuple):
    """One outcome reduced to numbers, computed once and summed into every group."""

    error: bool
    hits: tuple[bool, ...] = ()
    #: ``_rank_values``; None for a question without expected documents.
    ranks: tuple[float, ...] | None = None
    empty: bool = False


def _row(outcome: QuestionOutcome, ks: tuple[int, ...]) -> _Row:
    if outcome.error is not None:
        return _Row(error=True)
    stored = outcome.hits
    try:
        hits = tuple([stored[k] for k in ks])
    except KeyError:  # scored at other cutoffs: compute them
        computed = hits_at(outcome.ranked_document_ids, outcome.expected_document_ids, ks)
        hits = tuple([computed[k] for k in ks])
    if not outcome.expected_document_ids:
        return _Row(False, hits, None, not outcome.ranked_document_ids)
    if not hits[-1]:  # nothing expected among the deepest k: every rank metric is 0
        return _Row(False, hits, (0.0,) * (3 * len(ks)))
    expected = outcome.expected_document_ids
    return _Row(False, hits, tuple(_rank_values(outcome.ranked_document_ids, expected, ks)))


def _aggregate(rows: Sequence[_Row], ks: tuple[int, ...]) -> GroupMetrics:
    answered = [r for r in rows if not r.error]
    ranked = [r.ranks for r in answered if r.ranks is not None]
    values: dict[str, float] = {}
    intervals = {}
    if answered:
        # One column of hits per k, transposed in C; True counts as 1.
        columns = zip(*[r.hits for r in answered], strict=True)
        for k, column in zip(ks, columns, strict=True):
            estimate = wilson(sum(column), len(answered))
            values[hit_rate_key(k)] = estimate.rate
            intervals[hit_rate_key(k)] = estimate
    if ranked:
        sums = [math.fsum(column) for column in zip(*ranked, strict=True)]
        names = _rank_names(ks)
        values.update((name, total / len(ranked)) for name, total in zip(names, sums, strict=True))
    no_answer_count = len(answered) - len(ranked)
    empty = sum(r.empty for r in answered)
    return GroupMetrics(
        count=len(answered),
        errors=len(rows) - len(answered),
        values=values,
        intervals=intervals,
        no_answer=(
            NoAnswerStats(no_answer_count, empty, no_answer_count - empty)
            if no_answer_count
            else None
        ),
    )


def summarize(outcomes: Iterable[QuestionOutcome], ks: Iterable[int]) -> GroupMetrics:
    """Metrics over one group of outcomes (see the module docstring for denominators)."""
    cutoffs = normalize_ks(ks)
    return _aggregate([_row(o, cutoffs) for o in outcomes], cutoffs)


def _grouped(
    outcomes: Sequence[QuestionOutcome],
    rows: Sequence[_Row],
    ks: tuple[int, ...],
    label: Callable[[QuestionOutcome], str],
) -> dict[str, GroupMetrics]:
    groups: dict[str, list[_Row]] = {}
    for outcome, row in zip(outcomes, rows, strict=True):
        groups.setdefault(label(outcome), []).append(row)
    return {name: _aggregate(groups[name], ks) for name in sorted(groups)}


def _form_label(outcome: QuestionOutcome) -> str:
    return outcome.form.value


def _class_label(outcome: QuestionOutcome) -> str:
    return outcome.hard_class or UNCLASSIFIED


def breakdowns(
    outcomes: Iterable[QuestionOutcome], ks: Iterable[int]
) -> tuple[dict[str, GroupMetrics], dict[str, GroupMetrics]]:
    """Metrics by form (``"MATCH"``, ``"GAP"``, ``"UNLABELLED"``) and by hard class.

    Questions without a hard class are grouped under ``"unclassified"``. Only labels that
    occur are present; groups are sorted by label.
    """
    _, by_form, by_class = summarize_with_breakdowns(outcomes, ks)
    return by_form, by_class


def summarize_with_breakdowns(
    outcomes: Iterable[QuestionOutcome], ks: Iterable[int]
) -> tuple[GroupMetrics, dict[str, GroupMetrics], dict[str, GroupMetrics]]:
    """``summarize`` and ``breakdowns`` at once, reducing each outcome only once."""
    cutoffs = normalize_ks(ks)
    outcomes = outcomes if isinstance(outcomes, Sequence) else list(outcomes)
    # Rows repeat (a handful of hit and rank patterns): one of each is kept, so that a
    # million-question run does not hold a million rows at once.
    shared: dict[_Row, _Row] = {}
    rows = [shared.setdefault(row, row) for row in (_row(o, cutoffs) for o in outcomes)]
    overall = _aggregate(rows, cutoffs)
    return (
        overall,
        _grouped(outcomes, rows, cutoffs, _form_label),
        _grouped(outcomes, rows, cutoffs, _class_label),
    )
