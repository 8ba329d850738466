"""JMESPath expressions as plain Python functions where they are simple, for speed.

The paths a search answer needs are almost always field chains and ``[*]`` projections
(``hits.hits[*]._id``). Those are turned into closures that do exactly what JMESPath's
interpreter does (a field of a non-object is null; a projection of a non-list is null and
drops null results), a few times faster; anything else (filters, functions, indexes,
slices, flatten) is evaluated by the ``jmespath`` package itself. A test checks both
agree on random documents.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jmespath

Search = Callable[[Any], Any]


def compile_path(expression: str) -> Search:
    """A function from a parsed JSON document to what ``expression`` selects."""
    compiled = jmespath.compile(expression)
    fast = _closure(compiled.parsed)
    return fast if fast is not None else compiled.search


def _closure(node: dict[str, Any]) -> Search | None:
    kind = node["type"]
    if kind in ("identity", "current"):
        return _identity
    if kind == "field":
        return _field(node["value"])
    if kind == "subexpression":
        steps = [_closure(child) for child in node["children"]]
        if any(step is None for step in steps):
            return None
        return _chain([s for s in steps if s is not None])
    if kind == "projection":
        left, right = (_closure(child) for child in node["children"])
        if left is None or right is None:
            return None
        return _projection(left, right, node["children"][1])
    return None


def _identity(value: Any) -> Any:
    return value


def _field(name: str) -> Search:
    def field(value: Any) -> Any:
        return value.get(name) if isinstance(value, dict) else None

    return field


def _chain(steps: list[Search]) -> Search:
    def chain(value: Any) -> Any:
        for step in steps:
            value = step(value)
            if value is None:
                return None
        return value

    return chain


def _projection(left: Search, right: Search, right_node: dict[str, Any]) -> Search:
    if right_node["type"] == "field":  # the common case: one comprehension
        name = right_node["value"]

        def project_field(value: Any) -> Any:
            base = left(value)
            if not isinstance(base, list):
                return None
            return [
                found
                for element in base
                if isinstance(element, dict) and (found := element.get(name)) is not None
            ]

        return project_field

    def project(value: Any) -> Any:
        base = left(value)
        if not isinstance(base, list):
            return None
        return [found for element in base if (found := right(element)) is not None]

    return project
