"""Helpers of the question-set tests: inline set files and a CLI runner with exit codes."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from retrieval_eval.cli.main import main
from retrieval_eval.questions.reading import read_set_file
from retrieval_eval.questions.validate import check_raw_set

PROVIDERS_DIR = Path(__file__).resolve().parents[1] / "questions" / "fixtures" / "providers"


def write(path: Path, text: str) -> Path:
    """Write ``text`` (gzipped when the name ends in .gz) and return the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = text.encode("utf-8")
    path.write_bytes(gzip.compress(data) if path.suffix == ".gz" else data)
    return path


def problems(path: Path) -> list[str]:
    qs, found = check_raw_set(read_set_file(path))
    assert qs is None
    return [str(p) for p in found]


def only(path: Path) -> str:
    found = problems(path)
    assert len(found) == 1, found
    return found[0]


def jsonl(tmp_path: Path, *records: object, header: bool = True) -> Path:
    head = [json.dumps({"reval_question_set": 1, "name": "s"})] if header else []
    lines = [r if isinstance(r, str) else json.dumps(r) for r in records]
    return write(tmp_path / "set.jsonl", "\n".join(head + lines) + "\n")


def reval(*args: str) -> int:
    """Run ``reval ARGS`` as the console script does; return its exit code."""
    try:
        main(list(args))
    except SystemExit as e:
        return int(e.code or 0)
    return 0
