"""Fixtures shared by every core test (defined in ``support.fixtures``)."""

from __future__ import annotations

from support.fixtures import (
    isolated_home,
    isolated_session_home,
    postgres_url,
    repo_root,
    scifact_dir,
)

__all__ = ["isolated_home", "isolated_session_home", "postgres_url", "repo_root", "scifact_dir"]
