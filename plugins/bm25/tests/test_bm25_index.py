"""Index directories: save/load/mmap round trip, --update, and every bad index."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from reval_bm25.errors import Bm25IndexError
from reval_bm25.index import build_index, update_index
from reval_bm25.metadata import ENGINE_DIR, METADATA_FILE
from reval_bm25.retriever import open_index

from .corpora import DOCS, write_jsonl

QUESTIONS = ["vitamin C lack", "thiamine", "iodine and the thyroid", "niacin deficiency"]


def _ranking(index: Path, question: str) -> list[tuple[str, float | None]]:
    return [(i.document_id, i.score) for i in open_index(index).retrieve(question, 5)]


def test_round_trip_reopens_the_saved_index_memory_mapped(tmp_path: Path, corpus: Path) -> None:
    out = tmp_path / "index"
    info = build_index(corpus, out)
    assert (info.documents, info.chunks, info.segments) == (len(DOCS), len(DOCS), 1)
    first = open_index(out)
    rankings = {q: [(i.document_id, i.score) for i in first.retrieve(q, 5)] for q in QUESTIONS}
    assert rankings["thiamine"][0][0] == "beriberi"
    assert rankings["iodine and the thyroid"][0][0] == "goitre"
    # tantivy's MmapDirectory maps the segment files into this process.
    engine = str((out / ENGINE_DIR).resolve())
    maps = Path(f"/proc/{os.getpid()}/maps").read_text()
    assert engine in maps, "index files are not memory-mapped"
    # A second open (a new reader over the same files) answers identically.
    moved = tmp_path / "moved"
    os.rename(out, moved)
    assert {q: _ranking(moved, q) for q in QUESTIONS} == rankings
    meta = json.loads((moved / METADATA_FILE).read_text())
    assert meta["corpus"]["fingerprint"] == info.corpus_revision
    assert meta["analyzer"]["stemmer"] == "english"
    assert meta["tantivy_version"].startswith("0.27")


def test_rebuild_replaces_an_index_and_refuses_a_foreign_directory(
    tmp_path: Path, corpus: Path
) -> None:
    out = tmp_path / "index"
    build_index(corpus, out)
    smaller = write_jsonl(tmp_path / "small.jsonl", DOCS[:2])
    assert build_index(smaller, out).documents == 2
    assert open_index(out).describe().metadata["documents"] == "2"
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine", "utf-8")
    with pytest.raises(Bm25IndexError, match=r"not empty and not a bm25 index"):
        build_index(corpus, foreign)
    assert [p.name for p in foreign.iterdir()] == ["notes.txt"]


def test_update_adds_replaces_and_deletes(tmp_path: Path, corpus: Path) -> None:
    out = tmp_path / "index"
    build_index(corpus, out)
    docs = [d for d in DOCS if d["_id"] != "pellagra"]  # deleted
    docs[0] = {**docs[0], "text": "Scurvy: bleeding gums, cured by citrus fruit."}  # replaced
    docs.append({"_id": "anaemia", "title": "Anaemia", "text": "Iron deficiency anaemia."})
    new_corpus = write_jsonl(tmp_path / "v2.jsonl", docs)
    info = update_index(new_corpus, out)
    assert (info.added, info.replaced, info.deleted, info.unchanged) == (1, 1, 1, 3)
    assert (info.documents, info.chunks) == (5, 5)
    retriever = open_index(out)
    assert retriever.retrieve("iron anaemia", 1)[0].document_id == "anaemia"
    assert retriever.retrieve("citrus fruit gums", 1)[0].document_id == "scurvy"
    assert len(retriever.retrieve("niacin", 5)) == 0
    # The updated index is identified exactly like a fresh build of the same corpus.
    fresh = build_index(new_corpus, tmp_path / "fresh")
    assert retriever.describe().corpus_revision == fresh.corpus_revision
    again = update_index(new_corpus, out)
    assert (again.added, again.replaced, again.deleted, again.unchanged) == (0, 0, 0, 5)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "corpus.jsonl",
        "fresh",
        "index",
        "v2.jsonl",
    ]


def _snapshot(index: Path) -> dict[str, bytes]:
    return {str(p.relative_to(index)): p.read_bytes() for p in index.rglob("*") if p.is_file()}


def test_update_never_touches_the_live_files(tmp_path: Path, corpus: Path) -> None:
    """The update stages hard links; what a running server has mapped must not change."""
    out = tmp_path / "index"
    build_index(corpus, out)
    live = tmp_path / "live"
    live.mkdir()
    for file in out.rglob("*"):  # a second name for every live inode
        if file.is_file():
            target = live / file.relative_to(out)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.link(file, target)
    before = _snapshot(live)
    new_docs = [*DOCS[1:], {"_id": "anaemia", "title": "Anaemia", "text": "Iron deficiency."}]
    update_index(write_jsonl(tmp_path / "v2.jsonl", new_docs), out)
    assert _snapshot(live) == before
    assert open_index(live).retrieve("scurvy", 1)[0].document_id == "scurvy"
    assert len(open_index(out).retrieve("scurvy", 1)) == 0


def test_failed_update_leaves_the_index_untouched(tmp_path: Path, corpus: Path) -> None:
    out = tmp_path / "index"
    build_index(corpus, out)
    before = {p.name: p.stat().st_mtime_ns for p in (out / ENGINE_DIR).iterdir()}
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"_id": "x", "text": "ok"}\n{oops\n', "utf-8")
    with pytest.raises(Exception, match=r"bad.jsonl:2: malformed JSON"):
        update_index(bad, out)
    assert {p.name: p.stat().st_mtime_ns for p in (out / ENGINE_DIR).iterdir()} == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    assert open_index(out).retrieve("thiamine", 1)[0].document_id == "beriberi"


def test_missing_and_foreign_directories(tmp_path: Path) -> None:
    with pytest.raises(Bm25IndexError, match=r"index not found: .*nowhere"):
        open_index(tmp_path / "nowhere")
    (tmp_path / "plain").mkdir()
    with pytest.raises(Bm25IndexError, match=r"plain: not a bm25 index"):
        open_index(tmp_path / "plain")


def test_corrupt_metadata_is_refused(index_dir: Path) -> None:
    (index_dir / METADATA_FILE).write_text("{ not json", "utf-8")
    with pytest.raises(Bm25IndexError, match=r"corrupt index metadata"):
        open_index(index_dir)


def test_incompatible_format_version_is_refused(index_dir: Path) -> None:
    path = index_dir / METADATA_FILE
    meta = json.loads(path.read_text())
    path.write_text(json.dumps({**meta, "format_version": 99}), "utf-8")
    with pytest.raises(Bm25IndexError, match=r"format version 99 is not supported.*rebuild"):
        open_index(index_dir)


def test_corrupt_engine_files_are_refused(index_dir: Path) -> None:
    meta_json = index_dir / ENGINE_DIR / "meta.json"
    meta_json.write_text("garbage", "utf-8")
    with pytest.raises(Bm25IndexError, match=r"corrupt or unreadable index files"):
        open_index(index_dir)


def test_missing_segment_files_are_refused(index_dir: Path) -> None:
    for file in (index_dir / ENGINE_DIR).iterdir():
        if file.suffix in (".idx", ".term"):
            file.unlink()
    with pytest.raises(Bm25IndexError, match=r"corrupt or unreadable index files"):
        open_index(index_dir).retrieve("thiamine", 3)


class _Recorder:
    """A Progress (the engine's shape) that remembers what it was told."""

    def __init__(self) -> None:
        self.started: list[tuple[str, int]] = []
        self.done = 0

    def start(self, label: str, total: int) -> object:
        self.started.append((label, total))
        return label

    def advance(self, task: object, n: int = 1) -> None:
        self.done += n


def test_progress_counts_documents_for_build_and_update(tmp_path: Path, corpus: Path) -> None:
    out, progress = tmp_path / "index", _Recorder()
    build_index(corpus, out, chunk_words=2, progress=progress)
    assert (progress.started, progress.done) == ([("indexing", len(DOCS))], len(DOCS))
    progress = _Recorder()
    update_index(
        write_jsonl(tmp_path / "v2.jsonl", [*DOCS[:2], {**DOCS[2], "text": "x"}]),
        out,
        progress=progress,
    )
    assert (progress.started, progress.done) == ([("indexing", 1)], 1)


def test_index_from_another_tantivy_minor_names_both_versions(index_dir: Path) -> None:
    path = index_dir / METADATA_FILE
    meta = json.loads(path.read_text())
    path.write_text(json.dumps({**meta, "tantivy_version": "0.99.0"}), "utf-8")
    (index_dir / ENGINE_DIR / "meta.json").write_text("{}", "utf-8")
    with pytest.raises(Bm25IndexError, match=r"built with tantivy 0\.99\.0, this is 0\.27"):
        open_index(index_dir)


@pytest.mark.parametrize(
    "content",
    [
        '{"_id": "a", "text": "x"}\n{"_id": "b", "text": \n',
        '{"_id": "a", "text": "x"}\n{"_id": "a", "text": "z"}\n',
        "\n  \n",
    ],
)
def test_bad_corpus_writes_nothing(tmp_path: Path, content: str) -> None:
    """The shared reader refuses it mid-build; the staging directory is thrown away."""
    from retrieval_eval.errors import CorpusError

    path = tmp_path / "corpus.jsonl"
    path.write_text(content, "utf-8")
    with pytest.raises(CorpusError):
        build_index(path, tmp_path / "index")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.jsonl"]
