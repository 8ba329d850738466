"""Fixtures of the pytest plugin's tests: a suite written to pytester's directory and
run by pytest in a subprocess, and retrievers served over gRPC."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import yaml
from support.plugin_suite import RETRIEVER, SET, UNUSED_PLUGINS


@pytest.fixture
def serve_retriever():
    from retrieval_eval.retrievers.server.sdk import serve

    handles = []

    def start(obj: object):
        handles.append(serve(obj))
        return handles[-1]

    yield start
    for handle in handles:
        handle.stop(grace=None)


@pytest.fixture
def suite(pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Write the set and the retriever; return a runner of a test body against a DB."""
    (pytester.path / "faq.yaml").write_text(yaml.safe_dump(SET, sort_keys=False))
    pytester.makepyfile(table_retriever=RETRIEVER)
    db = f"sqlite:///{tmp_path / 'runs.sqlite'}"

    def run(body: str, *args: str, env: dict[str, str] | None = None):
        pytester.makepyfile(
            test_quality="from table_retriever import Table\n\n" + textwrap.dedent(body)
        )
        for key, value in (env or {}).items():
            monkeypatch.setenv(key, value)
        return pytester.runpytest_subprocess(
            "--reval-db", db, "-p", "no:cacheprovider", *UNUSED_PLUGINS, *args
        )

    run.db = db  # type: ignore[attr-defined]
    return run
