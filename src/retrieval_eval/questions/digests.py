"""Document digests in the set format: which text of each labelled document was judged.

A question may carry ``document_digests``, document id -> digest (``corpus.digest``)::

    expected_document_ids: [kb-12]
    judgments: {kb-12: 2, kb-7: 0}
    document_digests: {kb-12: "sha256:9f2c...", kb-7: "sha256:04ab..."}

Rules: digests are provenance, not labels. They are never scored and never part of the
set's fingerprint, so recording, fixing or dropping them leaves every stored run
comparable, and a set without them loads and fingerprints exactly as before. An id is a
non-blank string, a digest is spelt as ``corpus.digest`` spells it; an id need not be
labelled (a digest of a document no label names is reported by lint, never used). reval
writes one for each document it records a judgment on; ``questions.lint.drift`` compares
them with a corpus; ``questions.digests_file`` reads them from a set file.
"""

from __future__ import annotations

from typing import Any

from retrieval_eval.corpus.digest import is_digest
from retrieval_eval.text import is_blank

DIGESTS_KEY = "document_digests"


def plain_digests(value: Any) -> bool:
    """Whether ``value`` is a well-formed digest map (the loader's fast path)."""
    return type(value) is dict and all(
        type(doc) is str and not is_blank(doc) and is_digest(digest)
        for doc, digest in value.items()
    )


def check_digests(value: Any) -> list[str]:
    """Problems with a question's ``document_digests`` (empty when fine or absent)."""
    if value is None:
        return []
    if not isinstance(value, dict):
        return [f"'{DIGESTS_KEY}' must map document ids to digests (sha256:<64 hex digits>)"]
    problems = []
    for doc, digest in value.items():
        if not isinstance(doc, str) or is_blank(doc):
            problems.append(f"'{DIGESTS_KEY}' has a key {doc!r} that is not a document id")
        elif not is_digest(digest):
            shown = repr(digest)[:80]
            problems.append(f"digest of {doc!r} must be sha256:<64 hex digits>, got {shown}")
    return problems
