"""The checked-in generated code must be exactly what tools/gen_proto.py makes from proto/."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

GENERATED = Path("retrieval_eval") / "v1"


def _regenerate(repo_root: Path, out: Path) -> None:
    pytest.importorskip("grpc_tools", reason="grpcio-tools (test extra) regenerates the code")
    pytest.importorskip("mypy_protobuf", reason="mypy-protobuf (test extra) makes the stubs")
    spec = importlib.util.spec_from_file_location("gen_proto", repo_root / "tools" / "gen_proto.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.generate(out)


def drift(fresh_root: Path, repo_root: Path) -> list[str]:
    """Files under src/retrieval_eval/v1 that differ, are missing, or are extra."""
    source = repo_root / "src"
    fresh = {p.relative_to(fresh_root) for p in (fresh_root / GENERATED).iterdir()}
    kept = {p.relative_to(source) for p in (source / GENERATED).glob("*.py*")}
    differing = {
        rel
        for rel in fresh & kept
        if (fresh_root / rel).read_bytes() != (source / rel).read_bytes()
    }
    return sorted(str(rel) for rel in (fresh ^ kept) | differing)


def test_installed_generator_is_the_one_that_made_the_code(repo_root: Path) -> None:
    pytest.importorskip("grpc_tools", reason="grpcio-tools (test extra) regenerates the code")
    from importlib.metadata import version

    grpc_code = (repo_root / "src" / GENERATED / "retriever_pb2_grpc.py").read_text()
    made_by = re.search(r"GRPC_GENERATED_VERSION = '([^']+)'", grpc_code)
    assert made_by is not None
    assert version("grpcio-tools") == made_by.group(1), (
        "grpcio-tools differs from the version pinned in pyproject.toml's test extra; "
        "install the pin, or bump it and run python tools/gen_proto.py"
    )


def test_checked_in_code_matches_the_proto(repo_root: Path, tmp_path: Path) -> None:
    _regenerate(repo_root, tmp_path)
    assert len(list((tmp_path / GENERATED).glob("*_pb2*.py*"))) == 4
    stale = drift(tmp_path, repo_root)
    assert not stale, f"generated code drifted from proto/: {stale}; run python tools/gen_proto.py"


def test_drift_is_detected(repo_root: Path, tmp_path: Path) -> None:
    _regenerate(repo_root, tmp_path)
    stub = tmp_path / GENERATED / "retriever_pb2.pyi"
    stub.write_bytes(stub.read_bytes() + b"\n")
    assert drift(tmp_path, repo_root) == [str(GENERATED / "retriever_pb2.pyi")]
