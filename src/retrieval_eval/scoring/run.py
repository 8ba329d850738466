"""A run's answers scored one at a time, as they arrive: each outcome with its tally row.

The evaluator's per-question path: each answer is scored by the protocol
(``protocol.score_question``) and comes with its row key, which the run counts in its
``Tally`` at once, so that the run's metrics never need its outcomes read back. The key
is known from what scoring found (the first expected document's rank, the ranks of all
found), so no outcome is searched twice; equal, by construction and by test, to
``tally.row_key`` of the outcome.

An answer from a source that already judged it against the contract for the same limit
(``checked``: the gRPC client, the in-process adapter) is not judged again; any other
source's answer is (``protocol.score_question``). Such a source's usual answer, ids alone,
is scored to its fields (``RunScorer.answer``) and packed from them, with no outcome built.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

from retrieval_eval.questions.model import GoldenQuestion
from retrieval_eval.records.failures import RetrievalFailure
from retrieval_eval.records.outcome import QuestionOutcome
from retrieval_eval.retrievers.contract.limits import response_breach
from retrieval_eval.retrievers.protocol import Ranking, RetrievedItem
from retrieval_eval.scoring.protocol import rank_answer, score_answer, score_question
from retrieval_eval.scoring.tally import ERROR_KEY, Key, row_key


class RunScorer:
    """Scores one run's answers (fixed cutoffs, limit and separator), each with its row."""

    __slots__ = ("_deepest", "_hit_maps", "_keys", "checked", "ks", "limit", "separator")

    def __init__(
        self, ks: tuple[int, ...], limit: int, separator: str, *, checked: bool = False
    ) -> None:
        self.ks = ks  # normalized
        self.limit = limit
        self.separator = separator
        #: Whether answers arrive already judged against the contract for ``limit``.
        self.checked = checked
        deepest = self._deepest = max(ks)
        # One read-only hits mapping per first-hit rank (-1: an empty answer to a
        # no-answer question), shared by every outcome, and the row keys they give.
        patterns = {first: tuple([first < k for k in ks]) for first in range(-1, deepest + 1)}
        self._hit_maps: Mapping[int, Mapping[int, bool]] = {
            first: MappingProxyType(dict(zip(ks, pattern, strict=True)))
            for first, pattern in patterns.items()
        }
        keys: dict[object, Key] = {first: (p, (first,), 1) for first, p in patterns.items()}
        keys["miss"] = (patterns[deepest], (), 1)
        keys["empty"] = (patterns[-1], None, 1)  # no-answer question, nothing came back
        keys["answered"] = (patterns[deepest], None, 0)  # no-answer question, answered
        self._keys = keys

    def score(
        self,
        q: GoldenQuestion,
        items: Ranking | Sequence[RetrievedItem] | None,
        error: RetrievalFailure | None,
        latency_ms: float | None,
    ) -> tuple[QuestionOutcome, Key]:
        """``protocol.score_question`` for this run, and the outcome's ``Tally`` key. A
        conforming answer is scored on the short path (``score_answer``, its key from what
        scoring found); anything else (an error, a breach, records, notes) goes the whole
        way."""
        if (
            error is None
            and isinstance(items, Ranking)
            and not items.notes
            and (self.checked or response_breach(items, self.limit) is None)
        ):
            outcome, first, found = score_answer(
                q, items, self.ks, self.limit, self.separator, latency_ms, (), None,
                self._hit_maps,
            )  # fmt: skip
            return outcome, self._key(q.expected_document_ids, first, found)
        outcome = score_question(
            q,
            items,
            ks=self.ks,
            limit=self.limit,
            separator=self.separator,
            latency_ms=latency_ms,
            error=error,
            checked=self.checked,
        )
        return outcome, ERROR_KEY if outcome.error is not None else row_key(outcome, self.ks)

    def answer(
        self, q: GoldenQuestion, raw: tuple[str, ...]
    ) -> tuple[tuple[str, ...], Mapping[int, bool], bool, Key]:
        """``score_answer`` for ids alone from a source that judged them (``checked``: no
        scores, no notes), as fields instead of an outcome built only to be packed: the
        distinct documents, the hits, whether the answer was underfilled, and the row key.
        Equal, by test, to what ``score_question`` makes of the same answer."""
        deepest = self._deepest
        expected = q.expected_document_ids
        ranked, first, found = rank_answer(raw, self.separator, expected, deepest)
        underfilled = len(raw) >= self.limit and len(ranked) < deepest
        return ranked, self._hit_maps[first], underfilled, self._key(expected, first, found)

    def _key(self, expected: tuple[str, ...], first: int, found: list[int]) -> Key:
        """``tally.row_key`` of the outcome just scored, from what scoring found."""
        keys = self._keys
        deepest = self._deepest
        if not expected:
            return keys["answered" if first >= 0 else "empty"]
        if first >= deepest:  # nothing expected among the deepest k's best
            return keys["miss"]
        if len(expected) == 1:
            return keys[first]
        positions = tuple(sorted({rank for rank in found if rank < deepest}))
        return (keys[first][0], positions, len(set(expected)))
