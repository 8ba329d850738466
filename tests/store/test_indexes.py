"""The listing indexes: made and undone by the migrations on both
backends, and used by the listings' own queries (the query plans say so)."""

from __future__ import annotations

import pytest
from alembic import command
from sqlalchemy import create_engine, inspect, text
from sqlalchemy.dialects import postgresql, sqlite
from support.factory import make_run, question_set

from retrieval_eval.records.run import RunState
from retrieval_eval.store import queries
from retrieval_eval.store.schema import VERSION_TABLE, alembic_config
from retrieval_eval.store.store import RunStore

LISTING_INDEXES = {
    "ix_reval_runs_started": ["started_ts", "pk"],
    "ix_reval_runs_set_started": ["set_name", "started_ts", "pk"],
    "ix_reval_runs_set_retriever_started": [
        "set_name", "retriever_identifier", "started_ts", "pk",
    ],
    "ix_reval_runs_set_lineage_started": ["set_name", "lineage", "started_ts", "pk"],
}  # fmt: skip


def run_indexes(url: str) -> dict[str, list[str]]:
    engine = create_engine(url)
    try:
        found = inspect(engine).get_indexes("reval_runs")
    finally:
        engine.dispose()
    return {i["name"]: list(i["column_names"]) for i in found if not i.get("unique")}


def migrate(url: str, direction: str, revision: str) -> None:
    engine = create_engine(url)
    config = alembic_config()
    try:
        with engine.begin() as conn:
            config.attributes["connection"] = conn
            getattr(command, direction)(config, revision)
    finally:
        engine.dispose()


def test_listing_indexes_are_made_by_the_migrations_and_undone_by_their_downgrades(store_url):
    with RunStore.open(store_url) as store:
        store.save(make_run("13", started=0))
    assert run_indexes(store_url) == LISTING_INDEXES
    migrate(store_url, "downgrade", "base")
    engine = create_engine(store_url)
    try:
        assert set(inspect(engine).get_table_names()) == {VERSION_TABLE}
    finally:
        engine.dispose()
    with RunStore.open(store_url) as store:  # upgrades again: every index, no run
        assert run_indexes(store_url) == LISTING_INDEXES
        assert store.list_runs() == []
        assert store.get(store.save(make_run("13", started=5))).questions[1].hits[3]


def listing_queries():
    latest = make_run("13", started=5)
    return {
        "newest first": (queries.list_query(None, None, None, None, 50),
                         "ix_reval_runs_started"),
        "one set": (queries.list_query("faq", None, None, None, 50),
                    "ix_reval_runs_set_started"),
        "one state": (queries.list_query(None, None, None, RunState.INCOMPLETE, 50),
                      "ix_reval_runs_started"),
        "latest accepted baseline": (queries.baseline_queries(latest)[1],
                                     "ix_reval_runs_set_lineage_started"),
        "pinned baseline": (queries.baseline_queries(latest)[0],
                            "ix_reval_runs_set_lineage_started"),
    }  # fmt: skip


def fill(store: RunStore) -> None:
    other = question_set(2, name="onboarding")
    for minute in range(30):
        qs = other if minute % 3 else None
        store.save(make_run("1E" if minute % 5 == 0 else "13", started=minute, qs=qs,
                            identifier=("bm25", "dense")[minute % 2]))  # fmt: skip


@pytest.mark.parametrize("name", list(listing_queries()))
def test_sqlite_listings_read_an_index_in_order_instead_of_sorting(tmp_path, name):
    url = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    with RunStore.open(url) as store:
        fill(store)
    query, index = listing_queries()[name]
    sql = str(query.compile(dialect=sqlite.dialect(), compile_kwargs={"literal_binds": True}))
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            plan = [row[3] for row in conn.execute(text("EXPLAIN QUERY PLAN " + sql))]
    finally:
        engine.dispose()
    assert any(f"USING INDEX {index}" in step for step in plan), plan
    assert not any("TEMP B-TREE" in step for step in plan), plan


@pytest.mark.postgres
@pytest.mark.parametrize("name", list(listing_queries()))
def test_postgres_listings_can_read_an_index_in_order(pg_schema_url, name):
    """With table scans and sorts priced out (the test table is tiny, so the planner would
    rightly prefer them), an index must yield the rows in the listing's order."""
    with RunStore.open(pg_schema_url) as store:
        fill(store)
    query, index = listing_queries()[name]
    sql = str(query.compile(dialect=postgresql.dialect(), compile_kwargs={"literal_binds": True}))
    engine = create_engine(pg_schema_url)
    try:
        with engine.connect() as conn:
            for method in ("seqscan", "bitmapscan", "sort"):
                conn.execute(text(f"SET enable_{method} = off"))
            conn.execute(text("ANALYZE reval_runs"))
            plan = "\n".join(row[0] for row in conn.execute(text("EXPLAIN " + sql)))
    finally:
        engine.dispose()
    assert f"Index Scan Backward using {index}" in plan, plan
    assert "Sort" not in plan, plan
