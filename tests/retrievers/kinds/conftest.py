"""Fixtures of the retriever kinds' tests (``support.kinds``): the numpy cosine reference
the vector kinds are checked against, built once per session."""

from __future__ import annotations

from support.kinds import dense

__all__ = ["dense"]
