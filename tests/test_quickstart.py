"""``reval quickstart`` end to end: a real subprocess, real BM25 and dense indexes served on
real loopback ports, the real client, the default SQLite store under REVAL_HOME."""

from __future__ import annotations

import importlib.util
import os
import re
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from support.env import require

from retrieval_eval.example_data import EXAMPLE_SET_NAME, questions_path

REVAL = str(Path(sys.executable).parent / "reval")
#: The page that shows and explains the quickstart's report.
GUIDE = Path(__file__).resolve().parent.parent / "docs" / "getting-started.md"
RATE_ROW = re.compile(r"^\s*(top1_hit_rate|top3_hit_rate)\s+(\d\.\d{3})\s+\S.*?\s(\d+)/(\d+)\s*$")


def require_bm25() -> None:
    require(importlib.util.find_spec("reval_bm25") is not None, "the BM25 plugin is not installed")
    require(
        importlib.util.find_spec("reval_dense") is not None, "the dense plugin is not installed"
    )


def run_quickstart(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVAL_")}
    env |= {"REVAL_HOME": str(home), "NO_COLOR": "1", "COLUMNS": "140"}
    return subprocess.run(
        [REVAL, "quickstart", *args], env=env, capture_output=True, text=True, timeout=120,
        check=False,
    )  # fmt: skip


def rates(report: str) -> dict[str, tuple[float, int, int]]:
    """metric -> (rate, hits, answered) from the report's aggregate table."""
    found = {}
    for line in report.splitlines():
        match = RATE_ROW.match(line)
        if match and match[1] not in found:
            found[match[1]] = (float(match[2]), int(match[3]), int(match[4]))
    return found


def guide_sample() -> list[str]:
    """The report lines the guide shows (the block marked ``doctest: quickstart-output``)."""
    text = GUIDE.read_text(encoding="utf-8")
    after = text.split("<!-- doctest: quickstart-output -->", 1)[1]
    block = after.split("```text\n", 1)[1].split("```", 1)[0]
    return [" ".join(line.split()) for line in block.splitlines() if line.strip() != "..."]


def guide_table() -> list[list[str]]:
    """The guide's side-by-side table of the quickstart: per retriever, top-1, top-3,
    GAP and MATCH hits, and the Holm-corrected McNemar p of top-1 against BM25."""
    rows = []
    for line in GUIDE.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and re.fullmatch(r"\d+/23", cells[1]):
            rows.append(cells[1:])
    return rows


def printed_table(stdout: str) -> list[list[str]]:
    """The same figures from the comparison the quickstart printed (runs A-D)."""
    hits: dict[str, dict[str, str]] = {}
    metric = ""
    for line in stdout.splitlines():
        row = re.match(r"^(top-1|top-3)?\s+([A-D])\s+\d\.\d{3}\s+\S+\s+(\d+/23)(.*)$", line)
        if row:
            metric = row[1] or metric
            hits.setdefault(row[2], {})[metric] = row[3]
            holm = row[4].split()[-1] if row[4].strip() else ""
            hits[row[2]].setdefault("holm", f"p = {float(holm):.2f}" if holm else "reference")
        group = re.match(r"^form:(GAP|MATCH)\s+(\d+)\s+(.*)$", line)
        if group:
            n = int(group[2])
            cells = re.findall(r"(\d\.\d{3})/(\d\.\d{3})", group[3])
            for tag, cell in zip("ABCD", cells, strict=True):
                text = f"{round(float(cell[0]) * n)}/{n}, {round(float(cell[1]) * n)}/{n}"
                hits.setdefault(tag, {})[group[1]] = text
    keys = ("top-1", "top-3", "GAP", "MATCH", "holm")
    return [[hits[t][k] for k in keys] for t in "ABCD"]


def saved_runs(database: Path) -> list[tuple[str, str]]:
    """(run id, set name) of every run in the SQLite file, read without reval's code."""
    with sqlite3.connect(database) as db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        table = next(t for t in ("reval_runs", "runs") if t in tables)
        columns = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
        id_column = next(c for c in ("run_id", "id") if c in columns)
        return list(db.execute(f"SELECT {id_column}, set_name FROM {table}"))


#: A row of the quickstart's side-by-side table: letter, retriever, top-1 and top-3 hits.
OVERVIEW_ROW = re.compile(r"^([A-D])\s+(\S+)\s+\d\.\d{3} \((\d+/23)\)\s+\d\.\d{3} \((\d+/23)\)\s")


def test_quickstart_measures_saves_and_compares(tmp_path: Path) -> None:
    require_bm25()
    questions = len(yaml.safe_load(questions_path().read_text(encoding="utf-8"))["questions"])

    # By default: the verdicts first, then the four side by side; the rest is in the pages.
    first = run_quickstart(tmp_path)
    assert first.returncode == 0, first.stderr + first.stdout
    assert re.search(r"serving them over gRPC on grpc://127\.0\.0\.1:\d+ and grpc://", first.stderr)
    lines = first.stdout.splitlines()
    assert lines[0] == ("verdicts against the previous quickstart: every retriever no-baseline "
                        "(a first run: the next quickstart is judged against it)")  # fmt: skip
    overview = [m.groups() for m in map(OVERVIEW_ROW.match, lines) if m]
    assert [row[:2] for row in overview] == [
        ("A", "bm25"), ("B", "dense"), ("C", "hybrid"), ("D", "bm25-reranked")
    ]  # fmt: skip
    assert len(lines) < 40 and "compare 4 runs" not in first.stdout  # no wall of text
    assert "reval quickstart --details" in first.stdout and "reval runs list" in first.stdout
    # It ends by pointing at the HTML report it wrote and at the live viewer.
    report = tmp_path / "quickstart-report.html"
    assert lines[-1].strip() == "reval ui"
    assert f"open the HTML report of this run, {report}" in first.stdout
    assert report.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    page = tmp_path / "quickstart-comparison.html"
    assert f"the four retrievers side by side, {page}" in first.stdout
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    # the same figures as the guide's table (which the detailed comparison is checked against)
    assert [[top1, top3] for _, _, top1, top3 in overview] == [r[:2] for r in guide_table()]

    database = tmp_path / "runs.sqlite"
    runs = saved_runs(database)
    assert [name for _, name in runs] == [EXAMPLE_SET_NAME] * 4
    bm25_row = next(line for line in lines if line.startswith("A "))
    first_id = next(str(i) for i, _ in runs if str(i) in bm25_row.split())

    # --details: BM25's report and the whole comparison too.
    second = run_quickstart(tmp_path, "--details")
    assert second.returncode == 0, second.stderr + second.stdout
    assert second.stdout.startswith(
        "verdicts against the previous quickstart: every retriever pass\n"
    )
    found = rates(second.stdout)
    assert set(found) == {"top1_hit_rate", "top3_hit_rate"}, second.stdout
    for rate, hits, answered in found.values():
        assert answered == questions  # every question answered: no errors
        assert rate == pytest.approx(hits / answered, abs=0.0005)
    top1, top3 = found["top1_hit_rate"][0], found["top3_hit_rate"][0]
    # The example data is built so that BM25 is measurably good and measurably imperfect.
    assert 0.0 < top1 <= top3 < 1.0
    assert [f"{found[k][1]}/{found[k][2]}" for k in ("top1_hit_rate", "top3_hit_rate")] == list(
        overview[0][2:]
    )
    printed = {" ".join(line.split()) for line in second.stdout.splitlines()}
    shown = guide_sample()
    assert len(shown) > 5
    stale = [line for line in shown if line not in printed]
    assert not stale, f"{GUIDE.name}'s sample report differs from the quickstart's: {stale}"
    prose = re.search(
        r"first for (\d+) of (\d+) questions and within the first three for (\d+)",
        " ".join(GUIDE.read_text(encoding="utf-8").split()),
    )
    assert prose is not None, f"{GUIDE.name} no longer explains the quickstart's numbers"
    hits = found["top1_hit_rate"][1], questions, found["top3_hit_rate"][1]
    assert tuple(map(int, prose.groups())) == hits

    # The four retrievers side by side, BM25 the reference.
    assert "compare 4 runs of set larkspur-example" in second.stdout
    for variant in ("dense 0.1.0", "rrf(bm25, dense)", "rerank(bm25) depth=50 embedding"):
        assert variant in second.stdout, variant
    assert re.search(r"^form:GAP\s+10(\s+\d\.\d{3}/\d\.\d{3}){4}\s*$", second.stdout, re.M)
    assert "McNemar p" in second.stdout
    assert guide_table() == printed_table(second.stdout)

    verdict = re.search(r"regression verdict: (\S+) vs baseline (\S+)", second.stdout)
    assert verdict is not None, second.stdout
    assert verdict[1] == "PASS"
    assert first_id.startswith(verdict[2]) or verdict[2].startswith(first_id)
    assert len(saved_runs(database)) == 8
    # The next step it suggests works: compare this run with the previous one.
    suggested = re.search(r"^\s*(reval runs compare \S+ \S+)\s*$", second.stdout, re.MULTILINE)
    assert suggested is not None, second.stdout
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVAL_")}
    compare = subprocess.run(
        [REVAL, *suggested[1].split()[1:]],
        env={**env, "REVAL_HOME": str(tmp_path), "NO_COLOR": "1"},
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert compare.returncode == 0, compare.stderr
    assert re.search(r"^B\s.*\bpass\s*$", compare.stdout, re.MULTILINE), compare.stdout
    assert "0 of 23 questions differ between the runs" in compare.stdout


def test_quickstart_cleans_up_when_interrupted(tmp_path: Path) -> None:
    """Ctrl-C while the server runs: the process ends promptly, nothing is left behind."""
    require_bm25()
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVAL_")}
    env |= {"REVAL_HOME": str(tmp_path), "TMPDIR": str(scratch), "NO_COLOR": "1"}
    process = subprocess.Popen(
        [REVAL, "quickstart"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert process.stderr is not None
    for line in process.stderr:
        if "serving them over gRPC" in line:
            process.send_signal(signal.SIGINT)
            break
    _, rest = process.communicate(timeout=60)
    # Interrupted (130), or it had already finished (0) before the signal arrived.
    assert process.returncode in (0, 130), rest
    assert list(scratch.iterdir()) == []  # the temporary indexes are gone


def test_quickstart_without_the_dense_plugin_says_how_to_install_it(tmp_path: Path) -> None:
    hide_plugin = (
        "import sys; sys.modules['reval_dense'] = None; "
        "from retrieval_eval.cli.main import main; main(['quickstart'])"
    )
    env = {**os.environ, "REVAL_HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", hide_plugin], env=env, capture_output=True, text=True,
        timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "the quickstart needs the dense plugin" in done.stderr
    assert "pip install -e ./plugins/dense" in done.stderr
    assert not (tmp_path / "runs.sqlite").exists()  # failed before touching the store


def test_quickstart_without_the_bm25_plugin_says_how_to_install_it(tmp_path: Path) -> None:
    hide_plugin = (
        "import sys; sys.modules['reval_bm25'] = None; "
        "from retrieval_eval.cli.main import main; main(['quickstart'])"
    )
    env = {**os.environ, "REVAL_HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", hide_plugin], env=env, capture_output=True, text=True,
        timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "pip install -e ./plugins/bm25" in done.stderr
    assert not (tmp_path / "runs.sqlite").exists()  # failed before touching the store


def test_every_suggested_next_command_exists_with_its_options() -> None:
    import click

    from retrieval_eval.cli.main import cli
    from retrieval_eval.cli.quickstart import next_steps

    suggested = [
        line.split()
        for line in next_steps("run-b", "run-a").splitlines()
        if line.strip().startswith("reval ")
    ]
    assert len(suggested) >= 4
    for words in suggested:
        command: click.Command = cli
        rest = words[1:]
        while isinstance(command, click.Group) and rest:
            sub = command.get_command(click.Context(command), rest[0])
            assert sub is not None, f"suggested {' '.join(words)!r}: no command {rest[0]!r}"
            command, rest = sub, rest[1:]
        assert not isinstance(command, click.Group), f"{' '.join(words)!r} is incomplete"
        options = {o for p in command.params if isinstance(p, click.Option) for o in p.opts}
        unknown = [w for w in rest if w.startswith("--") and w not in options]
        assert not unknown, f"suggested {' '.join(words)!r}: unknown options {unknown}"


def test_quickstart_saves_where_db_points(tmp_path: Path) -> None:
    require_bm25()
    elsewhere = tmp_path / "elsewhere" / "team.sqlite"
    wrong = run_quickstart(tmp_path / "home", "--db", f"sqlite:///{elsewhere}")
    assert wrong.returncode == 2, wrong.stderr  # the directory does not exist: bad input
    assert str(elsewhere.parent) in wrong.stderr
    assert "indexed" not in wrong.stderr  # it failed before doing any work
    elsewhere.parent.mkdir()
    done = run_quickstart(tmp_path / "home", "--db", f"sqlite:///{elsewhere}")
    assert done.returncode == 0, done.stderr
    assert [name for _, name in saved_runs(elsewhere)] == [EXAMPLE_SET_NAME] * 4
    assert not (tmp_path / "home" / "runs.sqlite").exists()
    assert str(elsewhere) in done.stdout
