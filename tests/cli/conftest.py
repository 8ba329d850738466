"""Live retrievers served over real gRPC on 127.0.0.1 port 0, golden sets written as YAML,
and helpers that run ``reval`` in-process (CliRunner) or as the installed executable."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from support.cli import FAQ, SUPPORT, TableRetriever, write_set

from retrieval_eval.cli.main import cli


@pytest.fixture
def sets(tmp_path: Path) -> dict[str, Path]:
    return {
        "faq": write_set(tmp_path, "faq", FAQ),
        "support": write_set(tmp_path, "support", SUPPORT),
    }


@pytest.fixture
def serve_table() -> Iterator[Callable[..., str]]:
    """Start a TableRetriever server; returns its ``grpc://127.0.0.1:PORT``."""
    from retrieval_eval import serve

    handles = []

    def start(answers: Mapping[str, list[str]], **kwargs: object) -> str:
        handle = serve(TableRetriever(answers, **kwargs))  # type: ignore[arg-type]
        handles.append(handle)
        return f"grpc://{handle.address}"

    yield start
    for handle in handles:
        handle.stop(grace=None)


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'runs.sqlite'}"


@pytest.fixture
def invoke() -> Callable[..., Result]:
    """``reval ARGS`` in-process; library errors propagate (catch_exceptions=False)."""
    runner = CliRunner()

    def run(*args: str | Path) -> Result:
        return runner.invoke(cli, [str(a) for a in args], catch_exceptions=False)

    return run
