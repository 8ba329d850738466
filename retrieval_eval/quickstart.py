"""The quickstart: the whole pipeline on the shipped example data, with no set-up.

Index the example corpus with the BM25 plugin, serve it over gRPC on a free loopback
port, evaluate the example set through the real client, save the run in the run store
and judge it against the previous quickstart run. Every part is the real one, so a
newcomer sees exactly what ``reval eval`` does against their own retriever.
"""

from __future__ import annotations

import dataclasses
import importlib
import logging
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from retrieval_eval.errors import PluginError
from retrieval_eval.example_data import corpus_path, questions_path
from retrieval_eval.records import RunResult
from retrieval_eval.regression.types import Thresholds, Verdict

if TYPE_CHECKING:
    from retrieval_eval.store import RunStore

log = logging.getLogger(__name__)

#: Chunking of the example corpus: long pages (the administrator's guide) become several
#: chunks, so the report exercises the distinct-document collapse.
CHUNK_WORDS = 150
CHUNK_OVERLAP = 30
#: Label that marks quickstart runs in the run store (see ``reval runs list``).
LABELS = {"source": "quickstart"}

Notify = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class QuickstartResult:
    """A saved quickstart run, its verdict against the previous one, and where it went."""

    run: RunResult
    verdict: Verdict
    database: str  # the store's URL, password masked
    seconds: float


def run_quickstart(db_url: str | None = None, *, notify: Notify | None = None) -> QuickstartResult:
    """Run the example end to end; ``notify`` receives one line per step, for humans.

    The run store is opened first, so that a bad ``db_url`` fails before any work. The
    server is stopped and the temporary index removed on every exit, Ctrl-C included.
    An interrupted evaluation is still saved (it never becomes a baseline).
    """
    from retrieval_eval.regression import judge
    from retrieval_eval.store import RunStore

    say = notify or (lambda message: log.info("%s", message))
    started = time.perf_counter()
    bm25 = _import_bm25()
    with RunStore.open(db_url) as store:
        run = _measure(bm25, store, say)
        run, baseline = _save(store, run, say)
    verdict = judge(run, baseline, Thresholds())
    return QuickstartResult(run, verdict, store.url, time.perf_counter() - started)


def _measure(bm25: ModuleType, store: RunStore, say: Notify) -> RunResult:
    """Index, serve and evaluate; on Ctrl-C save what was measured and re-raise."""
    from retrieval_eval.evaluation.coordinator import EvalOptions, EvaluationInterrupted, evaluate
    from retrieval_eval.questions.loading import load_question_set
    from retrieval_eval.retrievers.server.sdk import serve

    question_set = load_question_set(questions_path())
    with tempfile.TemporaryDirectory(prefix="reval-quickstart-") as tmp:
        index_dir = Path(tmp) / "index"
        info = bm25.build_index(
            corpus_path(), index_dir, chunk_words=CHUNK_WORDS, chunk_overlap=CHUNK_OVERLAP
        )
        say(
            f"indexed the example corpus: {info.documents} documents, {info.chunks} chunks "
            f"(BM25, {CHUNK_WORDS}-word chunks)"
        )
        retriever = bm25.open_index(index_dir)
        try:
            with serve(retriever, "127.0.0.1:0") as handle:
                target = f"grpc://{handle.address}"
                say(f"serving it over gRPC on {target}")
                say(f"evaluating {len(question_set)} golden questions of {question_set.name!r}")
                try:
                    (run,) = evaluate([question_set], [target], EvalOptions(labels=LABELS))
                except EvaluationInterrupted as e:
                    for partial in e.runs:
                        _save(store, partial, say)
                    raise
        finally:
            retriever.close()
    return run


def _save(store: RunStore, run: RunResult, say: Notify) -> tuple[RunResult, RunResult | None]:
    """Save ``run``; returns it with its id, and the baseline found before saving it."""
    baseline = store.find_baseline(run)
    run = dataclasses.replace(run, run_id=store.save(run))
    say(f"saved run {run.run_id} ({run.state.value}) in {store.url}")
    return run, baseline


def _import_bm25() -> ModuleType:
    """The BM25 plugin, imported only now: it is a separate distribution."""
    try:
        return importlib.import_module("reval_bm25")
    except ModuleNotFoundError as e:
        if e.name != "reval_bm25":
            raise
        raise PluginError(
            "the quickstart needs the BM25 plugin, which is not installed; install it with "
            "`pip install -e ./plugins/bm25` from a reval checkout"
        ) from e
