"""Index directories: build, reopen, exact and HNSW search, the manifest, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from reval_dense.embedders.wordllama import WordLlamaEmbedder, weights_checksum, weights_path
from reval_dense.errors import DenseIndexError
from reval_dense.index import build_index
from reval_dense.manifest import MANIFEST_FILE, VECTORS_FILE, HnswSettings
from reval_dense.retriever import open_index

from retrieval_eval.corpus.chunking import Chunking
from retrieval_eval.corpus.reader import iter_documents, scan_corpus
from retrieval_eval.errors import ConfigError, CorpusError

QUESTIONS = ["how do I reset my password", "disk encryption keys", "backup schedule"]


def test_exact_search_equals_brute_force_cosine(index_dir: Path, corpus: Path) -> None:
    """Independent computation: re-embed every chunk and rank by cosine in plain numpy."""
    retriever = open_index(index_dir)
    chunks = [
        piece for doc in iter_documents(corpus) for piece in
        Chunking(150, 30).split(doc.id, doc.title, doc.text)
    ]  # fmt: skip
    model = WordLlamaEmbedder(256)
    matrix = model.embed([body for _, body in chunks]).astype(np.float64)
    for question in QUESTIONS:
        q = model.embed([question])[0].astype(np.float64)
        cosine = matrix @ q / np.linalg.norm(matrix, axis=1) / np.linalg.norm(q)
        expected = [chunks[i][0] for i in np.argsort(-cosine, kind="stable")[:10]]
        ranking = retriever.retrieve(question, 10)
        assert list(ranking.document_ids) == expected
        assert ranking.scores[0] == pytest.approx(cosine.max(), abs=1e-5)
        assert ranking.chunk_ids == ranking.document_ids  # chunked: ids are chunk ids


def test_manifest_and_describe_record_what_was_measured(index_dir: Path, corpus: Path) -> None:
    manifest = json.loads((index_dir / MANIFEST_FILE).read_text())
    assert manifest["embedder"] == {
        "kind": "wordllama",
        "model": "l2_supercat_256",
        "revision": weights_checksum(),
        "dimensions": 256,
        "options": {},
    }
    assert manifest["chunking"] == {"words": 150, "overlap": 30}
    assert manifest["search"] == {"kind": "exact"}
    described = open_index(index_dir).describe()
    assert described.identifier == "dense"
    assert described.chunk_separator == "#"
    assert described.chunking == "words=150,overlap=30"
    assert (
        described.model_revision == f"wordllama:l2_supercat_256@{weights_checksum()[:12]} dims=256"
    )
    assert described.metadata["weights_sha256"] == weights_checksum()
    # The corpus revision is reval's shared definition: the BM25 plugin reports the same.
    assert described.corpus_revision == scan_corpus(corpus).fingerprint
    assert np.load(index_dir / VECTORS_FILE).dtype == np.float32


def test_the_shipped_weights_are_read_from_the_wheel() -> None:
    assert weights_path().is_file() and weights_path().parts[-3] == "wordllama"
    assert len(weights_checksum()) == 64


def test_dimensions_are_a_matryoshka_prefix(tmp_path: Path, corpus: Path) -> None:
    info = build_index(corpus, tmp_path / "i64", embedder_options={"dimensions": 64})
    small = open_index(tmp_path / "i64")
    assert small.describe().model_revision.endswith("dims=64")
    assert info.chunks == info.documents == 45
    full = WordLlamaEmbedder(256).embed(["password reset"])[0]
    prefix = full[:64] / np.linalg.norm(full[:64])
    assert small.embedder.embed(["password reset"])[0] == pytest.approx(prefix, abs=1e-5)


@pytest.mark.parametrize("dimensions", [32, 512, 1024, "64"])
def test_dimensions_outside_the_shipped_model_are_refused(
    tmp_path: Path, corpus: Path, dimensions: object
) -> None:
    with pytest.raises(ConfigError, match="dimensions must be an integer from 64 to 256"):
        build_index(corpus, tmp_path / "i", embedder_options={"dimensions": dimensions})
    assert not (tmp_path / "i").exists()


def test_hnsw_finds_the_exact_neighbours_on_a_small_corpus(
    tmp_path: Path, corpus: Path, index_dir: Path
) -> None:
    build_index(corpus, tmp_path / "h", chunk_words=150, chunk_overlap=30, hnsw=HnswSettings())
    approximate, exact = open_index(tmp_path / "h"), open_index(index_dir)
    for question in QUESTIONS:
        a, e = approximate.retrieve(question, 10), exact.retrieve(question, 10)
        assert a.document_ids == e.document_ids
        assert a.scores == pytest.approx(e.scores, abs=1e-4)
    assert approximate.describe().pipeline.endswith(
        "cosine usearch-" + approximate.manifest.usearch_version
    )
    assert "hnsw(M=16" in approximate.describe().metadata["search"]


def test_limit_larger_than_the_index_and_empty_questions(index_dir: Path) -> None:
    retriever = open_index(index_dir)
    assert len(retriever.retrieve("password", 1000)) == retriever.manifest.chunks
    assert len(retriever.retrieve("   ", 5)) == 0
    with pytest.raises(ValueError, match="limit"):
        retriever.retrieve("password", 0)


@pytest.mark.parametrize(
    "content",
    ['{"_id": "a", "text": "x"}\n{"_id": "a", "text": "z"}\n', "\n", '{"_id": 1.5}\n'],
)
def test_bad_corpus_writes_nothing(tmp_path: Path, content: str) -> None:
    path = tmp_path / "corpus.jsonl"
    path.write_text(content, "utf-8")
    with pytest.raises(CorpusError):
        build_index(path, tmp_path / "index")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.jsonl"]


def test_bad_index_directories_are_refused(tmp_path: Path, corpus: Path, index_dir: Path) -> None:
    with pytest.raises(DenseIndexError, match="index not found"):
        open_index(tmp_path / "absent")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "keep.txt").write_text("mine")
    with pytest.raises(DenseIndexError, match="not empty and not a dense index"):
        build_index(corpus, tmp_path / "other")
    broken = tmp_path / "broken"
    broken.mkdir()
    manifest = json.loads((index_dir / MANIFEST_FILE).read_text())
    (broken / MANIFEST_FILE).write_text(json.dumps({**manifest, "format_version": 99}))
    with pytest.raises(DenseIndexError, match="format version 99 is not supported"):
        open_index(broken)
    (broken / MANIFEST_FILE).write_text(json.dumps(manifest))
    with pytest.raises(DenseIndexError, match="corrupt or unreadable index files"):
        open_index(broken)


def test_an_index_built_by_other_weights_is_refused(tmp_path: Path, index_dir: Path) -> None:
    copy = tmp_path / "copy"
    copy.mkdir()
    for f in index_dir.iterdir():
        (copy / f.name).write_bytes(f.read_bytes())
    manifest = json.loads((copy / MANIFEST_FILE).read_text())
    manifest["embedder"]["revision"] = "0" * 64
    (copy / MANIFEST_FILE).write_text(json.dumps(manifest))
    with pytest.raises(DenseIndexError, match="rebuild the index"):
        open_index(copy)


def test_rebuild_replaces_the_index_atomically(tmp_path: Path, corpus: Path) -> None:
    out = tmp_path / "index"
    build_index(corpus, out)
    build_index(corpus, out, embedder_options={"dimensions": 128})
    assert open_index(out).manifest.embedder.dimensions == 128
    assert sorted(p.name for p in tmp_path.iterdir()) == ["index"]


@pytest.mark.parametrize("dimensions", [64, 256])
def test_embeddings_equal_wordllamas_own_pooling(dimensions: int, corpus: Path) -> None:
    """The embedder pools without padding; WordLlama's ``embed`` (padded batches) is the
    independent reference, loaded the same offline way."""
    import wordllama
    from wordllama import WordLlama

    texts = [d.body for d in iter_documents(corpus)] + ["", "a", "ünïcode ✓ text"]
    reference = WordLlama.load(
        cache_dir=Path(wordllama.__file__).parent, disable_download=True,
        trunc_dim=dimensions if dimensions < 256 else None,
    ).embed(texts, norm=False)  # fmt: skip
    norms = np.linalg.norm(reference, axis=1, keepdims=True)
    expected = np.divide(reference, norms, out=np.zeros_like(reference), where=norms > 0)
    embedder = WordLlamaEmbedder(dimensions)
    assert embedder.embed(texts) == pytest.approx(expected, abs=1e-5)
    for i in (0, len(texts) - 3, len(texts) - 1):  # one text at a time: a question's path
        assert embedder.embed([texts[i]])[0] == pytest.approx(expected[i], abs=1e-5)
