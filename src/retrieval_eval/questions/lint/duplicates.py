"""``duplicate-question``: the same question asked twice, up to case, punctuation, word
order, trivial words and word endings. Two questions are the same when their sets of
analyzed terms (stemmed, function words dropped) are equal, and both or neither are
negated ("not", "no", "never", "n't": stop words, but they turn a question around); a
question whose words are all function words is compared by its tokens instead."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from retrieval_eval.questions.lint.analyzer import FUNCTION_WORDS, TermAnalyzer, tokens
from retrieval_eval.questions.lint.findings import Finding, FindingKind
from retrieval_eval.questions.model import GoldenQuestion

NEGATIONS = frozenset({"no", "not", "nor", "never", "cannot", "t"})


def question_key(question: str, analyzer: TermAnalyzer) -> tuple[bool, frozenset[str]]:
    words = tokens(question)
    terms = frozenset(analyzer.terms(question, drop=FUNCTION_WORDS))
    return not NEGATIONS.isdisjoint(words), terms or frozenset(words)


def duplicate_findings(
    questions: Sequence[GoldenQuestion], analyzer: TermAnalyzer
) -> list[Finding]:
    groups: dict[tuple[bool, frozenset[str]], list[GoldenQuestion]] = defaultdict(list)
    for q in questions:
        groups[question_key(q.question, analyzer)].append(q)
    findings = []
    for group in groups.values():
        if len(group) < 2:
            continue
        labels = {tuple(sorted(q.expected_document_ids)) for q in group}
        agree = (
            "with the same expected documents"
            if len(labels) == 1
            else ("with DIFFERENT expected documents: at least one label is wrong or incomplete")
        )
        ids = tuple(q.id for q in group)
        message = f"{len(group)} questions ask the same thing ({', '.join(ids)}), {agree}"
        findings.append(Finding(FindingKind.DUPLICATE_QUESTION, ids, message, {
            "questions": [q.question for q in group],
            "same_labels": len(labels) == 1,
        }))  # fmt: skip
    return findings
