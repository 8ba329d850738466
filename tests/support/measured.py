"""A small graded set and two table retrievers for runs with IR measures: six questions
with one relevant document each (and one judged not relevant), and a no-answer question
whose only judged document is not relevant, so reval's means leave it out of AP and RR."""

from __future__ import annotations

from pathlib import Path

import yaml

N = 6
MEASURES = "P@1,AP,RR,nDCG@3,Judged@2"


def text(i: int) -> str:
    return f"What does setting {i} change?"


def write_measured_set(tmp_path: Path) -> Path:
    questions = [{"id": f"q{i}", "question": text(i), "form": "MATCH",
                  "judgments": {f"t{i}": 2, f"n{i}": 0}} for i in range(N)]  # fmt: skip
    questions.append({"id": "q6", "question": text(6), "form": "GAP", "judgments": {"n6": 0}})
    path = tmp_path / "settings.yaml"
    body = {"reval_question_set": 1, "name": "settings", "questions": questions}
    path.write_text(yaml.safe_dump(body))
    return path


BASE = {**{text(i): [f"t{i}#0", f"n{i}#0"] for i in range(N)}, text(6): ["n6#0"]}
#: q0 and q1 rank the target second, behind an unjudged document.
CAND = {**BASE, text(0): ["u0#0", "t0#0"], text(1): ["u1#0", "t1#0"]}
