"""The checked-in Go code (gen/go) must be exactly what tools/gen_proto.py --go makes from
proto/ with the generator versions it names; the detector is tested too."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest
from support.env import require

pytestmark = pytest.mark.go


def _gen_proto(repo_root: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_proto", repo_root / "tools" / "gen_proto.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _regenerate(repo_root: Path, out: Path) -> None:
    gen = _gen_proto(repo_root)
    found = gen.go_generator_versions()
    missing = [tool for tool, version in found.items() if version is None]
    require(
        not missing,
        f"{', '.join(missing)} not on PATH "
        "(apt-get install protobuf-compiler protoc-gen-go protoc-gen-go-grpc)",
    )
    assert found == gen.GO_GENERATORS, (
        "the Go generators differ from those that made gen/go (GO_GENERATORS in "
        "tools/gen_proto.py): install those, or update it and run python tools/gen_proto.py --go"
    )
    gen.generate_go(out)


def drift(fresh_root: Path, kept_root: Path) -> list[str]:
    """Go files that differ, are missing, or are extra (go.mod is written by hand)."""
    fresh = {p.relative_to(fresh_root) for p in fresh_root.rglob("*.go")}
    kept = {p.relative_to(kept_root) for p in kept_root.rglob("*.go")}
    differing = {
        rel
        for rel in fresh & kept
        if (fresh_root / rel).read_bytes() != (kept_root / rel).read_bytes()
    }
    return sorted(str(rel) for rel in (fresh ^ kept) | differing)


def test_checked_in_go_code_matches_the_proto(repo_root: Path, tmp_path: Path) -> None:
    _regenerate(repo_root, tmp_path)
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*.go")) == [
        "retrieval_eval/v1/retriever.pb.go",
        "retrieval_eval/v1/retriever_grpc.pb.go",
    ]
    stale = drift(tmp_path, repo_root / "gen" / "go")
    assert not stale, f"gen/go drifted from proto/: {stale}; run python tools/gen_proto.py --go"


def test_go_drift_is_detected(repo_root: Path, tmp_path: Path) -> None:
    _regenerate(repo_root, tmp_path)
    code = tmp_path / "retrieval_eval" / "v1" / "retriever_grpc.pb.go"
    code.write_bytes(code.read_bytes() + b"\n")
    (tmp_path / "extra.go").write_text("package extra\n")
    assert drift(tmp_path, repo_root / "gen" / "go") == [
        "extra.go",
        "retrieval_eval/v1/retriever_grpc.pb.go",
    ]


def test_go_package_is_where_the_code_is(repo_root: Path) -> None:
    """The proto's go_package is the module path plus the code's folder in gen/go."""
    gen = _gen_proto(repo_root)
    proto = (repo_root / "proto" / "retrieval_eval" / "v1" / "retriever.proto").read_text()
    module = (repo_root / "gen" / "go" / "go.mod").read_text()
    assert f"\nmodule {gen.GO_MODULE}\n" in module
    expected = f'option go_package = "{gen.GO_MODULE}/retrieval_eval/v1;retrievalevalv1";'
    assert expected in proto
    assert (repo_root / "gen" / "go" / "retrieval_eval" / "v1" / "retriever.pb.go").exists()
