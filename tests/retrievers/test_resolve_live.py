"""Retriever specs opened on live servers on 127.0.0.1 (a gRPC address, a reval.toml name
with its token and timeout, raw grpc targets: dns, ipv4, unix) and through the installed
bm25 plugin's real entry point."""

from __future__ import annotations

from pathlib import Path

import pytest

from retrieval_eval.errors import InputError
from retrieval_eval.retrievers.listing import list_retrievers
from retrieval_eval.retrievers.opening import open_retriever


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
        from reval_bm25.index import build_index
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
    assert infos["bm25"].source == "entry point in reval-ir-bm25"
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
