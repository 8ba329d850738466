"""Input that used to end in a traceback with exit 1 (which CI reads as "regression"): a
history page of a set and retriever with no runs, a number of 5,000 digits in reval.toml,
JSON lines nested 100,000 deep or holding such a number in a BEIR dataset or a corpus.
Each is one line naming the culprit, exit 2, from the installed ``reval`` executable."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from support.cli import REVAL

DEEP = "[" * 100_000 + "]" * 100_000
LONG_NUMBER = "1" * 5_000


def reval(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(REVAL), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "CI": "1", "NO_COLOR": "1"},
    )


def one_line_exit_2(done: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("reval: error: "), done.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


def test_an_html_history_of_no_runs_is_named(db: str, tmp_path: Path) -> None:
    out = tmp_path / "history.html"
    done = reval("runs", "history", "--set", "faq", "--retriever", "nobody", "--db", db,
                 "--format", "html", "--output", out)  # fmt: skip
    one_line_exit_2(done, "'faq × nobody'", "no runs", "reval runs list")
    assert not out.exists()


def test_a_number_of_5000_digits_in_reval_toml_is_named(tmp_path: Path) -> None:
    toml = tmp_path / "reval.toml"
    toml.write_text(f'[retrievers.x]\nkind = "command"\ncommand = ["x"]\ntimeout = {LONG_NUMBER}\n')
    done = reval("retrievers", "list", "--config", toml)
    one_line_exit_2(done, str(toml), "line 4", "5000 digits")


@pytest.mark.parametrize(
    ("line", "reason"),
    [(DEEP, "nested too deeply"), (f'{{"_id": {LONG_NUMBER}, "text": "q"}}', "4300 digits")],
    ids=["nested", "long-number"],
)
def test_unreadable_beir_queries_are_named(tmp_path: Path, line: str, reason: str) -> None:
    (tmp_path / "qrels").mkdir()
    (tmp_path / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n")
    (tmp_path / "queries.jsonl").write_text('{"_id": "q1", "text": "first"}\n' + line + "\n")
    done = reval("sets", "import-beir", tmp_path, "--out", tmp_path / "set.yaml")
    one_line_exit_2(done, f"{tmp_path / 'queries.jsonl'}:2", reason)


@pytest.mark.parametrize(
    ("line", "reason"),
    [(DEEP, "nested too deeply"), (f'{{"_id": {LONG_NUMBER}, "text": "t"}}', "4300 digits")],
    ids=["nested", "long-number"],
)
def test_unreadable_corpus_lines_are_named(tmp_path: Path, line: str, reason: str) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text('{"_id": "d1", "text": "first"}\n' + line + "\n")
    done = reval("bm25", "index", corpus, "--out", tmp_path / "index")
    one_line_exit_2(done, f"{corpus}:2", reason)
