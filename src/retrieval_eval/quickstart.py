"""The quickstart: the whole pipeline on the shipped example data, with no set-up.

Index the example corpus with the BM25 and the dense plugins, serve both over gRPC on free
loopback ports, and evaluate the example set on four retrievers through the real client:
BM25, dense, their RRF fusion, and BM25's candidates reranked by the dense model (the last
two are reval.toml entries, written to a temporary file). Every run is saved in the run
store and judged against the previous quickstart's run of the same retriever, then the
four are compared side by side. Every part is the real one, so a newcomer sees exactly
what ``reval eval`` does against their own retrievers.
"""

from __future__ import annotations

import json
import logging
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from retrieval_eval.comparison.compare import compare_runs
from retrieval_eval.errors import PluginError, UnknownNameError
from retrieval_eval.evaluation.coordinator import EvalOptions, EvaluationInterrupted, evaluate
from retrieval_eval.example_data import corpus_path, questions_path
from retrieval_eval.plugins import RETRIEVERS as NAMESPACE
from retrieval_eval.plugins import load_plugin
from retrieval_eval.questions.loading import load_question_set
from retrieval_eval.records.run import RunResult
from retrieval_eval.regression.record import judge_and_save
from retrieval_eval.regression.verdict_records import RunReport, Verdict
from retrieval_eval.report.comparison.html_view import render_comparison_html
from retrieval_eval.report.run.html_view import render_html
from retrieval_eval.retrievers.server.sdk import serve
from retrieval_eval.store.store import RunStore
from retrieval_eval.store.url import reval_home
from retrieval_eval.version import install_plugin

if TYPE_CHECKING:
    from retrieval_eval.comparison.results import Comparison

log = logging.getLogger(__name__)

#: Chunking of the example corpus: long pages (the administrator's guide) become several
#: chunks, so the report exercises the distinct-document collapse.
CHUNK_WORDS = 150
CHUNK_OVERLAP = 30
#: Label that marks quickstart runs in the run store (see ``reval runs list``).
LABELS = {"source": "quickstart"}
#: The four retrievers, as named in the quickstart's reval.toml; BM25 is the reference.
RETRIEVERS = ("bm25", "dense", "hybrid", "bm25-reranked")
#: Candidates the rerank stage asks BM25 for.
RERANK_DEPTH = 50

Notify = Callable[[str], None]


class IndexingFactory(Protocol):
    """A reference plugin's ``retrieval_eval.retrievers`` entry point: called with an index
    directory it opens that index; ``build_index`` writes one from a corpus file."""

    def __call__(self, argument: str | None) -> Any: ...

    def build_index(
        self, corpus: Path, out: Path, *, chunk_words: int, chunk_overlap: int
    ) -> Any: ...


@dataclass(frozen=True, slots=True)
class QuickstartResult:
    """The saved quickstart runs (BM25's first), each judged against the previous
    quickstart's run of the same retriever, and where they went."""

    run: RunResult
    verdict: Verdict
    database: str  # the store's URL, password masked
    seconds: float
    #: Every run with its verdict, in ``RETRIEVERS`` order (BM25's is ``run``).
    reports: tuple[RunReport, ...] = ()


def run_quickstart(db_url: str | None = None, *, notify: Notify | None = None) -> QuickstartResult:
    """Run the example end to end; ``notify`` receives one line per step, for humans.

    The run store is opened first, so that a bad ``db_url`` fails before any work. The
    server is stopped and the temporary index removed on every exit, Ctrl-C included.
    Judging and saving is ``judge_and_save``, exactly as ``reval eval`` does it; an
    interrupted evaluation is still saved (it never becomes a baseline).
    """
    say = notify or (lambda message: log.info("%s", message))
    started = time.perf_counter()
    bm25 = _factory("bm25")
    dense = _factory("dense")
    with RunStore.open(db_url) as store:
        try:
            runs = _measure(bm25, dense, say)
        except EvaluationInterrupted as e:
            judge_and_save(e.runs, store=store)
            raise
        recorded = judge_and_save(runs, store=store)
    if recorded.store_error is not None:
        raise recorded.store_error
    reports = tuple(recorded.reports)
    for report in reports:
        assert report.verdict is not None  # a whole run is always judged
    ids = ", ".join(f"{r.run.run_id} ({name})" for r, name in zip(reports, RETRIEVERS, strict=True))
    say(f"saved runs {ids} in {store.url}")
    first = reports[0]
    assert first.verdict is not None
    return QuickstartResult(
        first.run, first.verdict, store.url, time.perf_counter() - started, reports
    )


#: Where the quickstart writes the HTML report of its BM25 run and the HTML comparison of
#: its four runs, under ``$REVAL_HOME``.
REPORT_NAME = "quickstart-report.html"
COMPARISON_NAME = "quickstart-comparison.html"


def write_html_report(result: QuickstartResult, directory: Path | None = None) -> Path:
    """The run as one self-contained HTML file (``$REVAL_HOME/quickstart-report.html``
    unless ``directory`` is given), replaced by each quickstart."""
    folder = directory or reval_home()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / REPORT_NAME
    path.write_text(render_html([RunReport(result.run, result.verdict)]), encoding="utf-8")
    return path


def compare_quickstart(result: QuickstartResult) -> Comparison:
    """The four runs side by side, BM25 the reference: deltas with paired intervals, exact
    McNemar tests (Holm-corrected), the breakdown by form, rank overlap."""
    return compare_runs([r.run for r in result.reports])


def write_html_comparison(comparison: Comparison, directory: Path | None = None) -> Path:
    """The comparison as one self-contained HTML file (``$REVAL_HOME/quickstart-
    comparison.html`` unless ``directory`` is given), replaced by each quickstart."""
    folder = directory or reval_home()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / COMPARISON_NAME
    path.write_text(render_comparison_html(comparison), encoding="utf-8")
    return path


def _measure(bm25: IndexingFactory, dense: IndexingFactory, say: Notify) -> list[RunResult]:
    """Index, serve and evaluate (Ctrl-C raises ``EvaluationInterrupted`` with the runs)."""
    question_set = load_question_set(questions_path())
    chunks = {"chunk_words": CHUNK_WORDS, "chunk_overlap": CHUNK_OVERLAP}
    with tempfile.TemporaryDirectory(prefix="reval-quickstart-") as tmp:
        lexical, vector = Path(tmp) / "bm25", Path(tmp) / "dense"
        info = bm25.build_index(corpus_path(), lexical, **chunks)
        say(
            f"indexed the example corpus: {info.documents} documents, {info.chunks} chunks "
            f"(BM25, {CHUNK_WORDS}-word chunks)"
        )
        info = dense.build_index(corpus_path(), vector, **chunks)
        say(f"embedded it: {info.chunks} chunks ({info.embedder}, offline)")
        with (
            _served(bm25(str(lexical))) as bm25_address,
            _served(dense(str(vector))) as dense_address,
        ):
            say(f"serving them over gRPC on grpc://{bm25_address} and grpc://{dense_address}")
            config = _write_config(Path(tmp) / "reval.toml", bm25_address, dense_address)
            say(
                f"evaluating {len(question_set)} golden questions of {question_set.name!r} "
                f"on {', '.join(RETRIEVERS)}"
            )
            return evaluate(
                [question_set], list(RETRIEVERS), EvalOptions(labels=LABELS), config_path=config
            )


@contextmanager
def _served(retriever: Any) -> Iterator[str]:
    """``retriever`` served over gRPC on a free loopback port; closed on every exit."""
    try:
        with serve(retriever, "127.0.0.1:0") as handle:
            yield handle.address
    finally:
        retriever.close()


def _write_config(path: Path, bm25_address: str, dense_address: str) -> Path:
    """The quickstart's reval.toml: the two servers by name, their fusion, the rerank."""
    path.write_text(
        f"""[retrievers.bm25]
address = "grpc://{bm25_address}"

[retrievers.dense]
address = "grpc://{dense_address}"

[retrievers.hybrid]
fuse = ["bm25", "dense"]
method = "rrf"

[retrievers.bm25-reranked]
rerank = "bm25"
depth = {RERANK_DEPTH}
corpus = {json.dumps(str(corpus_path()))}
scorer = "embedding"
embedder = "wordllama"
""",
        encoding="utf-8",
    )
    return path


def _factory(name: str) -> IndexingFactory:
    """A reference plugin (``bm25``, ``dense``) through its entry point: each is a
    separate distribution."""
    hint = f"install it: {install_plugin(name)}"
    label = "BM25" if name == "bm25" else name
    try:
        factory = load_plugin(NAMESPACE, name, kind="retriever")
    except UnknownNameError as e:
        raise PluginError(
            f"the quickstart needs the {label} plugin, which is not installed; {hint}"
        ) from e
    except PluginError as e:
        raise PluginError(
            f"the quickstart needs the {label} plugin, which did not load ({e}); {hint}"
        ) from e
    if not callable(getattr(factory, "build_index", None)):
        raise PluginError(f"the `{name}` retriever plugin cannot build an index; {hint}")
    return factory  # type: ignore[no-any-return]
