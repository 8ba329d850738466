"""Regenerate the checked-in code from proto/ (run: python tools/gen_proto.py [--go]).

Python: *_pb2.py, *_pb2_grpc.py and typed .pyi stubs (mypy-protobuf) into the package
tree that mirrors the proto path, so generated imports resolve as is (grpcio-tools and
mypy-protobuf from the test extra).

Go (--go): *.pb.go and *_grpc.pb.go into gen/go (the module GO_MODULE; the proto's
go_package names the package inside it), with protoc, protoc-gen-go and
protoc-gen-go-grpc on PATH (Debian: protobuf-compiler, protoc-gen-go, protoc-gen-go-grpc).
The generators write their versions into the files, so a drift test compares only with
the same versions (GO_GENERATORS).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "proto"
#: The Go module that holds the generated Go code, and where it sits in the repository.
GO_MODULE = "retrievaleval.dev/reval/gen/go"
GO_ROOT = ROOT / "gen" / "go"
#: The generator versions the checked-in Go code was made with (each prints it with
#: --version): Debian 12's packages.
GO_GENERATORS = {
    "protoc": "libprotoc 3.21.12",
    "protoc-gen-go": "protoc-gen-go v1.28.1",
    "protoc-gen-go-grpc": "protoc-gen-go-grpc 1.0",
}


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


def go_generator_versions() -> dict[str, str | None]:
    """What each Go generator on PATH says with --version (None when it is missing)."""
    import shutil
    import subprocess

    found: dict[str, str | None] = {}
    for tool in GO_GENERATORS:
        path = shutil.which(tool)
        if path is None:
            found[tool] = None
            continue
        done = subprocess.run([path, "--version"], capture_output=True, text=True, check=True)
        found[tool] = done.stdout.strip()
    return found


def generate_go(out_dir: Path) -> None:
    """Run protoc with the Go plugins into out_dir (laid out as the module's root)."""
    import subprocess

    files = [str(p.relative_to(PROTO_ROOT)) for p in proto_files()]
    out_dir.mkdir(parents=True, exist_ok=True)
    args = [
        "protoc",
        f"-I{PROTO_ROOT}",
        f"--go_out={out_dir}",
        f"--go_opt=module={GO_MODULE}",
        f"--go-grpc_out={out_dir}",
        f"--go-grpc_opt=module={GO_MODULE}",
        *files,
    ]
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"protoc failed: {' '.join(args)}\n{done.stderr}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, help="output root (default: the repository's)")
    parser.add_argument("--go", action="store_true", help="generate the Go code (gen/go)")
    args = parser.parse_args(argv)
    if args.go:
        wrong = {t: v for t, v in go_generator_versions().items() if v != GO_GENERATORS[t]}
        if wrong:
            print(f"warning: generators differ from {GO_GENERATORS}: {wrong}", file=sys.stderr)
        generate_go(args.out or GO_ROOT)
    else:
        generate(args.out or ROOT / "src")
    return 0


if __name__ == "__main__":
    sys.exit(main())
