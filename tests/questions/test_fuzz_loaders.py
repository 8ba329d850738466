"""Fuzzing the set loaders: whatever a file holds, loading it either works or raises the
project's input error (one message naming the file), never anything else.

CI runs a small fixed budget. A long campaign by hand (the count is examples per test)::

    REVAL_FUZZ_EXAMPLES=20000 pytest -q -p no:cacheprovider tests/questions/test_fuzz_loaders.py
"""

from __future__ import annotations

import json
import os
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from retrieval_eval.errors import InputError
from retrieval_eval.questions.loading import load_question_set

EXAMPLES = int(os.environ.get("REVAL_FUZZ_EXAMPLES", "40"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    derandomize=EXAMPLES <= 100,  # CI: the same examples every run
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
SUFFIXES = (".yaml", ".json", ".jsonl", ".json.gz")


@dataclass(frozen=True)
class BigInt:
    """An integer literal too long for Python's int-from-text limit (4,300 digits)."""

    digits: int


@dataclass(frozen=True)
class Deep:
    """Lists nested ``depth`` deep."""

    depth: int


def render(value: Any) -> str:
    """JSON text (also flow YAML), with the hostile literals json.dumps cannot write."""
    if isinstance(value, BigInt):
        return "9" * value.digits
    if isinstance(value, Deep):
        return "[" * value.depth + "]" * value.depth
    if isinstance(value, list):
        return "[" + ", ".join(render(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)}: {render(v)}" for k, v in value.items()) + "}"
    return json.dumps(value)  # ensure_ascii: a lone surrogate becomes a \udXXX escape


hostile_text = st.one_of(
    st.text(max_size=30),
    st.text(st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1, max_size=3),
    st.text(st.characters(max_codepoint=0x1F), max_size=5),
    st.sampled_from(["", " ", "q1", "MATCH", "gap", "\x00", "a\udc80b"]),
)
scalars = st.one_of(
    hostile_text,
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.builds(BigInt, st.integers(4301, 6000)),
    st.builds(Deep, st.sampled_from([1000, 5000, 100_000])),
)
values = st.recursive(
    scalars,
    lambda c: st.lists(c, max_size=4) | st.dictionaries(hostile_text, c, max_size=4),
    max_leaves=12,
)
keys = st.sampled_from(
    ["id", "question", "form", "expected_document_ids", "hard_class", "answer_gist", "x"]
)
questions = st.dictionaries(keys, values, max_size=7)
headers = st.dictionaries(
    st.sampled_from(["name", "description", "reval_question_set", "title"]), values, max_size=3
)


def plausible(q: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Mostly valid questions with one hostile field, so that validation is reached."""
    base: dict[str, Any] = {
        "id": f"q{rng.randrange(1000)}",
        "question": "How do I reset my password?",
        "expected_document_ids": ["kb-1"],
    }
    base.update(q)
    return base


@st.composite
def documents(draw: st.DrawFn) -> tuple[str, str]:
    """(suffix, text) of a set file built around hostile values."""
    suffix = draw(st.sampled_from(SUFFIXES))
    rng = random.Random(draw(st.integers(0, 2**16)))
    qs = [plausible(q, rng) for q in draw(st.lists(questions, min_size=0, max_size=4))]
    if draw(st.booleans()):
        qs = draw(st.lists(values, max_size=3)) + qs
    header = draw(headers)
    if suffix == ".jsonl":
        lines = [render({"reval_question_set": 1, **header})] if header else []
        return suffix, "\n".join(lines + [render(q) for q in qs]) + "\n"
    if draw(st.booleans()):
        return suffix, render({**header, "questions": qs})
    return suffix, render(draw(values))


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


def load_or_input_error(path: Path) -> None:
    try:
        qs = load_question_set(path)
    except InputError as e:
        message = str(e)
        assert str(path) in message, message
        # Every character a message shows can be encoded (printed, logged, stored).
        message.encode("utf-8")
        return
    # A loaded set must survive what a run does with it: its fingerprint, and encoding
    # its every text for the store and the reports.
    assert qs.fingerprint.startswith("sha256:")
    for text in (qs.name, qs.description, *(q.question for q in qs.questions)):
        text.encode("utf-8")
    for q in qs.questions:
        for text in (q.id, q.hard_class or "", q.answer_gist or "", *q.expected_document_ids):
            text.encode("utf-8")


def write(workdir: Path, suffix: str, data: bytes) -> Path:
    import gzip

    path = workdir / f"set{suffix}"
    path.write_bytes(gzip.compress(data) if suffix.endswith(".gz") else data)
    return path


@FUZZ
@given(documents())
def test_structured_documents_load_or_fail_as_input_errors(
    workdir: Path, document: tuple[str, str]
) -> None:
    suffix, text = document
    load_or_input_error(write(workdir, suffix, text.encode("utf-8")))


@FUZZ
@given(st.sampled_from(SUFFIXES), st.binary(max_size=400))
def test_arbitrary_bytes_load_or_fail_as_input_errors(
    workdir: Path, suffix: str, data: bytes
) -> None:
    load_or_input_error(write(workdir, suffix, data))


@pytest.mark.parametrize(
    ("suffix", "text", "culprit"),
    [
        (
            ".json",
            '{"questions": [{"id": "q1", "question": "a?", '
            '"expected_document_ids": [' + "9" * 5000 + "]}]}",
            "4300 digits",
        ),
        (
            ".yaml",
            "questions:\n  - id: q1\n    question: a?\n"
            "    expected_document_ids: [" + "9" * 5000 + "]\n",
            "4300 digits",
        ),
        (
            ".jsonl",
            '{"id": "q1", "question": "a?", "expected_document_ids": [' + "9" * 5000 + "]}\n",
            "4300 digits",
        ),
        (".json", "[" * 100_000 + "]" * 100_000, "nest"),
        (".yaml", "[" * 100_000 + "]" * 100_000, "nest"),
        (
            ".json",
            '{"questions": [{"id": "q\\udc80", "question": "a?", "expected_document_ids": ["d"]}]}',
            "Unicode",
        ),
        (
            ".json",
            '{"questions": [{"id": "q1", "question": "a\\udc80?", '
            '"expected_document_ids": ["d"]}]}',
            "Unicode",
        ),
        (
            ".json",
            '{"questions": [{"id": "q1", "question": "a?", '
            '"expected_document_ids": ["d\\udc80"], "hard_class": "x"}]}',
            "Unicode",
        ),
        (
            ".json",
            '{"questions": [{"id": "q1", "question": "a?", '
            '"expected_document_ids": ["d"], "hard_class": "\\udc80"}]}',
            "Unicode",
        ),
        (
            ".json",
            '{"name": "s\\udc80", "questions": [{"id": "q1", "question": "a?", '
            '"expected_document_ids": ["d"]}]}',
            "Unicode",
        ),
        (
            ".jsonl",
            '{"reval_question_set": 1, "description": "\\udc80"}\n'
            '{"id": "q1", "question": "a?", "expected_document_ids": ["d"], '
            '"answer_gist": "gist"}\n',
            "Unicode",
        ),
        (
            ".jsonl",
            '{"id": "q1", "question": "a?", "expected_document_ids": ["d"], '
            '"answer_gist": "\\udc80"}\n',
            "Unicode",
        ),
        (
            ".yaml",
            'name: "s\\udc80"\nquestions:\n  - {id: q1, question: a?, '
            "expected_document_ids: [d]}\n",
            "Unicode",
        ),
    ],
)
def test_known_crashes_are_one_line_input_errors(
    tmp_path: Path, suffix: str, text: str, culprit: str
) -> None:
    path = tmp_path / f"set{suffix}"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_question_set(path)
    message = str(caught.value)
    assert message.startswith(str(path)), message
    assert "\n" not in message, message
    assert culprit in message, message


@pytest.mark.parametrize("text", ["?", "? 1\n", "1: x\nquestions: []\n"])
def test_keys_that_are_not_strings_are_named_not_crashed_on(tmp_path: Path, text: str) -> None:
    path = tmp_path / "set.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match="unknown set key"):
        load_question_set(path)
