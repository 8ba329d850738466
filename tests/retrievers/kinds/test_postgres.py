"""The ``postgres`` kind on the real PostgreSQL test server: full-text search (ts_rank)
over the example corpus measures exactly what the query returns; wrong id types, SQL
errors, refused passwords and an unreachable server are errors of their kind."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from retrieval_eval.errors import (
    ConfigError,
    RetrieverContractError,
    RetrieverRejected,
    RetrieverUnavailable,
)
from retrieval_eval.evaluation.coordinator import evaluate
from retrieval_eval.example_data import corpus_path, questions_path
from retrieval_eval.questions.loading import load_question_set
from retrieval_eval.retrievers.resolve import open_retriever

pytestmark = pytest.mark.postgres

#: Any question word matches (``|``), ranked by ts_rank, ties by id.
QUERY = """
SELECT id, ts_rank(tsv, replace(plainto_tsquery('english', :question)::text, '&', '|')::tsquery)
  AS score
FROM {table}
WHERE tsv @@ replace(plainto_tsquery('english', :question)::text, '&', '|')::tsquery
ORDER BY score DESC, id
LIMIT :limit
"""


@pytest.fixture(scope="module")
def dsn(postgres_url: str) -> str:
    return postgres_url.replace("postgresql+psycopg://", "postgresql://")


@pytest.fixture(scope="module")
def table(dsn: str) -> Iterator[str]:
    name = f"help_pages_{uuid.uuid4().hex[:8]}"
    rows = [json.loads(line) for line in corpus_path().read_text().splitlines() if line]
    with psycopg.connect(dsn, autocommit=True) as db:
        db.execute(
            f"CREATE TABLE {name} (id text PRIMARY KEY, n integer, title text, body text, "
            "tsv tsvector GENERATED ALWAYS AS "
            "(to_tsvector('english', title || ' ' || body)) STORED)"
        )
        with db.cursor() as cursor:
            cursor.executemany(
                f"INSERT INTO {name} (id, n, title, body) VALUES (%s, %s, %s, %s)",
                [(r["_id"], n, r["title"], r["text"]) for n, r in enumerate(rows)],
            )
    yield name
    with psycopg.connect(dsn, autocommit=True) as db:
        db.execute(f"DROP TABLE {name}")


def entry(tmp_path: Path, dsn: str, query: str, extra: str = "") -> Path:
    path = tmp_path / "reval.toml"
    path.write_text(
        f'[retrievers.pg]\nkind = "postgres"\ndsn = "{dsn}"\nquery = """{query}"""\n{extra}\n',
        encoding="utf-8",
    )
    return path


def test_full_text_search_measures_what_the_query_returns(
    tmp_path: Path, dsn: str, table: str
) -> None:
    query = QUERY.format(table=table)
    questions = load_question_set(questions_path())
    [run] = evaluate([questions], ["pg"], config_path=entry(tmp_path, dsn, query))
    assert run.complete and run.retriever.identifier == "pg"
    assert run.retriever.pipeline.startswith("postgres 127.0.0.1:")
    limit = run.parameters.limit
    sql = query.replace(":question", "%(q)s").replace(":limit", "%(n)s")
    with psycopg.connect(dsn) as db:
        for question, outcome in zip(questions.questions, run.questions, strict=True):
            rows = db.execute(sql, {"q": question.question, "n": limit}).fetchall()
            assert outcome.raw_ids == tuple(r[0] for r in rows)
            assert outcome.raw_scores == pytest.approx(tuple(r[1] for r in rows))
    assert sum(len(q.raw_ids) > 0 for q in run.questions) > 20  # it really searched


async def ask(path: Path) -> object:
    retriever = open_retriever("pg", config_path=path)
    try:
        return await retriever.retrieve("restore a deleted file", 5)
    finally:
        await retriever.close()


async def test_an_integer_id_is_a_contract_error(tmp_path: Path, dsn: str, table: str) -> None:
    path = entry(tmp_path, dsn, f"SELECT n, 1.0 FROM {table} WHERE :question <> '' LIMIT :limit")
    with pytest.raises(RetrieverContractError, match="is not text; select it as id::text"):
        await ask(path)


async def test_a_percent_sign_and_casts_are_left_alone(
    tmp_path: Path, dsn: str, table: str
) -> None:
    query = (
        f"SELECT id::text, 1 FROM {table} WHERE title LIKE '%e%' "
        "AND :question::text <> '' ORDER BY id LIMIT :limit"
    )
    ranking = await ask(entry(tmp_path, dsn, query))
    assert len(ranking.document_ids) == 5  # type: ignore[attr-defined]


async def test_an_sql_error_is_rejected_with_the_servers_message(
    tmp_path: Path, dsn: str, table: str
) -> None:
    path = entry(tmp_path, dsn, f"SELECT idd FROM {table} WHERE :question <> '' LIMIT :limit")
    with pytest.raises(RetrieverRejected, match='column "idd" does not exist'):
        await ask(path)


async def test_an_unreachable_server_is_unavailable(tmp_path: Path) -> None:
    path = entry(tmp_path, "postgresql://reval@127.0.0.1:1/none", "SELECT :question, :limit")
    with pytest.raises(RetrieverUnavailable):
        await ask(path)


async def test_the_dsn_may_come_whole_from_the_environment(
    tmp_path: Path, dsn: str, table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KINDS_PG_URL", dsn)
    path = tmp_path / "reval.toml"
    path.write_text(
        '[retrievers.pg]\nkind = "postgres"\ndsn_env = "KINDS_PG_URL"\n'
        f'query = """{QUERY.format(table=table)}"""\n'
    )
    ranking = await ask(path)
    assert ranking.document_ids  # type: ignore[attr-defined]
    monkeypatch.delenv("KINDS_PG_URL")
    with pytest.raises(ConfigError, match="key 'dsn_env': environment variable KINDS_PG_URL"):
        open_retriever("pg", config_path=path)


def test_an_unset_password_variable_is_a_config_error(
    tmp_path: Path, dsn: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KINDS_PG_PASSWORD", raising=False)
    path = entry(tmp_path, dsn, "SELECT :question, :limit", 'password_env = "KINDS_PG_PASSWORD"')
    with pytest.raises(ConfigError, match="'password_env': environment variable KINDS_PG_PASS"):
        open_retriever("pg", config_path=path)


async def test_the_password_from_the_environment_is_used_and_never_shown(
    tmp_path: Path, dsn: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KINDS_PG_PASSWORD", "pw-from-env")
    path = entry(tmp_path, dsn, "SELECT :question, :limit", 'password_env = "KINDS_PG_PASSWORD"')
    retriever = open_retriever("pg", config_path=path)
    try:
        ranking = await retriever.retrieve("restore a deleted file", 5)
        description = await retriever.describe()
    finally:
        await retriever.close()
    assert ranking.document_ids == ("restore a deleted file",)
    assert "pw-from-env" not in repr(description) + retriever.target
