"""The pytest plugin, run the way users run it: suites written to a temporary directory
and run by pytest in a subprocess, which loads the plugin through its installed
``pytest11`` entry point. Runs go to a real SQLite store; the failure text is asserted.
This module: settings (reval.toml, the command line), retrievers by address, the
store's errors, import cost."""

from __future__ import annotations

import subprocess
import sys

import pytest
import yaml
from support.plugin_suite import BAD, GOOD, PASSING, RETRIEVER, SET, UNUSED_PLUGINS


def test_thresholds_come_from_reval_toml_and_the_command_line_wins(
    suite, pytester: pytest.Pytester
) -> None:
    suite(PASSING).assert_outcomes(passed=1)
    (pytester.path / "reval.toml").write_text("[pytest]\nmax_top1_drop = 1.0\nmax_top3_drop = 1\n")
    regressing = f"""
        def test_quality(reval):
            run = reval.evaluate("faq.yaml", Table({BAD!r}))
            reval.assert_no_regression(run)
    """
    suite(regressing, "--reval-no-save").assert_outcomes(passed=1)
    failed = suite(regressing, "--reval-no-save", "--reval-max-top1-drop", "0.4")
    failed.assert_outcomes(failed=1)
    failed.stdout.fnmatch_lines(["*more than the allowed 0.4*"])


def test_a_bad_reval_toml_table_is_an_error_naming_the_key(
    suite, pytester: pytest.Pytester
) -> None:
    (pytester.path / "reval.toml").write_text("[pytest]\nmax_top1_dorp = 0.6\n")
    result = suite(PASSING)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["reval: *reval.toml [[]pytest]: unknown key 'max_top1_dorp'*"])


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://reval:pw-s3cret-4711@127.0.0.1:1/runs",
        "postgresql://reval@127.0.0.1:1/runs?password=pw-s3cret-4711",
    ],
    ids=["userinfo", "query"],
)
def test_a_db_url_with_a_password_in_reval_toml_is_refused(
    suite, pytester: pytest.Pytester, url: str
) -> None:
    """As the kinds' ``dsn`` and ``url`` are: reval.toml is committed."""
    (pytester.path / "reval.toml").write_text(f'[pytest]\ndb = "{url}"\n')
    result = suite(PASSING)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["reval: *reval.toml [[]pytest]: key 'db': holds a password; *REVAL_DATABASE_URL*"]
    )
    assert "pw-s3cret-4711" not in result.stdout.str() + result.stderr.str()


def test_a_retriever_given_by_address(suite, serve_retriever) -> None:
    class Served:
        def retrieve(self, question: str, limit: int) -> list[str]:
            return GOOD.get(question, [])[:limit]

    handle = serve_retriever(Served())
    result = suite(f"""
        def test_remote(reval):
            run = reval.evaluate("faq.yaml", "grpc://{handle.address}")
            reval.assert_rate(run, "top3_hit_rate", at_least=1.0)
            assert run.run.retriever_target == "grpc://{handle.address}"
    """)
    result.assert_outcomes(passed=1)


@pytest.mark.postgres
@pytest.mark.parametrize("given_by", ["option", "environment"])
def test_a_store_error_is_one_line_and_never_shows_the_password(
    pytester: pytest.Pytester, postgres_url: str, monkeypatch: pytest.MonkeyPatch, given_by: str
) -> None:
    """A real PostgreSQL server, a URL with a password, a database that does not exist:
    the driver's error and pytest's traceback (which prints every frame's arguments)
    would carry the password; the failure is reval's one line with the URL masked."""
    from sqlalchemy.engine import make_url

    url = make_url(postgres_url)
    password = url.password or "pw-s3cret-4711"
    missing = url.set(database=f"{url.database}_missing", password=password)
    missing = missing.render_as_string(hide_password=False)
    (pytester.path / "faq.yaml").write_text(yaml.safe_dump(SET, sort_keys=False))
    pytester.makepyfile(table_retriever=RETRIEVER)
    pytester.makepyfile(test_quality=f"from table_retriever import Table\n{PASSING}")
    args = ["-p", "no:cacheprovider", *UNUSED_PLUGINS]
    if given_by == "option":
        args += ["--reval-db", missing]
    else:
        monkeypatch.setenv("REVAL_DATABASE_URL", missing)
    result = pytester.runpytest_subprocess(*args)
    result.assert_outcomes(failed=1)
    output = result.stdout.str() + result.stderr.str()
    assert password not in output
    failure = [line for line in result.stdout.lines if line.startswith("reval: ")]
    assert len(failure) == 1 and "***" in failure[0] and "_missing" in failure[0], output
    assert "Traceback" not in output and "conninfo" not in output


def test_importing_the_plugin_loads_nothing_heavy() -> None:
    heavy = ("grpc", "sqlalchemy", "alembic", "click", "rich", "yaml", "google", "stevedore")
    code = (
        "import sys, retrieval_eval.pytest_plugin; "
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {heavy!r}))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
