"""Taking a model's grades as labels, only as far as it agrees with the team's judges.

The rule is the team's, in reval.toml::

    [labels]
    min_kappa = 0.6     # Cohen's kappa of the model against a person, on what both judged
    min_items = 30      # and on at least this many shared decisions

Without it nothing is accepted: trusting a model is a decision a team writes down. When
the model's agreement with the named person reaches the rule, every question no person
has judged whose candidates the model graded completely takes the model's decisions: a
candidate is relevant when its grade reaches the relevance level, the question becomes
``judged`` by the model's source (with ``labelling.accepted`` saying on what agreement),
and each candidate keeps the model's ``source`` and ``reason``, and the digest of the text
the model graded (``document_digests``, as a person's judgement records it). A question
the model found nothing relevant for stays for a person: "nothing answers it" is never a
model's call. Below the rule nothing changes and the set stays a draft, which never
gates; ``labelling.llm.trust`` checks the accepted labels again whenever they gate.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from retrieval_eval.errors import ConfigError
from retrieval_eval.labelling.agreement import Agreement, judge_grades
from retrieval_eval.labelling.document import trailing_comments_kept, update_document
from retrieval_eval.questions.digests import DIGESTS_KEY
from retrieval_eval.questions.labelling import LABELLING_KEY, JudgementState

TABLE = "labels"


@dataclass(frozen=True, slots=True)
class AcceptRule:
    min_kappa: float
    min_items: int = 30

    #: The keys of the ``[labels]`` table.
    KEYS = ("min_kappa", "min_items")

    @classmethod
    def from_config(cls, document: dict[str, Any], path: Path) -> AcceptRule | None:
        table = document.get(TABLE)
        if table is None:
            return None
        where = f"{path} [{TABLE}]"
        if not isinstance(table, dict):
            raise ConfigError(f"{where}: must be a table (min_kappa, min_items)")
        unknown = sorted(set(table) - set(cls.KEYS))
        if unknown:
            raise ConfigError(f"{where}: unknown key {unknown[0]!r} (min_kappa, min_items)")
        kappa, items = table.get("min_kappa"), table.get("min_items", 30)
        if isinstance(kappa, bool) or not isinstance(kappa, int | float) or not -1 <= kappa <= 1:
            raise ConfigError(f"{where}: min_kappa must be a number from -1 to 1")
        if isinstance(items, bool) or not isinstance(items, int) or items < 1:
            raise ConfigError(f"{where}: min_items must be a positive integer")
        return cls(float(kappa), items)


@dataclass(frozen=True, slots=True)
class AcceptVerdict:
    accepted: bool
    why: str
    questions: int = 0


def judge_rule(result: Agreement, rule: AcceptRule) -> AcceptVerdict:
    kappa = result.kappa
    if result.items < rule.min_items:
        return AcceptVerdict(False, f"{result.items} shared decisions, fewer than min_items "
                             f"{rule.min_items}: judge more of the model's candidates")  # fmt: skip
    if kappa is None or kappa < rule.min_kappa:
        shown = "undefined" if kappa is None else f"{kappa:.3f}"
        return AcceptVerdict(False, f"kappa {shown} is below min_kappa {rule.min_kappa:g}")
    return AcceptVerdict(True, f"kappa {kappa:.3f} >= {rule.min_kappa:g} on {result.items} items")


def apply_model_labels(
    path: Path, source: str, result: Agreement, relevance_level: int = 1,
    at: datetime | None = None,
) -> int:  # fmt: skip
    """Write the model's decisions into the questions no person judged; how many became
    judged."""
    moment = (at or datetime.now(UTC)).isoformat(timespec="seconds")
    other = result.judges[1] if result.judges[0] == source else result.judges[0]
    note = {"source": source, "against": other, "kappa": round(result.kappa or 0.0, 4),
            "items": result.items, "at": moment}  # fmt: skip

    def change(document: Any) -> int:
        grades = judge_grades(document).get(source, {})
        notes = _entry_notes(document, source)
        done = 0
        for question in document["questions"]:
            qid = str(question["id"])
            mine = {d: g for (q, d), g in grades.items() if q == qid}
            with trailing_comments_kept(question):
                done += _take(question, mine, notes, relevance_level, note)
        return done

    count, _ = update_document(path, change)
    return count


def _take(
    question: Any, grades: dict[str, int], notes: dict[tuple[str, str, str], str], level: int,
    note: dict[str, Any],
) -> bool:  # fmt: skip
    """One question takes the model's decisions, if no person judged it, the model graded
    every open candidate and found one relevant."""
    labelling = question.get(LABELLING_KEY)
    if labelling is None or labelling.get("state") == JudgementState.JUDGED.value:
        return False
    candidates = labelling.get("candidates") or []
    open_ = [c for c in candidates if c.get("relevant") is None]
    if not open_ or any(str(c["document_id"]) not in grades for c in open_):
        return False
    decided = {str(c["document_id"]): grades[str(c["document_id"])] >= level for c in open_}
    if not any(decided.values()) and not any(c.get("relevant") for c in candidates):
        return False
    qid, source = str(question["id"]), str(note["source"])
    digests = CommentedMap(question.get(DIGESTS_KEY) or {})
    for c in open_:
        doc = str(c["document_id"])
        c["relevant"] = decided[doc]
        c["source"] = source
        if notes.get(("reasons", qid, doc)):
            c["reason"] = notes[("reasons", qid, doc)]
        digest = notes.get(("digests", qid, doc))
        if digest:  # the text the model graded, as a person's judgement records it
            digests[doc] = c["document_digest"] = digest
    if digests:
        question[DIGESTS_KEY] = digests
    pooled = {str(c["document_id"]) for c in candidates}
    by_hand = [d for d in question.get("expected_document_ids") or [] if d not in pooled]
    expected = CommentedSeq(
        [*by_hand, *(str(c["document_id"]) for c in candidates if c["relevant"])]
    )
    expected.fa.set_flow_style()
    question["expected_document_ids"] = expected
    labelling["state"] = JudgementState.JUDGED.value
    labelling["nothing_answers"] = False
    labelling["judged_by"] = source
    labelling["judged_at"] = note["at"]
    accepted = CommentedMap(note)
    accepted.fa.set_flow_style()
    labelling["accepted"] = accepted
    return True


def _entry_notes(document: Any, source: str) -> dict[tuple[str, str, str], str]:
    """(``reasons`` or ``digests``, question id, document id) -> what ``source``'s history
    entries say of that grade (the latest entry wins)."""
    found: dict[tuple[str, str, str], str] = {}
    for question in document["questions"]:
        for entry in (question.get(LABELLING_KEY) or {}).get("history") or []:
            if entry.get("by") != source:
                continue
            for key in ("reasons", "digests"):
                for doc, value in (entry.get(key) or {}).items():
                    found[(key, str(question["id"]), str(doc))] = str(value)
    return found
