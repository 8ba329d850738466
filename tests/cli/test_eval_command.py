"""``reval eval`` end to end: live gRPC retrievers, YAML sets, a real SQLite store."""

from __future__ import annotations

import json
import socket
import xml.etree.ElementTree as ET

import pytest
from support.cli import BAD, FAIL, FAQ, GOOD, SUPPORT, run_reval


def expected_rates(answers, questions, k):
    """An independent re-scoring of the tables: distinct documents before the '#'."""
    hits = 0
    for qid, expected, _form in questions:
        ranking = list(dict.fromkeys(i.split("#")[0] for i in answers[f"question {qid}"]))
        hits += bool(set(ranking[:k]) & set(expected)) if expected else not ranking
    return hits / len(questions)


def test_two_sets_against_two_live_retrievers_give_four_runs(sets, serve_table, db, tmp_path):
    good = serve_table(GOOD, identifier="good")
    bad = serve_table(BAD, identifier="bad")
    out = tmp_path / "report.json"
    result = run_reval(
        "eval",
        "--set",
        sets["faq"],
        "--set",
        sets["support"],
        "--retriever",
        good,
        "--retriever",
        bad,
        "--format",
        "json",
        "--db",
        db,
        "--label",
        "git_sha=abc",
        "--output",
        out,
    )
    assert result.returncode == 0, result.stderr
    doc = json.loads(out.read_text())
    assert "faq × good 1" in result.stdout  # the human report still goes to the terminal
    assert doc["schema_version"] == 1
    runs = {(r["set"], r["retriever"]["identifier"]): r for r in doc["runs"]}
    assert sorted(runs) == [
        ("faq", "bad"),
        ("faq", "good"),
        ("support", "bad"),
        ("support", "good"),
    ]
    for (set_name, who), run in runs.items():
        answers, questions = (
            (GOOD if who == "good" else BAD),
            (FAQ if set_name == "faq" else SUPPORT),
        )
        assert run["metrics"]["top1_hit_rate"] == pytest.approx(
            expected_rates(answers, questions, 1)
        )
        assert run["metrics"]["top3_hit_rate"] == pytest.approx(
            expected_rates(answers, questions, 3)
        )
        assert run["complete"] is True and run["run_id"]
        assert run["labels"] == {"git_sha": "abc"}
        assert run["retriever"]["target"] in (good, bad)
        assert run["regression"]["verdict"] == "no-baseline"
        assert set(run["latency_ms"]) >= {"p50", "p95", "p99"}
    faq_good = runs[("faq", "good")]
    q1 = faq_good["questions"][0]
    assert q1["id"] == "faq-1" and q1["raw_ids"] == ["d1#0", "d1#1", "d9#0"]
    assert q1["ranked_document_ids"] == ["d1", "d9"] and q1["top1_hit"] is True
    assert faq_good["by_form"]["GAP"]["count"] == 2
    assert faq_good["no_answer"] == {"count": 1, "correctly_empty": 1, "returned_something": 0}
    assert runs[("faq", "bad")]["no_answer"]["returned_something"] == 1


def test_exit_1_only_with_fail_on_regression_and_junit_names_the_flips(
    sets, serve_table, db, invoke, tmp_path
):
    first = invoke(
        "eval", "--set", sets["faq"], "--retriever", serve_table(GOOD, identifier="s"), "--db", db
    )
    assert first.exit_code == 0 and "no-baseline" in first.output.lower()
    worse = serve_table(BAD, identifier="s")
    junit = tmp_path / "reval.xml"
    second = invoke(
        "eval",
        "--set",
        sets["faq"],
        "--retriever",
        worse,
        "--db",
        db,
        "--no-save",
        "--format",
        "junit",
        "--output",
        junit,
    )
    assert second.exit_code == 0
    assert "REGRESSION" in second.output
    failing = invoke(
        "eval",
        "--set",
        sets["faq"],
        "--retriever",
        worse,
        "--db",
        db,
        "--no-save",
        "--fail-on-regression",
        "--format",
        "json",
    )
    assert failing.exit_code == 1
    assert json.loads(failing.stdout)["runs"][0]["regression"]["verdict"] == "regression"
    loose = invoke(
        "eval",
        "--set",
        sets["faq"],
        "--retriever",
        worse,
        "--db",
        db,
        "--no-save",
        "--fail-on-regression",
        "--max-top1-drop",
        "1",
        "--max-top3-drop",
        "1",
    )
    assert loose.exit_code == 0, loose.output

    root = ET.parse(junit).getroot()
    (suite,) = root.findall("testsuite")
    assert suite.get("name") == "faq × s 1"
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert cases["regression verdict"].find("failure").get("type") == "regression"
    failed = sorted(n for n, c in cases.items() if c.find("failure") is not None)
    # faq-1 and faq-2 lost top-1, faq-2 also top-3, faq-4 now returns something
    assert failed == ["faq-1", "faq-2", "faq-4", "regression verdict"]
    message = cases["faq-2"].find("failure").get("message")
    assert message == (
        "'question faq-2' flipped hit->miss at top-1, top-3: expected d2; now d7, d6, d5; "
        "was d2, d7"
    )
    assert cases["faq-3"].find("failure") is None  # a miss at top-1 both times: not new


def test_a_store_failure_still_writes_the_report_and_exits_3(sets, serve_table, tmp_path):
    broken = tmp_path / "broken.sqlite"
    broken.write_bytes(b"this is not a database" * 100)
    out = tmp_path / "out.json"
    result = run_reval(
        "eval",
        "--set",
        sets["faq"],
        "--retriever",
        serve_table(GOOD),
        "--db",
        f"sqlite:///{broken}",
        "--format",
        "json",
        "--output",
        out,
    )
    assert result.returncode == 3, result.stderr
    assert "reval: error:" in result.stderr and "broken.sqlite" in result.stderr
    doc = json.loads(out.read_text())
    (run,) = doc["runs"]
    assert run["run_id"] is None and run["regression"] is None
    assert run["metrics"]["top1_hit_rate"] == pytest.approx(expected_rates(GOOD, FAQ, 1))
    assert "run store failed" in doc["warnings"][0]


def test_a_retriever_that_is_down_exits_3_naming_it(sets, tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    target = f"grpc://127.0.0.1:{port}"
    result = run_reval(
        "eval",
        "--set",
        sets["faq"],
        "--retriever",
        target,
        "--timeout",
        "2",
        "--db",
        f"sqlite:///{tmp_path / 'r.sqlite'}",
    )
    assert result.returncode == 3
    assert f"127.0.0.1:{port}" in result.stderr and "unavailable" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("args", "culprit"),
    [
        (["--set", "missing.yaml"], "missing.yaml"),
        (["--k", "1,x"], "--k"),
        (["--label", "novalue"], "novalue"),
        ([], "--set"),
    ],
)
def test_bad_input_exits_2_with_a_one_line_error(args, culprit, sets, tmp_path):
    if "--set" not in args:
        args = [*args, "--set", str(sets["faq"])] if args else args
    result = run_reval(
        "eval",
        *args,
        "--retriever",
        "grpc://127.0.0.1:1",
        "--db",
        f"sqlite:///{tmp_path / 'r.sqlite'}",
    )
    assert result.returncode == 2, result.stderr
    assert culprit in result.stderr and "Traceback" not in result.stderr


def test_markdown_and_text_reports(sets, serve_table, db, invoke):
    target = serve_table(GOOD, identifier="good")
    text = invoke("eval", "--set", sets["faq"], "--retriever", target, "--db", db, "--no-save")
    assert "faq × good 1 — complete" in text.output
    assert "expected d3, d4; got d8, d9, d4" in text.output  # a top-1 miss shows its docs
    md = invoke("eval", "--set", sets["faq"], target, "--db", db, "--format", "markdown")
    # the first run has no baseline: never a ✅
    assert md.output.startswith("### reval: ➖ no regression found; 1 of 1 run not checked")
    assert "✅" not in md.output
    assert "| faq | good 1 | 4 | 0.750 | 1.000 |" in md.output
    runs = invoke("runs", "list", "--db", db, "--format", "json")
    assert len(json.loads(runs.stdout)["runs"]) == 1  # --no-save stored nothing


def test_failed_retrievals_are_errors_not_misses(sets, serve_table, db, invoke, tmp_path):
    flaky = serve_table({**GOOD, "question faq-2": FAIL}, identifier="flaky")
    junit = tmp_path / "flaky.xml"
    result = run_reval(
        "eval",
        "--set",
        sets["faq"],
        flaky,
        "--db",
        db,
        "--k",
        "1,3,5",
        "--format",
        "junit",
        "--output",
        junit,
    )
    assert result.returncode == 3, result.stderr  # one error is over --max-errors 0
    listed = json.loads(invoke("runs", "list", "--db", db, "--format", "json").stdout)
    assert result.stdout.splitlines() == [
        "faq × flaky 1: INCOMPLETE · top-1 0.667 (2/3) · top-3 1.000 (3/3) · 1 error · run "
        + listed["runs"][0]["run_id"],
        f"wrote the junit report to {junit}",
    ]  # the verdict and where the report went; the file has the rest
    (line,) = result.stderr.strip().splitlines()  # why, in one line
    assert line.startswith("reval: error: too many failed retrievals (--max-errors 0): faq × ")
    assert "(1 error; first: internal: " in line and "(on 1 question of 4))" in line
    shown = json.loads(invoke("runs", "list", "--db", db, "--format", "json").stdout)["runs"]
    (run,) = json.loads(
        invoke("runs", "show", shown[0]["run_id"], "--db", db, "--format", "json").output
    )["runs"]
    assert run["state"] == "incomplete" and run["errors"] == 1
    # rates over the three answered questions: faq-1 and faq-4 hit top-1, faq-3 only top-3
    assert run["metrics"]["count"] == 3
    assert run["metrics"]["top1_hit_rate"] == pytest.approx(2 / 3)
    assert run["metrics"]["hit_rate@5"] == pytest.approx(1.0)
    assert run["parameters"]["ks"] == [1, 3, 5] and run["parameters"]["limit"] == 20
    q2 = run["questions"][1]
    assert q2["error"]["kind"] == "internal" and "index shard offline" in q2["error"]["message"]
    assert q2["top1_hit"] is None and q2["ranked_document_ids"] == []
    cases = {c.get("name"): c for c in ET.parse(junit).getroot().iter("testcase")}
    assert cases["faq-2"].find("error").get("type") == "internal"
    failure = cases["regression verdict"].find("failure")  # incomplete, not "no baseline"
    assert failure is not None and failure.get("type") == "incomplete"


def test_explicit_baseline(sets, serve_table, db, invoke, tmp_path):
    unknown = run_reval(
        "eval",
        "--set",
        sets["faq"],
        "--retriever",
        "grpc://127.0.0.1:1",
        "--db",
        db,
        "--baseline",
        "no-such-run",
    )
    assert unknown.returncode == 2 and "no-such-run" in unknown.stderr  # before measuring
    bad = serve_table(BAD, identifier="s")
    invoke("eval", "--set", sets["faq"], bad, "--db", db, "--label", "kind=bad")
    good = serve_table(GOOD, identifier="s")
    invoke("eval", "--set", sets["faq"], good, "--db", db)
    listed = json.loads(
        invoke("runs", "list", "--db", db, "--label", "kind=bad", "--format", "json").output
    )["runs"]
    against_bad = json.loads(
        invoke(
            "eval",
            "--set",
            sets["faq"],
            bad,
            "--db",
            db,
            "--no-save",
            "--baseline",
            listed[0]["run_id"],
            "--format",
            "json",
        ).output
    )
    regression = against_bad["runs"][0]["regression"]
    assert regression["baseline_run_id"] == listed[0]["run_id"]
    assert regression["verdict"] == "pass" and regression["flips"] == []


def test_latency_is_reported_with_its_concurrency_and_the_probe_apart(
    sets, serve_table, db, tmp_path
):
    target = serve_table(GOOD)
    out = tmp_path / "report.json"
    result = run_reval(
        "eval", "--set", sets["faq"], "--retriever", target, "--db", db, "--concurrency", "2",
        "--latency-probe", "3", "--format", "json", "--output", out,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    (run,) = json.loads(out.read_text())["runs"]
    assert run["latency_ms"]["concurrency"] == 2 and run["latency_ms"]["count"] == 4
    assert run["latency_probe_ms"]["concurrency"] == 1 and run["latency_probe_ms"]["count"] == 3
    shown = run_reval("runs", "show", run["run_id"], "--db", db)
    assert "latency ms at 2 in flight: p50 " in shown.stdout
    assert "latency ms unloaded (3 re-asked one at a time): p50 " in shown.stdout
    shown = run_reval("runs", "show", run["run_id"], "--db", db, "--format", "markdown")
    assert shown.returncode == 0, shown.stderr
    assert " at 2 in flight; " in shown.stdout and " unloaded (3 re-asked" in shown.stdout
