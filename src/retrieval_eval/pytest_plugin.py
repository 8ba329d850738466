"""reval as a pytest plugin (entry point ``pytest11``: loaded in every pytest run where
reval is installed, so importing this module imports nothing but pytest and the stdlib).

The ``reval`` fixture evaluates a question set against a retriever (a spec: address,
reval.toml name, plugin; or any object with ``retrieve(question, limit)``), judges the run
against its baseline and saves it, through the same library call as ``reval eval``.
Its assertion helpers fail with the message a person needs (``report.assertions``).

Settings, first found wins: the command line (``--reval-db``, ``--reval-max-top1-drop``,
``--reval-max-top3-drop``, ``--reval-max-p95-latency-increase``, ``--reval-max-errors``,
``--reval-no-save``, ``--reval-config``, ``--reval-label``), then the ``[pytest]`` table
of reval.toml (keys ``db``, ``max_top1_drop``, ``max_top3_drop``,
``max_p95_latency_increase``, ``max_errors``, ``save``), then reval's defaults. Saved runs
are labelled ``source=pytest``, ``pytest_node=<node id>`` and ``git_sha`` when known.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from retrieval_eval.questions.model import GoldenQuestionSet
    from retrieval_eval.records import RunResult
    from retrieval_eval.regression.verdict_records import RunReport, Thresholds

TABLE = "pytest"
#: reval.toml ``[pytest]`` keys and the command-line option that overrides each.
KEYS = {
    "db": "--reval-db",
    "max_top1_drop": "--reval-max-top1-drop",
    "max_top3_drop": "--reval-max-top3-drop",
    "max_p95_latency_increase": "--reval-max-p95-latency-increase",
    "max_errors": "--reval-max-errors",
    "max_drift": "--reval-max-drift",
    "save": "--reval-no-save",
}
#: Environment variables CI systems set to the commit under test.
GIT_SHA_VARIABLES = ("GITHUB_SHA", "CI_COMMIT_SHA", "BUILDKITE_COMMIT", "GIT_COMMIT")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("reval", "retrieval quality checks (reval)")
    group.addoption("--reval-db", metavar="URL", help="Run store URL for the reval fixture.")
    for name, what in (("top1", "top-1"), ("top3", "top-3")):
        group.addoption(
            f"--reval-max-{name}-drop",
            type=float,
            metavar="RATE",
            help=f"A {what} hit-rate drop above RATE is a regression [default 0.1].",
        )
    group.addoption(
        "--reval-max-p95-latency-increase",
        type=float,
        metavar="MS",
        help="A p95 latency increase above MS is a regression [default: not checked].",
    )
    group.addoption(
        "--reval-max-drift",
        type=float,
        metavar="RATE",
        help="A top-1/top-3 drop above RATE since the best accepted run of the retriever is "
        "a regression [default: drift is a warning].",
    )
    group.addoption(
        "--reval-max-errors",
        metavar="N|P%",
        help="Errored questions a run may have and still be judged [default 0].",
    )
    group.addoption(
        "--reval-no-save", action="store_true", help="Do not store runs made by the fixture."
    )
    group.addoption(
        "--reval-config", metavar="FILE", help="reval.toml to read [pytest] and retrievers from."
    )
    group.addoption(
        "--reval-label",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="Label stored with every run the fixture saves. Repeatable.",
    )


@dataclass(frozen=True, slots=True)
class Settings:
    """The fixture's settings once the command line and reval.toml are merged."""

    db: str | None = None
    save: bool = True
    max_top1_drop: float | None = None
    max_top3_drop: float | None = None
    max_p95_latency_increase: float | None = None
    #: A count (``"3"``) or a percentage of the run's questions (``"2%"``).
    max_errors: str | None = None
    max_drift: float | None = None
    config_path: Path | None = None
    labels: Mapping[str, str] = field(default_factory=dict)

    def thresholds(self) -> Thresholds:
        from retrieval_eval.regression.verdict_records import ErrorBudget, Thresholds

        defaults = Thresholds()
        budget = defaults.max_errors
        if self.max_errors is not None:
            budget = ErrorBudget.parse(self.max_errors)
        return Thresholds(
            max_top1_drop=_first(self.max_top1_drop, defaults.max_top1_drop),
            max_top3_drop=_first(self.max_top3_drop, defaults.max_top3_drop),
            max_p95_latency_increase_ms=self.max_p95_latency_increase,
            max_errors=budget,
            max_drift=self.max_drift,
        )


def _first(value: float | None, default: float) -> float:
    return default if value is None else value


def read_settings(config: pytest.Config) -> Settings:
    """Command line over reval.toml ``[pytest]`` over defaults (``ConfigError`` if bad).

    Read when a test first uses the fixture, not at start-up: a suite that never asks
    for ``reval`` is never affected by reval.toml.
    """
    from retrieval_eval.errors import ConfigError

    option = config.getoption
    given = option("reval_config")
    path = Path(given) if given else Path(config.rootpath) / "reval.toml"
    table = _toml_table(path, explicit=given is not None)
    labels = {}
    for item in option("reval_label"):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--reval-label {item!r} is not KEY=VALUE")
        labels[key.strip()] = value
    save = bool(table.get("save", True)) and not option("reval_no_save")
    return Settings(
        db=option("reval_db") or table.get("db"),
        save=save,
        max_top1_drop=_pick(option("reval_max_top1_drop"), table.get("max_top1_drop")),
        max_top3_drop=_pick(option("reval_max_top3_drop"), table.get("max_top3_drop")),
        max_p95_latency_increase=_pick(
            option("reval_max_p95_latency_increase"), table.get("max_p95_latency_increase")
        ),
        max_errors=_pick(option("reval_max_errors"), table.get("max_errors")),
        max_drift=_pick(option("reval_max_drift"), table.get("max_drift")),
        config_path=path if path.is_file() else None,
        labels=labels,
    )


def _pick(option: Any, configured: Any) -> Any:
    return option if option is not None else configured


def _toml_table(path: Path, *, explicit: bool) -> dict[str, Any]:
    """reval.toml's ``[pytest]`` table, checked; nothing when the default file is absent."""
    from retrieval_eval.errors import ConfigError
    from retrieval_eval.retrievers.config import load_toml

    if not path.is_file():
        if explicit:
            raise ConfigError(f"--reval-config: {path}: file not found")
        return {}
    table = load_toml(path).get(TABLE, {})
    for key, value in table.items():
        if key not in KEYS:
            raise ConfigError(
                f"{path} [{TABLE}]: unknown key {key!r}; expected one of {', '.join(KEYS)}"
            )
        if key == "max_errors" and isinstance(value, int) and not isinstance(value, bool):
            value = table[key] = str(value)
        wrong = (
            not isinstance(value, bool)
            if key == "save"
            else not isinstance(value, str)
            if key in ("db", "max_errors")
            else isinstance(value, bool) or not isinstance(value, int | float) or value < 0
        )
        if wrong:
            raise ConfigError(f"{path} [{TABLE}]: key {key!r} has a bad value {value!r}")
    return dict(table)


def git_sha(rootpath: Path) -> str | None:
    """The commit under test: from the CI's variable, else ``git rev-parse HEAD``."""
    for variable in GIT_SHA_VARIABLES:
        if os.environ.get(variable):
            return os.environ[variable]
    import subprocess

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
_RUNS_KEY = pytest.StashKey[list[str]]()


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
        with self._one_line():
            try:
                runs = evaluate(
                    [qs], [retriever], self._options(options), config_path=self._config()
                )
            except EvaluationInterrupted as e:  # Ctrl-C: keep what was measured, stop pytest
                for run in e.runs:
                    self._record(run)
                raise KeyboardInterrupt from e
        return self._record(runs[0])

    async def aevaluate(
        self, question_set: str | Path | GoldenQuestionSet, retriever: Any, **options: Any
    ) -> RunReport:
        """``evaluate`` for async tests (the event loop is the test's)."""
        import asyncio

        from retrieval_eval.evaluation.coordinator import aevaluate

        qs = _question_set(question_set)
        with self._one_line():
            runs = await aevaluate(
                [qs], [retriever], self._options(options), config_path=self._config()
            )
        return await asyncio.to_thread(self._record, runs[0])

    @contextmanager
    def _one_line(self) -> Iterator[None]:
        with one_line_failures(self.settings.db):
            yield

    def _config(self) -> Path | None:
        return self.settings.config_path

    def _options(self, options: dict[str, Any]) -> Any:
        from retrieval_eval.evaluation.coordinator import EvalOptions

        labels = {**self.labels(), **options.pop("labels", {})}
        options.setdefault("stop_asking", self.settings.thresholds().max_errors.exceeded_by)
        return EvalOptions(labels=labels, **options)

    def _record(self, run: RunResult) -> RunReport:
        from retrieval_eval.regression.record import judge_and_save

        with self._one_line():
            recorded = judge_and_save(
                [run],
                store=self.settings.db,
                thresholds=self.settings.thresholds(),
                save=self.settings.save,
            )
            if recorded.store_error is not None:
                raise recorded.store_error
        report = recorded.reports[0]
        self._request.config.stash.setdefault(_RUNS_KEY, []).append(_summary(report))
        return report

    def assert_no_regression(self, report: RunReport | RunResult) -> None:
        """Fail unless the run's verdict passes (no baseline yet passes). A bare
        ``RunResult`` (made elsewhere) is judged here against its baseline, not saved."""
        __tracebackhide__ = True
        from retrieval_eval.records import RunResult
        from retrieval_eval.regression.record import judge_and_save
        from retrieval_eval.report.run.assertions import regression_failure

        if isinstance(report, RunResult):
            with self._one_line():
                thresholds = self.settings.thresholds()
                recorded = judge_and_save(
                    [report], store=self.settings.db, thresholds=thresholds, save=False
                )
                if recorded.store_error is not None:
                    raise recorded.store_error
            report = recorded.reports[0]
        message = regression_failure(report.run, report.verdict)
        if message is not None:
            raise AssertionError(_visible(message))

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
        from retrieval_eval.records import RunResult
        from retrieval_eval.report.run.assertions import rate_failure

        run = report if isinstance(report, RunResult) else report.run
        message = rate_failure(run, metric, at_least, form=form, hard_class=hard_class)
        if message is not None:
            raise AssertionError(_visible(message))


def _visible(message: str) -> str:
    """Ids and rankings come from retrievers: their control characters (an ESC could
    rewrite the terminal or CI log) are shown as escapes, as the CLI does."""
    from retrieval_eval.report.safe_text import visible

    return visible(message, keep_newlines=True)


@contextmanager
def one_line_failures(db: str | None) -> Iterator[None]:
    """Store and configuration errors fail the test with their one-line message and no
    traceback: pytest's traceback shows each frame's arguments, and the database URL
    (or a driver's ``conninfo``) would carry its password into the CI log."""
    from retrieval_eval.errors import ConfigError, StoreError

    try:
        yield
    except (StoreError, ConfigError) as e:
        message = f"reval: {_scrub(str(e), db)}"
        raise pytest.fail.Exception(message, pytrace=False) from None  # no chained trace


def _scrub(message: str, db: str | None) -> str:
    """``message`` made visible, with every password reval may know replaced by ``***``:
    masked URLs, and the bare password of the store URL wherever a driver quoted it."""
    import re

    from retrieval_eval.store.url import mask

    text = _visible(message)
    for url in (db, os.environ.get("REVAL_DATABASE_URL")):
        if not url:
            continue
        text = text.replace(url, mask(url))
        password = re.match(r"[^:/]+://[^:/@]*:([^@]+)@", url)
        if password and len(password.group(1)) > 1:
            text = text.replace(password.group(1), "***")
    return re.sub(r"(password\s*=\s*)('[^']*'|\S+)", r"\1***", text, flags=re.IGNORECASE)


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


def _summary(report: RunReport) -> str:
    from retrieval_eval.metric_keys import TOP1_HIT_RATE, TOP3_HIT_RATE

    run, verdict = report.run, report.verdict
    if _scored(run) == 0:  # rates of nothing are not 0.000
        rates = f"no scored question ({run.error_count} errors)"
    else:
        rates = " ".join(
            f"{k} {run.metrics.values.get(k, 0):.3f}" for k in (TOP1_HIT_RATE, TOP3_HIT_RATE)
        )
    kind = verdict.kind.value if verdict is not None else "not judged"
    saved = f"run {run.run_id}" if run.run_id else "not saved"
    return _visible(f"{run.set_name} × {run.retriever.identifier}: {rates}, {kind} ({saved})")


def _scored(run: RunResult) -> int:
    return sum(1 for q in run.questions if q.error is None)


_SETTINGS_KEY = pytest.StashKey[Settings]()


@pytest.fixture
def reval(request: pytest.FixtureRequest) -> Reval:
    """Evaluate a question set against a retriever and assert on its quality."""
    config = request.config
    if _SETTINGS_KEY not in config.stash:
        with one_line_failures(config.getoption("reval_db")):
            config.stash[_SETTINGS_KEY] = read_settings(config)
    return Reval(request, config.stash[_SETTINGS_KEY])


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    runs = config.stash.get(_RUNS_KEY, [])
    if runs:
        terminalreporter.section("reval")
        for line in runs:
            terminalreporter.line(line)
