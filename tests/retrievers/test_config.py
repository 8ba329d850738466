from __future__ import annotations

from pathlib import Path

import pytest

from retrieval_eval.errors import ConfigError
from retrieval_eval.retrievers.config import RetrieverConfig, load_config


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "reval.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_full_entry_resolves_paths_against_the_file(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
[retrievers.prod]
address = "grpcs://search.internal:8443"
timeout = 5
token_env = "PROD_TOKEN"
tls_ca = "certs/ca.pem"
tls_cert = "certs/client.pem"
tls_key = "certs/client.key"
tls_server_name = "search.internal"

[retrievers.local]
address = "grpc://127.0.0.1:5000"
""",
    )
    entries = load_config(path)
    assert list(entries) == ["prod", "local"]
    assert entries["prod"] == RetrieverConfig(
        name="prod",
        address="grpcs://search.internal:8443",
        source=path,
        timeout_s=5.0,
        token_env="PROD_TOKEN",
        tls_ca=tmp_path / "certs" / "ca.pem",
        tls_cert=tmp_path / "certs" / "client.pem",
        tls_key=tmp_path / "certs" / "client.key",
        tls_server_name="search.internal",
    )
    assert entries["local"].timeout_s is None and not entries["local"].uses_tls_files


def test_default_file_is_read_from_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert load_config() == {}
    write(tmp_path, '[retrievers.here]\naddress = "grpc://127.0.0.1:1"\n')
    assert list(load_config()) == ["here"]


def test_missing_explicit_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"nowhere\.toml: configuration file not found"):
        load_config(tmp_path / "nowhere.toml")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '[retrievers.prod]\naddress = "grpc://h:1"\nadress = "x"\n',
            r"\[retrievers\.prod\]: unknown key 'adress'; did you mean 'address'\?",
        ),
        (
            "[retrievers.prod]\ntimeout = 3\n",
            r"\[retrievers\.prod\]: missing required key 'address'",
        ),
        (
            '[retrievers.prod]\naddress = "grpc://h:1"\ntimeout = "5s"\n',
            r"\[retrievers\.prod\]: key 'timeout' must be a positive number of seconds, got '5s'",
        ),
        (
            '[retrievers.prod]\naddress = "grpc://h:1"\ntimeout = -1\n',
            r"key 'timeout' must be a positive number",
        ),
        (
            '[retrievers.prod]\naddress = "grpc://h:1"\ntimeout = true\n',
            r"key 'timeout' must be a positive number",
        ),
        (
            '[retrievers.prod]\naddress = ""\n',
            r"key 'address' must be a non-empty string, got ''",
        ),
        (
            '[retrievers.prod]\naddress = "grpc://h:1"\ntoken_env = 7\n',
            r"key 'token_env' must be a non-empty string, got 7",
        ),
        (
            '[retrievers.prod]\naddress = "grpcs://h:1"\ntls_cert = "c.pem"\n',
            r"'tls_cert' and 'tls_key' must be given together",
        ),
        (
            '[retrievers.prod]\naddress = "grpc://h:1"\ntls_ca = "ca.pem"\n',
            r"key 'address': TLS files are set but 'grpc://h:1' is plaintext; use grpcs://",
        ),
        ('[retriever.prod]\naddress = "grpc://h:1"\n', r"unknown table \[retriever\]; did you"),
        (
            "[eval]\nks = [1, 3]\n",
            r"unknown table \[eval\]; reval.toml has \[retrievers\], \[pytest\], \[gate\], "
            r"\[labels\] only",
        ),
        ('retrievers = "prod"\n', r"\[retrievers\] must be a table"),
        ('[retrievers]\nprod = "grpc://h:1"\n', r"\[retrievers\.prod\]: must be a table"),
        ('[retrievers."bad name"]\naddress = "grpc://h:1"\n', r"invalid retriever name"),
        ("[retrievers.prod\naddress = 1\n", r"invalid TOML: .*line 1"),
    ],
)
def test_problems_name_the_file_and_the_key(tmp_path: Path, text: str, expected: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError, match=expected) as info:
        load_config(path)
    assert str(info.value).startswith(str(path))
