"""The engine's side of an index that searching needs: its field names and opening its
files with our analyzer registered. Kept apart from building (``index.py``), so that
opening an index to search it imports neither the corpus reader nor the writer."""

from __future__ import annotations

from pathlib import Path

import tantivy

from reval_bm25.analyzer import TOKENIZER_NAME, tantivy_version
from reval_bm25.errors import Bm25IndexError
from reval_bm25.metadata import ENGINE_DIR, IndexMetadata

#: Indexed fields: ``id`` (stored: the result id, a chunk id when chunked), ``doc_id``
#: (the document, for deletes on update) and ``body`` (BM25; term frequencies only).
ID, DOC_ID, BODY = "id", "doc_id", "body"


def open_engine(index_dir: Path, meta: IndexMetadata) -> tantivy.Index:
    """Open the engine's files of ``index_dir`` (memory-mapped), our analyzer registered."""
    try:
        index = tantivy.Index.open(str(index_dir / ENGINE_DIR))
    except Exception as e:  # tantivy raises ValueError/OSError subclasses inconsistently
        installed = tantivy_version()
        hint = (
            f" (built with tantivy {meta.tantivy_version}, this is {installed}: rebuild it)"
            if meta.tantivy_version.split(".")[:2] != installed.split(".")[:2]
            else ""
        )
        raise Bm25IndexError(f"{index_dir}: corrupt or unreadable index files{hint}: {e}") from e
    index.register_tokenizer(TOKENIZER_NAME, meta.analyzer.build())
    return index
