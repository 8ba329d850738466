"""Where the store lives: explicit URL > $REVAL_DATABASE_URL > $REVAL_HOME/runs.sqlite."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support.factory import make_run

from retrieval_eval.errors import ConfigError, InputError
from retrieval_eval.store.store import RunStore
from retrieval_eval.store.url import default_url, mask, resolve_url


def test_default_is_a_sqlite_file_in_reval_home_created_on_first_use(tmp_path, monkeypatch):
    home = tmp_path / "fresh" / "home"
    monkeypatch.setenv("REVAL_HOME", str(home))
    assert default_url() == f"sqlite:///{home / 'runs.sqlite'}"
    with RunStore.open() as store:
        run_id = store.save(make_run("1"))
    assert (home / "runs.sqlite").is_file()
    with RunStore.open() as store:
        assert store.get(run_id).run_id == run_id


def test_reval_home_defaults_to_dot_reval(monkeypatch, tmp_path):
    monkeypatch.delenv("REVAL_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert resolve_url().database == str(tmp_path / ".reval" / "runs.sqlite")


def test_environment_then_explicit_url_take_precedence(tmp_path, monkeypatch):
    from_env = tmp_path / "env.sqlite"
    monkeypatch.setenv("REVAL_DATABASE_URL", f"sqlite:///{from_env}")
    assert resolve_url().database == str(from_env)
    assert resolve_url(f"sqlite:///{tmp_path / 'x.sqlite'}").database == str(tmp_path / "x.sqlite")


def test_a_bare_path_means_a_sqlite_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    url = resolve_url("runs/history.sqlite")
    assert url.get_backend_name() == "sqlite"
    assert Path(url.database) == tmp_path / "runs" / "history.sqlite"


@pytest.mark.parametrize("scheme", ["postgres", "postgresql", "postgresql+psycopg2"])
def test_postgres_urls_use_psycopg3(scheme):
    url = resolve_url(f"{scheme}://ci:s3cret@db.example:5432/reval")
    assert url.drivername == "postgresql+psycopg"
    assert mask(url) == "postgresql+psycopg://ci:***@db.example:5432/reval"


def test_unsupported_or_malformed_urls_are_config_errors():
    with pytest.raises(ConfigError, match="unsupported database URL 'mysql://u:\\*\\*\\*@h/db'"):
        resolve_url("mysql://u:pw@h/db")
    with pytest.raises(ConfigError, match="invalid database URL"):
        resolve_url("::not a url://")


def test_explicit_path_in_a_missing_directory_is_bad_input(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        RunStore.open(f"sqlite:///{tmp_path / 'missing' / 'runs.sqlite'}")
    assert not (tmp_path / "missing").exists()


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (
            "postgresql://ci@db:5432/reval?password=s3cret",
            "postgresql://ci@db:5432/reval?password=***",
        ),
        (
            "postgresql://ci:pw@db/reval?sslmode=require&sslpassword=key-pw",
            "postgresql://ci:***@db/reval?sslmode=require&sslpassword=***",
        ),
        (
            "postgresql://ci:pw@db:notaport/r?password=s3cret",
            "postgresql://ci:***@db:notaport/r?password=***",
        ),
    ],
)
def test_passwords_in_the_query_string_are_masked_like_the_user_password(url, shown):
    assert mask(url) == shown
    assert "s3cret" not in mask(url) and "pw@" not in mask(url)


def test_a_query_string_password_is_masked_in_store_errors():
    from retrieval_eval.errors import StoreError

    with pytest.raises(StoreError) as caught:  # nothing listens on port 1
        RunStore.open("postgresql://ci@127.0.0.1:1/reval?password=s3cret&connect_timeout=2")
    assert "s3cret" not in str(caught.value)
    assert "password=***" in str(caught.value)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("postgresql://ci:pw@db:notaport/reval", "the port must be a number"),
        ("postgresql+pg8000://ci@db/reval", "unknown database driver 'postgresql+pg8000'"),
        ("sqlite+nosuchdriver:///runs.sqlite", "unknown database driver"),
    ],
)
def test_malformed_urls_are_config_errors_not_tracebacks(url, message):
    with pytest.raises(ConfigError, match=re.escape(message)) as caught:
        resolve_url(url)
    assert "pw" not in str(caught.value)


def test_a_malformed_url_is_exit_2_with_one_line():
    from support.cli import run_reval

    done = run_reval("runs", "list", "--db", "postgresql://ci:pw@db:notaport/reval?password=s3cret")
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "s3cret" not in done.stderr and "port must be a number" in done.stderr
