"""Reading corpora: JSONL (plain and gzip), directories, and every bad input."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from retrieval_eval.corpus.reader import iter_documents, scan_corpus
from retrieval_eval.errors import CorpusError, InputError

DOCS = [
    {"_id": "scurvy", "title": "Scurvy", "text": "Scurvy is caused by a lack of vitamin C."},
    {"_id": "rickets", "title": "Rickets", "text": "Rickets comes from too little vitamin D."},
    {"_id": "goitre", "title": "Goitre", "text": "An iodine shortage enlarges the thyroid."},
]


def write_jsonl(path: Path, docs: list[dict[str, str]]) -> Path:
    path.write_text("".join(json.dumps(d) + "\n" for d in docs), "utf-8")
    return path


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return write_jsonl(tmp_path / "corpus.jsonl", DOCS)


def test_gzip_and_plain_jsonl_give_the_same_fingerprint(tmp_path: Path, corpus: Path) -> None:
    gz = tmp_path / "corpus.jsonl.gz"
    gz.write_bytes(gzip.compress(corpus.read_bytes()))
    assert scan_corpus(gz) == scan_corpus(corpus)
    assert scan_corpus(corpus).documents == len(DOCS)


def test_fingerprint_follows_content_not_order(tmp_path: Path, corpus: Path) -> None:
    shuffled = write_jsonl(tmp_path / "b.jsonl", list(reversed(DOCS)))
    assert scan_corpus(shuffled).fingerprint == scan_corpus(corpus).fingerprint
    changed = [*DOCS[:-1], {**DOCS[-1], "text": "changed"}]
    edited = write_jsonl(tmp_path / "c.jsonl", changed)
    assert scan_corpus(edited).fingerprint != scan_corpus(corpus).fingerprint


def test_directory_ids_are_relative_paths(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    (root / "guide").mkdir(parents=True)
    (root / "guide" / "install.md").write_text("# Install\nrun the installer", "utf-8")
    (root / "faq.txt").write_text("frequently asked", "utf-8")
    (root / "image.png").write_bytes(b"\x89PNG")
    (root / ".hidden").mkdir()
    (root / ".hidden" / "x.md").write_text("skipped", "utf-8")
    assert [d.id for d in iter_documents(root)] == ["faq.txt", "guide/install.md"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"_id": "a", "text": "x"}\n{"_id": "b", "text": \n', "corpus.jsonl:2: malformed JSON"),
        ('{"_id": "a", "text": "x"}\n\n["a list"]\n', "corpus.jsonl:3: expected a JSON object"),
        ('{"title": "no id", "text": "x"}\n', "corpus.jsonl:1: missing or empty '_id'"),
        ('{"_id": "a", "text": 3}\n', "corpus.jsonl:1: document 'a': 'text' must be a string"),
        (
            '{"_id": "a", "text": "x"}\n{"_id": "b", "text": "y"}\n{"_id": "a", "text": "z"}\n',
            "duplicate document id 'a': {p}:1 and {p}:3",
        ),
        ("\n  \n", "empty corpus"),
    ],
)
def test_bad_corpus_is_refused_naming_the_culprit(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "corpus.jsonl"
    path.write_text(content, "utf-8")
    with pytest.raises(CorpusError) as caught:
        scan_corpus(path)
    assert message.format(p=path) in str(caught.value)
    assert isinstance(caught.value, InputError)  # the CLI maps it to exit code 2


def test_missing_corpus_empty_directory_and_bad_encoding(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match=r"corpus not found"):
        scan_corpus(tmp_path / "nope.jsonl")
    (tmp_path / "empty").mkdir()
    with pytest.raises(CorpusError, match=r"empty corpus"):
        scan_corpus(tmp_path / "empty")
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes(b'{"_id": "a", "text": "caf\xe9"}\n')
    with pytest.raises(CorpusError, match=r"latin.jsonl: not UTF-8"):
        scan_corpus(latin)
    broken = tmp_path / "broken.jsonl.gz"
    lines = "".join(f'{{"_id": "d{i}", "text": "x"}}\n' for i in range(50))
    broken.write_bytes(gzip.compress(lines.encode())[:40])
    with pytest.raises(CorpusError, match=r"broken.jsonl.gz: corrupt gzip"):
        scan_corpus(broken)
