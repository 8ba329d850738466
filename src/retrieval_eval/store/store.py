"""RunStore: runs in, runs out, by id; history listings, baselines, pins and retention.

Every write is one short transaction (all rows prepared before it begins), retried while
another writer holds the lock, so concurrent ``reval eval`` processes all get stored.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from functools import partial
from typing import TYPE_CHECKING, TypeVar

from sqlalchemy import Connection, Engine, select
from sqlalchemy.engine import URL
from sqlalchemy.exc import IntegrityError

from retrieval_eval.errors import InputError, StoreError, UnknownNameError
from retrieval_eval.records.run import RunResult, RunState
from retrieval_eval.store import baselines, queries, retention, serialize
from retrieval_eval.store.engine import (
    BEGIN_MODE,
    create_store_engine,
    prepare_directory,
    with_retry,
)
from retrieval_eval.store.ids import new_run_id
from retrieval_eval.store.loading import load_run, stored_runs
from retrieval_eval.store.models import run_table
from retrieval_eval.store.schema import ensure_schema
from retrieval_eval.store.stored_run import Accepted, HowAccepted, StoredRun
from retrieval_eval.store.url import mask, resolve_url, sqlite_path
from retrieval_eval.store.verdicts import VerdictLike
from retrieval_eval.store.writing import id_taken, insert_first_run, insert_run

if TYPE_CHECKING:  # listings load it (``queries.summaries``); judging a run does not
    from retrieval_eval.store.summaries import RunSummary

log = logging.getLogger(__name__)
T = TypeVar("T")

DEFAULT_LOCK_TIMEOUT_S = 30.0


class RunStore:
    """Persisted evaluation runs. Build with :meth:`open`; close when done."""

    def __init__(self, engine: Engine, url: URL, lock_timeout_s: float) -> None:
        self._engine, self._url, self._lock_timeout_s = engine, url, lock_timeout_s

    @classmethod
    def open(
        cls, url: str | None = None, *, lock_timeout_s: float = DEFAULT_LOCK_TIMEOUT_S
    ) -> RunStore:
        """Open (creating and migrating if needed) the store at ``url``, else at
        $REVAL_DATABASE_URL, else the SQLite file ``$REVAL_HOME/runs.sqlite``."""
        resolved = resolve_url(url)
        path = sqlite_path(resolved)
        if path is not None:
            prepare_directory(resolved, path)
        engine = create_store_engine(resolved, lock_timeout_s)
        try:
            ensure_schema(engine, resolved, lock_timeout_s)
        except BaseException:
            engine.dispose()
            raise
        return cls(engine, resolved, lock_timeout_s)

    @property
    def url(self) -> str:
        """The store's URL with any password masked."""
        return mask(self._url)

    def close(self) -> None:
        self._engine.dispose()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- writing -------------------------------------------------------------------------

    def _write(self, action: str, work: Callable[[Connection], T]) -> T:
        def attempt() -> T:
            options = {BEGIN_MODE: "IMMEDIATE"}
            with self._engine.connect().execution_options(**options) as conn, conn.begin():
                return work(conn)

        return with_retry(self._url, action, self._lock_timeout_s, attempt)

    def save(
        self,
        run: RunResult,
        verdict: VerdictLike | None = None,
        accepted: Accepted | None = None,
        rescored_from: tuple[str, str] | None = None,
    ) -> str:
        """Store a run with all its outcomes, the verdict it was given and, when it is
        accepted as a baseline, how (``accepted``); returns its id (``run.run_id`` if
        set, else a new one). ``InputError`` before any write for a text no backend can
        hold.

        Without ``accepted`` the run is never a baseline by itself, whatever its verdict;
        ``accept`` or ``pin`` makes it one. ``judge_and_save`` decides, as ``reval eval``
        does. A run accepted as the lineage's first (``HowAccepted.FIRST_RUN``) is checked
        in the same transaction that writes it: when an accepted or pinned run of the
        lineage exists by then (another first run stored first), nothing is written and
        ``FirstRunRaced`` names that run. ``rescored_from``: the source run's id and label
        fingerprint of a run rescored from it (``evaluation.rescore``)."""
        problem = serialize.nul_problem(run)
        if problem is not None:
            raise InputError(
                f"cannot store the run: {problem} (U+0000), which {self.url} cannot take"
            )
        for _ in range(5):
            run_id = run.run_id or new_run_id()
            row = serialize.run_row(run, run_id, verdict, accepted, rescored_from)
            first = accepted is not None and accepted.how is HowAccepted.FIRST_RUN
            try:
                self._write(
                    f"saving run {run_id}",
                    partial(insert_first_run if first else insert_run, row=row, run=run),
                )
            except StoreError as e:
                if isinstance(e.__cause__, IntegrityError) and id_taken(e.__cause__):
                    if run.run_id:
                        taken = f"run {run.run_id!r} is already stored in {self.url}"
                        raise InputError(taken) from e
                    continue
                raise
            log.info("saved run %s (%d questions) to %s", run_id, len(run.questions), self.url)
            return run_id
        raise AssertionError("could not draw a free run id")  # pragma: no cover

    def resolve_baseline(self, run_id: str) -> RunSummary:
        """The run ``run_id`` (or unique prefix) names, if it can be a baseline: only a
        complete run can, since errored questions leave its denominator and would make
        it an easier bar to clear."""
        summary = self._summary(self.resolve_id(run_id))
        if summary.state is not RunState.COMPLETE:
            raise InputError(
                f"run {summary.run_id} is {summary.state.value} ({summary.error_count} "
                "failed retrievals): only a complete run can be a baseline"
            )
        return summary

    def pin(self, run_id: str) -> str:
        """Make a complete run the baseline of its set x lineage (replacing any other); a
        run not accepted otherwise is recorded as accepted by its pin (``HowAccepted.
        PINNED``) while it is pinned."""
        summary = self.resolve_baseline(run_id)
        self._write(
            f"pinning run {summary.run_id}",
            lambda conn: baselines.pin(conn, summary.run_id, summary.set_name, summary.lineage),
        )
        return summary.run_id

    def unpin(self, run_id: str) -> str:
        """Stop pinning a run; an acceptance that was its pin alone goes with it."""
        full = self.resolve_id(run_id)
        self._write(f"unpinning run {full}", partial(baselines.unpin, run_id=full))
        return full

    def accept(self, run_id: str, reason: str, by: str, at: datetime | None = None) -> RunSummary:
        """Accept a complete run as a baseline (an intended drop): the next run of its
        lineage is judged against it (unless a run is pinned). Who, when and why are
        stored with it; accepting again replaces them."""
        if not reason.strip():
            raise InputError("give the reason for accepting the run: --reason TEXT")
        if not by.strip():
            raise InputError("give who accepts the run: --by NAME")
        summary = self.resolve_baseline(run_id)
        moment = at or datetime.now(UTC)
        self._write(
            f"accepting run {summary.run_id}",
            lambda conn: baselines.accept(conn, summary.run_id, reason.strip(), by.strip(), moment),
        )
        return self._summary(summary.run_id)

    def prune(self, keep: int) -> int:
        """Keep the ``keep`` newest runs of each set x lineage, plus each lineage's pinned
        run and newest accepted run (its baseline); delete the rest. Returns how many runs
        were deleted."""
        if keep < 0:
            raise InputError(f"--keep must be 0 or more, got {keep}")
        deleted = self._write("pruning runs", partial(retention.delete_old_runs, keep=keep))
        log.info("pruned %d runs from %s", deleted, self.url)
        return deleted

    def prune_preview(self, keep: int) -> list[str]:
        """The ids of the runs ``prune(keep)`` would delete, newest first; deletes nothing."""
        return self.prune_plan(keep)[0]

    def prune_plan(self, keep: int) -> tuple[list[str], list[tuple[str, str]]]:
        """(deleted, kept): the ids ``prune(keep)`` would delete, and the runs beyond
        ``keep`` it keeps with the reason (a lineage's pinned or newest accepted run),
        newest first; deletes nothing."""
        if keep < 0:
            raise InputError(f"--keep must be 0 or more, got {keep}")
        return self._read("finding runs to prune", partial(retention.prune_plan, keep=keep))

    # --- reading -------------------------------------------------------------------------

    def _read(self, action: str, work: Callable[[Connection], T]) -> T:
        def attempt() -> T:
            with self._engine.connect() as conn, conn.begin():
                return work(conn)

        return with_retry(self._url, action, self._lock_timeout_s, attempt)

    def resolve_id(self, run_id: str) -> str:
        """The full id of the run that ``run_id`` names exactly or as a unique prefix."""
        prefix = run_id.strip()
        if not prefix:
            raise InputError("empty run id")
        matches = self._read(
            f"looking up run {prefix}", lambda conn: queries.ids_matching(conn, prefix)
        )
        if not matches:
            raise UnknownNameError("run", prefix)
        if len(matches) > 1:
            shown = ", ".join(matches[:5]) + (", ..." if len(matches) > 5 else "")
            raise InputError(f"run id prefix {prefix!r} is ambiguous: matches {shown}")
        return str(matches[0])

    def get(self, run_id: str) -> RunResult:
        """The stored run named by ``run_id`` (or a unique prefix), with every outcome."""
        return self.get_stored(run_id).run

    def get_stored(self, run_id: str) -> StoredRun:
        """The run named by ``run_id`` (or a unique prefix) with its stored verdict."""
        full = self.resolve_id(run_id)
        query = select(run_table).where(run_table.c.run_id == full)
        found = self._read(f"loading run {full}", lambda conn: stored_runs(conn, query))
        if not found:  # deleted (pruned) since its id was resolved
            raise UnknownNameError("run", full)
        return found[0]

    def history(
        self, set_name: str, retriever: str, limit: int | None = 20, *, outcomes: bool = True
    ) -> list[StoredRun]:
        """The newest ``limit`` runs of one set × retriever (identifier or target) with
        their verdicts, newest first; loaded together, in a few queries. Without
        ``outcomes``, their stored figures only (``StoredRun.counts``): what a chart needs."""
        query = queries.list_query(set_name, retriever, None, None, limit)
        return self._read(
            f"loading the history of {set_name} × {retriever}",
            lambda conn: stored_runs(conn, query, outcomes),
        )

    def list_runs(
        self,
        *,
        set_name: str | None = None,
        retriever: str | None = None,
        labels: Mapping[str, str] | None = None,
        state: RunState | None = None,
        limit: int | None = 50,
        verdict: str | None = None,
    ) -> list[RunSummary]:
        """Runs newest first. ``retriever`` matches the identifier or the target; every
        given label must match; ``verdict`` is a stored verdict kind ("" for runs saved
        without a check)."""
        query = queries.list_query(set_name, retriever, labels, state, limit, verdict)
        return self._read("listing runs", lambda conn: queries.summaries(conn, query))

    def find_baseline(self, run: RunResult, baseline_id: str | None = None) -> RunResult | None:
        """The run to judge ``run`` against: ``baseline_id`` if given (it must be complete);
        else the pinned run of the same set and lineage; else the newest *accepted* run of
        them that started no later than ``run`` (complete, and judged pass or no-baseline,
        or accepted by a person; never one saved unjudged). Never ``run`` itself."""
        return self.judging_runs(run, baseline_id, drift=False)[0]

    def drift_reference(self, run: RunResult) -> RunResult | None:
        """The run slow drift is measured from: the accepted run of ``run``'s set and
        lineage with the best top-1 rate since a person last accepted one (see
        ``queries.drift_reference_query``); None when there is none, or when a run is
        pinned (the pinned baseline is then the reference itself)."""
        work = partial(baselines.drift_reference, run=run)
        return self._read("finding the drift reference", work)

    def judging_runs(
        self, run: RunResult, baseline_id: str | None = None, *, drift: bool = True
    ) -> tuple[RunResult | None, RunResult | None]:
        """(baseline, drift reference): what a verdict on ``run`` is measured against,
        found and loaded in one read. The baseline is ``find_baseline``'s; the reference
        ``drift_reference``'s, looked up only with ``drift`` and no ``baseline_id``, and
        only when there is a baseline.

        Each run is loaded once: a reference that is the baseline is the same object, and
        any other reference is loaded without its outcomes (drift compares aggregates)."""
        if baseline_id is not None:
            full = self.resolve_baseline(baseline_id).run_id
            return self._read(f"loading run {full}", partial(load_run, run_id=full)), None
        work = partial(baselines.judging_runs, run=run, drift=drift)
        return self._read("finding the baseline", work)

    def _summary(self, run_id: str) -> RunSummary:
        query = select(run_table).where(run_table.c.run_id == run_id)
        return self._read(f"loading run {run_id}", lambda conn: queries.summaries(conn, query))[0]
