"""Revision 0007 on SQLite and PostgreSQL: every older row gets the "how" its stored
verdict and acceptance say (so no baseline moves on upgrade), with the thresholds its
verdict was judged under; downgrading drops the columns."""

from __future__ import annotations

import json

from alembic import command
from sqlalchemy import create_engine, inspect, select, update
from support.factory import make_run, question_set

from retrieval_eval.records.outcome import Form
from retrieval_eval.regression.verdict import judge
from retrieval_eval.regression.verdict_records import ErrorBudget, Thresholds
from retrieval_eval.store import serialize
from retrieval_eval.store.models import run_table
from retrieval_eval.store.schema import alembic_config, current_revision
from retrieval_eval.store.store import RunStore, _insert_run

QS = question_set(10, forms=[Form.MATCH] * 10)
GOOD, DROPPED = "1111111111", "1111100000"
NEW = {"accepted_how", "accepted_thresholds_json", "accepted_baseline"}


def _store_at_0006(url: str) -> dict[str, str]:
    first = make_run(GOOD, qs=QS, started=0, run_id="old0")
    loose = Thresholds(1.0, 1.0, max_errors=ErrorBudget(percent=None, count=2))
    runs = {
        "first": (first, judge(first, None, Thresholds())),
        "pass": (make_run(GOOD, qs=QS, started=1), judge(make_run(GOOD, qs=QS), first, loose)),
        "regression": (make_run(DROPPED, qs=QS, started=2),
                       judge(make_run(DROPPED, qs=QS), first, Thresholds())),
        "accepted regression": (make_run(DROPPED, qs=QS, started=3),
                                judge(make_run(DROPPED, qs=QS), first, Thresholds())),
        "incomplete": (make_run("11111111EE", qs=QS, started=4), None),
    }  # fmt: skip
    engine = create_engine(url)
    config = alembic_config()
    ids = {}
    try:
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, "0006")
        for n, (name, (run, verdict)) in enumerate(runs.items()):
            ids[name] = run.run_id or f"old{n}"
            row = serialize.run_row(run, ids[name], verdict)
            with engine.begin() as connection:
                _insert_run(connection, row, run)
        with engine.begin() as connection:
            connection.execute(
                update(run_table).where(run_table.c.run_id == ids["accepted regression"])
                .values(accepted_at="2026-11-30T12:00:00+00:00", accepted_by="ana",
                        accepted_reason="smaller chunks")
            )  # fmt: skip
    finally:
        engine.dispose()
    return ids


def test_older_rows_record_how_they_were_accepted(store_url):
    ids = _store_at_0006(store_url)
    with RunStore.open(store_url) as store:  # upgrades to the head
        found = {s.run_id: s for s in store.list_runs(limit=None)}
        how = {name: found[ids[name]].how_accepted for name in ids}
        assert how["first"].how == "first-run" and how["first"].baseline is None
        assert how["pass"].how == "judged-pass" and how["pass"].baseline == ids["first"]
        assert how["pass"].thresholds["max_top1_drop"] == 1.0  # the loose bar is visible
        assert how["pass"].thresholds["max_errors"] == "2"
        assert how["accepted regression"].how == "person"
        assert how["regression"] is None and how["incomplete"] is None
        # No baseline moved: the newest accepted run is still the person's choice.
        assert store.find_baseline(make_run(GOOD, qs=QS, started=9)).run_id == ids[
            "accepted regression"]  # fmt: skip
        shown = store.get_stored(ids["pass"]).accepted
        assert shown is not None and shown.how == "judged-pass"
    engine = create_engine(store_url)
    try:
        with engine.connect() as connection:
            stored = connection.execute(
                select(run_table.c.accepted_thresholds_json)
                .where(run_table.c.run_id == ids["first"])
            ).scalar_one()  # fmt: skip
        assert json.loads(stored)["max_top1_drop"] == Thresholds().max_top1_drop
        with engine.begin() as connection:
            config = alembic_config()
            config.attributes["connection"] = connection
            command.downgrade(config, "0006")
        assert current_revision(engine) == "0006"
        columns = {c["name"] for c in inspect(engine).get_columns("reval_runs")}
        assert not NEW & columns
    finally:
        engine.dispose()
