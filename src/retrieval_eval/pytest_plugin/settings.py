"""The plugin's settings: its command-line options, reval.toml's ``[pytest]`` table, and
the two merged (command line first, then the table, then reval's defaults). The table is
read when a test first uses the fixture, so that a suite that never asks for ``reval`` is
never affected by reval.toml."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from retrieval_eval.regression.gate import Gate

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
    "require_baseline": "--reval-require-baseline",
}


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
        "--reval-require-baseline",
        action="store_true",
        help="A run with no baseline to judge it against fails (no-baseline is a failure).",
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
    require_baseline: bool = False

    def gate(self) -> Gate:
        """reval.toml's ``[gate]`` (each lineage's own thresholds, as ``reval eval`` reads
        them) with this plugin's thresholds over it as options: a run passing under a
        threshold looser than its lineage's own is judged, never accepted as a baseline."""
        from retrieval_eval.regression.gate import Gate, ThresholdChoice
        from retrieval_eval.regression.gate_config import load_gate
        from retrieval_eval.regression.verdict_records import ErrorBudget

        options = ThresholdChoice(
            max_top1_drop=self.max_top1_drop,
            max_top3_drop=self.max_top3_drop,
            max_p95_latency_increase_ms=self.max_p95_latency_increase,
            max_errors=None if self.max_errors is None else ErrorBudget.parse(self.max_errors),
            max_drift=self.max_drift,
        )
        if self.config_path is None:  # no reval.toml where the plugin reads it: defaults
            return Gate(options=options)
        return load_gate(self.config_path, options)


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
        require_baseline=bool(option("reval_require_baseline"))
        or bool(table.get("require_baseline", False)),
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
            if key in ("save", "require_baseline")
            else not isinstance(value, str)
            if key in ("db", "max_errors")
            else isinstance(value, bool) or not isinstance(value, int | float) or value < 0
        )
        if wrong:
            raise ConfigError(f"{path} [{TABLE}]: key {key!r} has a bad value {value!r}")
    _check_db(path, table.get("db"))
    return dict(table)


def _check_db(path: Path, url: str | None) -> None:
    """Refuse a run store URL that holds a password, as the kinds' ``dsn`` and ``url`` do:
    reval.toml is committed, and the URL would be in every log that quotes it."""
    if url is None:
        return
    from retrieval_eval.errors import ConfigError
    from retrieval_eval.store.url import ENV_URL, holds_password

    if holds_password(url):
        raise ConfigError(
            f"{path} [{TABLE}]: key 'db': holds a password; leave it out and set "
            f"PGPASSWORD, or give the whole URL in {ENV_URL} instead"
        )
