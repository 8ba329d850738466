"""Question-by-question comparison of two runs: flips and the paired test per k.

Only questions answered in both runs (same question id, no error on either side) are
paired; a failed retrieval is neither a hit nor a miss.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import overload

from retrieval_eval.records.outcome import QuestionOutcome
from retrieval_eval.records.run import RunResult
from retrieval_eval.regression.verdict_records import Flip, FlipDirection, PairedTest
from retrieval_eval.stats.mcnemar import SIGNIFICANCE_LEVEL, mcnemar_exact, paired_counts

#: Cutoffs whose flips are listed (the methodology's top-1 and top-3).
FLIP_KS = (1, 3)


def paired_outcomes(current: RunResult, baseline: RunResult) -> PairedOutcomes:
    """(current, baseline) outcome pairs answered in both runs, in current's order."""
    before = {q.question_id: i for i, q in enumerate(baseline.questions) if q.answered}
    now_rows, before_rows = array("I"), array("I")
    for i, q in enumerate(current.questions):
        if q.answered:
            j = before.get(q.question_id)
            if j is not None:
                now_rows.append(i)
                before_rows.append(j)
    return PairedOutcomes(current.questions, baseline.questions, now_rows, before_rows)


class PairedOutcomes(Sequence[tuple[QuestionOutcome, QuestionOutcome]]):
    """The pairs as positions in the two runs, each pair read when it is used: runs held
    by column (``outcomes.CompactOutcomes``) are never all built as objects at once."""

    __slots__ = ("_baseline", "_before", "_current", "_now")

    def __init__(
        self,
        current: Sequence[QuestionOutcome],
        baseline: Sequence[QuestionOutcome],
        now: array[int],
        before: array[int],
    ) -> None:
        self._current, self._baseline, self._now, self._before = current, baseline, now, before

    def __len__(self) -> int:
        return len(self._now)

    @overload
    def __getitem__(self, index: int) -> tuple[QuestionOutcome, QuestionOutcome]: ...

    @overload
    def __getitem__(self, index: slice) -> PairedOutcomes: ...

    def __getitem__(
        self, index: int | slice
    ) -> tuple[QuestionOutcome, QuestionOutcome] | PairedOutcomes:
        if isinstance(index, slice):
            now, before = self._now[index], self._before[index]
            return PairedOutcomes(self._current, self._baseline, now, before)
        return self._current[self._now[index]], self._baseline[self._before[index]]

    def __iter__(self) -> Iterator[tuple[QuestionOutcome, QuestionOutcome]]:
        current, baseline = self._current, self._baseline
        now, before = self._now, self._before
        return zip(map(current.__getitem__, now), map(baseline.__getitem__, before), strict=True)


def unpaired_count(current: RunResult, baseline: RunResult) -> int:
    """Questions answered in one run but not in the other (left out of flips and tests)."""
    now = {q.question_id for q in current.questions if q.answered}
    before = {q.question_id for q in baseline.questions if q.answered}
    return len(now ^ before)


def common_ks(current: RunResult, baseline: RunResult) -> tuple[int, ...]:
    return tuple(k for k in current.parameters.ks if k in baseline.parameters.ks)


def flips(
    pairs: Iterable[tuple[QuestionOutcome, QuestionOutcome]], ks: Iterable[int]
) -> list[Flip]:
    """Questions whose hit at k changed, for each k in ``ks`` (k-major order)."""
    found: list[Flip] = []
    pairs = pairs if isinstance(pairs, Sequence) else list(pairs)
    for k in ks:
        for now, before in pairs:
            hit_now, hit_before = now.hits.get(k), before.hits.get(k)
            if hit_now is None or hit_before is None or hit_now == hit_before:
                continue
            found.append(
                Flip(
                    question_id=now.question_id,
                    k=k,
                    direction=FlipDirection.MISS_TO_HIT if hit_now else FlipDirection.HIT_TO_MISS,
                    expected_document_ids=now.expected_document_ids,
                    current_ranking=now.ranked_document_ids,
                    baseline_ranking=before.ranked_document_ids,
                )
            )
    return found


def paired_tests(
    pairs: Iterable[tuple[QuestionOutcome, QuestionOutcome]], ks: Iterable[int]
) -> list[PairedTest]:
    """The exact McNemar test at each k over the questions answered in both runs."""
    pairs = pairs if isinstance(pairs, Sequence) else list(pairs)
    tests = []
    for k in ks:
        hits = [(before.hits[k], now.hits[k]) for now, before in pairs
                if k in now.hits and k in before.hits]  # fmt: skip
        wins, losses, ties = paired_counts(hits)
        p = mcnemar_exact(wins, losses)
        tests.append(PairedTest(k, wins, losses, ties, p, p < SIGNIFICANCE_LEVEL))
    return tests
