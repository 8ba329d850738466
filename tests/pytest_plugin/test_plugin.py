"""The pytest plugin, run the way users run it: suites written to a temporary directory
and run by pytest in a subprocess, which loads the plugin through its installed
``pytest11`` entry point. Runs go to a real SQLite store; the failure text is asserted."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from retrieval_eval.store import RunStore

SET = {
    "name": "faq",
    "questions": [
        {"id": "faq-1", "question": "q1", "form": "MATCH", "expected_document_ids": ["d1"]},
        {"id": "faq-2", "question": "q2", "form": "GAP", "expected_document_ids": ["d2"]},
        {"id": "faq-3", "question": "q3", "form": "GAP", "expected_document_ids": ["d3"]},
        {
            "id": "faq-4",
            "question": "q4",
            "form": "MATCH",
            "expected_document_ids": ["d4"],
            "hard_class": "near-duplicate",
        },
    ],
}
GOOD = {"q1": ["d1", "d9"], "q2": ["d2"], "q3": ["d7", "d3"], "q4": ["d4"]}
#: faq-1 falls to rank 4 and faq-4 to rank 2: top-1 2/4 -> 0/4... see each test.
BAD = {"q1": ["d8", "d7", "d6", "d1"], "q2": ["d2"], "q3": ["d7", "d3"], "q4": ["d9", "d4"]}

RETRIEVER = '''
from retrieval_eval.records import RetrieverDescription


class Table:
    """A fixed ranking per question; ``FAIL`` raises."""

    def __init__(self, answers):
        self.answers = answers

    def retrieve(self, question, limit):
        answer = self.answers.get(question, [])
        if answer == "FAIL":
            raise RuntimeError("shard offline")
        return answer[:limit]

    def describe(self):
        return RetrieverDescription("table", "1")
'''


@pytest.fixture
def serve_retriever():
    from retrieval_eval.retrievers.server.sdk import serve

    handles = []

    def start(obj: object):
        handles.append(serve(obj))
        return handles[-1]

    yield start
    for handle in handles:
        handle.stop(grace=None)


@pytest.fixture
def suite(pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Write the set and the retriever; return a runner of a test body against a DB."""
    (pytester.path / "faq.yaml").write_text(yaml.safe_dump(SET, sort_keys=False))
    pytester.makepyfile(table_retriever=RETRIEVER)
    db = f"sqlite:///{tmp_path / 'runs.sqlite'}"

    def run(body: str, *args: str, env: dict[str, str] | None = None):
        pytester.makepyfile(
            test_quality="from table_retriever import Table\n\n" + textwrap.dedent(body)
        )
        for key, value in (env or {}).items():
            monkeypatch.setenv(key, value)
        return pytester.runpytest_subprocess("--reval-db", db, "-p", "no:cacheprovider", *args)

    run.db = db  # type: ignore[attr-defined]
    return run


PASSING = f"""
def test_quality(reval):
    run = reval.evaluate("faq.yaml", Table({GOOD!r}))
    reval.assert_rate(run, "top3_hit_rate", at_least=1.0)
    reval.assert_rate(run, "top1_hit_rate", at_least=0.5, form="GAP")
    reval.assert_no_regression(run)
"""


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


def test_thresholds_come_from_reval_toml_and_the_command_line_wins(
    suite, pytester: pytest.Pytester
) -> None:
    suite(PASSING).assert_outcomes(passed=1)
    (pytester.path / "reval.toml").write_text("[pytest]\nmax_top1_drop = 1.0\nmax_top3_drop = 1\n")
    regressing = f"""
        def test_quality(reval):
            run = reval.evaluate("faq.yaml", Table({BAD!r}))
            reval.assert_no_regression(run)
    """
    suite(regressing, "--reval-no-save").assert_outcomes(passed=1)
    failed = suite(regressing, "--reval-no-save", "--reval-max-top1-drop", "0.4")
    failed.assert_outcomes(failed=1)
    failed.stdout.fnmatch_lines(["*more than the allowed 0.4*"])


def test_a_bad_reval_toml_table_is_an_error_naming_the_key(
    suite, pytester: pytest.Pytester
) -> None:
    (pytester.path / "reval.toml").write_text("[pytest]\nmax_top1_dorp = 0.6\n")
    result = suite(PASSING)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["reval: *reval.toml [[]pytest]: unknown key 'max_top1_dorp'*"])


def test_a_retriever_given_by_address(suite, serve_retriever) -> None:
    class Served:
        def retrieve(self, question: str, limit: int) -> list[str]:
            return GOOD.get(question, [])[:limit]

    handle = serve_retriever(Served())
    result = suite(f"""
        def test_remote(reval):
            run = reval.evaluate("faq.yaml", "grpc://{handle.address}")
            reval.assert_rate(run, "top3_hit_rate", at_least=1.0)
            assert run.run.retriever_target == "grpc://{handle.address}"
    """)
    result.assert_outcomes(passed=1)


def test_importing_the_plugin_loads_nothing_heavy() -> None:
    heavy = ("grpc", "sqlalchemy", "alembic", "click", "rich", "yaml", "google", "stevedore")
    code = (
        "import sys, retrieval_eval.pytest_plugin; "
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {heavy!r}))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


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


def test_async_tests_use_aevaluate(suite) -> None:
    result = suite(f"""
        import pytest

        @pytest.mark.asyncio
        async def test_quality(reval):
            run = await reval.aevaluate("faq.yaml", Table({GOOD!r}))
            reval.assert_rate(run, "top3_hit_rate", at_least=1.0)
    """)
    result.assert_outcomes(passed=1)


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


@pytest.mark.postgres
@pytest.mark.parametrize("given_by", ["option", "environment"])
def test_a_store_error_is_one_line_and_never_shows_the_password(
    pytester: pytest.Pytester, postgres_url: str, monkeypatch: pytest.MonkeyPatch, given_by: str
) -> None:
    """A real PostgreSQL server, a URL with a password, a database that does not exist:
    the driver's error and pytest's traceback (which prints every frame's arguments)
    would carry the password; the failure is reval's one line with the URL masked."""
    from sqlalchemy.engine import make_url

    url = make_url(postgres_url)
    password = url.password or "pw-s3cret-4711"
    missing = url.set(database=f"{url.database}_missing", password=password)
    missing = missing.render_as_string(hide_password=False)
    (pytester.path / "faq.yaml").write_text(yaml.safe_dump(SET, sort_keys=False))
    pytester.makepyfile(table_retriever=RETRIEVER)
    pytester.makepyfile(test_quality=f"from table_retriever import Table\n{PASSING}")
    args = ["-p", "no:cacheprovider"]
    if given_by == "option":
        args += ["--reval-db", missing]
    else:
        monkeypatch.setenv("REVAL_DATABASE_URL", missing)
    result = pytester.runpytest_subprocess(*args)
    result.assert_outcomes(failed=1)
    output = result.stdout.str() + result.stderr.str()
    assert password not in output
    failure = [line for line in result.stdout.lines if line.startswith("reval: ")]
    assert len(failure) == 1 and "***" in failure[0] and "_missing" in failure[0], output
    assert "Traceback" not in output and "conninfo" not in output


def test_failure_messages_and_the_summary_escape_control_characters(suite) -> None:
    result = suite("""
        def test_quality(reval):
            run = reval.evaluate("faq.yaml", Table({"q1": ["\\x1b[31mred", "d1"]}))
            reval.assert_rate(run, "top1_hit_rate", at_least=1.0)
    """)
    result.assert_outcomes(failed=1)
    output = result.stdout.str()
    assert "\x1b[31m" not in output and "\\x1b[31mred" in output


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


def test_slow_drift_fails_the_fixture_with_max_drift(suite, pytester: pytest.Pytester) -> None:
    """Each step loses one top-1 hit (0.25, allowed by max_top1_drop 0.3); the second step
    has drifted 0.5 from the best accepted run, more than max_drift 0.4."""
    (pytester.path / "reval.toml").write_text("[pytest]\nmax_top1_drop = 0.3\nmax_drift = 0.4\n")
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
