"""The ``postgres`` kind on the real PostgreSQL test server: full-text search (ts_rank)
over the example corpus measures exactly what the query returns, and so does a ranking by
``:embedding`` (a float8[] dot product, checked against numpy's cosine); wrong id types,
SQL errors, refused passwords, an unreachable server and a failing embedder are errors of
their kind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from support import kinds
from support.cosine import DIMENSIONS, Reference

from retrieval_eval.errors import (
    ConfigError,
    RetrieverContractError,
    RetrieverRejected,
    RetrieverUnauthenticated,
    RetrieverUnavailable,
)
from retrieval_eval.evaluation.coordinator import evaluate
from retrieval_eval.example_data import corpus_path, questions_path
from retrieval_eval.questions.loading import load_question_set
from retrieval_eval.retrievers.opening import open_retriever
from retrieval_eval.retrievers.protocol import Ranking

pytestmark = pytest.mark.postgres
REVAL = str(Path(sys.executable).parent / "reval")

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


async def ask(path: Path) -> Ranking:
    return await kinds.ask("pg", path)


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


# --- :embedding: the question's vector as a float8[] parameter ----------------------------

#: Dot product of two float8[] (the vectors are unit length: the cosine), in plain SQL, so
#: that the test needs no extension; pgvector's ``<=>`` is the README's recipe.
VECTOR_QUERY = """
SELECT id, (SELECT sum(a * b) FROM unnest(embedding, :embedding) AS t(a, b)) AS score
FROM {table}
ORDER BY score DESC, id
LIMIT :limit
"""


@pytest.fixture(scope="module")
def vectors(dsn: str, dense: Reference) -> Iterator[str]:
    """The example corpus embedded by wordllama, one float8[] row per page."""
    name = f"help_vectors_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(dsn, autocommit=True) as db:
        db.execute(f"CREATE TABLE {name} (id text PRIMARY KEY, embedding float8[] NOT NULL)")
        with db.cursor() as cursor:
            cursor.executemany(
                f"INSERT INTO {name} (id, embedding) VALUES (%s, %s)",
                [(i, [float(x) for x in v]) for i, v in zip(dense.ids, dense.vectors, strict=True)],
            )
    yield name
    with psycopg.connect(dsn, autocommit=True) as db:
        db.execute(f"DROP TABLE {name}")


def test_embedding_ranks_as_a_numpy_cosine_does(
    tmp_path: Path, dsn: str, vectors: str, dense: Reference
) -> None:
    path = entry(
        tmp_path,
        dsn,
        VECTOR_QUERY.format(table=vectors),
        f'embedder = "wordllama"\nembedder_options = {{ dimensions = {DIMENSIONS} }}',
    )
    questions = load_question_set(questions_path())
    [run] = evaluate([questions], ["pg"], config_path=path)
    assert run.complete and run.retriever.pipeline.endswith(" by wordllama")
    limit = run.parameters.limit
    for question, outcome in zip(questions.questions, run.questions, strict=True):
        ids, scores = dense.ranking(question.question, limit)
        assert outcome.raw_ids == tuple(ids)
        assert outcome.raw_scores == pytest.approx(tuple(scores), abs=1e-5)


async def test_the_embedding_is_bound_as_a_float8_array(tmp_path: Path, dsn: str) -> None:
    """What the query receives: a double precision[] of the embedder's dimensions."""
    query = (
        "SELECT pg_typeof(:embedding)::text || ' ' || array_length(:embedding, 1)::text "
        "WHERE :limit > 0"
    )
    extra = 'embedder = "wordllama"\nembedder_options = { dimensions = 64 }'
    ranking = await ask(entry(tmp_path, dsn, query, extra))
    assert ranking.document_ids == ("double precision[] 64",)  # type: ignore[attr-defined]


async def test_an_embedder_that_fails_is_unavailable_never_a_miss(
    tmp_path: Path, dsn: str, vectors: str
) -> None:
    extra = (
        'embedder = "openai"\n'
        'embedder_options = { url = "http://127.0.0.1:1/v1", model = "m", dimensions = 4, '
        "retries = 0 }"
    )
    path = entry(tmp_path, dsn, VECTOR_QUERY.format(table=vectors), extra)
    with pytest.raises(RetrieverUnavailable, match=r"127\.0\.0\.1:1"):
        await ask(path)


def test_an_unknown_embedder_exits_2_with_one_line(tmp_path: Path, dsn: str) -> None:
    path = entry(tmp_path, dsn, "SELECT :embedding::text LIMIT :limit", 'embedder = "nope"')
    done = subprocess.run(
        [REVAL, "eval", "--config", str(path), "--set", str(questions_path()),
         "--retriever", "pg"],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "REVAL_HOME": str(tmp_path / "home")},
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.strip().splitlines()
    assert "'nope'" in line


async def test_an_unknown_user_is_unauthenticated(tmp_path: Path, dsn: str) -> None:
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    info = conninfo_to_dict(dsn)
    refused = make_conninfo(**{**info, "user": "reval_no_such_user"})
    with pytest.raises(RetrieverUnauthenticated, match='role "reval_no_such_user"'):
        await ask(entry(tmp_path, refused, "SELECT :question LIMIT :limit"))


async def test_a_score_that_is_not_a_number_is_a_contract_error(
    tmp_path: Path, dsn: str, table: str
) -> None:
    query = f"SELECT id, 'high' FROM {table} WHERE :question <> '' ORDER BY id LIMIT :limit"
    with pytest.raises(RetrieverContractError, match="row 1: the score 'high' is not a number"):
        await ask(entry(tmp_path, dsn, query))
