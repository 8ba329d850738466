"""``runs list`` and ``runs history`` through the installed ``reval`` at a fixed terminal
width (``COLUMNS``): every run id stays whole on one line, no escaped newline is shown,
and columns give way in their stated order."""

from __future__ import annotations

import json
import os
import re
import subprocess

import pytest
from support.cli import BAD, GOOD, REVAL


def reval_at(width: int, *args: str) -> str:
    env = {**os.environ, "CI": "1", "NO_COLOR": "1", "COLUMNS": str(width), "LINES": "50"}
    done = subprocess.run([str(REVAL), *args], capture_output=True, text=True, env=env,
                          timeout=120, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def stored(tmp_path, sets, serve_table, db, invoke):
    """Four runs of one set and retriever, three variants, long labels and a long set name."""
    long_set = sets["faq"].with_name("larkspur-example-faq.yaml")
    long_set.write_text(sets["faq"].read_text().replace("name: faq", "name: larkspur-example"))
    for answers, version, step in ((GOOD, "1", "first"), (BAD, "2", "second"),
                                   (GOOD, "3", "third"), (BAD, "3", "fourth")):  # fmt: skip
        target = serve_table(answers, identifier="larkspur", version=f"0.{version}.0-rc")
        result = invoke("eval", "--set", long_set, "--retriever", target, "--db", db,
                        "--label", f"step={step}", "--label", "git_sha=0123456789abcdef",
                        "--format", "json")  # fmt: skip
        assert result.exit_code in (0, 1), result.output
    listed = json.loads(invoke("runs", "list", "--db", db, "--format", "json").stdout)["runs"]
    return [r["run_id"] for r in listed]


@pytest.mark.parametrize("width", [80, 120])
def test_runs_list_keeps_ids_whole_and_fits(stored, db, width):
    out = reval_at(width, "runs", "list", "--db", db)
    lines = out.splitlines()
    assert all(len(line) <= width for line in lines), out
    assert "\\n" not in out
    for run_id in stored:
        assert sum(run_id in line for line in lines) == 1, out
    assert "larkspur-example" in out  # the set name is never broken either
    assert all(re.search(r"\d\.\d{3}", out) for _ in stored)
    header = lines[0]
    assert "top-1" in header and "verdict" in header and "variant" in header
    if width == 80:  # the stated order: start time shortened, labels and counts left out
        assert "labels" not in header and "started (UTC)" not in header
    else:
        assert "started" in header and "questions" in header


@pytest.mark.parametrize("width", [80, 120])
def test_runs_history_keeps_ids_whole_and_fits(stored, db, width):
    out = reval_at(width, "runs", "history", "--db", db, "--set", "larkspur-example",
                   "--retriever", "larkspur")  # fmt: skip
    lines = out.splitlines()
    table = [line for line in lines if any(run_id in line for run_id in stored)]
    assert "\\n" not in out
    for run_id in stored:
        assert any(line.split()[2:3] == [run_id] or run_id in line.split() for line in table)
    assert all(len(line) <= width for line in lines[1:]), out  # the heading may wrap
    header = next(line for line in lines if "verdict" in line)
    assert "top-1" in header and "top-3" in header
    rows = [line for line in table if re.search(r"\d\.\d{3}", line)]
    assert len(rows) == len(stored), out
    assert not any(
        line.strip() == "" for line in lines[lines.index(header) : lines.index(header) + 6]
    )
    if width == 120:
        assert "[95%]" in header and " vs " in out


@pytest.mark.parametrize("width", [80, 120])
def test_runs_compare_keeps_ids_whole(stored, db, width):
    out = reval_at(width, "runs", "compare", *stored[:3], "--db", db)
    lines = out.splitlines()
    runs_table = lines[: lines.index("metrics against A")]
    for run_id in stored[:3]:
        assert sum(run_id in line.split() for line in runs_table[1:]) == 1, out
    assert all(len(line) <= width for line in runs_table[1:]), out
    assert "p95 ms" in runs_table[1]  # the variant's provenance no longer takes the room
