"""Lint on the example corpus: planted problems are found, clean questions are not, and
the shipped example set gets the calibrated result documented in
docs/how-to/write-a-set.md."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.lint import EXAMPLE_CORPUS, EXAMPLE_SET, PLANTED, write_set

from retrieval_eval.questions.corpus import read_corpus
from retrieval_eval.questions.lint.findings import FindingKind
from retrieval_eval.questions.lint.lint import lint_set
from retrieval_eval.questions.lint.options import LintOptions
from retrieval_eval.questions.loading import load_question_set


def lint(set_path: Path, corpus: Path, **options: float):
    qs = load_question_set(set_path)
    return lint_set(qs, read_corpus(corpus), corpus_name=corpus.name,
                    options=LintOptions(**options))  # fmt: skip


@pytest.fixture
def report(tmp_path: Path, planted_corpus: Path):
    return lint(write_set(tmp_path / "planted.jsonl", PLANTED), planted_corpus)


def found(report, kind: FindingKind) -> list[tuple[str, ...]]:
    return [f.question_ids for f in report.findings if f.kind is kind]


def test_planted_forms_are_flagged_and_clean_ones_are_not(report) -> None:
    # s3-c expects the wrong page: its words are not there, so it reads as GAP too.
    assert found(report, FindingKind.FORM_MISMATCH) == [
        ("clock-match",),
        ("e104-gap",),
        ("s3-c",),
    ]
    (gap,) = [f for f in report.findings if f.question_ids == ("e104-gap",)]
    assert gap.evidence["measured_form"] == "MATCH" and gap.evidence["overlap"] >= 0.36
    assert "MATCH questions overlap less" in gap.message


def test_duplicates_list_every_id_and_say_when_labels_differ(report) -> None:
    (dup,) = [f for f in report.findings if f.kind is FindingKind.DUPLICATE_QUESTION]
    assert dup.question_ids == ("s3-a", "s3-b", "s3-c")
    assert dup.evidence["same_labels"] is False and "DIFFERENT" in dup.message


def test_a_negated_question_is_not_a_duplicate() -> None:
    from retrieval_eval.questions.lint.analyzer import TermAnalyzer
    from retrieval_eval.questions.lint.duplicates import question_key

    a = TermAnalyzer()
    same = question_key("Does the agent support ARM?", a)
    assert question_key("does the AGENT support arm", a) == same
    assert question_key("Doesn't the agent support ARM?", a) != same
    assert question_key("Does the agent not support ARM?", a) != same


def test_unknown_and_empty_documents(report) -> None:
    assert found(report, FindingKind.UNKNOWN_DOCUMENT) == [("stale",)]
    assert found(report, FindingKind.EMPTY_DOCUMENT) == [("blank",)]
    (unknown,) = [f for f in report.findings if f.kind is FindingKind.UNKNOWN_DOCUMENT]
    assert unknown.evidence["document_id"] == "repo-locked-old"


def test_untargeted_near_duplicate_names_the_twin(report) -> None:
    (twin,) = [f for f in report.findings if f.kind is FindingKind.UNTARGETED_NEAR_DUPLICATE]
    assert twin.question_ids == ("dump",)
    assert twin.evidence["document_id"] == "hooks"
    assert twin.evidence["near_duplicate_id"] == "hooks-copy"
    assert 0.8 < twin.evidence["similarity"] < 1.0


def test_findings_come_in_kind_order(report) -> None:
    order = list(FindingKind)
    ranks = [order.index(f.kind) for f in report.findings]
    assert ranks == sorted(ranks)


def test_the_shipped_example_set() -> None:
    """docs/how-to/write-a-set.md quotes this: two GAP questions read as MATCH, 19 of 21 agree."""
    report = lint(EXAMPLE_SET, EXAMPLE_CORPUS)
    assert found(report, FindingKind.FORM_MISMATCH) == [
        ("account-data-after-closing",),
        ("employee-leaves",),
    ]
    assert len(report.findings) == 2
    c = report.calibration
    assert (c.agreeing, c.labelled, c.set_best_agreeing) == (19, 21, 19)
    assert report.power.questions == 23 and report.power.significant_flips == 6


def test_its_edited_pages_are_near_duplicates_below_the_default_and_above_others() -> None:
    """The calibration of the near-duplicate threshold: the example corpus's two edited
    copies score above it; every other pair below."""
    from retrieval_eval.questions.lint.corpus_index import index_corpus

    corpus = index_corpus(read_corpus(EXAMPLE_CORPUS), set())
    n = len(corpus.ids)
    pairs = {
        frozenset((corpus.ids[a], corpus.ids[b])): corpus.shingles.jaccard(a, b)
        for a in range(n) for b in range(a + 1, n)
    }  # fmt: skip
    threshold = LintOptions().near_duplicate_threshold
    above = {p for p, s in pairs.items() if s >= threshold}
    assert above == {
        frozenset(("release-3-1", "release-3-2")),
        frozenset(("restore-files", "restore-files-v2")),
    }


def test_the_cutoff_is_an_option(tmp_path: Path, planted_corpus: Path) -> None:
    """At cut-off 0 every answerable question reads as MATCH: only GAP ones are flagged."""
    path = write_set(tmp_path / "planted.jsonl", PLANTED)
    assert found(lint(path, planted_corpus, match_cutoff=0.0), FindingKind.FORM_MISMATCH) == [
        ("battery",),
        ("e104-gap",),
    ]
