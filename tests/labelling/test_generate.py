"""``reval sets generate`` against a loopback chat-completions server that answers as real
ones do: a draft whose forms passed the form check, labels with provenance, a cache that
makes a second run send nothing, and failures that are counted, never questions."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from support.chat_server import ChatServer, Reply, completion, error, title_of, writer
from support.cli import REVAL

from retrieval_eval.example_data import corpus_path
from retrieval_eval.labelling.llm.budget import Limits
from retrieval_eval.labelling.llm.generate import GenerateOptions, document_digest
from retrieval_eval.labelling.llm.job import ModelEndpoint, generate_set, prepare_generation
from retrieval_eval.questions.corpus import read_corpus
from retrieval_eval.questions.lint.overlap import OverlapMeter, suggested_form

CORPUS_PATH = corpus_path()
DOCUMENTS = {d.id: d for d in read_corpus(CORPUS_PATH)}


def generate(
    tmp_path: Path, url: str, *extra: str, home: Path | None = None
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "REVAL_HOME": str(home or tmp_path / "home"), "NO_COLOR": "1"}
    return subprocess.run(
        [str(REVAL), "sets", "generate", "--corpus", str(CORPUS_PATH), "--llm-url", url,
         "--model", "tiny", "--sample", "5", "--seed", "3", "--out", str(tmp_path / "draft.yaml"),
         *extra],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip


def draft(tmp_path: Path) -> dict[str, Any]:
    return yaml.safe_load((tmp_path / "draft.yaml").read_text(encoding="utf-8"))


def test_a_draft_with_checked_forms_provenance_and_a_cache(tmp_path: Path) -> None:
    with ChatServer(writer()) as server:
        first = generate(tmp_path, server.url)
        assert first.returncode == 0, first.stderr
        asked = len(server.requests)
        written = (tmp_path / "draft.yaml").read_bytes()
        second = generate(tmp_path, server.url)
        assert second.returncode == 0, second.stderr
    assert asked == 5 and len(server.requests) == 5  # the second run sent nothing
    rerun = (tmp_path / "draft.yaml").read_text(encoding="utf-8")
    at = re.compile(r"at: '[^']*'")
    assert at.sub("", rerun) == at.sub("", written.decode()).replace(
        "sent: 5, cached: 0", "sent: 0, cached: 5"
    )
    assert "0 requests sent, 5 answers from the cache" in second.stdout
    document = draft(tmp_path)
    header = document["generated"]
    assert header["model"] == "tiny" and header["sample"] == 5 and header["seed"] == 3
    source = header["by"]
    assert source == f"llm:tiny@{header['prompt']['digest']}"
    meter = OverlapMeter.from_texts(f"{d.title} {d.text}" for d in DOCUMENTS.values())
    sources = Counter()
    for q in document["questions"]:
        (target,) = q["expected_document_ids"]
        doc = DOCUMENTS[target]
        sources[target] += 1
        measured = suggested_form(meter.overlap(q["question"], [f"{doc.title} {doc.text}"]), 0.36)
        assert q["form"] == measured.value  # every form agrees with the form check
        labelling = q["labelling"]
        assert labelling["state"] == "unjudged"
        (candidate,) = labelling["candidates"]
        assert candidate["document_id"] == target and candidate["relevant"] is None
        assert candidate["source"] == source
        assert candidate["document_digest"] == document_digest(doc)
        assert q["document_digests"] == {target: document_digest(doc)}  # the text asked about
        (claim,) = labelling["history"]  # the generator's claim: advice, not a label
        assert claim["by"] == source and claim["relevant"] == [target]
    assert len(sources) == 5 and set(sources.values()) == {2}
    # A draft never gates: loading refuses it, naming the questions.
    refused = subprocess.run([str(REVAL), "sets", "validate", str(tmp_path / "draft.yaml")],
                             capture_output=True, text=True)  # fmt: skip
    assert refused.returncode == 2 and "not judged yet" in refused.stdout + refused.stderr


def test_a_gap_question_in_the_documents_words_is_relabelled_or_dropped(tmp_path: Path) -> None:
    def echo(request: dict[str, Any]) -> Reply:
        title = title_of(request)
        questions = [{"form": "GAP", "question": f"{title}?"}]  # the title's own words
        return completion(json.dumps({"questions": questions}))

    with ChatServer(echo) as server:
        relabelled = generate(tmp_path, server.url)
        assert relabelled.returncode == 0, relabelled.stderr
        assert "form check: 5 relabelled, 0 dropped" in relabelled.stdout
        assert {q["form"] for q in draft(tmp_path)["questions"]} == {"MATCH"}
        assert {
            q["labelling"]["generated"]["asked_form"] for q in draft(tmp_path)["questions"]
        } == {"GAP"}
        dropped = generate(tmp_path, server.url, "--on-form-mismatch", "drop")
    assert dropped.returncode == 2  # nothing left to write
    assert "no question generated from 5 documents (every question was dropped" in dropped.stderr


def test_near_duplicates_are_dropped(tmp_path: Path) -> None:
    def same(request: dict[str, Any]) -> Reply:
        questions = [{"form": "GAP", "question": "Where did my things go?"},
                     {"form": "MATCH", "question": title_of(request)}]  # fmt: skip
        return completion(json.dumps({"questions": questions}))

    with ChatServer(same) as server:
        done = generate(tmp_path, server.url)
    assert done.returncode == 0, done.stderr
    assert "4 near-duplicates dropped" in done.stdout
    gaps = [q for q in draft(tmp_path)["questions"] if q["question"] == "Where did my things go?"]
    assert len(gaps) == 1


@pytest.mark.parametrize(
    "reply, kind",
    [
        (completion("Sure! Here are some questions: 1. How do I ..."), "off-format"),
        (completion('{"questions": [{"form": "MATCH", "question": "How do'), "off-format"),
        (completion('{"questions": [{"form": "MATC'), "off-format"),
        (completion('{"questions": [{"form": "MATCH", "q":', finish_reason="length"), "truncated"),
        (completion("", refusal="I can't help with that."), "refusal"),
        (completion('{"questions": [{"form": "EASY", "question": "x?"}]}'), "off-format"),
        (error(400, "model not found"), "http"),
    ],
    ids=["prose", "cut-json", "cut-token", "length", "refusal", "bad-form", "http-400"],
)
def test_failures_are_counted_never_questions(tmp_path: Path, reply: Reply, kind: str) -> None:
    answers = iter([reply, reply])

    def model(request: dict[str, Any]) -> Reply:
        # The first two documents fail; the rest are written by a real writer.
        return next(answers, None) or writer()(request)

    with ChatServer(model) as server:
        done = generate(tmp_path, server.url, "--concurrency", "1")
    assert done.returncode == 0, done.stderr
    assert f"documents without a question: 2 {kind}" in done.stdout
    assert len(draft(tmp_path)["questions"]) == 6
    assert draft(tmp_path)["generated"]["failures"] == {kind: 2}


def test_rate_limits_and_server_errors_are_retried(tmp_path: Path) -> None:
    script = iter([error(429, "slow down", retry_after="0"), error(503), error(429)])

    def model(request: dict[str, Any]) -> Reply:
        return next(script, None) or writer()(request)

    with ChatServer(model) as server:
        done = generate(tmp_path, server.url, "--concurrency", "1")
    assert done.returncode == 0, done.stderr
    assert len(draft(tmp_path)["questions"]) == 10
    assert len(server.requests) == 8  # 5 answers, 3 refusals tried again


def test_an_unreachable_server_is_an_infrastructure_failure(tmp_path: Path) -> None:
    with ChatServer(writer()) as server:
        url = server.url
    done = generate(tmp_path, url, "--llm-timeout", "5")
    assert done.returncode == 3, done.stderr
    assert "no question generated from 5 documents (5 unreachable)" in done.stderr
    assert not (tmp_path / "draft.yaml").exists()


def test_usage_absent_is_estimated_and_json_mode_falls_back(tmp_path: Path) -> None:
    def llama(request: dict[str, Any]) -> Reply:
        if "response_format" in request:  # a server without JSON mode
            return error(400, "unknown field: response_format")
        reply = writer()(request)
        body = json.loads(reply.body)
        del body["usage"]
        return Reply(200, json.dumps(body).encode())

    with ChatServer(llama) as server:
        done = generate(tmp_path, server.url, "--concurrency", "1")
    assert done.returncode == 0, done.stderr
    assert "(5 answers without usage: estimated)" in done.stdout
    with_format = [r for r in server.requests if "response_format" in r]
    assert len(with_format) == 1 and len(server.requests) == 6  # asked once, then never again


def test_the_key_comes_from_the_environment_only(tmp_path: Path) -> None:
    with ChatServer(writer()) as server:
        missing = generate(tmp_path, server.url, "--api-key-env", "REVAL_TEST_LLM_KEY")
        assert missing.returncode == 2 and "REVAL_TEST_LLM_KEY" in missing.stderr
        os.environ["REVAL_TEST_LLM_KEY"] = "sk-test-123"
        try:
            done = generate(tmp_path, server.url, "--api-key-env", "REVAL_TEST_LLM_KEY")
        finally:
            del os.environ["REVAL_TEST_LLM_KEY"]
    assert done.returncode == 0, done.stderr
    assert {h["authorization"] for h in server.headers} == {"Bearer sk-test-123"}
    cache = list((tmp_path / "home" / "llm-cache").rglob("*.json"))
    assert len(cache) == 5 and not any("sk-test" in p.read_text() for p in cache)
    assert "sk-test" not in (tmp_path / "draft.yaml").read_text()


def test_budget_stops_and_an_offline_replay(tmp_path: Path) -> None:
    with ChatServer(writer()) as server:
        options = GenerateOptions("tiny", sample=5, seed=3)
        endpoint = ModelEndpoint(server.url, cache_dir=tmp_path / "cache", concurrency=1,
                                 limits=Limits(max_requests=2))  # fmt: skip
        job = prepare_generation(CORPUS_PATH, options, endpoint, None)
        report, spend = generate_set(job, CORPUS_PATH, tmp_path / "a.yaml", options, endpoint)
        assert (spend.requests, report.not_asked) == (2, 3)
        assert report.stopped_by == "--max-requests 2 reached"
        assert len(server.requests) == 2
        replay = ModelEndpoint(server.url, cache_dir=tmp_path / "cache", cache_only=True)
        report, spend = generate_set(job, CORPUS_PATH, tmp_path / "b.yaml", options, replay)
    assert (spend.requests, spend.cached, report.failures["not-cached"]) == (0, 2, 3)
    assert len(server.requests) == 2


def test_a_prompt_of_ones_own_changes_the_provenance_and_the_cache_key(tmp_path: Path) -> None:
    prompt = tmp_path / "prompt.md"
    template = (
        "[system]\nBe brief.\n[user]\nTitle: $title\n$text\n$match_count MATCH, $gap_count GAP\n"
    )
    prompt.write_text(template, encoding="utf-8")
    with ChatServer(writer()) as server:
        assert generate(tmp_path, server.url).returncode == 0
        default_source = draft(tmp_path)["generated"]["by"]
        done = generate(tmp_path, server.url, "--prompt", str(prompt))
    assert done.returncode == 0, done.stderr
    assert len(server.requests) == 10  # not answered from the default prompt's cache
    assert draft(tmp_path)["generated"]["by"] != default_source
    assert server.requests[-1]["messages"][0] == {"role": "system", "content": "Be brief."}
    prompt.write_text("[system]\n$unknown\n[user]\nx\n", encoding="utf-8")
    bad = generate(tmp_path, server.url, "--prompt", str(prompt))
    assert bad.returncode == 2 and "unknown placeholder $unknown" in bad.stderr


def test_strata_take_turns(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    lines = [
        {"_id": f"a{n}", "title": f"alpha {n}", "text": "alpha text", "metadata": {"area": "a"}}
        for n in range(20)
    ]
    lines += [{"_id": "b0", "title": "beta", "text": "beta text", "metadata": {"area": "b"}}]
    corpus.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    options = GenerateOptions("tiny", sample=4, seed=1, strata="metadata.area")
    job = prepare_generation(corpus, options, ModelEndpoint("http://127.0.0.1:9/v1"), None)
    assert job.strata == {"a": 3, "b": 1}
    assert "b0" in {d.id for d in job.documents}
