"""Where the store lives: explicit URL > $REVAL_DATABASE_URL > $REVAL_HOME/runs.sqlite."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.factory import make_run

from retrieval_eval.errors import ConfigError, InputError
from retrieval_eval.store import RunStore, mask, resolve_url
from retrieval_eval.store.url import default_url


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
