"""Failed questions fail the run: a retriever that dies mid-run, or answers INTERNAL to
everything, gives the verdict ``incomplete`` and exit 3 through the real ``reval``
executable, after the report, ``--output`` and the stored run are written."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from support.cli import FAIL, GOOD, REVAL, run_reval, write_set

from retrieval_eval.store.store import RunStore

QUESTIONS = 30

#: A real gRPC retriever in its own process: prints its address, then one line per call.
SERVER = textwrap.dedent(
    """
    import sys, time
    from retrieval_eval import serve

    class Counting:
        def retrieve(self, question, limit):
            print("call", flush=True)
            time.sleep(0.05)
            return ["d" + question.split("-")[-1]]

        def describe(self):
            return "dying"

    handle = serve(Counting(), "127.0.0.1:0")
    print(handle.address, flush=True)
    handle.wait()
    """
)


@pytest.fixture
def numbered_set(tmp_path: Path) -> Path:
    return write_set(
        tmp_path, "numbered", [(f"q-{i}", [f"d{i}"], "MATCH") for i in range(QUESTIONS)]
    )


def start_server(tmp_path: Path) -> tuple[subprocess.Popen[str], str]:
    script = tmp_path / "server.py"
    script.write_text(SERVER, encoding="utf-8")
    server = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    return server, f"grpc://{server.stdout.readline().strip()}"


def test_a_retriever_killed_mid_run_fails_the_gate(numbered_set, db, tmp_path):
    server, target = start_server(tmp_path)
    try:  # first a complete run: the baseline the broken run would have passed against
        baseline = run_reval("eval", "--set", numbered_set, target, "--db", db, timeout=120)
        assert baseline.returncode == 0, baseline.stderr
    finally:
        server.kill()
        server.wait()
    server, target = start_server(tmp_path)
    out = tmp_path / "report.json"
    reval = subprocess.Popen(
        [str(REVAL), "eval", "--set", str(numbered_set), target, "--db", db, "--concurrency",
         "1", "--timeout", "2", "--format", "json", "--output", str(out),
         "--fail-on-regression"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert server.stdout is not None
    for _ in range(8):  # let it answer some questions, then kill it
        assert server.stdout.readline().strip() == "call"
    server.kill()
    server.wait()
    stdout, stderr = reval.communicate(timeout=120)
    assert reval.returncode == 3, stderr
    assert "too many failed retrievals (--max-errors 0)" in stderr
    document = json.loads(out.read_text(encoding="utf-8"))
    (run,) = document["runs"]
    answered = run["metrics"]["count"]
    assert 7 <= answered < QUESTIONS and run["errors"] == QUESTIONS - answered  # 8th in flight
    assert run["state"] == "incomplete" and run["metrics"]["top1_hit_rate"] == 1.0
    kinds = [q["error"]["kind"] for q in run["questions"] if q["error"]]
    # the call in flight failed; the run then stopped asking (fail fast): never misses
    assert kinds.count("unavailable") == 1 and set(kinds) == {"unavailable", "not_asked"}
    assert run["regression"]["verdict"] == "incomplete" and run["regression"]["fails"]
    assert run["regression"]["baseline_run_id"] is None  # not compared: never a pass
    assert document["summary"]["verdicts"] == {"incomplete": 1}
    assert document["summary"]["failing"] == 1
    # the terminal gets the verdict and where the report went; stderr says why, in one line
    assert stdout.splitlines()[0].startswith("numbered × dying: INCOMPLETE · top-1 1.000")
    assert stdout.splitlines()[1] == f"wrote the json report to {out}"
    (line,) = stderr.strip().splitlines()
    assert "(1 error; first: unavailable: " in line  # the call in flight
    assert f"(on 1 question of {QUESTIONS}), then {QUESTIONS - answered - 1} questions not " in line
    with RunStore.open(db) as store:
        stored = store.get(run["run_id"])  # saved with every question, errors included
        assert stored.state.value == "incomplete" and stored.error_count == run["errors"]
        assert len(stored.questions) == QUESTIONS
        found = store.find_baseline(stored)
        assert found is not None and found.complete  # the incomplete run is no baseline
        assert found.run_id != stored.run_id


def test_a_retriever_that_always_fails_is_incomplete_in_every_format(
    sets, serve_table, db, tmp_path
):
    target = serve_table({question: FAIL for question in GOOD}, identifier="broken")
    for fmt, check in [
        ("text", lambda text: "regression verdict: INCOMPLETE" in text
                              and "4 of 4 questions failed to retrieve (4 internal)" in text),
        ("markdown", lambda text: "❌ incomplete" in text and text.startswith(
            "### reval: ❌ 1 of 1 run failed the gate (1 incomplete)")),
        ("junit", lambda text: ET.fromstring(text).find(".//testcase[@name='regression verdict']/"
                                                        "failure").get("type") == "incomplete"),
        ("json", lambda text: json.loads(text)["runs"][0]["regression"]["verdict"] == "incomplete"),
    ]:  # fmt: skip
        out = tmp_path / f"report.{fmt}"
        result = run_reval(
            "eval", "--set", sets["faq"], target, "--db", db, "--format", fmt, "--output", out
        )
        assert result.returncode == 3, result.stderr
        assert check(out.read_text(encoding="utf-8")), fmt
    within = run_reval("eval", "--set", sets["faq"], target, "--db", db, "--max-errors", "100%")
    # The budget allows the errors, but a run that scored nothing is never judged: still
    # incomplete, exit 3.
    assert within.returncode == 3, within.stderr
    assert "regression verdict: INCOMPLETE" in within.stdout
    assert "no question was scored (4 of 4 failed to retrieve)" in within.stdout
    listed = json.loads(run_reval("runs", "list", "--db", db, "--format", "json").stdout)
    assert [r["state"] for r in listed["runs"]] == ["incomplete"] * 5  # all were stored


def test_a_bad_output_path_or_store_fails_before_any_question_is_asked(
    sets, serve_table, db, tmp_path
):
    calls: list[str] = []
    target = serve_table(GOOD, calls=calls)
    missing = tmp_path / "missing" / "report.xml"
    result = run_reval("eval", "--set", sets["faq"], target, "--db", db, "--output", missing)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"reval: error: cannot write --output {missing}: directory "
        f"{str(missing.parent)!r} does not exist"
    ]
    result = run_reval("eval", "--set", sets["faq"], target, "--db", db, "--output", tmp_path)
    assert result.returncode == 2 and "is a directory" in result.stderr
    nowhere = f"sqlite:///{tmp_path / 'missing' / 'runs.sqlite'}"
    result = run_reval("eval", "--set", sets["faq"], target, "--db", nowhere)
    assert result.returncode == 2 and "does not exist" in result.stderr  # a bad --db too
    assert calls == []  # nothing was measured
    assert (
        json.loads(run_reval("runs", "list", "--db", db, "--format", "json").stdout)["runs"] == []
    )
