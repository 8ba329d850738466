"""The quickstart: the whole pipeline on the shipped example data, with no set-up.

Index the example corpus with the BM25 plugin, serve it over gRPC on a free loopback
port, evaluate the example set through the real client, save the run in the run store
and judge it against the previous quickstart run. Every part is the real one, so a
newcomer sees exactly what ``reval eval`` does against their own retriever.
"""

from __future__ import annotations

import logging
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from retrieval_eval.errors import PluginError, UnknownNameError
from retrieval_eval.example_data import corpus_path, questions_path
from retrieval_eval.records import RunResult
from retrieval_eval.regression.verdict_records import Verdict

log = logging.getLogger(__name__)

#: Chunking of the example corpus: long pages (the administrator's guide) become several
#: chunks, so the report exercises the distinct-document collapse.
CHUNK_WORDS = 150
CHUNK_OVERLAP = 30
#: Label that marks quickstart runs in the run store (see ``reval runs list``).
LABELS = {"source": "quickstart"}

Notify = Callable[[str], None]


class IndexingFactory(Protocol):
    """The BM25 plugin's ``retrieval_eval.retrievers`` entry point: called with an index
    directory it opens that index; ``build_index`` writes one from a corpus file."""

    def __call__(self, argument: str | None) -> Any: ...

    def build_index(
        self, corpus: Path, out: Path, *, chunk_words: int, chunk_overlap: int
    ) -> Any: ...


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
    Judging and saving is ``judge_and_save``, exactly as ``reval eval`` does it; an
    interrupted evaluation is still saved (it never becomes a baseline).
    """
    from retrieval_eval.evaluation.coordinator import EvaluationInterrupted
    from retrieval_eval.regression.record import judge_and_save
    from retrieval_eval.store import RunStore

    say = notify or (lambda message: log.info("%s", message))
    started = time.perf_counter()
    bm25 = _bm25_factory()
    with RunStore.open(db_url) as store:
        try:
            run = _measure(bm25, say)
        except EvaluationInterrupted as e:
            judge_and_save(e.runs, store=store)
            raise
        recorded = judge_and_save(run, store=store)
    if recorded.store_error is not None:
        raise recorded.store_error
    (report,) = recorded.reports
    assert report.verdict is not None  # a whole run is always judged
    say(f"saved run {report.run.run_id} ({report.run.state.value}) in {store.url}")
    return QuickstartResult(report.run, report.verdict, store.url, time.perf_counter() - started)


#: Where the quickstart writes the HTML report of its run, under ``$REVAL_HOME``.
REPORT_NAME = "quickstart-report.html"


def write_html_report(result: QuickstartResult, directory: Path | None = None) -> Path:
    """The run as one self-contained HTML file (``$REVAL_HOME/quickstart-report.html``
    unless ``directory`` is given), replaced by each quickstart."""
    from retrieval_eval.report.model import RunReport
    from retrieval_eval.report.run.html_view import render_html
    from retrieval_eval.store.url import reval_home

    folder = directory or reval_home()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / REPORT_NAME
    path.write_text(render_html([RunReport(result.run, result.verdict)]), encoding="utf-8")
    return path


def _measure(bm25: IndexingFactory, say: Notify) -> RunResult:
    """Index, serve and evaluate (Ctrl-C raises ``EvaluationInterrupted`` with the runs)."""
    from retrieval_eval.evaluation.coordinator import EvalOptions, evaluate
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
        retriever = bm25(str(index_dir))
        try:
            with serve(retriever, "127.0.0.1:0") as handle:
                target = f"grpc://{handle.address}"
                say(f"serving it over gRPC on {target}")
                say(f"evaluating {len(question_set)} golden questions of {question_set.name!r}")
                (run,) = evaluate([question_set], [target], EvalOptions(labels=LABELS))
        finally:
            retriever.close()
    return run


def _bm25_factory() -> IndexingFactory:
    """The BM25 plugin, through its entry point: it is a separate distribution."""
    from retrieval_eval.plugins import RETRIEVERS, load_plugin

    hint = "install it with `pip install -e ./plugins/bm25` from a reval checkout"
    try:
        factory = load_plugin(RETRIEVERS, "bm25", kind="retriever")
    except UnknownNameError as e:
        raise PluginError(
            f"the quickstart needs the BM25 plugin, which is not installed; {hint}"
        ) from e
    except PluginError as e:
        raise PluginError(
            f"the quickstart needs the BM25 plugin, which did not load ({e}); {hint}"
        ) from e
    if not callable(getattr(factory, "build_index", None)):
        raise PluginError(f"the `bm25` retriever plugin cannot build an index; {hint}")
    return factory  # type: ignore[no-any-return]
