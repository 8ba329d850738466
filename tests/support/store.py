"""Store fixtures: every store test runs on a SQLite file and on PostgreSQL (a schema of
its own per test, selected through the URL's search_path, dropped afterwards)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from urllib.parse import quote

import psycopg
import pytest
from sqlalchemy.engine import make_url

from retrieval_eval.store.store import RunStore


def libpq_url(sqlalchemy_url: str) -> str:
    return make_url(sqlalchemy_url).set(drivername="postgresql").render_as_string(False)


@pytest.fixture
def pg_schema_url(postgres_url: str) -> Iterator[str]:
    """A PostgreSQL URL whose connections use a fresh, empty schema."""
    schema = f"reval_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(libpq_url(postgres_url), autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    joiner = "&" if "?" in postgres_url else "?"
    yield f"{postgres_url}{joiner}options={quote(f'-csearch_path={schema}')}"
    with psycopg.connect(libpq_url(postgres_url), autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest, tmp_path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'runs.sqlite'}"
    return str(request.getfixturevalue("pg_schema_url"))


@pytest.fixture
def store(store_url: str) -> Iterator[RunStore]:
    with RunStore.open(store_url) as opened:
        yield opened


def save_as_eval(store: RunStore, run, verdict) -> str:
    """Save ``run`` with ``verdict`` and, when the verdict is pass or no-baseline and the
    run complete, accepted as a baseline, as ``reval eval`` saves a run that passes under
    its lineage's thresholds (a fixture: no first-run race check)."""
    from retrieval_eval.store.stored_run import Accepted, HowAccepted

    kind = None if verdict is None else str(verdict.kind)
    accepted = (Accepted(HowAccepted.JUDGED_PASS) if kind in ("pass", "no-baseline")
                and run.complete else None)  # fmt: skip
    return store.save(run, verdict, accepted)
