"""Judgments made through reval record the digest of the text they were made on: a pooled
draft's candidates carry it, the judging page records the text it showed, and the saved
set loads (and fingerprints) as a set without digests does."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path

import yaml
from support.labelling import CORPUS, QUESTIONS

from retrieval_eval.corpus.digest import document_digest
from retrieval_eval.labelling.draft import DraftQuestion, draft_set
from retrieval_eval.labelling.judge import Judgement, save_judgement
from retrieval_eval.labelling.pool import PoolOptions
from retrieval_eval.questions.corpus import read_corpus
from retrieval_eval.questions.digests_file import read_set_digests
from retrieval_eval.questions.loading import load_question_set
from retrieval_eval.web.judging import JudgingDesk

TEXTS = {d.id: (d.title, d.text) for d in read_corpus(CORPUS)}


def digest_of(doc: str) -> str:
    return document_digest(*TEXTS[doc])


def drafted(tmp_path: Path, serve: Callable[[Mapping[str, list[str]]], str]) -> Path:
    spec = serve({QUESTIONS[0]: ["restore-files#0", "overview#1", "no-such-page#0"]})
    out = tmp_path / "draft.yaml"
    draft_set([DraftQuestion("q1", QUESTIONS[0])], CORPUS, [spec], out, PoolOptions(depth=3))
    return out


def test_a_drafted_candidate_records_the_text_it_shows(
    tmp_path: Path, serve_scripted: Callable[[Mapping[str, list[str]]], str]
) -> None:
    out = drafted(tmp_path, serve_scripted)
    (q1,) = yaml.safe_load(out.read_text())["questions"]
    candidates = {c["document_id"]: c for c in q1["labelling"]["candidates"]}
    assert candidates["restore-files"]["document_digest"] == digest_of("restore-files")
    assert candidates["overview"]["document_digest"] == digest_of("overview")
    assert "document_digest" not in candidates["no-such-page"]  # not in the corpus


def test_the_judging_page_records_the_text_it_showed(
    tmp_path: Path, serve_scripted: Callable[[Mapping[str, list[str]]], str]
) -> None:
    out = drafted(tmp_path, serve_scripted)
    # the corpus changed since the draft: the page shows today's text, and that is judged
    today = tmp_path / "corpus.jsonl"
    lines = CORPUS.read_text().splitlines()
    edited = [json.loads(line) for line in lines]
    for doc in edited:
        if doc["_id"] == "restore-files":
            doc["text"] += " Restores keep file permissions."
    today.write_text("\n".join(json.dumps(d) for d in edited) + "\n")
    desk = JudgingDesk("ana")
    key = desk.add(out, today)
    body = {"relevant": ["restore-files"], "complete": True, "judge": "ana"}
    desk.save(key, "q1", body)
    recorded = read_set_digests(out)["q1"]
    restore = next(d for d in edited if d["_id"] == "restore-files")
    assert recorded["restore-files"] == document_digest(restore["title"], restore["text"])
    assert recorded["restore-files"] != digest_of("restore-files")
    assert recorded["overview"] == digest_of("overview")  # rejected, unchanged text
    # the page never showed a text for a document missing from the corpus: none recorded
    assert "no-such-page" not in recorded
    text = out.read_text()
    assert f"    document_digests:\n      restore-files: {recorded['restore-files']}\n" in text


def test_a_judgement_without_a_shown_text_keeps_the_drafted_digest(
    tmp_path: Path, serve_scripted: Callable[[Mapping[str, list[str]]], str]
) -> None:
    out = drafted(tmp_path, serve_scripted)
    save_judgement(out, Judgement("q1", frozenset({"overview"}), frozenset({"restore-files"})))
    assert read_set_digests(out)["q1"] == {
        "overview": digest_of("overview"),
        "restore-files": digest_of("restore-files"),
    }
    # only what this judgement decided: the undecided candidate has no label, no digest
    save_judgement(out, Judgement("q1", frozenset(), frozenset({"no-such-page"})))
    assert set(read_set_digests(out)["q1"]) == {"overview", "restore-files"}


def test_a_judged_set_with_digests_fingerprints_as_without(
    tmp_path: Path, serve_scripted: Callable[[Mapping[str, list[str]]], str]
) -> None:
    out = drafted(tmp_path, serve_scripted)
    save_judgement(out, Judgement("q1", frozenset({"restore-files"}), complete=True))
    with_digests = load_question_set(out)
    stripped = tmp_path / "stripped.yaml"
    data = yaml.safe_load(out.read_text())
    del data["questions"][0]["document_digests"]
    stripped.write_text(yaml.safe_dump(data))
    assert load_question_set(stripped).fingerprint == with_digests.fingerprint
