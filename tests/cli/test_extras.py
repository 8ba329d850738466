"""Commands of optional extras, run where the extra is not installed: one line naming the
pip command, exit 2, no traceback. The extra's modules are made unimportable in a real
``reval`` process by a meta-path finder placed first (as if never installed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "src" / "retrieval_eval" / "example_data"
WITHOUT = """
import sys

class Absent:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {blocked!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None

sys.meta_path.insert(0, Absent())
from retrieval_eval.cli.main import main
sys.argv = ["reval", *sys.argv[1:]]
main()
"""
#: A ``postgres`` retriever entry, in the working directory of every case (read only by the
#: commands that name a retriever).
PG_ENTRY = """
[retrievers.pg]
kind = "postgres"
dsn = "postgresql://reval@127.0.0.1:9/search"
query = "SELECT id FROM docs WHERE body @@ plainto_tsquery(:question) LIMIT :limit"
"""


@pytest.mark.parametrize(
    ("blocked", "args", "line"),
    [
        ({"starlette", "uvicorn"}, ["ui"],
         "reval: error: reval ui needs the ui extra (starlette is missing): "
         "pip install 'reval-ir[ui]'"),
        ({"starlette", "uvicorn"},
         ["sets", "judge", EXAMPLE / "questions.yaml", "--corpus", EXAMPLE / "corpus.jsonl"],
         "reval: error: reval sets judge needs the ui extra (starlette is missing): "
         "pip install 'reval-ir[ui]'"),
        ({"numpy"},
         ["sets", "lint", EXAMPLE / "questions.yaml", "--corpus", EXAMPLE / "corpus.jsonl",
          "--no-runs"],
         "reval: error: reval sets lint needs the lint extra (numpy is missing): "
         "pip install 'reval-ir[lint]'"),
        ({"psycopg"}, ["runs", "list", "--db", "postgresql://reval@127.0.0.1:9/reval"],
         "reval: error: a PostgreSQL store (postgresql+psycopg://reval@127.0.0.1:9/reval) "
         "needs the postgres extra (psycopg is missing): pip install 'reval-ir[postgres]'"),
        ({"psycopg"}, ["eval", "--set", EXAMPLE / "questions.yaml", "--retriever", "pg"],
         "reval: error: reval.toml [retrievers.pg]: the postgres kind needs the postgres extra "
         "(psycopg is missing): pip install 'reval-ir[postgres]'"),
    ],
    ids=["ui", "sets-judge", "sets-lint", "postgres-store", "postgres-kind"],
)  # fmt: skip
def test_a_missing_extra_is_one_line_and_exit_2(tmp_path, blocked, args, line):
    (tmp_path / "reval.toml").write_text(PG_ENTRY, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT.format(blocked=sorted(blocked)), *map(str, args)],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
        env={"REVAL_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().replace(f"{tmp_path}/", "") == line
