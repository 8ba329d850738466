"""The core analyzer gives the BM25 plugin's (tantivy's) terms, so the overlap the form
check measures is the vocabulary BM25 matches on."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from support.lint import EXAMPLE_CORPUS

from retrieval_eval.questions.lint.analyzer import TermAnalyzer, tokens
from retrieval_eval.questions.lint.overlap import TermWeights, vocabulary_overlap

AnalyzerSettings = pytest.importorskip("reval_bm25.analyzer").AnalyzerSettings

TRICKY = [
    "The café's naïve Über-cache: 3.2x faster? E104, foo_bar & x" + "y" * 45,
    "ÉÉÉÉÉÉÉÉÉÉÉÉÉÉÉÉÉÉÉÉ running runs ran generously",
    "It's what they will do with THIS and that, no?",
]


def texts(path: Path) -> list[str]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        docs = [json.loads(line) for line in f if line.strip()]
    return [f"{d.get('title') or ''}\n{d['text']}" for d in docs]


def assert_same_terms(samples: list[str]) -> None:
    plugin = AnalyzerSettings().build()
    mine = TermAnalyzer()
    for text in samples:
        assert mine.terms(text) == plugin.analyze(text), text[:80]


def test_same_terms_as_the_plugin_on_the_example_corpus() -> None:
    assert_same_terms(texts(EXAMPLE_CORPUS) + TRICKY)


@pytest.mark.scifact
def test_same_terms_as_the_plugin_on_scifact(scifact_dir: Path) -> None:
    assert_same_terms(texts(scifact_dir / "corpus.jsonl.gz"))


def test_tokens_keep_long_words_below_40_bytes() -> None:
    assert tokens("a" * 39 + " " + "b" * 40) == ["a" * 39]
    assert tokens("é" * 19 + " " + "é" * 20) == ["é" * 19]


def test_boilerplate_counts_for_nothing() -> None:
    weights = TermWeights.from_term_sets([{"help", "footer", f"t{i}"} for i in range(100)])
    assert weights.idf("footer") < 0.01 < weights.idf("t1")
    overlap = vocabulary_overlap({"footer", "t1", "zzz"}, [{"footer", "help"}], weights)
    assert overlap < 0.01
    assert vocabulary_overlap({"t1", "zzz"}, [{"t1"}], weights) == pytest.approx(
        weights.idf("t1") / (weights.idf("t1") + weights.idf("zzz"))
    )
