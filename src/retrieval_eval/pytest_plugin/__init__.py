"""reval as a pytest plugin (entry point ``pytest11``: loaded in every pytest run where
reval is installed, so importing this module imports nothing but pytest and the stdlib).

The ``reval`` fixture evaluates a question set against a retriever (a spec: address,
reval.toml name, plugin; or any object with ``retrieve(question, limit)``), judges the run
against its baseline and saves it, through the same library call as ``reval eval``.
Its assertion helpers fail with the message a person needs (``report.assertions``).

By job: ``settings`` (options and reval.toml), ``fixture`` (the ``reval`` fixture),
``failures`` (one-line failures without passwords), ``summary`` (the terminal summary).
pytest finds the hooks and the fixture here, where they are imported.

Settings, first found wins: the command line (``--reval-db``, ``--reval-max-top1-drop``,
``--reval-max-top3-drop``, ``--reval-max-p95-latency-increase``, ``--reval-max-errors``,
``--reval-no-save``, ``--reval-require-baseline``, ``--reval-config``, ``--reval-label``),
then the ``[pytest]`` table of reval.toml (keys ``db``, ``max_top1_drop``,
``max_top3_drop``, ``max_p95_latency_increase``, ``max_errors``, ``max_drift``, ``save``,
``require_baseline``), then each lineage's own thresholds (reval.toml ``[gate]``, as
``reval eval`` reads them), then reval's defaults. Thresholds given here are options over
the lineage's own: looser ones judge a run, they never make it a baseline. Saved runs
are labelled ``source=pytest``, ``pytest_node=<node id>`` and ``git_sha`` when known.
"""

from __future__ import annotations

from retrieval_eval.pytest_plugin.fixture import Reval, reval
from retrieval_eval.pytest_plugin.settings import KEYS, TABLE, Settings, pytest_addoption
from retrieval_eval.pytest_plugin.summary import pytest_terminal_summary

__all__ = [
    "KEYS",
    "TABLE",
    "Reval",
    "Settings",
    "pytest_addoption",
    "pytest_terminal_summary",
    "reval",
]
