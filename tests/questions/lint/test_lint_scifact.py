"""Lint over BEIR SciFact: planted problems in a set of our own are found among 5,183
real abstracts, and the imported SciFact test split (UNLABELLED) gets no form findings."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from support.lint import q, write_set

from retrieval_eval.questions.beir import import_beir
from retrieval_eval.questions.corpus import read_corpus
from retrieval_eval.questions.lint.findings import FindingKind
from retrieval_eval.questions.lint.lint import lint_set
from retrieval_eval.questions.loading import load_question_set

pytestmark = pytest.mark.scifact


@pytest.fixture(scope="module")
def scifact_docs(scifact_dir: Path) -> list[dict[str, str]]:
    with gzip.open(scifact_dir / "corpus.jsonl.gz", "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def test_planted_problems_over_scifact(tmp_path: Path, scifact_docs: list[dict[str, str]]) -> None:
    docs = [dict(d) for d in scifact_docs]
    a, b, c = [d for d in docs if len(d["title"].split()) >= 8 and len(d["text"]) > 600][:3]
    words = c["text"].split()
    words[3], words[20] = "notably", "additionally"
    docs.append({"_id": "copy-of-c", "title": c["title"], "text": " ".join(words)})
    corpus = tmp_path / "corpus.jsonl.gz"
    with gzip.open(corpus, "wt", encoding="utf-8") as f:
        f.writelines(json.dumps(d) + "\n" for d in docs)
    path = write_set(tmp_path / "scifact-planted.jsonl", [
        q("title-match", a["title"], "MATCH", [a["_id"]]),
        q("title-gap", b["title"], "GAP", [b["_id"]]),
        q("lay-match", "Why do I feel tired after lunch every day?", "MATCH", [a["_id"]]),
        q("title-again", a["title"].upper().rstrip(".") + "!", "MATCH", [a["_id"]]),
        q("gone", "Which gene was knocked out in mice?", "GAP", ["999999999"]),
        q("twin", c["title"], "MATCH", [c["_id"]]),
    ])  # fmt: skip
    report = lint_set(load_question_set(path), read_corpus(corpus), corpus_name="scifact")
    found = {(f.kind, f.question_ids) for f in report.findings}
    assert found == {
        (FindingKind.FORM_MISMATCH, ("title-gap",)),
        (FindingKind.FORM_MISMATCH, ("lay-match",)),
        (FindingKind.DUPLICATE_QUESTION, ("title-match", "title-again")),
        (FindingKind.UNKNOWN_DOCUMENT, ("gone",)),
        (FindingKind.UNTARGETED_NEAR_DUPLICATE, ("twin",)),
    }, report.findings
    (twin,) = [f for f in report.findings if f.kind is FindingKind.UNTARGETED_NEAR_DUPLICATE]
    assert twin.evidence["near_duplicate_id"] == "copy-of-c"


def test_the_imported_test_split(scifact_dir: Path, tmp_path: Path) -> None:
    qs = import_beir(scifact_dir, "test", None)
    report = lint_set(qs, read_corpus(scifact_dir / "corpus.jsonl.gz"), corpus_name="scifact")
    kinds = {f.kind for f in report.findings}
    assert FindingKind.FORM_MISMATCH not in kinds  # UNLABELLED: nothing to disagree with
    assert FindingKind.UNKNOWN_DOCUMENT not in kinds
    assert report.calibration.labelled == 0
    assert report.power.questions == 300 and len(report.overlaps) == 300
    for f in report.findings:
        if f.kind is FindingKind.DUPLICATE_QUESTION:
            texts = {" ".join(sorted(t.lower().split())) for t in f.evidence["questions"]}
            assert len(f.question_ids) >= 2 and texts
