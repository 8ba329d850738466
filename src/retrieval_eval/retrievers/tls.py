"""Reading the PEM files that TLS options name, with errors that name the file."""

from __future__ import annotations

from pathlib import Path

from retrieval_eval.errors import ConfigError


def read_pem(path: Path | str, what: str) -> bytes:
    """The bytes of a PEM file; ``ConfigError`` naming ``what`` and the path otherwise."""
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise ConfigError(f"cannot read {what} {path}: {e.strerror or e}") from e
    if b"-----BEGIN " not in data:
        raise ConfigError(f"{what} {path} is not a PEM file (no '-----BEGIN' line)")
    return data
