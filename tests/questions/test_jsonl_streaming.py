"""JSONL sets are read line by line: the result must be what reading the whole text gives.

The reference here reads the file at once (``read_text``), decodes every line with the
duplicate-aware decoder and checks every raw mapping field by field; the loader under
test streams the file, building plainly valid lines as it goes.
"""

from __future__ import annotations

import codecs
import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.questions import only, problems, write

from retrieval_eval.questions.formats import HEADER_KEY, RawSet, read_text
from retrieval_eval.questions.jsondecode import WITH_DUPLICATES, DuplicateKeys
from retrieval_eval.questions.locate import JsonlLines
from retrieval_eval.questions.model import GoldenQuestionSet
from retrieval_eval.questions.reading import read_set_file
from retrieval_eval.questions.validate import check_raw_set

HEADER = '{"reval_question_set": 1, "name": "s"}'


def good(qid: str, doc: str = "d1") -> str:
    return json.dumps({"id": qid, "question": f"what is {qid}?", "expected_document_ids": [doc]})


def whole_text(path: Path) -> RawSet:
    """The set as read all at once, every line a raw mapping for the field-by-field checker."""
    text = read_text(path)
    header: dict[str, Any] = {}
    header_line = None
    questions: list[Any] = []
    lines: list[int] = []
    dups: dict[int, list[tuple[str, int | None]]] = {}
    numbered = [(n, line) for n, line in enumerate(text.split("\n"), 1) if line.strip()]
    for position, (number, line) in enumerate(numbered):
        obj = WITH_DUPLICATES.decode(line)
        if position == 0 and isinstance(obj, dict) and HEADER_KEY in obj:
            header, header_line = dict(obj), number
            if isinstance(obj, DuplicateKeys):
                dups[-1] = [(k, number) for k in obj.duplicates]
            continue
        if isinstance(obj, DuplicateKeys):
            dups[len(questions)] = [(k, number) for k in obj.duplicates]
        questions.append(obj)
        lines.append(number)
    locator = JsonlLines(lines, header_line)
    return RawSet(str(path), "set", header, questions, locator, duplicate_keys=dups)


def outcome(raw: RawSet, corpus: set[str] | None) -> tuple[GoldenQuestionSet | None, list[str]]:
    qs, found = check_raw_set(raw, corpus=corpus, corpus_name="c")
    return qs, [str(p) for p in found]


LINE = st.one_of(
    st.builds(good, st.sampled_from("abcdefgh"), st.sampled_from(["d1", "d2", "d9"])),
    st.sampled_from(
        [
            HEADER,
            "",
            "   ",
            '{"id": "x", "question": "", "expected_document_ids": []}',
            '{"id": "y", "question": "q?", "expected_document_ids": ["d1", "d1"]}',
            '{"id": "z", "question": "q?", "question": "again?", "expected_document_ids": []}',
            '{"id": "w", "question": "q?", "form": "match", "expected_document_ids": []}',
            '{"id": "v", "question": "q?", "expected_ids": ["d1"]}',
            '{"id": 7, "question": "q?", "expected_document_ids": ["d1"]}',
            '["not", "a", "mapping"]',
            '{"id": "u", "question": "caf\u00e9 \u2028?", "expected_document_ids": ["d2"]}',
        ]
    ),
)


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(
    lines=st.lists(LINE, max_size=12),
    ending=st.sampled_from(["\n", "\r\n"]),
    bom=st.booleans(),
    last_newline=st.booleans(),
    gz=st.booleans(),
    with_corpus=st.booleans(),
)
def test_streaming_gives_what_reading_the_whole_text_gives(
    tmp_path: Path,
    lines: list[str],
    ending: str,
    bom: bool,
    last_newline: bool,
    gz: bool,
    with_corpus: bool,
) -> None:
    text = ending.join(lines) + (ending if last_newline else "")
    data = (codecs.BOM_UTF8 if bom else b"") + text.encode("utf-8")
    path = tmp_path / ("set.jsonl.gz" if gz else "set.jsonl")
    path.write_bytes(gzip.compress(data) if gz else data)
    corpus = {"d1", "d2"} if with_corpus else None
    assert outcome(read_set_file(path), corpus) == outcome(whole_text(path), corpus)


def test_a_broken_last_line_without_a_newline_is_named(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl.gz", "\n".join([HEADER, good("a"), good("b"), '{"id": "c"']))
    assert only(path) == (
        f"{path}:4: invalid JSON: Expecting ',' delimiter (column 11) (in question 'c')"
    )


def test_the_header_is_checked_on_its_line_and_only_allowed_first(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", "\n\n" + HEADER.replace("1", "2") + "\n" + good("a") + "\n")
    assert only(path) == f"{path}:3: reval_question_set is 2; this reval reads version 1"
    late = write(tmp_path / "late.jsonl", good("a") + "\n" + HEADER + "\n")
    message = f"{late}:2: question #2: the reval_question_set header must be the first line"
    assert message in problems(late)


def test_duplicate_ids_far_apart_name_the_first_line(tmp_path: Path) -> None:
    lines = [HEADER, good("same"), *(good(f"q{i}") for i in range(50_000)), good("same")]
    path = write(tmp_path / "s.jsonl.gz", "\n".join(lines) + "\n")
    assert only(path) == (f"{path}:50003: question 'same': duplicate question id (first at line 2)")


def test_a_big_valid_set_is_built_in_file_order(tmp_path: Path) -> None:
    lines = [HEADER, *(good(f"q{i}", f"d{i % 7}") for i in range(20_000))]
    path = write(tmp_path / "s.jsonl", "\n".join(lines))
    qs, found = check_raw_set(read_set_file(path))
    assert found == [] and qs is not None
    assert [q.id for q in qs.questions] == [f"q{i}" for i in range(20_000)]
    assert qs.questions[-1].expected_document_ids == (f"d{19_999 % 7}",)


def test_invalid_utf8_far_down_gives_the_byte_offset_of_the_whole_text(tmp_path: Path) -> None:
    body = (HEADER + "\n" + good("a") + "\n").encode() + b'{"id": "caf\xe9"}\n'
    offset = body.index(b"\xe9")
    for name, data in [("s.jsonl", body), ("bom.jsonl", codecs.BOM_UTF8 + body)]:
        path = tmp_path / name
        path.write_bytes(data)
        assert only(path) == f"{path}: not UTF-8 text (byte {offset})"
    zipped = tmp_path / "s.jsonl.gz"
    zipped.write_bytes(gzip.compress(body))
    assert only(zipped) == f"{zipped}: not UTF-8 text (byte {offset})"


def test_a_damaged_gzip_file_is_one_problem_even_after_broken_lines(tmp_path: Path) -> None:
    """Lines read before the damage are not reported: the file as a whole is unreadable."""
    data = gzip.compress(("{broken\n" + good("a") + "\n").encode() * 2000)
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(data[: len(data) // 2])
    assert only(cut) == (
        f"{cut}: cannot read: not a valid gzip file "
        "(Compressed file ended before the end-of-stream marker was reached)"
    )
    flipped = bytearray(data)
    flipped[len(data) // 2] ^= 0xFF
    damaged = tmp_path / "damaged.jsonl.gz"
    damaged.write_bytes(bytes(flipped))
    assert only(damaged).startswith(f"{damaged}: cannot read: not a valid gzip file (")


@pytest.mark.parametrize("name", ["dir.jsonl", "dir.jsonl.gz"])
def test_a_directory_named_like_a_set_cannot_be_read(tmp_path: Path, name: str) -> None:
    (tmp_path / name).mkdir()
    assert problems(tmp_path / name) == [f"{tmp_path / name}: cannot read: Is a directory"]
