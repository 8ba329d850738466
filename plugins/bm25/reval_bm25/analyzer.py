"""Text analysis shared by indexing and querying, recorded in the index metadata.

Defaults reproduce the measured BEIR SciFact figure (nDCG@10 0.684): simple tokenizer,
tokens of 40+ bytes removed, lowercase, English stopwords, English (Snowball) stemmer.
Settings are data, so an index is always queried with the analysis it was built with.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from importlib.metadata import version
from typing import Any

import tantivy

from reval_bm25.errors import Bm25IndexError

#: Name under which the analyzer is registered on every tantivy index we open.
TOKENIZER_NAME = "reval_bm25"


@dataclass(frozen=True, slots=True)
class AnalyzerSettings:
    tokenizer: str = "simple"
    remove_long: int = 40
    lowercase: bool = True
    stopwords: str | None = "english"
    stemmer: str | None = "english"

    def build(self) -> tantivy.TextAnalyzer:
        """A fresh tantivy analyzer (not shared between threads: analysis mutates it)."""
        if self.tokenizer != "simple":
            raise Bm25IndexError(f"unsupported tokenizer {self.tokenizer!r} (only 'simple')")
        builder = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        if self.remove_long:
            builder = builder.filter(tantivy.Filter.remove_long(self.remove_long))
        if self.lowercase:
            builder = builder.filter(tantivy.Filter.lowercase())
        if self.stopwords:
            builder = builder.filter(tantivy.Filter.stopword(self.stopwords))
        if self.stemmer:
            builder = builder.filter(tantivy.Filter.stemmer(self.stemmer))
        return builder.build()

    def label(self) -> str:
        """Compact one-line form, e.g. for Describe metadata and the pipeline string."""
        parts = [self.tokenizer]
        if self.remove_long:
            parts.append(f"remove_long={self.remove_long}")
        if self.lowercase:
            parts.append("lowercase")
        if self.stopwords:
            parts.append(f"stopwords={self.stopwords}")
        if self.stemmer:
            parts.append(f"stemmer={self.stemmer}")
        return ",".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AnalyzerSettings:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise Bm25IndexError(f"unknown analyzer settings {unknown} (built by a newer version?)")
        return cls(**dict(data))


def tantivy_version() -> str:
    """Version of the installed tantivy bindings (part of every index's identity)."""
    return version("tantivy")
