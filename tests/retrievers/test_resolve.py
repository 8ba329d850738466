"""Retriever specs resolved and opened: addresses, reval.toml names, plugins by name and
argument, close-name suggestions, and ``reval retrievers list``. (Opened on live servers
and the installed bm25 plugin: ``test_resolve_live.py``.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from retrieval_eval.errors import ConfigError, InputError, PluginError, UnknownNameError
from retrieval_eval.retrievers.addresses import parse_address
from retrieval_eval.retrievers.in_process import InProcessRetriever
from retrieval_eval.retrievers.listing import list_retrievers
from retrieval_eval.retrievers.opening import open_retriever
from retrieval_eval.retrievers.protocol import RetrievedItem
from retrieval_eval.retrievers.resolve import PluginSpec, resolve
from retrieval_eval.retrievers.specs import Endpoint, RetrieverInfo

PLUGIN_DIR = Path(__file__).resolve().parent.parent / "fixtures" / "retriever_plugin"


@pytest.fixture
def test_plugins(monkeypatch: pytest.MonkeyPatch) -> None:
    """Install the reval-test-retrievers distribution (a real dist-info on sys.path)."""
    monkeypatch.syspath_prepend(str(PLUGIN_DIR))


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ca.pem").write_text("not checked here")
    path = tmp_path / "reval.toml"
    path.write_text(
        """
[retrievers.local]
address = "grpc://127.0.0.1:5000"
timeout = 2.5

[retrievers.secure]
address = "dns:///search.internal:443"
token_env = "H2_TEST_TOKEN"
tls_ca = "ca.pem"
tls_server_name = "search.internal"

[retrievers.missing-ca]
address = "grpcs://search.internal"
tls_ca = "nope.pem"

[retrievers.not-an-address]
address = "search.internal:443"
"""
    )
    return path


@pytest.mark.parametrize(
    ("spec", "display", "target", "secure"),
    [
        ("grpc://127.0.0.1:5000", "grpc://127.0.0.1:5000", "127.0.0.1:5000", False),
        ("grpc://localhost:80/", "grpc://localhost:80", "localhost:80", False),
        ("grpc://[::1]:5000", "grpc://[::1]:5000", "[::1]:5000", False),
        (
            "grpcs://search.example.com",
            "grpcs://search.example.com:443",
            "search.example.com:443",
            True,
        ),
        (
            "grpcs://search.example.com:8443",
            "grpcs://search.example.com:8443",
            "search.example.com:8443",
            True,
        ),
        ("dns:///search:50051", "dns:///search:50051", "dns:///search:50051", False),
        (
            "ipv4:10.0.0.1:5,10.0.0.2:5",
            "ipv4:10.0.0.1:5,10.0.0.2:5",
            "ipv4:10.0.0.1:5,10.0.0.2:5",
            False,
        ),
        ("unix:/tmp/retriever.sock", "unix:/tmp/retriever.sock", "unix:/tmp/retriever.sock", False),
    ],
)
def test_addresses(spec: str, display: str, target: str, secure: bool) -> None:
    assert parse_address(spec) == Endpoint(display, target, secure)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("grpc://127.0.0.1", "has no port; expected grpc://HOST:PORT"),
        ("grpc://:5000", "invalid retriever address 'grpc://:5000'"),
        ("grpc://h:99999", "Port out of range"),
        ("grpc://h:5/path", "invalid retriever address"),
        ("unix:", "nothing after the scheme"),
    ],
)
def test_malformed_addresses_name_the_address(spec: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        resolve(spec)


def test_names_are_not_addresses() -> None:
    assert parse_address("bm25:/tmp/index") is None
    assert parse_address("prod") is None


def test_config_names_with_timeout_token_and_tls(
    config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    local = resolve("local")
    assert local == Endpoint("local (grpc://127.0.0.1:5000)", "127.0.0.1:5000", timeout_s=2.5)
    assert resolve("local", timeout_s=9.0).timeout_s == 9.0
    monkeypatch.setenv("H2_TEST_TOKEN", "s3cret")
    secure = resolve("secure")
    assert isinstance(secure, Endpoint)
    assert (secure.channel_target, secure.secure, secure.token) == (
        "dns:///search.internal:443",
        True,
        "s3cret",
    )
    assert (secure.ca_cert, secure.server_name) == (config.parent / "ca.pem", "search.internal")
    assert resolve("secure", token="explicit").token == "explicit"


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("secure", r"\[retrievers\.secure\]: key 'token_env': environment variable H2_TEST_TOKEN"),
        ("missing-ca", r"\[retrievers\.missing-ca\]: key 'tls_ca': file not found: .*nope\.pem"),
        ("not-an-address", r"key 'address': 'search.internal:443' is not a gRPC address"),
    ],
)
def test_config_problems_surface_when_the_name_is_used(
    config: Path, name: str, message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("H2_TEST_TOKEN", raising=False)
    with pytest.raises(ConfigError, match=message) as info:
        resolve(name)
    assert str(info.value).startswith(str(config))


def test_explicit_config_path(tmp_path: Path) -> None:
    path = tmp_path / "elsewhere.toml"
    path.write_text('[retrievers.far]\naddress = "grpc://10.1.2.3:7"\n')
    resolved = resolve("far", config_path=path)
    assert isinstance(resolved, Endpoint) and resolved.channel_target == "10.1.2.3:7"


def test_plugins_by_name_and_argument(test_plugins: None) -> None:
    assert resolve("test-keywords") == PluginSpec("test-keywords", "test-keywords", None)
    assert resolve("test-keywords:/some/index:x", timeout_s=3) == PluginSpec(
        "test-keywords:/some/index:x", "test-keywords", "/some/index:x", 3
    )


def test_unknown_names_suggest_close_ones(config: Path, test_plugins: None) -> None:
    with pytest.raises(
        UnknownNameError, match=r"unknown retriever 'test-keyword'.*'test-keywords'"
    ):
        resolve("test-keyword")
    with pytest.raises(UnknownNameError, match=r"did you mean 'local'"):
        resolve("locl")
    with pytest.raises(UnknownNameError, match=r"did you mean 'grpc://localhost:5000'"):
        resolve("localhost:5000")


def test_a_bare_index_name_suggests_each_plugin_with_it(test_plugins: None) -> None:
    with pytest.raises(UnknownNameError) as caught:
        resolve("example-index")
    message = str(caught.value)
    assert "'bm25:example-index'" in message and "'dense:example-index'" in message
    assert "'test-async:example-index'" in message  # the test plugins' entry points too
    assert "PLUGIN:ARGUMENT" in message


def test_an_http_address_says_grpc_addresses_start_with_grpc() -> None:
    with pytest.raises(UnknownNameError) as caught:
        resolve("http://127.0.0.1:50053")
    message = str(caught.value)
    assert "did you mean 'grpc://127.0.0.1:50053'?" in message
    assert "gRPC addresses start with grpc://" in message and 'kind "http"' in message


async def test_plugin_through_real_entry_points(test_plugins: None) -> None:
    retriever = open_retriever("test-keywords:my-name", timeout_s=4)
    assert isinstance(retriever, InProcessRetriever)
    assert (retriever.target, retriever.timeout_s) == ("test-keywords:my-name", 4)
    items = await retriever.retrieve("dogs in the park", 2)
    assert list(items) == [RetrievedItem("doc-dogs", 4.0), RetrievedItem("doc-sun", 3.0)]
    assert (await retriever.describe()).identifier == "my-name"
    await retriever.close()
    assert retriever.obj.closed


async def test_async_plugin_through_real_entry_points(test_plugins: None) -> None:
    retriever = open_retriever("test-async")
    assert list(await retriever.retrieve("fish swim", 5)) == [RetrievedItem("doc-fish")]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            "test-bad-factory:/no/index",
            r"'test-bad-factory' could not be created from 'test-bad-factory:/no/index': "
            r"FileNotFoundError: no index at '/no/index'",
        ),
        ("test-not-a-retriever", r"returned object, which has no retrieve\(question, limit\)"),
        ("test-missing-module", r"'test-missing-module' .* failed to load: .*ModuleNotFoundError"),
    ],
)
def test_broken_plugins_are_plugin_errors(test_plugins: None, spec: str, message: str) -> None:
    with pytest.raises(PluginError, match=message):
        open_retriever(spec)


def test_list_shows_config_entries_and_plugins_with_their_source(
    config: Path, test_plugins: None
) -> None:
    infos = list_retrievers()
    assert infos[:4] == [
        RetrieverInfo("local", "config", str(config), "grpc://127.0.0.1:5000"),
        RetrieverInfo("secure", "config", str(config), "dns:///search.internal:443"),
        RetrieverInfo("missing-ca", "config", str(config), "grpcs://search.internal"),
        RetrieverInfo("not-an-address", "config", str(config), "search.internal:443"),
    ]
    plugins = {info.name: info for info in infos if info.kind == "plugin"}
    assert plugins["test-keywords"] == RetrieverInfo(
        "test-keywords",
        "plugin",
        "entry point in reval-test-retrievers",
        "reval_test_retrievers:keywords",
    )


# --- reval retrievers list ------------------------------------------------------------------


def test_cli_list_shows_names_kinds_and_sources(config: Path, test_plugins: None) -> None:
    from click.testing import CliRunner

    from retrieval_eval.cli.main import cli

    result = CliRunner().invoke(cli, ["retrievers", "list"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split() == ["NAME", "KIND", "TARGET", "SOURCE"]
    assert lines[1].split() == ["local", "config", "grpc://127.0.0.1:5000", str(config)]
    row = next(line for line in lines if line.startswith("test-keywords "))
    assert row.split()[1:3] == ["plugin", "reval_test_retrievers:keywords"]
    assert row.endswith("entry point in reval-test-retrievers")


def test_cli_list_json_and_explicit_config(tmp_path: Path) -> None:
    import json

    from click.testing import CliRunner

    from retrieval_eval.cli.main import cli

    path = tmp_path / "other.toml"
    path.write_text('[retrievers.far]\naddress = "grpcs://far.example"\n')
    result = CliRunner().invoke(
        cli,
        ["retrievers", "list", "--config", str(path), "--format", "json"],
        catch_exceptions=False,
    )
    assert result.exit_code == 0
    rows = json.loads(result.output)["retrievers"]
    assert rows[0] == {
        "name": "far",
        "kind": "config",
        "source": str(path),
        "detail": "grpcs://far.example",
        "shadowed": False,
    }
    assert all(row["kind"] == "plugin" for row in rows[1:])


def test_a_config_name_hides_a_plugin_of_the_same_name(tmp_path: Path, test_plugins: None) -> None:
    from click.testing import CliRunner

    from retrieval_eval.cli.main import cli

    path = tmp_path / "reval.toml"
    path.write_text('[retrievers.test-keywords]\naddress = "grpc://127.0.0.1:9"\n')
    assert isinstance(resolve("test-keywords", config_path=path), Endpoint)
    infos = [i for i in list_retrievers(path) if i.name == "test-keywords"]
    assert [(i.kind, i.shadowed) for i in infos] == [("config", False), ("plugin", True)]
    result = CliRunner().invoke(
        cli, ["retrievers", "list", "--config", str(path)], catch_exceptions=False
    )
    assert "entry point in reval-test-retrievers (hidden by reval.toml)" in result.output


def test_cli_list_names_a_broken_entry_and_lists_the_rest(tmp_path: Path) -> None:
    """A listing uses no entry: a broken one is a warning naming it, the others are listed
    (a command that uses the broken entry stops on it, exit 2)."""
    import subprocess
    import sys

    (tmp_path / "reval.toml").write_text(
        '[retrievers.x]\naddres = "grpc://h:1"\n[retrievers.y]\naddress = "grpc://h:2"\n'
    )
    reval = str(Path(sys.executable).parent / "reval")
    done = subprocess.run([reval, "retrievers", "list"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "[retrievers.x]: unknown key 'addres'; did you mean 'address'?" in done.stderr
    assert "y" in done.stdout.split() and "x" not in done.stdout.split()
