"""Hostile judging saves against a real ``reval sets judge`` process: each is a 400 with
a message, and the set file is left as it was."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

REVAL = Path(sys.executable).parent / "reval"
DRAFT = (
    "questions:\n  - id: q1\n    question: Where?\n    expected_document_ids: []\n"
    "    labelling:\n      state: unjudged\n      candidates: [{document_id: overview}]\n"
)


@pytest.fixture(scope="module")
def judge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    work = tmp_path_factory.mktemp("judging-input")
    draft, corpus = work / "draft.yaml", work / "corpus.jsonl"
    draft.write_text(DRAFT)
    corpus.write_text('{"_id": "overview", "title": "Overview", "text": "Here."}\n')
    process = subprocess.Popen(
        [
            *(str(REVAL), "sets", "judge", str(draft), "--corpus", str(corpus)),
            *("--judge", "ana", "--db", f"sqlite:///{work / 'runs.sqlite'}"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert process.stdout is not None
        yield process.stdout.readline().strip(), draft
    finally:
        process.terminate()
        process.wait(20)


def post(url: str, body: bytes) -> tuple[int, dict]:
    request = urllib.request.Request(url, data=body, headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return int(response.status), json.loads(response.read())
    except urllib.error.HTTPError as e:
        return int(e.code), json.loads(e.read())


GOOD = {"judge": "ana", "relevant": ["overview"], "complete": True}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (json.dumps({**GOOD, "relevant": [[[["overview"]]]]}).encode(), "list of document ids"),
        (json.dumps({**GOOD, "hard_class": "near\x00duplicate"}).encode(), "'hard_class'"),
        (json.dumps({**GOOD, "hard_class": 7}).encode(), "'hard_class' must be text"),
        (json.dumps({**GOOD, "judge": "ana\nstate: judged"}).encode(), "'judge'"),
        (json.dumps({**GOOD, "judge": "an\u2028a"}).encode(), "'judge'"),
    ],
    ids=["nested", "nested-ids", "nul-class", "number-class", "newline-judge", "separator"],
)
def test_hostile_saves_are_400_with_a_message(judge, body, message) -> None:
    url, draft = judge
    before = draft.read_text()
    status, answer = post(f"{url}/questions/q1", body)
    assert status == 400 and message in answer["error"], answer
    assert draft.read_text() == before


def test_a_plain_save_still_works(judge) -> None:
    url, _ = judge
    status, answer = post(f"{url}/questions/q1", json.dumps(GOOD).encode())
    assert status == 200 and answer["state"] == "judged"
