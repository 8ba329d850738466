from __future__ import annotations

from pathlib import Path

import pytest

from retrieval_eval.errors import ConfigError, InputError, PluginError, UnknownNameError
from retrieval_eval.retrievers.in_process import InProcessRetriever
from retrieval_eval.retrievers.protocol import RetrievedItem
from retrieval_eval.retrievers.resolve import (
    Endpoint,
    PluginSpec,
    RetrieverInfo,
    list_retrievers,
    open_retriever,
    parse_address,
    resolve,
)

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


# --- through real servers and the installed bm25 plugin -----------------------------------


async def test_grpc_address_opens_a_client_on_a_live_server(tiny_server) -> None:
    from retrieval_eval.retrievers.client.grpc_client import GrpcRetrieverClient

    retriever = open_retriever(f"grpc://{tiny_server.address}", timeout_s=3)
    assert isinstance(retriever, GrpcRetrieverClient)
    assert (retriever.target, retriever.options.timeout_s) == (f"grpc://{tiny_server.address}", 3)
    try:
        assert (await retriever.describe()).identifier == "tiny"
        assert (await retriever.retrieve("green tea brewing", 1))[0].document_id == "tea"
    finally:
        await retriever.close()


async def test_config_name_carries_token_and_timeout_to_the_client(
    serve_retriever, tiny_retriever, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from retrieval_eval.retrievers.contract.check import check_contract

    handle = serve_retriever(tiny_retriever, token="cfg-token")
    path = tmp_path / "team.toml"
    path.write_text(
        f'[retrievers.team]\naddress = "grpc://{handle.address}"\n'
        'timeout = 4\ntoken_env = "H2_TEAM_TOKEN"\n'
    )
    monkeypatch.setenv("H2_TEAM_TOKEN", "cfg-token")
    retriever = open_retriever("team", config_path=path)
    try:
        assert retriever.target == f"team (grpc://{handle.address})"
        assert retriever.options.timeout_s == 4
        assert (await retriever.describe()).identifier == "tiny"
    finally:
        await retriever.close()
    results = await check_contract("team", config_path=path)
    assert [r.name for r in results if not r.passed] == []


def bm25_index(tmp_path: Path) -> Path:
    from support.env import require

    try:
        from reval_bm25 import build_index
    except ImportError:
        build_index = None
    require(
        build_index is not None, "the bm25 plugin is not installed: pip install -e plugins/bm25"
    )
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        '{"_id": "tea", "text": "green tea is brewed below boiling"}\n'
        '{"_id": "coffee", "text": "espresso forces hot water through coffee grounds"}\n'
        '{"_id": "cocoa", "text": "cocoa is made from roasted cacao beans"}\n'
    )
    build_index(corpus, tmp_path / "index")
    return tmp_path / "index"


async def test_bm25_plugin_through_its_installed_entry_point(tmp_path: Path) -> None:
    index = bm25_index(tmp_path)
    infos = {i.name: i for i in list_retrievers()}
    assert infos["bm25"].source == "entry point in retrieval-eval-bm25"
    retriever = open_retriever(f"bm25:{index}")
    try:
        items = await retriever.retrieve("how is green tea brewed", 2)
        assert items[0].document_id == "tea"
        assert (await retriever.describe()).identifier == "bm25"
    finally:
        await retriever.close()
    with pytest.raises(InputError, match="bm25:PATH/TO/INDEX"):
        open_retriever("bm25")


def test_check_retriever_on_the_bm25_plugin_served_in_process(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from retrieval_eval.cli.main import cli

    index = bm25_index(tmp_path)
    result = CliRunner().invoke(cli, ["check-retriever", f"bm25:{index}"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"PASS reachable: connected to bm25:{index} (served on ")


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


def test_cli_list_with_a_broken_config_exits_two(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from retrieval_eval.cli.main import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "reval.toml").write_text('[retrievers.x]\naddres = "grpc://h:1"\n')
    with pytest.raises(SystemExit) as info:
        main(["retrievers", "list"])
    assert info.value.code == 2
    assert (
        "[retrievers.x]: unknown key 'addres'; did you mean 'address'?" in capsys.readouterr().err
    )


@pytest.mark.parametrize("scheme", ["dns:///", "ipv4:", "unix:"])
async def test_raw_grpc_targets_reach_a_live_server(
    scheme: str, serve_retriever, tiny_retriever, tmp_path: Path
) -> None:
    if scheme == "unix:":
        handle = serve_retriever(tiny_retriever, address=f"unix:{tmp_path / 'retriever.sock'}")
        spec = handle.address
    else:
        spec = f"{scheme}{serve_retriever(tiny_retriever).address}"
    retriever = open_retriever(spec, timeout_s=3)
    try:
        assert retriever.target == spec
        assert (await retriever.retrieve("espresso coffee", 1))[0].document_id == "coffee"
    finally:
        await retriever.close()
