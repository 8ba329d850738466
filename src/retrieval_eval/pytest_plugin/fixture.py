"""The ``reval`` fixture: evaluate a question set against a retriever, judge the run
against its baseline and save it (through the same library call as ``reval eval``), then
assert on it; each run saved is labelled with the test and the commit under test."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from retrieval_eval.pytest_plugin.failures import one_line_failures, visible
from retrieval_eval.pytest_plugin.settings import Settings, read_settings
from retrieval_eval.pytest_plugin.summary import RUNS_KEY, run_line

if TYPE_CHECKING:
    from retrieval_eval.questions.model import GoldenQuestionSet
    from retrieval_eval.records.run import RunResult
    from retrieval_eval.regression.verdict_records import RunReport

#: Environment variables CI systems set to the commit under test.
GIT_SHA_VARIABLES = ("GITHUB_SHA", "CI_COMMIT_SHA", "BUILDKITE_COMMIT", "GIT_COMMIT")


def git_sha(rootpath: Path) -> str | None:
    """The commit under test: from the CI's variable, else ``git rev-parse HEAD``."""
    for variable in GIT_SHA_VARIABLES:
        if os.environ.get(variable):
            return os.environ[variable]

    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=rootpath,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    sha = done.stdout.strip()
    return sha if done.returncode == 0 and sha else None


_SHA_KEY = pytest.StashKey[str | None]()


class Reval:
    """The ``reval`` fixture: evaluate, judge and save; then assert on the result."""

    def __init__(self, request: pytest.FixtureRequest, settings: Settings) -> None:
        self._request = request
        self.settings = settings

    def labels(self) -> dict[str, str]:
        """What a run made here is saved with."""
        config = self._request.config
        if _SHA_KEY not in config.stash:
            config.stash[_SHA_KEY] = git_sha(Path(config.rootpath))
        labels = {"source": "pytest", "pytest_node": self._request.node.nodeid}
        sha = config.stash[_SHA_KEY]
        if sha:
            labels["git_sha"] = sha
        return {**labels, **self.settings.labels}

    def evaluate(
        self, question_set: str | Path | GoldenQuestionSet, retriever: Any, **options: Any
    ) -> RunReport:
        """Evaluate, judge against the baseline, save (unless ``--reval-no-save``).

        ``options`` are ``EvalOptions`` fields (``ks``, ``overfetch``, ``concurrency``,
        ``timeout_s``, ...). Retrieval failures are errors of the run, never misses;
        a run-store failure raises.
        """
        from retrieval_eval.evaluation.coordinator import EvaluationInterrupted, evaluate

        qs = _question_set(question_set)
        self._refuse_untrusted(qs)
        with self._one_line():
            try:
                runs = evaluate(
                    [qs], [retriever], self._options(options), config_path=self._config()
                )
            except EvaluationInterrupted as e:  # Ctrl-C: keep what was measured, stop pytest
                for run in e.runs:
                    self._record(run, qs)
                raise KeyboardInterrupt from e
        return self._record(runs[0], qs)

    async def aevaluate(
        self, question_set: str | Path | GoldenQuestionSet, retriever: Any, **options: Any
    ) -> RunReport:
        """``evaluate`` for async tests (the event loop is the test's)."""
        import asyncio

        from retrieval_eval.evaluation.coordinator import aevaluate

        qs = _question_set(question_set)
        self._refuse_untrusted(qs)
        with self._one_line():
            runs = await aevaluate(
                [qs], [retriever], self._options(options), config_path=self._config()
            )
        return await asyncio.to_thread(self._record, runs[0], qs)

    @contextmanager
    def _one_line(self) -> Iterator[None]:
        with one_line_failures(self.settings.db):
            yield

    def _config(self) -> Path | None:
        return self.settings.config_path

    def _refuse_untrusted(self, qs: GoldenQuestionSet) -> None:
        """The fixture gates, so it takes no model labels the ``[labels]`` rule of the
        reval.toml it reads does not trust (as ``reval eval --fail-on-regression``)."""
        from retrieval_eval.errors import InputError
        from retrieval_eval.labelling.llm.trust import refuse_untrusted_labels

        config = self._config() or Path(self._request.config.rootpath) / "reval.toml"
        try:
            refuse_untrusted_labels([qs], config)
        except InputError as e:
            raise pytest.fail.Exception(f"reval: {visible(str(e))}", pytrace=False) from None

    def _options(self, options: dict[str, Any]) -> Any:
        from retrieval_eval.evaluation.coordinator import EvalOptions
        from retrieval_eval.regression.gate import stop_asking

        labels = {**self.labels(), **options.pop("labels", {})}
        options.setdefault("stop_asking", stop_asking(self.settings.gate()))
        return EvalOptions(labels=labels, **options)

    def _record(self, run: RunResult, qs: GoldenQuestionSet) -> RunReport:
        from retrieval_eval.regression.record import judge_and_save
        from retrieval_eval.regression.unjudged import SetJudgments

        with self._one_line():
            recorded = judge_and_save(
                [run],
                store=self.settings.db,
                gate=self.settings.gate(),
                save=self.settings.save,
                require_baseline=self.settings.require_baseline,
                judgments=[SetJudgments.of(qs)],
            )
            if recorded.store_error is not None:
                raise recorded.store_error
        report = recorded.reports[0]
        self._request.config.stash.setdefault(RUNS_KEY, []).append(run_line(report))
        return report

    def assert_no_regression(self, report: RunReport | RunResult) -> None:
        """Fail unless the run's verdict passes (no baseline yet passes). A bare
        ``RunResult`` (made elsewhere) is judged here against its baseline, not saved."""
        __tracebackhide__ = True
        from retrieval_eval.records.run import RunResult
        from retrieval_eval.regression.record import judge_and_save
        from retrieval_eval.report.run.assertions import regression_failure

        if isinstance(report, RunResult):
            with self._one_line():
                recorded = judge_and_save(
                    [report],
                    store=self.settings.db,
                    gate=self.settings.gate(),
                    save=False,
                    require_baseline=self.settings.require_baseline,
                )
                if recorded.store_error is not None:
                    raise recorded.store_error
            report = recorded.reports[0]
        message = regression_failure(report.run, report.verdict)
        if message is not None:
            raise AssertionError(visible(message))

    def assert_rate(
        self,
        report: RunReport | RunResult,
        metric: str,
        *,
        at_least: float,
        form: str | None = None,
        hard_class: str | None = None,
    ) -> None:
        """Fail unless ``metric`` (overall, or in one form or hard class) is at least
        ``at_least`` with no errored question in the group. ``metric`` is a metric key
        (``"top3_hit_rate"``, ``metric_key(MetricFamily.MRR, 10)``); any other name fails
        with the keys there are."""
        __tracebackhide__ = True
        from retrieval_eval.records.run import RunResult
        from retrieval_eval.report.run.assertions import rate_failure

        run = report if isinstance(report, RunResult) else report.run
        message = rate_failure(run, metric, at_least, form=form, hard_class=hard_class)
        if message is not None:
            raise AssertionError(visible(message))


def _question_set(source: Any) -> GoldenQuestionSet:
    from retrieval_eval.errors import InputError
    from retrieval_eval.questions.loading import load_question_sets
    from retrieval_eval.questions.model import GoldenQuestionSet

    if isinstance(source, GoldenQuestionSet):
        return source
    sets = load_question_sets(str(source))
    if len(sets) != 1:
        raise InputError(f"{source} holds {len(sets)} question sets; give one")
    return sets[0]


_SETTINGS_KEY = pytest.StashKey[Settings]()


@pytest.fixture
def reval(request: pytest.FixtureRequest) -> Reval:
    """Evaluate a question set against a retriever and assert on its quality."""
    config = request.config
    if _SETTINGS_KEY not in config.stash:
        with one_line_failures(config.getoption("reval_db")):
            config.stash[_SETTINGS_KEY] = read_settings(config)
    return Reval(request, config.stash[_SETTINGS_KEY])
