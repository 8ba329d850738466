"""Where reval.toml is looked for, apart from reading it (``retrievers.config``): finding
out that there is no reval.toml must not import the TOML reader and its records."""

from __future__ import annotations

from pathlib import Path

CONFIG_FILE_NAME = "reval.toml"


def default_config_path() -> Path:
    """``./reval.toml`` in the working directory."""
    return Path.cwd() / CONFIG_FILE_NAME
