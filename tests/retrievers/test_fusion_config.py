"""Fusion entries of reval.toml: parsing, and every problem named by file, entry and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from retrieval_eval.errors import ConfigError
from retrieval_eval.retrievers.config import load_config
from retrieval_eval.retrievers.fusion.config import FusionConfig, OnMemberError
from retrieval_eval.retrievers.fusion.methods import FusionMethod, FusionParams
from retrieval_eval.retrievers.listing import list_retrievers
from retrieval_eval.retrievers.opening import open_retriever
from retrieval_eval.retrievers.resolve import resolve
from retrieval_eval.retrievers.specs import FusionSpec


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "reval.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_fusion_entry_is_parsed_with_its_defaults(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '[retrievers.a]\naddress = "grpc://127.0.0.1:1"\n'
        '[retrievers.hybrid]\nfuse = ["a", "bm25:idx"]\n'
        '[retrievers.tuned]\nfuse = ["a", "hybrid"]\nmethod = "combmnz"\nweights = [1, 2.5]\n'
        'on_member_error = "skip"\ntimeout = 3\n',
    )
    entries = load_config(path)
    assert entries["hybrid"] == FusionConfig("hybrid", ("a", "bm25:idx"), path)
    assert entries["hybrid"].params == FusionParams(FusionMethod.RRF, 60, ())
    tuned = entries["tuned"]
    assert isinstance(tuned, FusionConfig)
    assert tuned.params == FusionParams(FusionMethod.COMBMNZ, 60, (1.0, 2.5))
    assert tuned.on_member_error is OnMemberError.SKIP
    assert tuned.timeout_s == 3.0
    resolved = resolve("tuned", config_path=path)
    assert isinstance(resolved, FusionSpec) and resolved.timeout_s == 3.0
    infos = {i.name: i for i in list_retrievers(path)}
    assert (infos["hybrid"].kind, infos["hybrid"].detail) == ("fusion", "rrf k=60 of a, bm25:idx")


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        ('fuse = ["a"]', "key 'fuse' needs at least two members, got 1"),
        ('fuse = "a,b"', "key 'fuse' must be a list of retriever names"),
        ('fuse = ["a", "a"]', "key 'fuse' names a member twice"),
        ('fuse = ["a", "h"]', "a fusion cannot contain itself ('h')"),
        ('fuse = ["a", "b"]\nmethod = "rfr"', "key 'method' must be one of 'rrf', 'combsum'"),
        ('fuse = ["a", "b"]\nmethod = "combsum"\nk = 5', "key 'k' applies to method 'rrf' only"),
        ('fuse = ["a", "b"]\nk = -1', "key 'k' must be an integer >= 0, got -1"),
        ('fuse = ["a", "b"]\nweights = [1]', "key 'weights' has 1 values for 2 members"),
        ('fuse = ["a", "b"]\nweights = [1, -2]', "key 'weights': -2 is not a number >= 0"),
        ('fuse = ["a", "b"]\nweights = [0, 0]', "at least one weight must be > 0"),
        ('fuse = ["a", "b"]\non_member_error = "ignore"', "must be one of 'error', 'skip'"),
        ('fuse = ["a", "b"]\ntimeout = 0', "key 'timeout' must be a positive number"),
        ('fuse = ["a", "b"]\nwieghts = [1, 1]', "unknown key 'wieghts' in a fusion; did you mean"),
        ('fuse = ["a", "b"]\naddress = "grpc://x:1"', "unknown key 'address' in a fusion"),
    ],
)
def test_problems_name_the_file_the_entry_and_the_key(
    tmp_path: Path, table: str, expected: str
) -> None:
    path = write(tmp_path, f"[retrievers.h]\n{table}\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(caught.value).startswith(f"{path} [retrievers.h]: ")
    assert expected in str(caught.value)


def test_unknown_members_and_cycles_are_refused_when_opened(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '[retrievers.x]\nfuse = ["y", "grpc://127.0.0.1:1"]\n'
        '[retrievers.y]\nfuse = ["x", "grpc://127.0.0.1:2"]\n'
        '[retrievers.typo]\nfuse = ["grpc://127.0.0.1:1", "xx"]\n',
    )
    with pytest.raises(ConfigError, match=r"\[retrievers.x\]: key 'fuse': fusions form a cycle"):
        open_retriever("y", config_path=path)
    with pytest.raises(ConfigError, match=r"\[retrievers.typo\]: key 'fuse': unknown retriever"):
        open_retriever("typo", config_path=path)


async def test_the_contract_check_points_at_the_members(tmp_path: Path) -> None:
    from retrieval_eval.errors import InputError
    from retrieval_eval.retrievers.contract.check import check_contract

    path = write(tmp_path, '[retrievers.h]\nfuse = ["grpc://127.0.0.1:1", "bm25:idx"]\n')
    with pytest.raises(
        InputError, match=r"'h' is a fusion, not a server.*\(grpc://127\.0\.0\.1:1, bm25:idx\)"
    ):
        await check_contract("h", config_path=path)
