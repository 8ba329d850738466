"""The fast paths for simple JMESPath expressions agree with the jmespath package on
random JSON documents (including wrong shapes: nulls, scalars, lists where objects are)."""

from __future__ import annotations

from typing import Any

import jmespath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval.retrievers.kinds.http.paths import _closure, compile_path

EXPRESSIONS = [
    "hits.hits[*]._id",
    "hits.hits[*]._score",
    "hits.hits[*]._source.chunk",
    "results[*].doc",
    "[*].id",
    "[*]",
    "@",
    "hits",
    "hits.hits[*].inner[*].id",
]
KEYS = st.sampled_from(
    ["hits", "_id", "_score", "_source", "chunk", "results", "doc", "id", "inner"]
)
LEAVES = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=3)
)
JSON = st.recursive(
    LEAVES,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(KEYS, children, max_size=4),
    max_leaves=25,
)


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_simple_paths_take_the_fast_route(expression: str) -> None:
    assert _closure(jmespath.compile(expression).parsed) is not None


@settings(max_examples=300)
@given(JSON, st.sampled_from(EXPRESSIONS))
def test_fast_paths_agree_with_jmespath(document: Any, expression: str) -> None:
    assert compile_path(expression)(document) == jmespath.search(expression, document)


@pytest.mark.parametrize(
    "expression", ["hits[0]._id", "hits[?x > `1`].id", "length(hits)", "hits[].id"]
)
def test_other_paths_are_left_to_jmespath(expression: str) -> None:
    document = {"hits": [{"id": "a", "_id": "a", "x": 2}, {"id": "b", "x": 0}]}
    assert _closure(jmespath.compile(expression).parsed) is None
    assert compile_path(expression)(document) == jmespath.search(expression, document)
