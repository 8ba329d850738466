"""The pytest plugin, run the way users run it: suites written to a temporary directory
and run by pytest in a subprocess, which loads the plugin through its installed
``pytest11`` entry point. Runs go to a real SQLite store; the failure text is asserted.
This module: the regression verdict and the error budget."""

from __future__ import annotations

from support.plugin_suite import BAD, GOOD, PASSING

from retrieval_eval.store.store import RunStore


def test_a_regression_fails_with_rates_reasons_and_both_rankings(suite) -> None:
    suite(PASSING).assert_outcomes(passed=1)
    result = suite(f"""
        def test_quality(reval):
            run = reval.evaluate("faq.yaml", Table({BAD!r}))
            reval.assert_no_regression(run)
    """)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*faq × table 1 (run *) verdict REGRESSION",
            "*top1_hit_rate: 0.250 [[]95% 0.046, 0.699] (1/4)",
            "*regression verdict: REGRESSION vs baseline *",
            "*top-1 hit rate overall fell 0.500 (0.750 -> 0.250, 4 -> 4 questions)*",
            "*flipped hit->miss: 3",
            "*faq-1 @top-1: expected d1; now d8, d7, d6; was d1, d9",
            "*faq-4 @top-1: expected d4; now d9, d4; was d4",
            "*McNemar top-1: 0 miss->hit, 2 hit->miss*",
        ]
    )


def test_errors_beyond_the_budget_fail_the_regression_check(suite) -> None:
    answers = {**GOOD, "q2": "FAIL"}
    body = f"""
        def test_quality(reval):
            run = reval.evaluate("faq.yaml", Table({answers!r}))
            reval.assert_no_regression(run)
    """
    result = suite(body, "--reval-no-save")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*faq × table 1 (not saved) verdict INCOMPLETE",
            "*errored questions (1):",
            "*faq-2 'q2': internal: *shard offline*",
        ]
    )
    # One error allowed: judged, and with no baseline yet, it passes.
    suite(body, "--reval-no-save", "--reval-max-errors", "1").assert_outcomes(passed=1)


def test_a_run_made_elsewhere_is_judged_but_not_saved(suite) -> None:
    suite(PASSING).assert_outcomes(passed=1)
    result = suite(f"""
        from retrieval_eval import evaluate, load_question_set

        def test_quality(reval):
            (run,) = evaluate([load_question_set("faq.yaml")], [Table({BAD!r})])
            reval.assert_no_regression(run)
    """)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*faq × table 1 (not saved) verdict REGRESSION"])
    with RunStore.open(suite.db) as store:
        assert len(store.list_runs()) == 1


def test_the_summary_gives_no_rates_for_a_run_with_no_scored_question(suite) -> None:
    result = suite(
        """
        def test_quality(reval):
            reval.evaluate("faq.yaml", Table({q: "FAIL" for q in ("q1", "q2", "q3", "q4")}))
        """,
        "--reval-max-errors",
        "4",
    )
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["faq × table: no scored question (4 errors), *"])
    assert "0.000" not in result.stdout.str()
