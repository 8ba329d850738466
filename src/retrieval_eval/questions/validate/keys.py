"""The keys a set file may use, and the misspellings people make of them.

Unknown keys are errors with a "did you mean" suggestion (``SYNONYMS`` maps the names
other tools use to ours), because a misspelt key would otherwise silently drop a label.
"""

from __future__ import annotations

from retrieval_eval.questions.formats import HEADER_KEY
from retrieval_eval.questions.judgments import JUDGMENTS_KEY, LEVEL_KEY, SCALE_KEY
from retrieval_eval.questions.labelling import GENERATED_KEY, LABELLING_KEY, POOL_KEY
from retrieval_eval.questions.wellformed import QUESTION_FIELDS

QUESTION_KEYS = (*QUESTION_FIELDS, LABELLING_KEY)
HEADER_KEYS = (
    HEADER_KEY, "name", "description", "questions", POOL_KEY, LEVEL_KEY, SCALE_KEY, GENERATED_KEY,
)  # fmt: skip
SYNONYMS = {
    "text": "question",
    "query": "question",
    "_id": "id",
    "qid": "id",
    "query_id": "id",
    "expected": "expected_document_ids",
    "expected_ids": "expected_document_ids",
    "document_ids": "expected_document_ids",
    "doc_ids": "expected_document_ids",
    "relevant": "expected_document_ids",
    "targets": "expected_document_ids",
    "grades": JUDGMENTS_KEY,
    "qrels": JUDGMENTS_KEY,
    "judgements": JUDGMENTS_KEY,
    "rel_level": LEVEL_KEY,
    "relevance": LEVEL_KEY,
    "scale": SCALE_KEY,
    "gist": "answer_gist",
    "answer": "answer_gist",
    "class": "hard_class",
    "category": "hard_class",
    "title": "name",
}
