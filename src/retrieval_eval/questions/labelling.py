"""The labelling extension of the set format: pooled drafts and their judgements.

A drafted set is an ordinary set file whose questions carry a ``labelling`` mapping and
whose header carries a ``pool`` mapping (how the candidates were found)::

    pool:
      depth: 10                            # each retriever's top DISTINCT documents pooled
      retrievers: [bm25:/idx/pages, bm25:/idx/chunks]
      corpus: corpus.jsonl                 # optional, where titles and snippets came from
    questions:
      - id: q1
        question: How do I restore a single file?
        form: UNLABELLED
        expected_document_ids: []          # filled from the judgement, never guessed
        labelling:
          state: unjudged                  # unjudged | needs-review | judged
          nothing_answers: false           # true: judged, and nothing in the corpus answers
          suggestion: {form: MATCH, overlap: 0.74}   # from the vocabulary-overlap measure
          judged_by: ana                   # optional until judged
          judged_at: '2026-11-30T16:00:00+00:00'
          candidates:
            - document_id: restore
              title: Restoring files
              snippet: ... open the snapshot and pick the file ...
              found_by: {bm25:/idx/pages: 1, bm25:/idx/chunks: 2}   # retriever -> rank
              relevant: null               # null (not judged yet), true or false
          history:                         # every judgement, oldest first
            - {by: ana, at: '...', relevant: [restore], not_relevant: [overview],
               nothing_answers: false, form: MATCH, hard_class: normal}

Rules, so that a draft can never be read as "nothing answers it": a question whose state
is not ``judged`` is never evaluated (loading refuses the set, naming those ids); a judged
question's ``expected_document_ids`` are exactly its relevant candidates plus any ids
added by hand, none of its rejected ones, and an empty list needs ``nothing_answers: true``.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Any

from retrieval_eval.text import is_blank

LABELLING_KEY = "labelling"
POOL_KEY = "pool"
#: How a generated draft was made (header) and what a generated question came from.
GENERATED_KEY = "generated"


class JudgementState(StrEnum):
    """Where a drafted question stands; only ``judged`` questions may be scored."""

    UNJUDGED = "unjudged"
    NEEDS_REVIEW = "needs-review"
    JUDGED = "judged"


LABELLING_FIELDS = (
    "state",
    "nothing_answers",
    "suggestion",
    "judged_by",
    "judged_at",
    "candidates",
    "history",
    GENERATED_KEY,
    # A model's decisions taken as labels: on what agreement (``sets agreement --accept``).
    "accepted",
)
#: ``source`` says who made the decision (``human:<name>``, ``llm:<model>@<prompt digest>``),
#: ``document_digest`` which text of the document it was made on, ``reason`` why.
CANDIDATE_FIELDS = (
    "document_id", "title", "snippet", "found_by", "relevant", "source", "document_digest",
    "reason",
)  # fmt: skip
POOL_FIELDS = ("depth", "retrievers", "corpus")
#: How a candidate's ``source`` (and a history entry's ``by``, for a model) begins.
HUMAN_PREFIX, MODEL_PREFIX = "human:", "llm:"
_STATES = ", ".join(s.value for s in JudgementState)


def _is_text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def check_pool(pool: Any) -> list[str]:
    """Problems with the header's ``pool`` mapping (empty when it is fine)."""
    if not isinstance(pool, dict):
        return ["'pool' must be a mapping with depth and retrievers"]
    problems = [f"unknown pool key {k!r}" for k in pool if k not in POOL_FIELDS]
    depth = pool.get("depth")
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
        problems.append(f"pool depth must be a positive integer, got {depth!r}")
    retrievers = pool.get("retrievers")
    if not isinstance(retrievers, list) or not all(_is_text(r) for r in retrievers):
        problems.append("pool retrievers must be a list of retriever specs")
    return problems


def check_labelling(labelling: Any, expected: Iterable[str] | None) -> tuple[str | None, list[str]]:
    """The question's state and the problems of its ``labelling`` mapping.

    ``expected`` is the question's ``expected_document_ids`` when they are well formed
    (``None`` otherwise: consistency is then not checked).
    """
    if not isinstance(labelling, dict):
        return None, ["'labelling' must be a mapping"]
    problems = [f"unknown labelling key {k!r}" for k in labelling if k not in LABELLING_FIELDS]
    state = labelling.get("state")
    if state not in {s.value for s in JudgementState}:
        problems.append(f"labelling state must be one of {_STATES}, got {state!r}")
        state = None
    nothing = labelling.get("nothing_answers", False)
    if not isinstance(nothing, bool):
        problems.append(f"labelling nothing_answers must be true or false, got {nothing!r}")
    candidates = labelling.get("candidates", [])
    verdicts = _candidate_verdicts(candidates, problems)
    for key in ("history",):
        if not isinstance(labelling.get(key, []), list):
            problems.append(f"labelling {key} must be a list")
    if not isinstance(labelling.get(GENERATED_KEY, {}), dict):
        problems.append(f"labelling {GENERATED_KEY} must be a mapping")
    if state == JudgementState.JUDGED and expected is not None and not problems:
        problems += _judged_consistency(verdicts, set(expected), nothing is True)
    return state, problems


def _candidate_verdicts(candidates: Any, problems: list[str]) -> dict[str, bool | None]:
    verdicts: dict[str, bool | None] = {}
    if not isinstance(candidates, list):
        problems.append("labelling candidates must be a list")
        return verdicts
    for position, candidate in enumerate(candidates, 1):
        doc = candidate.get("document_id") if isinstance(candidate, dict) else None
        if not isinstance(candidate, dict) or not isinstance(doc, str) or is_blank(doc):
            problems.append(f"candidate {position} needs a document_id")
            continue
        unknown = [k for k in candidate if k not in CANDIDATE_FIELDS]
        if unknown:
            problems.append(f"candidate {doc!r}: unknown key {unknown[0]!r}")
        for key in ("source", "document_digest", "reason"):
            if candidate.get(key) is not None and not isinstance(candidate[key], str):
                problems.append(f"candidate {doc!r}: {key} must be text")
        relevant = candidate.get("relevant")
        if relevant is not None and not isinstance(relevant, bool):
            problems.append(f"candidate {doc!r}: relevant must be true, false or null")
        elif doc in verdicts:
            problems.append(f"candidate {doc!r} listed twice")
        verdicts[doc] = relevant
    return verdicts


def _judged_consistency(
    verdicts: dict[str, bool | None], expected: set[str], nothing: bool
) -> list[str]:
    undecided = sorted(d for d, v in verdicts.items() if v is None)
    if undecided:
        return [f"judged, yet candidates {', '.join(undecided)} have no decision"]
    problems = []
    missing = sorted(d for d, v in verdicts.items() if v and d not in expected)
    if missing:
        problems.append(f"relevant candidates missing from expected_document_ids: {missing}")
    rejected = sorted(d for d, v in verdicts.items() if v is False and d in expected)
    if rejected:
        problems.append(f"expected_document_ids lists candidates judged not relevant: {rejected}")
    if nothing and expected:
        problems.append("nothing_answers is true, yet expected_document_ids is not empty")
    if not nothing and not expected:
        problems.append(
            "judged with no relevant document: set nothing_answers: true to say that "
            "nothing in the corpus answers it"
        )
    return problems


def unjudged_message(ids: list[str]) -> str:
    """The one-line refusal for a set with questions not judged yet."""
    shown = ", ".join(ids[:10]) + (f" and {len(ids) - 10} more" if len(ids) > 10 else "")
    noun = "question is" if len(ids) == 1 else "questions are"
    return (
        f"{len(ids)} {noun} not judged yet ({shown}); a draft is never evaluated: "
        "judge them first (reval sets judge)"
    )
