"""A model's grade records the text it was made on: ``sets judge --llm-url`` keeps each
graded document's digest in its history entry, ``sets agreement --accept`` carries it into
the labels (``document_digests``), and ``sets lint --corpus`` then tells an unchanged
document from one edited since the model graded it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from support.chat_server import ChatServer
from support.model_jobs import generated, grader, questions, reval

from retrieval_eval.corpus.digest import document_digest
from retrieval_eval.example_data import corpus_path
from retrieval_eval.labelling.judge import Judgement, save_judgement
from retrieval_eval.questions.corpus import read_corpus


def edited_corpus(path: Path, doc_id: str) -> Path:
    """The example corpus with one document's text changed."""
    lines = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()]
    for line in lines:
        if line["_id"] == doc_id:
            line["text"] += " Since 4.0 the agent also restores permissions."
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def lint_drift(tmp_path: Path, draft: Path, corpus: Path) -> dict[str, Any]:
    done = reval(tmp_path, "sets", "lint", draft, "--corpus", corpus, "--no-runs",
                 "--format", "json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["label_digests"]


CORPUS = corpus_path()


def test_model_labels_record_and_check_the_text_they_were_graded_on(tmp_path: Path) -> None:
    draft = tmp_path / "draft.yaml"
    generated(tmp_path, draft, 8)
    everything = questions(draft)
    # the corpus changes between drafting and grading: the grade is on today's text
    changed_doc = everything[-1]["expected_document_ids"][0]
    today = edited_corpus(tmp_path / "today.jsonl", changed_doc)
    texts = {d.id: document_digest(d.title, d.text) for d in read_corpus(today)}
    assert texts[changed_doc] != everything[-1]["document_digests"][changed_doc]
    with ChatServer(grader(set())) as server:
        graded = reval(tmp_path, "sets", "judge", draft, "--corpus", today,
                       "--llm-url", server.url, "--model", "judge")  # fmt: skip
    assert graded.returncode == 0, graded.stderr
    source = graded.stdout.split(": ", 1)[0]
    for q in questions(draft):
        entry = q["labelling"]["history"][-1]
        assert entry["by"] == source
        assert entry["digests"] == {doc: texts[doc] for doc in entry["grades"]}
    for q in everything[:6]:
        doc = q["expected_document_ids"][0]
        save_judgement(draft, Judgement(q["id"], relevant=frozenset({doc}), complete=True,
                                        judge="ana"))  # fmt: skip
    save_judgement(draft, Judgement(everything[6]["id"], nothing_answers=True, judge="ana"))
    (tmp_path / "reval.toml").write_text("[labels]\nmin_kappa = -1\nmin_items = 5\n")
    accepted = reval(tmp_path, "sets", "agreement", draft, "--judge", source, "--judge", "ana",
                     "--accept")  # fmt: skip
    assert accepted.returncode == 0, accepted.stderr
    last = questions(draft)[-1]
    assert last["labelling"]["judged_by"] == source
    assert last["document_digests"][changed_doc] == texts[changed_doc]
    (candidate,) = last["labelling"]["candidates"]
    assert candidate["document_digest"] == texts[changed_doc]
    # against the text it was graded on, every model label is unchanged ...
    model_labels = sum(1 for q in questions(draft) if q["labelling"]["judged_by"] == source)
    assert model_labels == 9
    drift = lint_drift(tmp_path, draft, today)
    # (ana's 7 judgements too, the one she found nothing for a label "not relevant")
    assert (drift["changed"], drift["unchanged"], drift["unrecorded"]) == (0, 9 + 7, 0)
    # ... and against the corpus before the edit, the labels on that document changed
    before = lint_drift(tmp_path, draft, CORPUS)
    on_it = [q for q in questions(draft) if changed_doc in q["expected_document_ids"]]
    assert before["changed"] == len(on_it) >= 1
    assert {(d["question_id"], d["document_id"]) for d in before["labels"]} == {
        (q["id"], changed_doc) for q in on_it
    }
    assert yaml.safe_load(draft.read_text())["questions"]  # still a readable set
