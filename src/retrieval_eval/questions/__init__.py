"""Golden question sets: the model, set files, provider plugins, validation, BEIR and TREC import.

The public API, imported lazily (so that ``questions.model`` stays cheap to import)::

    load_question_set(source)    a file, a one-set directory, or a registered name
    load_question_sets(source)   every set of a directory or provider
    write_question_set(qs, path) YAML / JSON / JSONL by suffix (+ .gz)
    import_beir(directory, split="test", name=None)
    import_trec(qrels, topics, name=None)
    QuestionSetRegistry          providers from the retrieval_eval.question_sets entry points
    QuestionSetProvider          the provider plugin contract (a Protocol)
"""

from __future__ import annotations

from retrieval_eval.lazy_names import lazy_getattr
from retrieval_eval.questions.model import GoldenQuestion, GoldenQuestionSet
from retrieval_eval.records import Form

_LAZY = {
    "load_question_set": "retrieval_eval.questions.loading",
    "load_question_sets": "retrieval_eval.questions.loading",
    "validate_source": "retrieval_eval.questions.validation",
    "write_question_set": "retrieval_eval.questions.formats",
    "import_beir": "retrieval_eval.questions.beir",
    "import_trec": "retrieval_eval.questions.trec",
    "QuestionSetRegistry": "retrieval_eval.questions.registry",
    "QuestionSetProvider": "retrieval_eval.questions.provider",
    "question_set_schema": "retrieval_eval.questions.schema",
}

__all__ = ["Form", "GoldenQuestion", "GoldenQuestionSet", *_LAZY]


__getattr__ = lazy_getattr(globals(), _LAZY)
