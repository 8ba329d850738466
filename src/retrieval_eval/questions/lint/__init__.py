"""Label checks for golden sets: wrong forms, duplicates, missing targets, runs that say
a label is suspect, and how many questions a regression threshold needs.

The public API, imported lazily (numpy and the stemmer come with the ``lint`` extra)::

    lint_set(question_set, documents, corpus_name=..., runs=..., options=LintOptions())
    LintReport, Finding, FindingKind
    OverlapMeter, vocabulary_overlap, TermWeights, suggested_form, best_cutoff
                                   the MATCH/GAP measure, reusable on its own
"""

from __future__ import annotations

from retrieval_eval.lazy_names import lazy_getattr

_LAZY = {
    "lint_set": "retrieval_eval.questions.lint.lint",
    "LintReport": "retrieval_eval.questions.lint.lint",
    "LintOptions": "retrieval_eval.questions.lint.options",
    "DEFAULT_MATCH_CUTOFF": "retrieval_eval.questions.lint.options",
    "Finding": "retrieval_eval.questions.lint.findings",
    "FindingKind": "retrieval_eval.questions.lint.findings",
    "OverlapMeter": "retrieval_eval.questions.lint.overlap",
    "TermWeights": "retrieval_eval.questions.lint.overlap",
    "best_cutoff": "retrieval_eval.questions.lint.overlap",
    "suggested_form": "retrieval_eval.questions.lint.overlap",
    "vocabulary_overlap": "retrieval_eval.questions.lint.overlap",
}

__all__ = list(_LAZY)


__getattr__ = lazy_getattr(globals(), _LAZY)
