"""The scoring protocol for one question (the methodology; keep it exact).

1. Ask for ``max(ks) * overfetch`` results (defaults 3 * 4 = 12).
2. Map each result id to its document id: with a chunk separator, cut at the LAST
   occurrence of the separator (``"doc#1#7"`` with ``"#"`` -> ``"doc#1"``). An id whose
   document part would be empty is kept whole.
3. Collapse duplicate documents to their first occurrence: the ranking is over distinct
   documents, best first. (Steps 2 and 3 live in ``retrievers.documents``, shared with
   fused retrievers, which collapse each member's results the same way.)
4. Hit at k: one of the k best distinct documents is expected. A question with no
   expected documents is a hit (at every k) only when no document came back.
5. ``underfilled``: the retriever returned a full ``limit`` yet fewer than ``max(ks)``
   distinct documents, so the overfetch multiplier was too small for this question.

A failed retrieval is an error, never a miss: its outcome carries no hits at all. So is an
answer that breaks the contract (an empty, blank or oversized id, more than ``limit`` results):
an error of kind ``contract``, never repaired by skipping or cutting results.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import fields
from types import MappingProxyType

from retrieval_eval.errors import InputError
from retrieval_eval.questions.model import GoldenQuestion
from retrieval_eval.records.failures import FailureKind, RetrievalFailure
from retrieval_eval.records.outcome import Form, QuestionOutcome
from retrieval_eval.retrievers.contract.limits import MAX_LIMIT, response_breach
from retrieval_eval.retrievers.documents import distinct_members
from retrieval_eval.retrievers.protocol import Ranking, RetrievedItem

#: The cutoffs that are always scored, whatever the user asks for (the methodology's).
REQUIRED_KS = (1, 3)


def normalize_ks(ks: Iterable[int]) -> tuple[int, ...]:
    """Sorted distinct cutoffs, always including 1 and 3; rejects non-positive values."""
    values = set(REQUIRED_KS)
    for k in ks:
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise InputError(f"invalid cutoff k={k!r}: every k must be a positive integer")
        values.add(k)
    return tuple(sorted(values))


def request_limit(ks: Iterable[int], overfetch: int) -> int:
    """Results to request per question: the deepest k times the overfetch multiplier."""
    if isinstance(overfetch, bool) or not isinstance(overfetch, int) or overfetch < 1:
        raise InputError(f"invalid overfetch {overfetch!r}: it must be an integer >= 1")
    limit = max(normalize_ks(ks)) * overfetch
    if limit > MAX_LIMIT:
        raise InputError(
            f"deepest k times overfetch is {limit}, above the contract's limit of "
            f"{MAX_LIMIT}; lower --k or --overfetch"
        )
    return limit


def hits_at(ranked: Sequence[str], expected: Iterable[str], ks: Sequence[int]) -> dict[int, bool]:
    """k -> hit within the k best distinct documents (no expected docs: hit iff empty)."""
    targets = expected if isinstance(expected, tuple | frozenset) else tuple(expected)
    if not targets:
        nothing = not ranked
        return {k: nothing for k in ks}
    first = first_hit(ranked, targets)
    return {k: first is not None and first < k for k in ks}


def first_hit(ranked: Sequence[str], targets: Collection[str]) -> int | None:
    """Rank (0-based) of the first expected document among ``ranked``, or None."""
    ranks = target_ranks(ranked, targets, len(ranked))
    return ranks[0] if ranks else None


def target_ranks(ranked: Sequence[str], expected: Iterable[str], depth: int) -> list[int]:
    """Ranks (0-based, ascending) of the distinct expected documents found among the
    ``depth`` best of ``ranked`` (distinct documents).

    Labels are a handful of ids and rankings up to a thousand: each expected id is looked
    up in the ranking by the sequence's own search (C for a tuple), which stops where the
    id is, instead of testing every ranked document against the labels in Python.
    """
    targets = expected if isinstance(expected, tuple | list) else tuple(expected)
    if len(targets) > 1:
        targets = tuple(dict.fromkeys(targets))  # a label listed twice counts once
        if len(targets) > 8:  # long label lists: one pass over the ranking, in C
            flags = map(frozenset(targets).__contains__, ranked)
            return list(itertools.compress(range(min(depth, len(ranked))), flags))
    ranks = []
    for target in targets:
        try:
            ranks.append(ranked.index(target, 0, depth))
        except ValueError:  # not among the depth best
            continue
    ranks.sort()
    return ranks


#: Distinct ids one ``Shared`` keeps at most; past this, new ids are kept as they come.
MAX_SHARED_IDS = 1_000_000


class Shared:
    """Values a run's outcomes share: one string per distinct id and one hits mapping per
    pattern. The ids in a big run's rankings repeat (a corpus has far fewer documents than
    the run has results) and hit patterns are few, so sharing them is most of the memory a
    ranking would otherwise take; equal values, so scoring and reports are unchanged."""

    __slots__ = ("_hits", "_ids")

    def __init__(self) -> None:
        self._ids: dict[str, str] = {}
        self._hits: dict[tuple[bool, ...], Mapping[int, bool]] = {}

    def ids(self, ids: tuple[str, ...]) -> tuple[str, ...]:
        """``ids`` made of the shared strings (new ones join while there is room)."""
        shared = self._ids
        if len(shared) < MAX_SHARED_IDS:
            return tuple([shared.setdefault(i, i) for i in ids])
        return tuple([shared.get(i, i) for i in ids])

    def hits(self, ks: Sequence[int], pattern: tuple[bool, ...]) -> Mapping[int, bool]:
        """The read-only ``{k: hit}`` mapping of ``pattern`` (``ks`` fixed for a run)."""
        hits = self._hits.get(pattern)
        if hits is None:
            hits = self._hits[pattern] = MappingProxyType(dict(zip(ks, pattern, strict=True)))
        return hits


#: Read-only ``{k: hit}`` mappings, one per cutoffs and pattern, which all outcomes share
#: instead of a dict each; found by cutoffs and first hit (clipped to the deepest k).
_HITS: dict[tuple[tuple[int, ...], int], Mapping[int, bool]] = {}
_PATTERNS: dict[tuple[tuple[int, ...], tuple[bool, ...]], Mapping[int, bool]] = {}


def _hits(ks: Sequence[int], first: int) -> Mapping[int, bool]:
    """The hits of a question whose first expected document is at rank ``first``."""
    key = (tuple(ks), first)
    hits = _HITS.get(key)
    if hits is None:
        if len(_HITS) >= 10_000:  # cutoffs are fixed per run: only a long-lived caller
            _HITS.clear()  # trying many gets here
            _PATTERNS.clear()
        pattern = tuple([first < k for k in ks])
        hits = _PATTERNS.get((key[0], pattern))
        if hits is None:
            hits = MappingProxyType(dict(zip(ks, pattern, strict=True)))
            _PATTERNS[key[0], pattern] = hits
        _HITS[key] = hits
    return hits


def score_question(
    q: GoldenQuestion,
    items: Ranking | Sequence[RetrievedItem] | None,
    *,
    ks: Sequence[int],
    limit: int,
    separator: str,
    latency_ms: float | None,
    error: RetrievalFailure | None,
    notes: tuple[str, ...] = (),
    shared: Shared | None = None,
    checked: bool = False,
) -> QuestionOutcome:
    """Score one question's response; ``ks`` must already be normalized. ``items`` is
    read as columns (a ``Ranking``; records are taken apart first). Its ``notes``, if
    any, go on the outcome after ``notes``. With ``shared`` (one per run), the outcome
    holds the run's shared ids. Outcomes share their (read-only) hits mappings.

    An answer that breaks the contract (``contract.limits.response_breach``, the rules the
    client and ``check-retriever`` apply too) is scored as an error of kind ``contract``.
    ``checked``: ``items`` is a ``Ranking`` that already passed that check for this
    ``limit`` where it came from (the gRPC client, the in-process adapter), so it is not
    judged twice.
    """
    ranking = None
    if items is not None:
        ranking = items if isinstance(items, Ranking) else Ranking.of(items)
        notes += ranking.notes
    if error is None and ranking is not None and not (checked and ranking is items):
        breach = response_breach(ranking, limit)
        if breach is not None:
            error = RetrievalFailure(FailureKind.CONTRACT, breach)
    if error is not None or ranking is None:
        failure = error or RetrievalFailure(FailureKind.INTERNAL, "no response recorded")
        return QuestionOutcome(
            question_id=q.id,
            question_text=q.question,
            form=q.form,
            hard_class=q.hard_class,
            expected_document_ids=q.expected_document_ids,
            latency_ms=latency_ms,
            error=failure,
            notes=notes,
        )
    return score_answer(q, ranking, ks, limit, separator, latency_ms, notes, shared, None)[0]


def score_answer(
    q: GoldenQuestion,
    ranking: Ranking,
    ks: Sequence[int],
    limit: int,
    separator: str,
    latency_ms: float | None,
    notes: tuple[str, ...],
    shared: Shared | None,
    hit_maps: Mapping[int, Mapping[int, bool]] | None,
) -> tuple[QuestionOutcome, int, list[int]]:
    """Score an answer that conforms to the contract (steps 2 to 5 of the protocol):
    its outcome, the rank its first expected document is at (clipped to the deepest k;
    -1 for a no-answer question answered with nothing) and the ranks of every expected
    document found. ``ks`` normalized (ascending). ``hit_maps``: the run's ``{k: hit}``
    mapping by that first rank, when the caller keeps them (else they are looked up
    here)."""
    raw = tuple(ranking.document_ids)  # no copy: the columns are tuples already
    if shared is not None:
        raw = shared.ids(raw)
    scores = ranking.scores
    deepest = ks[-1]
    ranked, first, found = rank_answer(raw, separator, q.expected_document_ids, deepest)
    if shared is not None and ranked is not raw:
        ranked = shared.ids(ranked)
    outcome = _answered(
        q.id,
        q.form,
        q.hard_class,
        q.expected_document_ids,
        raw,
        ranked,
        _hits(ks, first) if hit_maps is None else hit_maps[first],
        latency_ms,
        len(raw) >= limit and len(ranked) < deepest,
        scores if scores and scores.count(None) < len(scores) else (),
        notes,
        q.question,
    )
    return outcome, first, found


def rank_answer(
    raw: tuple[str, ...], separator: str, expected: tuple[str, ...], deepest: int
) -> tuple[tuple[str, ...], int, list[int]]:
    """Steps 2 to 4 of the protocol for a conforming answer's ids: the distinct documents
    (``raw`` itself when nothing repeats), the rank of the first expected one (clipped to
    ``deepest``; -1 for a no-answer question answered with nothing) and the ranks of every
    expected document found. The one place these are computed, whether an outcome is built
    (``score_answer``) or only its fields (``scoring.run.RunScorer.answer``)."""
    # The distinct documents as a set or dict keys, so that each label is looked up in
    # constant time; only a label that is there is then searched for its rank (in C, among
    # strings just read to hash them). Without a separator, a set (cheaper to build than
    # a dict) tells whether anything repeats.
    members: Collection[str]
    if not separator and len(members := set(raw)) == len(raw):
        ranked = raw  # no duplicate, no mapping: one tuple held for both
    else:  # no empty id: the contract check ruled them out
        members = distinct_members(raw, separator)
        ranked = tuple(members)
    if len(expected) == 1:  # the common case: one label
        found = [ranked.index(expected[0])] if expected[0] in members else []
        first = min(found[0], deepest) if found else deepest  # hit at k: first < k
    elif expected:
        found = [ranked.index(t) for t in expected if t in members]
        first = min(deepest, *found) if found else deepest
    else:
        found = []
        first = deepest if ranked else -1  # a hit at every k only when nothing came back
    return ranked, first, found


#: Each field's slot setter, by name: ``_answered`` fills a new outcome through them.
_SET = {f.name: vars(QuestionOutcome)[f.name].__set__ for f in fields(QuestionOutcome)}
_FILLED = {"question_id", "form", "hard_class", "expected_document_ids", "raw_ids",
           "ranked_document_ids", "hits", "latency_ms", "error", "underfilled", "raw_scores",
           "notes", "question_text"}  # fmt: skip
if hasattr(QuestionOutcome, "__post_init__") or set(_SET) != _FILLED:  # pragma: no cover
    raise ImportError("QuestionOutcome changed: _answered must do what its __init__ does")


def _answered(
    question_id: str,
    form: Form,
    hard_class: str | None,
    expected: tuple[str, ...],
    raw: tuple[str, ...],
    ranked: tuple[str, ...],
    hits: Mapping[int, bool],
    latency_ms: float | None,
    underfilled: bool,
    raw_scores: tuple[float | None, ...],
    notes: tuple[str, ...],
    question_text: str,
) -> QuestionOutcome:
    """``QuestionOutcome(...)`` of an answered question, the same object field for field,
    its slots filled directly: a frozen dataclass's ``__init__`` sets each field through
    ``object.__setattr__``, which took a fifth of scoring an answer."""
    outcome: QuestionOutcome = object.__new__(QuestionOutcome)
    s = _SET
    s["question_id"](outcome, question_id)
    s["form"](outcome, form)
    s["hard_class"](outcome, hard_class)
    s["expected_document_ids"](outcome, expected)
    s["raw_ids"](outcome, raw)
    s["ranked_document_ids"](outcome, ranked)
    s["hits"](outcome, hits)
    s["latency_ms"](outcome, latency_ms)
    s["error"](outcome, None)
    s["underfilled"](outcome, underfilled)
    s["raw_scores"](outcome, raw_scores)
    s["notes"](outcome, notes)
    s["question_text"](outcome, question_text)
    return outcome
