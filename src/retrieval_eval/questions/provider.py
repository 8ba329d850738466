"""The contract of a question-set provider plugin (namespace ``retrieval_eval.question_sets``).

A distribution registers an entry point whose name is the *provider name*::

    [project.entry-points."retrieval_eval.question_sets"]
    acme = "acme_reval.sets:AcmeSets"

The entry point's object is a provider (anything with the two methods below), or a class
or zero-argument factory returning one; reval instantiates it once per process. A provider
offers one or more *sets*, each with a name of its own (no ``/`` in it). Users name a set by
its set name, or as ``PROVIDER:SET`` when two providers offer the same name; naming the
provider alone (``load_question_sets("acme")``) yields all of its sets.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any, Protocol, runtime_checkable

from retrieval_eval.questions.model import GoldenQuestionSet

#: What ``load_set`` may return: a ready set, a set file to read (package data, a cache),
#: or the parsed document (the YAML/JSON layout as a mapping or a bare list of question
#: mappings, e.g. fetched from a service). Files and documents are validated exactly like
#: user files; whatever it returns, the set takes the name it was asked for.
SetSource = GoldenQuestionSet | os.PathLike[str] | str | Mapping[str, Any] | list[Any]


@runtime_checkable
class QuestionSetProvider(Protocol):
    def list_sets(self) -> Iterable[str]:
        """The names of the sets this provider offers; cheap (no set needs loading)."""
        ...

    def load_set(self, name: str) -> SetSource:
        """The set called ``name`` (one of ``list_sets()``); raise to report a failure."""
        ...
