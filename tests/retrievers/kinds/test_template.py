"""Body templates: ``"{limit}"`` becomes the number, ``{question}`` the JSON-escaped
question; checked against an independent substitution over the parsed structure."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval.retrievers.kinds.http.template import BodyTemplate, render_text

ES = {"query": {"match": {"text": "{question}"}}, "size": "{limit}", "from": 0}


def substituted(value: Any, question: str, limit: int) -> Any:
    """What the rendered body must parse to, computed on the structure (not the text)."""
    if isinstance(value, dict):
        return {k: substituted(v, question, limit) for k, v in value.items()}
    if isinstance(value, list):
        return [substituted(v, question, limit) for v in value]
    if value == "{limit}":
        return limit
    if isinstance(value, str):
        parts = value.split("{question}")
        return question.join(p.replace("{limit}", str(limit)) for p in parts)
    return value


def test_the_elasticsearch_body() -> None:
    body = BodyTemplate.compile(ES).render('say "hi"\n', 12)
    assert json.loads(body) == {"query": {"match": {"text": 'say "hi"\n'}}, "size": 12, "from": 0}


TEMPLATES = [
    ES,
    {"q": "prefix {question} suffix", "n": ["{limit}", "top {limit}"], "braces": "{not a slot}"},
    ["{question}", "{question}", {"k": "{limit}"}],
    "{question}",
]


@given(st.text(), st.integers(min_value=1, max_value=1000), st.sampled_from(TEMPLATES))
def test_any_question_renders_to_valid_json_with_exactly_the_question(
    question: str, limit: int, template: Any
) -> None:
    rendered = BodyTemplate.compile(template).render(question, limit)
    parsed = json.loads(rendered.decode("utf-8", "surrogatepass"))
    assert parsed == substituted(template, question, limit)


def test_a_question_holding_a_placeholder_stays_literal() -> None:
    body = BodyTemplate.compile(ES).render('{limit} "{limit}" {question}', 5)
    assert json.loads(body)["query"]["match"]["text"] == '{limit} "{limit}" {question}'
    assert render_text("q={question}&n={limit}", "{limit}", 3) == "q={limit}&n=3"
    assert render_text("{limit}", "x", 7) == "7"
