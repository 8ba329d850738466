"""Aggregate question outcomes into metrics: hit rates, MRR@k, recall@k and binary nDCG@k
(``binary_ndcg@k``).

Which questions enter which figure:

- Errors (failed retrievals) enter nothing but the ``errors`` count: rates are over the
  answered questions.
- Hit rates count every answered question, no-answer questions included (a no-answer
  question is a hit when nothing came back, per the protocol).
- MRR@k, recall@k and binary nDCG@k are over answered questions that HAVE expected documents:
  with no relevant document those measures are undefined (as in trec_eval, where a
  query without relevance judgements is skipped). No-answer questions are reported apart
  in ``GroupMetrics.no_answer`` (correctly empty vs returned something).
- A metric whose denominator is zero is absent from ``values`` rather than a made-up 0.

Labels are binary: a document is relevant iff it is one of the expected documents.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from retrieval_eval.records.metrics import GroupMetrics
from retrieval_eval.records.outcome import QuestionOutcome
from retrieval_eval.scoring.protocol import normalize_ks, target_ranks
from retrieval_eval.scoring.ranks import figures, rank_names
from retrieval_eval.scoring.tally import Tally


def rank_metrics(
    ranked: Sequence[str], expected: Iterable[str], ks: Sequence[int]
) -> dict[str, float]:
    """Per-question ``mrr@k``, ``recall@k``, ``binary_ndcg@k`` on binary labels.

    ``ranked`` holds distinct documents; ``expected`` must not be empty.
    """
    cutoffs = sorted(ks)
    targets = tuple(expected)
    if not targets:
        raise ValueError("rank metrics need at least one expected document")
    total = len(set(targets)) if len(targets) > 1 else 1
    values = figures(target_ranks(ranked, targets, cutoffs[-1]), total, cutoffs)
    return dict(zip(rank_names(cutoffs), values, strict=True))


def summarize(outcomes: Iterable[QuestionOutcome], ks: Iterable[int]) -> GroupMetrics:
    """Metrics over one group of outcomes (see the module docstring for denominators)."""
    return Tally(outcomes, normalize_ks(ks)).overall()


def breakdowns(
    outcomes: Iterable[QuestionOutcome], ks: Iterable[int]
) -> tuple[dict[str, GroupMetrics], dict[str, GroupMetrics]]:
    """Metrics by form (``"MATCH"``, ``"GAP"``, ``"UNLABELLED"``) and by hard class.

    Questions without a hard class are grouped under ``"unclassified"``. Only labels that
    occur are present; groups are sorted by label.
    """
    tally = Tally(outcomes, normalize_ks(ks))
    return tally.by_form(), tally.by_class()


def summarize_with_breakdowns(
    outcomes: Iterable[QuestionOutcome], ks: Iterable[int]
) -> tuple[GroupMetrics, dict[str, GroupMetrics], dict[str, GroupMetrics]]:
    """``summarize`` and ``breakdowns`` at once: each outcome is read once, into a
    ``Tally`` that holds only its distinct rows and their counts."""
    tally = Tally(outcomes, normalize_ks(ks))
    return tally.overall(), tally.by_form(), tally.by_class()
