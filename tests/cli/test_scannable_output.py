"""The text views people scan, through the installed ``reval`` with stdout a pipe (a CI
log) at 80 and 120 columns (``COLUMNS``): no line is wider than that, every run id and
index path appears whole on one line, variants are called by short names (``bm25-A``,
or the name given with ``--variant-name``), and what differs between them is said once,
under the table, never wrapped inside a word."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from support.cli import REVAL

from retrieval_eval.example_data import corpus_path, questions_path

WIDTHS = [80, 120]


def reval_piped(width: int | None, *args: str | Path, ok: tuple[int, ...] = (0,)) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env |= {"NO_COLOR": "1"} | ({} if width is None else {"COLUMNS": str(width)})
    done = subprocess.run([str(REVAL), *map(str, args)], capture_output=True, text=True,
                          env=env, timeout=120, check=False)  # stdout a pipe  # fmt: skip
    assert done.returncode in ok, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def bm25_runs(tmp_path_factory):
    """Runs of the example set with BM25 at two chunkings, indexed under long paths: the
    150-word chunks twice (the second named by the user), the 60-word chunks once."""
    root = tmp_path_factory.mktemp("scannable")
    db = f"sqlite:///{root / 'runs.sqlite'}"
    big, small = root / "big-chunks", root / "small-chunks"  # bm25:/tmp/pytest-of-...
    questions = questions_path()
    for out, words, overlap in ((big, "150", "30"), (small, "60", "10")):
        reval_piped(None, "bm25", "index", corpus_path(), "--out", out,
                    "--chunk-words", words, "--chunk-overlap", overlap)  # fmt: skip
    for index, extra in ((big, ()), (small, ()), (big, ("--variant-name", "wide-chunks"))):
        reval_piped(None, "eval", "--set", questions, "--retriever", f"bm25:{index}",
                    "--db", db, "--label", "git_sha=0123456789abcdef0123", *extra)  # fmt: skip
    listed = json.loads(reval_piped(None, "runs", "list", "--db", db, "--format", "json"))
    ids = [r["run_id"] for r in listed["runs"]]  # newest first
    return {"db": db, "ids": ids, "paths": [f"bm25:{big}", f"bm25:{small}"], "set": questions}


def assert_scannable(out: str, width: int, whole: list[str]) -> list[str]:
    lines = out.splitlines()
    assert lines, out
    too_wide = [line for line in lines if len(line) > width]
    assert not too_wide, out
    for token in whole:  # an id or a path is never split over two lines
        assert any(token in line for line in lines), (token, out)
    return lines


@pytest.mark.parametrize("width", WIDTHS)
def test_runs_list_names_variants_and_says_what_differs(bm25_runs, width):
    out = reval_piped(width, "runs", "list", "--db", bm25_runs["db"])
    lines = assert_scannable(out, width, [*bm25_runs["ids"], *bm25_runs["paths"]])
    newest, small, oldest = bm25_runs["ids"]
    row = {run_id: next(line for line in lines if line.startswith(run_id))
           for run_id in bm25_runs["ids"]}  # fmt: skip
    # the user's name, for the variant's earlier run too; letters for the others
    assert "wide-chunks" in row[newest].split() and "wide-chunks" in row[oldest].split()
    assert "bm25-A" in row[small].split() and "bm25-B" not in out
    assert len([line for line in lines if re.match(r"\w{8}   ", line)]) == 3  # a run a line
    legend = lines[lines.index(next(line for line in lines if line.startswith("variants"))) :]
    assert "reval runs show RUN" in legend[0]
    text = "\n".join(legend)
    assert "chunking words=150,overlap=30" in text and "chunking words=60,overlap=10" in text
    assert "bm25 0.1.0" not in text  # shared by every variant: not repeated


@pytest.mark.parametrize("width", WIDTHS)
def test_runs_history_names_variants_and_marks_the_change(bm25_runs, width):
    out = reval_piped(width, "runs", "history", "--db", bm25_runs["db"], "--set",
                      "larkspur-example", "--retriever", "bm25")  # fmt: skip
    lines = assert_scannable(out, width, [*bm25_runs["ids"], *bm25_runs["paths"]])
    rows = [line for line in lines if any(run_id in line.split() for run_id in bm25_runs["ids"])]
    assert any("bm25-A (new)" in line for line in rows), out
    assert "simple,remove_long" not in out.replace("\n", " ").split("variants")[0]


@pytest.mark.parametrize("width", WIDTHS)
def test_runs_compare_keeps_every_token_whole(bm25_runs, width):
    newest, small, oldest = bm25_runs["ids"]
    out = reval_piped(width, "runs", "compare", oldest, small, newest, "--db", bm25_runs["db"])
    lines = assert_scannable(out, width, [*bm25_runs["ids"], *bm25_runs["paths"]])
    assert "…" not in out  # rich's ellipsis never cuts a figure or a header
    differs = lines[lines.index(next(line for line in lines if line.startswith("what differs"))) :]
    assert differs[1].split()[0] == "A"
    for question in ("install-fedora", "skip-on-battery"):
        assert any(line.startswith(question + " “") for line in lines), out


@pytest.mark.parametrize("width", WIDTHS)
def test_the_eval_report_keeps_ids_and_paths_whole(bm25_runs, width):
    big = bm25_runs["paths"][0]
    out = reval_piped(width, "eval", "--set", bm25_runs["set"], "--retriever", big, "--no-save")
    ids = [q["id"] for q in json.loads(reval_piped(
        None, "eval", "--set", bm25_runs["set"], "--retriever", big, "--no-save",
        "--format", "json"))["runs"][0]["questions"]]  # fmt: skip
    assert_scannable(out, width, [big, *ids])


def test_a_pipe_without_columns_is_120_wide(bm25_runs):
    out = reval_piped(None, "runs", "list", "--db", bm25_runs["db"])
    assert max(map(len, out.splitlines())) <= 120
    assert "started" in out.splitlines()[0]  # room for the start time at 120
