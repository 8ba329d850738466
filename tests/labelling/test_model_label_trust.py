"""The gates' trust check reads a set's model labels in every set format: a set the
labelling commands wrote as YAML and a team converted to JSON, JSONL or gzip must not
gate on model labels the ``[labels]`` rule does not trust."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
import yaml

from retrieval_eval.labelling.llm.accept import AcceptRule
from retrieval_eval.labelling.llm.trust import untrusted_model_labels
from retrieval_eval.questions.loading import load_question_sets

MODEL = "llm:judge@sha256:6e0014eb8577"
RULE = AcceptRule(min_kappa=0.6, min_items=20)


def _question(qid: str, accepted: dict[str, object] | None) -> dict[str, object]:
    labelling: dict[str, object] = {
        "state": "judged",
        "judged_by": MODEL,
        "candidates": [{"document_id": f"d-{qid}", "relevant": True, "source": MODEL}],
    }
    if accepted is not None:
        labelling["accepted"] = accepted
    return {"id": qid, "question": f"what is {qid}?", "form": "MATCH",
            "expected_document_ids": [f"d-{qid}"], "labelling": labelling}  # fmt: skip


SET = {
    "name": "drafted",
    "questions": [
        _question("low", {"kappa": 0.4, "items": 40}),
        _question("trusted", {"kappa": 0.9, "items": 40}),
        _question("hand-edited", None),
        {"id": "plain", "question": "plain?", "form": "GAP", "expected_document_ids": ["d"]},
    ],
}


def _write(path: Path) -> Path:
    name = path.name
    if ".jsonl" in name:
        header = {"reval_question_set": 1, "name": SET["name"]}
        text = "".join(json.dumps(line) + "\n" for line in [header, *SET["questions"]])
    elif ".json" in name:
        text = json.dumps(SET)
    else:
        text = yaml.safe_dump(SET)
    if name.endswith(".gz"):
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    return path


@pytest.mark.parametrize("name", ["set.yaml", "set.json", "set.jsonl", "set.yaml.gz",
                                  "set.json.gz", "set.jsonl.gz"])  # fmt: skip
def test_every_format_names_the_same_untrusted_questions(tmp_path: Path, name: str) -> None:
    path = _write(tmp_path / name)
    (loaded,) = load_question_sets(str(path))  # a set the gate would score
    assert len(loaded.questions) == 4
    assert untrusted_model_labels(path, RULE) == ["low", "hand-edited"]
    assert untrusted_model_labels(path, None) == ["low", "trusted", "hand-edited"]


def test_a_set_without_model_labels_is_trusted_in_every_format(tmp_path: Path) -> None:
    plain = {"name": "plain", "questions": [SET["questions"][-1]]}
    for name, text in (("p.yaml", yaml.safe_dump(plain)), ("p.json", json.dumps(plain))):
        (tmp_path / name).write_text(text)
        assert untrusted_model_labels(tmp_path / name, None) == []
