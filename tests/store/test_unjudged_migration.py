"""Revision 0006 on SQLite and PostgreSQL: the complete runs an older store holds without a
verdict (stored before verdicts existed, or by a script), which were baselines then, stay
baselines through an explicit, visible acceptance; runs saved unjudged afterwards are not;
downgrading takes back exactly those acceptances."""

from __future__ import annotations

import importlib

from alembic import command
from sqlalchemy import create_engine, select, update
from support.factory import make_run, question_set

from retrieval_eval.records.outcome import Form
from retrieval_eval.records.run import RunResult
from retrieval_eval.regression.verdict import judge
from retrieval_eval.regression.verdict_records import RunReport, Thresholds
from retrieval_eval.report.run.render import render
from retrieval_eval.store import serialize
from retrieval_eval.store.models import run_table
from retrieval_eval.store.schema import alembic_config
from retrieval_eval.store.store import RunStore, _insert_run

REVISION = importlib.import_module("retrieval_eval.store.migrations.versions.0006_unjudged_runs")
QS = question_set(10, forms=[Form.MATCH] * 10)
GOOD, DROPPED = "1111111111", "1111100000"
PERSON = {"accepted_at": "2026-11-30T12:00:00+00:00", "accepted_by": "ana",
          "accepted_reason": "the smaller chunks"}  # fmt: skip


def _store_at_0005(url: str) -> dict[str, str]:
    """A store at revision 0005 (the rule then: a complete run without a verdict is
    accepted) holding, oldest first: a run judged pass, one judged regression that a
    person accepted, one judged regression, a complete run without a verdict, an
    incomplete one, and the newest, complete and without a verdict."""
    baseline = make_run(GOOD, qs=QS, started=0)
    regression = judge(make_run(DROPPED, qs=QS), baseline, Thresholds())
    runs: dict[str, tuple[RunResult, object]] = {
        "pass": (baseline, judge(baseline, None, Thresholds())),
        "accepted regression": (make_run(DROPPED, qs=QS, started=1), regression),
        "regression": (make_run(DROPPED, qs=QS, started=2), regression),
        "old unjudged": (make_run(GOOD, qs=QS, started=3), None),
        "incomplete": (make_run("11111111EE", qs=QS, started=4), None),
        "newest unjudged": (make_run(DROPPED, qs=QS, started=5), None),
    }
    engine = create_engine(url)
    config = alembic_config()
    ids = {}
    try:
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, "0005")
        for n, (name, (run, verdict)) in enumerate(runs.items()):
            ids[name] = f"old{n}"
            row = serialize.run_row(run, ids[name], verdict)  # type: ignore[arg-type]
            with engine.begin() as connection:
                _insert_run(connection, row, run)
        with engine.begin() as connection:
            chosen = run_table.c.run_id == ids["accepted regression"]
            connection.execute(update(run_table).where(chosen).values(PERSON))
    finally:
        engine.dispose()
    return ids


def test_the_upgrade_keeps_the_baseline_by_accepting_the_unjudged_runs_explicitly(store_url):
    ids = _store_at_0005(store_url)
    with RunStore.open(store_url) as store:
        summaries = {s.run_id: s for s in store.list_runs()}
        by = {name: summaries[run_id].acceptance for name, run_id in ids.items()}
        assert by["old unjudged"] is not None and by["newest unjudged"] is not None
        assert by["old unjudged"].by == REVISION.LEGACY_ACCEPTED_BY
        assert by["old unjudged"].reason == REVISION.LEGACY_REASON
        assert by["accepted regression"].by == "ana"  # a person's acceptance untouched
        assert by["pass"] is None and by["regression"] is None and by["incomplete"] is None
        # The baseline the 0005 rule chose (the newest complete unjudged run) is kept ...
        current = make_run(DROPPED, qs=QS, started=9)
        assert store.find_baseline(current).run_id == ids["newest unjudged"]
        # ... and says why wherever the run is shown.
        stored = store.get_stored(ids["newest unjudged"])
        text = render(RunReport(stored.run, None, stored.acceptance))
        assert f"accepted as a baseline by {REVISION.LEGACY_ACCEPTED_BY}" in " ".join(text.split())
        # A run saved without a verdict from now on is unjudged: no baseline.
        later = store.save(make_run(GOOD, qs=QS, started=8))
        assert not {s.run_id: s for s in store.list_runs()}[later].accepted
        assert store.find_baseline(current).run_id == ids["newest unjudged"]


def test_downgrading_takes_back_only_the_upgrades_acceptances(store_url):
    ids = _store_at_0005(store_url)
    RunStore.open(store_url).close()
    engine = create_engine(store_url)
    config = alembic_config()
    try:
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.downgrade(config, "0005")
        with engine.connect() as connection:
            accepted_by = dict(
                connection.execute(select(run_table.c.run_id, run_table.c.accepted_by)).all()
            )
    finally:
        engine.dispose()
    assert accepted_by == {run_id: "ana" if name == "accepted regression" else None
                           for name, run_id in ids.items()}  # fmt: skip
