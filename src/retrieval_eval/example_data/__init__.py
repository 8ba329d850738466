"""Example data shipped with the package: a small help-centre corpus and a golden set.

Used by ``reval quickstart`` and the tests. It is not a built-in golden set for anyone's
corpus: labels only mean something against the documents they were written for.
"""

from __future__ import annotations

from pathlib import Path

_HERE = Path(__file__).resolve().parent

#: Name of the example question set (the ``name`` field of questions.yaml).
EXAMPLE_SET_NAME = "larkspur-example"


def corpus_path() -> Path:
    """The example corpus: BEIR-style JSONL (``_id``, ``title``, ``text``)."""
    return _HERE / "corpus.jsonl"


def questions_path() -> Path:
    """The golden question set written against :func:`corpus_path`."""
    return _HERE / "questions.yaml"
