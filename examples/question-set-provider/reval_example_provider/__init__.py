"""An example question-set provider: three small sets about a fictional product's help centre.

The contract (``retrieval_eval.questions.provider.QuestionSetProvider``): ``list_sets()``
names the sets; ``load_set(name)`` returns a ``GoldenQuestionSet``, the path of a set file,
or the set document as a mapping. reval validates files and mappings like any user file.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib.resources import files
from pathlib import Path
from typing import Any

_SETS = files(__package__) / "sets"
_FILES = {"example-faq": "faq.yaml", "example-gaps": "gaps.jsonl"}


def _inline() -> dict[str, Any]:
    """A set built in code, e.g. from rows a service returned."""
    rows = [
        ("i1", "What does the starter plan cost per month?", "MATCH", ["pricing"]),
        ("i2", "Can I pay with a purchase order?", "GAP", ["billing-methods"]),
        ("i3", "Do you sell hardware?", "GAP", []),
    ]
    return {
        "description": "Built in code by the example provider.",
        "questions": [
            {"id": qid, "question": text, "form": form, "expected_document_ids": docs}
            for qid, text, form, docs in rows
        ],
    }


class ExampleSets:
    """Instantiated once per process by reval's registry."""

    def list_sets(self) -> Iterable[str]:
        return [*_FILES, "example-inline"]

    def load_set(self, name: str) -> Path | dict[str, Any]:
        if name == "example-inline":
            return _inline()
        return Path(str(_SETS / _FILES[name]))
