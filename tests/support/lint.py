"""Sets with planted problems over the example corpus, written inline."""

from __future__ import annotations

import json
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "src" / "retrieval_eval" / "example_data"
EXAMPLE_SET = EXAMPLE / "questions.yaml"
EXAMPLE_CORPUS = EXAMPLE / "corpus.jsonl"


def write_set(path: Path, questions: list[dict[str, object]], name: str = "planted") -> Path:
    lines = [json.dumps({"reval_question_set": 1, "name": name})]
    lines += [json.dumps(q) for q in questions]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def q(qid: str, text: str, form: str, expected: list[str], **extra: object) -> dict[str, object]:
    return {"id": qid, "question": text, "form": form, "expected_document_ids": expected, **extra}


PLANTED = [
    # Clean: MATCH in the page's words, GAP in the user's.
    q("fedora", "How do I install the Larkspur agent on Fedora?", "MATCH", ["install-linux"]),
    q(
        "battery",
        "My laptop keeps backing up while I'm unplugged from the charger, can I stop that?",
        "GAP",
        ["schedule"],
    ),
    # form-mismatch: the page's own words labelled GAP; a reworded question labelled MATCH.
    q("e104-gap", "What does error E104 mean?", "GAP", ["error-codes"]),
    q(
        "clock-match",
        "The agent says my computer's time is off and refuses to back up",
        "MATCH",
        ["error-codes"],
    ),
    # duplicate-question: case, punctuation, word order, trivial words.
    q("s3-a", "Which S3 permissions does the access key need?", "MATCH", ["repo-s3"]),
    q("s3-b", "the access key: which S3 permissions does it need", "MATCH", ["repo-s3"]),
    q("s3-c", "WHICH S3 PERMISSIONS DOES THE ACCESS KEY NEED", "MATCH", ["overview"]),
    # unknown-document and empty-document.
    q("stale", "What exactly does lark unlock --stale remove?", "MATCH", ["repo-locked-old"]),
    q("blank", "Is the new feature ready?", "GAP", ["blank-page"]),
    # untargeted-near-duplicate: 'hooks' has a copy that is not expected.
    q("dump", "Can I run a database dump before each snapshot?", "MATCH", ["hooks"]),
    # ...but not when both are expected, nor for the near-duplicate hard class.
    q(
        "dump-both",
        "Run a database dump before every snapshot, possible?",
        "MATCH",
        ["hooks", "hooks-copy"],
    ),
    q(
        "dump-class",
        "Can a hook run a dump before snapshots?",
        "MATCH",
        ["hooks"],
        hard_class="near-duplicate",
    ),
]
