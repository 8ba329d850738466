"""The label fingerprint is hashed in slices; its value must stay what stored runs hold:
the SHA-256 of the whole sorted record list as one compact JSON text, for a tuple of
questions and for the same questions held by column."""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from retrieval_eval.questions.compact import CompactQuestions
from retrieval_eval.questions.model import GoldenQuestion, label_fingerprint
from retrieval_eval.records.outcome import Form


def at_once(questions: list[GoldenQuestion]) -> str:
    records = sorted((q.fingerprint_record() for q in questions), key=lambda r: str(r[0]))
    canonical = json.dumps(records, ensure_ascii=False, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@pytest.mark.parametrize("n", [0, 1, 2, 4095, 4096, 4097, 9000])
def test_hashing_in_slices_gives_the_digest_of_the_whole_text(n: int) -> None:
    rng = random.Random(n)
    questions = [
        GoldenQuestion(
            f"q{rng.randrange(2 * n + 1)}\u00e9\u2028",  # repeated ids keep file order
            f'question {i} "quoted" \\ {rng.random()}',
            rng.choice(list(Form)),
            tuple(f"d{rng.randrange(50)}" for _ in range(rng.randrange(4))),
            rng.choice([None, "near-duplicate", "caf\u00e9"]),
            rng.choice([None, "never hashed"]),
        )
        for i in range(n)
    ]
    assert label_fingerprint(questions) == at_once(questions)
    assert label_fingerprint(CompactQuestions.of(questions)) == at_once(questions)
