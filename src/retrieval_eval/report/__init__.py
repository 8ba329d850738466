"""Reports, by subject, each with its formats side by side.

``run/`` (one or more evaluated runs and their verdicts: text, JSON, JUnit, Markdown,
HTML, TREC), ``comparison/`` (``runs compare``), ``history/`` (``runs history``),
``runs_list`` (``runs list``), ``diff`` (``reval diff``), ``tuning`` (``fusion tune``).
Shared: ``model`` (``RunReport``, what the run formats render), ``html/`` (the Jinja2
environment, base templates and assets), ``text_style``, ``safe_text``, ``plural``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from retrieval_eval.regression.verdict_records import RunReport

__all__ = ["RunReport"]


def __getattr__(name: str) -> Any:
    """``RunReport`` loads the run and verdict records when asked for, so that a light
    report module (``plural``, ``safe_text``) can be used without them."""
    if name == "RunReport":
        from retrieval_eval.regression.verdict_records import RunReport

        return RunReport
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
