"""A JSON Schema (draft 2020-12) of the set format, for editors that validate as you type.

``question_set_schema()`` describes a YAML/JSON set document; its ``$defs`` hold
``question`` (one JSONL line) and ``header`` (the optional first JSONL line). The loader is
the authority (it also checks unique ids and prints line numbers); the schema catches the
same shape mistakes early. Save it with ``reval sets schema > question-set.schema.json`` and
point the editor at it (VS Code YAML extension: a first line
``# yaml-language-server: $schema=./question-set.schema.json``).
"""

from __future__ import annotations

from typing import Any

from retrieval_eval.questions.digests import DIGESTS_KEY
from retrieval_eval.questions.formats import FORMAT_VERSION, HEADER_KEY
from retrieval_eval.questions.judgments import JUDGMENTS_KEY, LEVEL_KEY, MAX_GRADE, SCALE_KEY
from retrieval_eval.questions.labelling import (
    GENERATED_KEY,
    LABELLING_KEY,
    POOL_KEY,
    JudgementState,
)
from retrieval_eval.records.outcome import Form
from retrieval_eval.text import WHITE_SPACE


def _forms() -> list[str]:
    values = [f.value for f in Form]
    return values + [v.lower() for v in values] + [v.capitalize() for v in values]


#: Some character outside Unicode's White_Space: the loader's rule for question text and
#: document ids (``retrieval_eval.text``), spelt with escapes that ECMAScript and Python
#: regular expressions read alike (their own ``\\S`` each differ from it).
NOT_BLANK = "[^" + "".join(f"\\u{ord(c):04x}" for c in WHITE_SPACE) + "]"


def question_schema() -> dict[str, Any]:
    text = {"type": "string", "pattern": r"\S"}
    not_blank = {"type": "string", "pattern": NOT_BLANK}
    return {
        "type": "object",
        "description": "One golden question.",
        "anyOf": [{"required": ["expected_document_ids"]}, {"required": [JUDGMENTS_KEY]}],
        "required": ["id", "question"],
        "additionalProperties": False,
        "properties": {
            "id": {**text, "description": "Unique in the set."},
            "question": {**not_blank, "description": "The question as a user would ask it."},
            "form": {
                "enum": [*_forms(), None],
                "description": "MATCH (phrased like the answering text), GAP (in the user's "
                "own words) or UNLABELLED; any case; missing or null means UNLABELLED.",
            },
            "expected_document_ids": {
                "type": "array",
                "items": not_blank,
                "uniqueItems": True,
                "description": "Every document that answers the question (any one counts); "
                "[] declares that no document answers it. An id without a grade in "
                "judgments takes the set's relevance level.",
            },
            JUDGMENTS_KEY: {
                "type": "object",
                "propertyNames": not_blank,
                "additionalProperties": {"type": "integer", "maximum": MAX_GRADE},
                "description": "Document id -> grade: 0 = judged not relevant (a negative "
                "grade reads as 0); a document is expected when its grade reaches the "
                "set's relevance level. A document also in expected_document_ids must "
                "reach it.",
            },
            "hard_class": {
                **text,
                "type": ["string", "null"],
                "description": "Free-form: near-duplicate, specific-vs-general, prose-free, "
                "boilerplate, normal, ...",
            },
            "answer_gist": {
                "type": ["string", "null"],
                "description": "Notes for the labeller; never scored.",
            },
            DIGESTS_KEY: {
                "type": "object",
                "propertyNames": not_blank,
                "additionalProperties": {"type": "string", "pattern": "^sha256:[0-9a-f]{64}$"},
                "description": "Document id -> digest of the text its label was judged on "
                "(provenance: never scored, not in the fingerprint; `reval sets lint --corpus` "
                "says which documents changed since).",
            },
            LABELLING_KEY: labelling_schema(),
        },
    }


def labelling_schema() -> dict[str, Any]:
    """A drafted question's candidates and judgement (see ``questions.labelling``)."""
    decision = {"type": ["boolean", "null"]}
    candidate = {
        "type": "object",
        "required": ["document_id"],
        "additionalProperties": False,
        "properties": {
            "document_id": {"type": "string", "pattern": NOT_BLANK},
            "title": {"type": ["string", "null"]},
            "snippet": {"type": ["string", "null"]},
            "found_by": {
                "type": "object",
                "additionalProperties": {"type": "integer", "minimum": 1},
                "description": "Retriever spec -> rank (from 1) among its distinct documents.",
            },
            "relevant": {**decision, "description": "null until judged."},
            "source": {
                "type": ["string", "null"],
                "description": "Who decided: human:<name> or llm:<model>@<prompt digest>.",
            },
            "document_digest": {
                "type": ["string", "null"],
                "description": "sha256 of the document text the decision was made on.",
            },
            "reason": {"type": ["string", "null"], "description": "Why, in one line."},
        },
    }
    entry = {
        "type": "object",
        "description": "One judgement, as it was made.",
        "properties": {
            "by": {"type": "string"},
            "at": {"type": "string"},
            "relevant": {"type": "array", "items": {"type": "string"}},
            "not_relevant": {"type": "array", "items": {"type": "string"}},
            "nothing_answers": {"type": "boolean"},
            "form": {"type": ["string", "null"]},
            "hard_class": {"type": ["string", "null"]},
        },
    }
    return {
        "type": "object",
        "description": "A pooled draft's candidates and judgement. A question whose state "
        "is not 'judged' is never evaluated.",
        "required": ["state"],
        "additionalProperties": False,
        "properties": {
            "state": {"enum": [s.value for s in JudgementState]},
            "nothing_answers": {
                "type": "boolean",
                "description": "Judged: nothing in the corpus answers the question.",
            },
            "suggestion": {
                "type": "object",
                "properties": {
                    "form": {"enum": ["MATCH", "GAP"]},
                    "overlap": {"type": "number", "minimum": 0, "maximum": 1},
                },
            },
            "judged_by": {"type": ["string", "null"]},
            "judged_at": {"type": ["string", "null"]},
            "candidates": {"type": "array", "items": candidate},
            "history": {"type": "array", "items": entry},
            GENERATED_KEY: {
                "type": "object",
                "description": "What a generated question came from (sets generate).",
            },
        },
    }


def pool_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "description": "How a drafted set's candidates were pooled.",
        "required": ["depth", "retrievers"],
        "additionalProperties": False,
        "properties": {
            "depth": {"type": "integer", "minimum": 1},
            "retrievers": {"type": "array", "items": {"type": "string"}},
            "corpus": {"type": ["string", "null"]},
        },
    }


def header_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "description": "The optional first line of a JSONL set.",
        "required": [HEADER_KEY],
        "additionalProperties": False,
        "properties": {
            HEADER_KEY: {"const": FORMAT_VERSION, "description": "Format version."},
            "name": {"type": "string", "pattern": r"\S"},
            "description": {"type": ["string", "null"]},
            POOL_KEY: pool_schema(),
            LEVEL_KEY: {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_GRADE,
                "description": "The grade a document needs to be expected (default 1).",
            },
            SCALE_KEY: {
                "type": "array",
                "prefixItems": [{"type": "integer", "minimum": 0}] * 2,
                "minItems": 2,
                "maxItems": 2,
                "description": "[lowest, highest]: the grades the labellers use; sets lint "
                "reports a grade outside it.",
            },
            GENERATED_KEY: {
                "type": "object",
                "description": "How a generated draft was made: model, prompt, sample, seed.",
            },
        },
    }


def question_set_schema() -> dict[str, Any]:
    header = header_schema()
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"reval golden question set (format version {FORMAT_VERSION})",
        "oneOf": [
            {
                "type": "object",
                "required": ["questions"],
                "additionalProperties": False,
                "properties": {
                    **header["properties"],
                    "questions": {
                        "type": "array",
                        "minItems": 1,
                        "items": {"$ref": "#/$defs/question"},
                    },
                },
            },
            {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/question"}},
        ],
        "$defs": {"question": question_schema(), "header": header},
    }
