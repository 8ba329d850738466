"""The pytest plugin, run the way users run it: suites written to a temporary directory
and run by pytest in a subprocess, which loads the plugin through its installed
``pytest11`` entry point. Runs go to a real SQLite store; the failure text is asserted.
This module: rate assertions, their failure text and async tests."""

from __future__ import annotations

from support.plugin_suite import BAD, GOOD, PASSING

from retrieval_eval.store.store import RunStore


def test_a_passing_suite_saves_its_run_labelled(suite) -> None:
    result = suite(PASSING, env={"GITHUB_SHA": "abc123"})
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        ["*reval*", "faq × table: top1_hit_rate 0.750 top3_hit_rate 1.000, no-baseline (run *)"]
    )
    with RunStore.open(suite.db) as store:
        (summary,) = store.list_runs()
        run = store.get(summary.run_id)
    assert run.labels["source"] == "pytest"
    assert run.labels["pytest_node"] == "test_quality.py::test_quality"
    assert run.labels["git_sha"] == "abc123"


def test_a_rate_below_the_bar_names_the_missed_questions(suite) -> None:
    result = suite(
        f"""
        def test_gap(reval):
            run = reval.evaluate("faq.yaml", Table({GOOD!r}))
            reval.assert_rate(run, "top1_hit_rate", at_least=0.9, form="GAP")

        def test_class(reval):
            run = reval.evaluate("faq.yaml", Table({BAD!r}))
            reval.assert_rate(run, "top1_hit_rate", at_least=1, hard_class="near-duplicate")
    """,
        "--reval-no-save",
    )
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "*faq × table 1 (not saved) top1_hit_rate in form GAP is 0.500 *(1/2)",
            "*required: at least 0.9",
            "*missed at top-1 (1):",
            "*faq-3 'q3': expected d3; got d7, d3",  # its id and its text
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*top1_hit_rate in hard class near-duplicate is 0.000 [[]95% 0.000, 0.793] (0/1)",
            "*faq-4 'q4': expected d4; got d9, d4",
        ]
    )
    with RunStore.open(suite.db) as store:
        assert store.list_runs() == []


def test_errored_questions_never_let_a_rate_pass(suite) -> None:
    answers = {**GOOD, "q2": "FAIL"}
    result = suite(f"""
        def test_quality(reval):
            run = reval.evaluate("faq.yaml", Table({answers!r}))
            reval.assert_rate(run, "top3_hit_rate", at_least=0.5)
    """)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*top3_hit_rate overall is 1.000 * (3/3)",
            "*1 errored questions are not counted, so the rate cannot pass",
            "*faq-2 'q2': internal: *shard offline*",
        ]
    )


def test_failure_messages_and_the_summary_escape_control_characters(suite) -> None:
    result = suite("""
        def test_quality(reval):
            run = reval.evaluate("faq.yaml", Table({"q1": ["\\x1b[31mred", "d1"]}))
            reval.assert_rate(run, "top1_hit_rate", at_least=1.0)
    """)
    result.assert_outcomes(failed=1)
    output = result.stdout.str()
    assert "\x1b[31m" not in output and "\\x1b[31mred" in output


def test_async_tests_use_aevaluate(suite) -> None:
    result = suite(f"""
        import pytest

        @pytest.mark.asyncio
        async def test_quality(reval):
            run = await reval.aevaluate("faq.yaml", Table({GOOD!r}))
            reval.assert_rate(run, "top3_hit_rate", at_least=1.0)
    """)
    result.assert_outcomes(passed=1)
