"""The pytest plugin, run the way users run it: suites written to a temporary directory
and run by pytest in a subprocess, which loads the plugin through its installed
``pytest11`` entry point. Runs go to a real SQLite store; the failure text is asserted.
This module: baselines across runs (a retried job, slow drift, a lineage shared with
the CLI)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support.plugin_suite import BAD, GOOD, PASSING

from retrieval_eval.store.store import RunStore


def test_a_regression_fails_again_when_the_job_is_retried(suite) -> None:
    suite(PASSING).assert_outcomes(passed=1)
    regressing = f"""
        def test_quality(reval):
            run = reval.evaluate("faq.yaml", Table({BAD!r}))
            reval.assert_no_regression(run)
    """
    for _ in range(2):  # the failed job, then its retry: the regressed run is no baseline
        suite(regressing).assert_outcomes(failed=1)
    with RunStore.open(suite.db) as store:
        runs = store.list_runs()
    assert [r.verdict_kind for r in runs] == ["regression", "regression", "no-baseline"]
    assert runs[0].baseline_run_id == runs[1].baseline_run_id == runs[2].run_id


def test_the_fixtures_verdict_says_which_losses_rest_on_unjudged_documents(suite) -> None:
    """The fixture judges with its set's labels, as reval eval does: plain labels judge
    nothing not relevant, so every lost hit rests on unjudged documents."""
    suite(PASSING).assert_outcomes(passed=1)
    regressing = f"""
        def test_quality(reval):
            reval.assert_no_regression(reval.evaluate("faq.yaml", Table({BAD!r})))
    """
    result = suite(regressing)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*unjudged: lost hits resting on unjudged documents: *"])
    with RunStore.open(suite.db) as store:
        stored = store.get_stored(store.list_runs()[0].run_id)
    verdict = json.loads(stored.verdict_document or "{}")
    assert verdict["kind"] == "regression"
    assert {q for at in verdict["unjudged"]["by_k"] for q in at["question_ids"]} == {
        "faq-1", "faq-4"
    }  # fmt: skip


def test_slow_drift_fails_the_fixture_with_max_drift(suite, pytester: pytest.Pytester) -> None:
    """Each step loses one top-1 hit (0.25, allowed by the lineage's own max_top1_drop 0.3);
    the second step has drifted 0.5 from the best accepted run, more than max_drift 0.4."""
    (pytester.path / "reval.toml").write_text("[gate]\nmax_top1_drop = 0.3\nmax_drift = 0.4\n")
    step1 = {**GOOD, "q1": ["d9", "d1"]}
    step2 = {**step1, "q2": ["d9", "d2"]}
    for answers, outcome in ((GOOD, "passed"), (step1, "passed"), (step2, "failed")):
        result = suite(f"""
            def test_quality(reval):
                reval.assert_no_regression(reval.evaluate("faq.yaml", Table({answers!r})))
        """)
        result.assert_outcomes(**{outcome: 1})
    result.stdout.fnmatch_lines(
        ["*drift measured from run *", "*top-1 hit rate drifted 0.500 since run *"]
    )


@pytest.mark.parametrize("loose", ["option", "table"])
def test_a_pass_under_a_loose_threshold_is_no_baseline(
    suite, pytester: pytest.Pytester, loose: str
) -> None:
    """The plugin's thresholds are options over the lineage's own ([gate], else the
    defaults), as ``reval eval``'s are: a pass under a looser one judges the run, it does
    not become the bar the next run is held to."""
    regressing = f"""
        def test_quality(reval):
            reval.assert_no_regression(reval.evaluate("faq.yaml", Table({BAD!r})))
    """
    suite(PASSING).assert_outcomes(passed=1)
    if loose == "table":
        (pytester.path / "reval.toml").write_text(
            "[pytest]\nmax_top1_drop = 1\nmax_top3_drop = 1\n"
        )
        suite(regressing).assert_outcomes(passed=1)
        (pytester.path / "reval.toml").unlink()
    else:
        loose_args = ("--reval-max-top1-drop", "1", "--reval-max-top3-drop", "1")
        suite(regressing, *loose_args).assert_outcomes(passed=1)
    suite(regressing).assert_outcomes(failed=1)
    with RunStore.open(suite.db) as store:
        runs = store.list_runs()
    assert [(r.verdict_kind, r.accepted) for r in runs] == [
        ("regression", False), ("pass", False), ("no-baseline", True)
    ]  # fmt: skip
    assert runs[0].baseline_run_id == runs[2].run_id


def test_the_gate_table_is_the_fixtures_bar_and_a_baseline_can_be_required(
    suite, pytester: pytest.Pytester
) -> None:
    """reval.toml's [gate] is the lineage's own bar for the fixture too: a pass under it is
    accepted. --reval-require-baseline fails a run with nothing to be judged against."""
    suite(PASSING, "--reval-require-baseline").assert_outcomes(failed=1)
    suite(PASSING).assert_outcomes(passed=1)
    one_less = {**GOOD, "q1": ["d9", "d1"]}  # top-1 0.25 lower: over the default 0.1
    (pytester.path / "reval.toml").write_text("[gate]\nmax_top1_drop = 0.3\n")
    suite(f"""
        def test_quality(reval):
            reval.assert_no_regression(reval.evaluate("faq.yaml", Table({one_less!r})))
    """).assert_outcomes(passed=1)
    with RunStore.open(suite.db) as store:
        newest = store.list_runs()[0]
    assert (newest.verdict_kind, newest.accepted) == ("pass", True)


def test_the_fixture_and_the_cli_share_a_plugin_lineage(suite, pytester: pytest.Pytester) -> None:
    """The fixture names the index by absolute path, the CLI by a relative one: the same
    retriever, so the CLI's run is judged against the fixture's."""
    example = Path(__file__).resolve().parents[2] / "src" / "retrieval_eval" / "example_data"
    index = pytester.path / "pages"
    built = subprocess.run(
        [str(Path(sys.executable).parent / "reval"), "bm25", "index",
         str(example / "corpus.jsonl"), "--out", str(index)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    questions = example / "questions.yaml"
    suite(f"""
        def test_quality(reval):
            reval.assert_no_regression(reval.evaluate({str(questions)!r}, "bm25:{index}"))
    """).assert_outcomes(passed=1)
    done = subprocess.run(
        [str(Path(sys.executable).parent / "reval"), "eval", "--set", str(questions),
         "--retriever", "bm25:pages", "--db", suite.db, "--format", "json"],
        capture_output=True, text=True, timeout=120, cwd=pytester.path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    with RunStore.open(suite.db) as store:
        fixture_run = [r for r in store.list_runs() if r.labels.get("source") == "pytest"]
    cli_run = json.loads(done.stdout)["runs"][0]
    assert cli_run["regression"]["baseline_run_id"] == fixture_run[0].run_id
