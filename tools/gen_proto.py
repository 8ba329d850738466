"""Regenerate the checked-in Python code from proto/ (run: python tools/gen_proto.py).

Generates *_pb2.py, *_pb2_grpc.py and typed .pyi stubs (mypy-protobuf) into the
package tree that mirrors the proto path, so generated imports resolve as is.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "proto"


def proto_files() -> list[Path]:
    return sorted(PROTO_ROOT.rglob("*.proto"))


def _plugin(name: str) -> str:
    """``--plugin=NAME=PATH`` for a protoc plugin installed beside this Python (a venv's
    bin/), so that generation works without the venv on PATH."""
    import shutil

    scripts = Path(sys.executable).parent
    found = shutil.which(name, path=str(scripts)) or shutil.which(name)
    if found is None:
        raise RuntimeError(f"{name} not found; pip install mypy-protobuf (the test extra)")
    return f"--plugin={name}={found}"


def generate(out_dir: Path) -> None:
    """Run protoc for every proto file into out_dir; raise on failure."""
    import grpc_tools
    from grpc_tools import protoc

    include = Path(grpc_tools.__file__).parent / "_proto"
    files = [str(p.relative_to(PROTO_ROOT)) for p in proto_files()]
    out_dir.mkdir(parents=True, exist_ok=True)
    args = [
        "protoc",
        f"-I{PROTO_ROOT}",
        f"-I{include}",
        _plugin("protoc-gen-mypy"),
        _plugin("protoc-gen-mypy_grpc"),
        f"--python_out={out_dir}",
        f"--grpc_python_out={out_dir}",
        f"--mypy_out={out_dir}",
        f"--mypy_grpc_out={out_dir}",
        *files,
    ]
    if protoc.main(args) != 0:
        raise RuntimeError(f"protoc failed: {' '.join(args)}")
    for rel in files:
        init = out_dir / Path(rel).parent / "__init__.py"
        if not init.exists():
            init.write_text('"""Generated from proto/; regenerate with tools/gen_proto.py."""\n')


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=ROOT, help="output root (default: repo)")
    args = parser.parse_args(argv)
    generate(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
