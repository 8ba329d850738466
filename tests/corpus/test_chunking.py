"""The one chunker of the reference plugins: overlapping word windows, ``<doc id>#<n>``."""

from __future__ import annotations

import pytest

from retrieval_eval.corpus.chunking import CHUNK_SEPARATOR, Chunking
from retrieval_eval.errors import InputError


def test_chunk_windows_overlap_and_cover_the_text() -> None:
    words = " ".join(f"w{i}" for i in range(10))
    chunks = list(Chunking(4, 1).split("doc", "T", words))
    assert [c for c, _ in chunks] == ["doc#0", "doc#1", "doc#2"]
    assert [b for _, b in chunks] == ["T\nw0 w1 w2 w3", "T\nw3 w4 w5 w6", "T\nw6 w7 w8 w9"]
    assert list(Chunking(4).split("d#1", "", "")) == [("d#1#0", "")]
    with pytest.raises(InputError, match="chunk-overlap"):
        Chunking(4, 4)


def test_chunk_ids_map_back_to_their_document_at_the_last_separator() -> None:
    text = " ".join(f"w{i}" for i in range(9))
    ids = [chunk_id for chunk_id, _ in Chunking(3).split("a#b", "", text)]
    assert ids == ["a#b#0", "a#b#1", "a#b#2"]
    assert {i.rpartition(CHUNK_SEPARATOR)[0] for i in ids} == {"a#b"}
    assert Chunking(200, 50).label() == "words=200,overlap=50"
