"""Each question's text is stored with its outcome; runs stored before texts were kept
(the revision before 0005) upgrade and load with no text."""

from __future__ import annotations

from alembic import command
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, insert
from support.factory import make_run

from retrieval_eval.store import serialize
from retrieval_eval.store.bulk import insert_rows
from retrieval_eval.store.models import outcome_table, run_table
from retrieval_eval.store.schema import alembic_config, current_revision, head_revision
from retrieval_eval.store.store import RunStore


def test_question_texts_round_trip(store):
    run = make_run("130")
    assert [q.question_text for q in run.questions] == [f"question number {i}?" for i in range(3)]
    assert store.get(store.save(run)).questions == run.questions


def test_a_run_stored_before_texts_were_kept_loads_without_them(store_url):
    engine = create_engine(store_url)
    config = alembic_config()
    before = ScriptDirectory.from_config(config).get_revision("0005").down_revision
    assert isinstance(before, str)
    try:
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, before)
        assert current_revision(engine) == before
        run = make_run("13", started=0)
        row = serialize.run_row(run, "261130-090000-oldt")
        with engine.begin() as connection:
            pk = connection.execute(insert(run_table).values(row)).inserted_primary_key[0]
            names = ("run_pk", "position", *serialize.OUTCOME_ROW_COLUMNS[:-1])
            rows = [(pk, i, *o[:-1]) for i, o in enumerate(serialize.outcome_rows(run.questions))]
            insert_rows(connection, outcome_table.name, names, rows)
    finally:
        engine.dispose()
    with RunStore.open(store_url) as store:
        assert current_revision(store._engine) == head_revision()
        old = store.get("261130-090000-oldt")
        assert [q.question_text for q in old.questions] == [None, None]
        assert [q.question_id for q in old.questions] == ["q0", "q1"]
        new = store.get(store.save(make_run("13", started=1)))
        assert new.questions[0].question_text == "question number 0?"
