"""The llamaindex kind's fixtures (``support.llamaindex_kind``): every test here runs
offline (autouse), with the factory module written once per module (``folder``); the
numpy cosine reference (``dense``) is the kinds' (../conftest.py)."""

from __future__ import annotations

from support.llamaindex_kind import folder, offline

__all__ = ["folder", "offline"]
