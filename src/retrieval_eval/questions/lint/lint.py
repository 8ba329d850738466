"""Lint a golden set against its corpus (and, if given, its stored runs).

``lint_set`` runs every check and returns a ``LintReport``: findings in report order and
what the set's size can detect (``retrieval_eval.stats.mcnemar.set_power``). Checks that need
the corpus read it once (``corpus_index``); run checks need runs of the same set.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from retrieval_eval.questions.corpus import CorpusDocument
from retrieval_eval.questions.digests_file import SetDigests
from retrieval_eval.questions.lint.corpus_index import index_corpus
from retrieval_eval.questions.lint.drift import DriftReport, corpus_digests, label_drift
from retrieval_eval.questions.lint.drift_findings import drift_findings, without_moved
from retrieval_eval.questions.lint.duplicates import duplicate_findings
from retrieval_eval.questions.lint.findings import Finding, FindingKind, ordered
from retrieval_eval.questions.lint.form_check import form_findings, question_overlaps
from retrieval_eval.questions.lint.grades import conflict_findings, scale_findings
from retrieval_eval.questions.lint.options import LintOptions
from retrieval_eval.questions.lint.overlap import best_cutoff
from retrieval_eval.questions.lint.run_signals import StoredRun, run_findings
from retrieval_eval.questions.lint.targets import document_findings, near_duplicate_findings
from retrieval_eval.questions.model import GoldenQuestionSet
from retrieval_eval.records.outcome import Form
from retrieval_eval.stats.mcnemar import SetPower, set_power


@dataclass(frozen=True, slots=True)
class Calibration:
    """The cut-off used, and the one this set's own labels would pick (with how many of
    its MATCH/GAP questions each puts on their labelled side)."""

    cutoff: float
    agreeing: int
    set_best_cutoff: float
    set_best_agreeing: int
    labelled: int


@dataclass(frozen=True, slots=True)
class LintReport:
    set_name: str
    questions: int
    corpus: str
    corpus_documents: int
    runs: int
    findings: tuple[Finding, ...]
    power: SetPower
    calibration: Calibration
    overlaps: dict[str, float] = field(default_factory=dict)
    #: Each label's document against its recorded digest (``None``: the set records none).
    drift: DriftReport | None = None

    def by_kind(self) -> dict[FindingKind, list[Finding]]:
        groups: dict[FindingKind, list[Finding]] = {}
        for f in self.findings:
            groups.setdefault(f.kind, []).append(f)
        return groups

    def to_dict(self) -> dict[str, Any]:
        c = self.calibration
        return {
            "set": self.set_name,
            "questions": self.questions,
            "corpus": self.corpus,
            "corpus_documents": self.corpus_documents,
            "runs": self.runs,
            "findings": [f.to_dict() for f in self.findings],
            "power": self.power.to_dict(),
            "calibration": {
                "cutoff": c.cutoff,
                "agreeing": c.agreeing,
                "set_best_cutoff": round(c.set_best_cutoff, 4),
                "set_best_agreeing": c.set_best_agreeing,
                "labelled": c.labelled,
            },
            "overlaps": {qid: round(v, 4) for qid, v in self.overlaps.items()},
            "label_digests": None if self.drift is None else self.drift.to_dict(),
        }


def lint_set(
    question_set: GoldenQuestionSet,
    documents: Iterable[CorpusDocument],
    *,
    corpus_name: str = "",
    runs: Sequence[StoredRun] = (),
    options: LintOptions | None = None,
    digests: SetDigests | None = None,
) -> LintReport:
    """Every check over ``question_set``; ``runs`` are stored runs of the set (optional),
    ``digests`` its recorded document digests (``questions.digests_file``)."""
    options = options or LintOptions()
    options.check()
    questions = question_set.questions
    targets = {d for q in questions for d in q.expected_document_ids}
    documents = list(documents)
    drift = label_drift(questions, digests, corpus_digests(documents)) if digests else None
    corpus = index_corpus(documents, targets)
    overlaps = question_overlaps(questions, corpus)
    findings: list[Finding] = [
        *without_moved(document_findings(questions, corpus, corpus_name), drift),
        *drift_findings(drift),
        *scale_findings(questions, question_set.grade_scale),
        *conflict_findings(questions, corpus.analyzer, question_set.relevance_level),
        *duplicate_findings(questions, corpus.analyzer),
        *near_duplicate_findings(questions, corpus, options.near_duplicate_threshold),
        *form_findings(questions, overlaps, options.match_cutoff),
        *run_findings(questions, runs, options.min_retrievers),
    ]
    power = set_power(
        len(questions), options.max_top1_drop, options.max_top3_drop,
        discordance=options.discordance,
    )  # fmt: skip
    return LintReport(
        set_name=question_set.name,
        questions=len(questions),
        corpus=corpus_name,
        corpus_documents=len(corpus.ids),
        runs=len(runs),
        findings=tuple(ordered(findings)),
        power=power,
        calibration=_calibration(question_set, overlaps, options.match_cutoff),
        overlaps=overlaps,
        drift=drift,
    )


def _calibration(qs: GoldenQuestionSet, overlaps: dict[str, float], cutoff: float) -> Calibration:
    pairs = [(overlaps[q.id], q.form) for q in qs.questions
             if q.id in overlaps and q.form in (Form.MATCH, Form.GAP)]  # fmt: skip
    best, best_right = best_cutoff(pairs)
    right = sum((f is Form.MATCH) == (o >= cutoff) for o, f in pairs)
    return Calibration(cutoff, right, best, best_right, len(pairs))
