"""Where the run store lives: an explicit URL, else $REVAL_DATABASE_URL, else a SQLite file.

The default is ``$REVAL_HOME/runs.sqlite`` (``REVAL_HOME`` defaults to ``~/.reval``), so a
laptop needs no setup; a team or CI fleet points every runner at one PostgreSQL URL.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

from retrieval_eval.errors import ConfigError
from retrieval_eval.version import install_extra

ENV_URL = "REVAL_DATABASE_URL"
ENV_HOME = "REVAL_HOME"
DEFAULT_FILE = "runs.sqlite"

#: Query parameters that carry a secret (psycopg's ``password``, ``sslpassword``, ...).
_SECRET_KEY = re.compile(r"pass|pwd|secret|token", re.IGNORECASE)
_SECRET_IN_TEXT = re.compile(r"((?:pass|pwd|secret|token)[^=&]*=)[^&]*", re.IGNORECASE)
_USERINFO_IN_TEXT = re.compile(r"(//[^/:@]*:)[^/@]*@")
_HIDDEN = "reval-hidden-secret"

#: Bare or legacy PostgreSQL schemes -> the driver the postgres extra installs (psycopg 3).
_POSTGRES_ALIASES = {"postgres", "postgresql", "postgresql+psycopg2"}


def reval_home() -> Path:
    return Path(os.environ.get(ENV_HOME) or Path.home() / ".reval").expanduser()


def default_url() -> str:
    return f"sqlite:///{reval_home() / DEFAULT_FILE}"


def resolve_url(url: str | None = None) -> URL:
    """The database URL to use: ``url`` > $REVAL_DATABASE_URL > the default SQLite file.

    A bare path (no ``://``) means a SQLite file; ``postgres://`` and ``postgresql://``
    select psycopg 3.
    """
    raw = url or os.environ.get(ENV_URL) or default_url()
    if "://" not in raw:
        raw = f"sqlite:///{Path(raw).expanduser().resolve()}"
    try:
        parsed = make_url(raw)
    except ArgumentError as e:
        raise ConfigError(f"invalid database URL {mask(raw)!r}: {e}") from e
    except ValueError as e:  # SQLAlchemy turns the port into an int while parsing
        raise ConfigError(f"invalid database URL {mask(raw)!r}: the port must be a number") from e
    if parsed.drivername in _POSTGRES_ALIASES:
        parsed = parsed.set(drivername="postgresql+psycopg")
    backend = parsed.get_backend_name()
    if backend not in ("sqlite", "postgresql"):
        raise ConfigError(
            f"unsupported database URL {mask(parsed)!r}: use sqlite:///PATH or "
            "postgresql://USER@HOST/DB"
        )
    try:
        parsed.get_dialect().import_dbapi()  # the driver module itself must be installed
    except ModuleNotFoundError as e:
        if parsed.drivername == "postgresql+psycopg" and e.name == "psycopg":
            raise ConfigError(
                f"a PostgreSQL store ({mask(parsed)}) needs the postgres extra "
                f"(psycopg is missing): {install_extra('postgres')}"
            ) from e
        raise ConfigError(
            f"unknown database driver {parsed.drivername!r} in {mask(parsed)!r}: "
            "use sqlite:///PATH or postgresql://USER@HOST/DB"
        ) from e
    except (ArgumentError, ImportError) as e:
        raise ConfigError(
            f"unknown database driver {parsed.drivername!r} in {mask(parsed)!r}: "
            "use sqlite:///PATH or postgresql://USER@HOST/DB"
        ) from e
    return parsed


def mask(url: URL | str) -> str:
    """The URL as text with any password replaced by ``***``, for messages and logs: the
    ``user:password@`` part and secret query parameters (``?password=...``) alike."""
    if isinstance(url, str):
        text = url
        try:
            url = make_url(text)
        except (ArgumentError, ValueError):
            return _SECRET_IN_TEXT.sub(r"\1***", _USERINFO_IN_TEXT.sub(r"\1***@", text))
    secret = {k: _HIDDEN for k in url.query if _SECRET_KEY.search(k)}
    text = url.update_query_dict(secret).render_as_string(hide_password=True)
    return text.replace(_HIDDEN, "***")


def holds_password(text: str) -> bool:
    """Whether a URL as written carries a secret: a ``user:password@`` part or a secret
    query parameter (``?password=...``). A file written in a repository must not."""
    if "://" not in text:
        return False  # a bare path
    try:
        url = make_url(text)
    except (ArgumentError, ValueError):
        return bool(_USERINFO_IN_TEXT.search(text) or _SECRET_IN_TEXT.search(text))
    return bool(url.password) or any(_SECRET_KEY.search(key) for key in url.query)


def sqlite_path(url: URL) -> Path | None:
    """The file behind a SQLite URL; None for in-memory databases and other backends."""
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    return Path(url.database)


def is_default_location(url: URL) -> bool:
    path = sqlite_path(url)
    return path is not None and path == reval_home() / DEFAULT_FILE
