"""The llamaindex kind's fixtures (``support.llamaindex_kind``): every test here runs
offline (autouse), with the factory module written once per module (``folder``) and the
numpy cosine reference (``dense``)."""

from __future__ import annotations

from support.llamaindex_kind import dense, folder, offline

__all__ = ["dense", "folder", "offline"]
