"""The viewer over a real store (a SQLite file, and PostgreSQL) with a few judged runs."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient
from support.factory import make_run, question_set
from support.store import (  # noqa: F401  (fixtures)
    pg_schema_url,
    save_as_eval,
    store,
    store_url,
)

from retrieval_eval.records.outcome import Form
from retrieval_eval.regression.verdict import judge
from retrieval_eval.regression.verdict_records import Thresholds
from retrieval_eval.store.store import RunStore
from retrieval_eval.web.app import create_app

QS = question_set(10, forms=[Form.MATCH, Form.GAP] * 5, classes=["near-duplicate", None] * 5)
#: started minute -> (codes, labels): a pass, a regression, an incomplete run.
RUNS = {
    0: ("1111111300", {"branch": "main"}),
    1: ("1111111330", {"branch": "main"}),
    2: ("1111100000", {"branch": "retune"}),
    3: ("11111113E0", {"branch": "main"}),
}


@pytest.fixture
def filled(store: RunStore) -> list[str]:  # noqa: F811
    """Run ids, oldest first, each saved with the verdict it was given."""
    ids = []
    for minute, (codes, labels) in RUNS.items():
        run = make_run(codes, qs=QS, started=minute, labels=labels)
        verdict = judge(run, store.find_baseline(run), Thresholds())
        ids.append(save_as_eval(store, run, verdict))
    return ids


@pytest.fixture
def client(store: RunStore, filled: list[str]) -> Iterator[TestClient]:  # noqa: F811
    with TestClient(create_app(store), base_url="http://127.0.0.1") as test_client:
        yield test_client
