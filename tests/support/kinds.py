"""What the retriever kinds' tests share (tests/retrievers/kinds): the numpy cosine
reference the vector kinds are checked against, one question asked of an entry, a run's
figures against the reference, and ``reval eval`` where a kind's client is missing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from retrieval_eval.example_data import questions_path
from retrieval_eval.retrievers.opening import open_retriever
from retrieval_eval.retrievers.protocol import Ranking
from support.cosine import Reference, reference


@pytest.fixture(scope="session")
def dense() -> Reference:
    """The example corpus embedded once for every kind's tests (see ``support.cosine``)."""
    return reference()


async def ask(
    name: str, path: Path, question: str = "restore a deleted file", limit: int = 5
) -> Ranking:
    """Entry ``name`` of reval.toml ``path`` asked one question, then closed."""
    retriever = open_retriever(name, config_path=path)
    try:
        return await retriever.retrieve(question, limit)
    finally:
        await retriever.close()


def assert_reference_figures(run: dict[str, Any], dense: Reference) -> None:
    """A run of the example set (``reval eval --format json``) has the reference's top-1
    and top-3 hit rates at the run's limit."""
    expected = dense.hit_rates(run["parameters"]["limit"])
    assert run["metrics"]["top1_hit_rate"] == pytest.approx(expected["top1_hit_rate"])
    assert run["metrics"]["top3_hit_rate"] == pytest.approx(expected["top3_hit_rate"])


def eval_without(
    module: str, config: Path, name: str, home: Path
) -> subprocess.CompletedProcess[str]:
    """``reval eval`` of entry ``name`` in a real interpreter in which ``module`` cannot be
    imported (a None entry in sys.modules makes the import fail, as for an absent
    package)."""
    script = (
        f"import sys; sys.modules[{module!r}] = None\n"
        "from retrieval_eval.cli.main import main\n"
        f"sys.argv = ['reval', 'eval', '--config', {str(config)!r}, "
        f"'--set', {str(questions_path())!r}, '--retriever', {name!r}]\n"
        "main()\n"
    )
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
        env={**os.environ, "REVAL_HOME": str(home)},
    )  # fmt: skip
