"""A regressed run a script saved without a verdict, then the CI gate through the real CLI,
on SQLite and PostgreSQL: the gate still fails against the accepted run; ``runs list`` and
``runs show`` call the script's run unjudged; ``runs accept`` makes it the baseline."""

from __future__ import annotations

import json

from support.cli import BAD, GOOD
from support.store import pg_schema_url, store_url

from retrieval_eval.evaluation.coordinator import evaluate
from retrieval_eval.questions.loading import load_question_set
from retrieval_eval.report.run.text import UNJUDGED_NOTE
from retrieval_eval.store.store import RunStore

__all__ = ["pg_schema_url", "store_url"]


def _gate(invoke, sets, target, db):
    result = invoke(
        "eval", "--set", sets["faq"], "--retriever", target, "--db", db,
        "--format", "json", "--fail-on-regression",
    )  # fmt: skip
    return result.exit_code, json.loads(result.stdout)["runs"][0]


def test_a_script_saved_regressed_run_never_lets_the_gate_pass(
    sets, serve_table, store_url, invoke
):
    good = serve_table(GOOD, identifier="s")
    bad = serve_table(BAD, identifier="s")
    code, first = _gate(invoke, sets, good, store_url)
    assert code == 0 and first["regression"]["verdict"] == "no-baseline"
    # A script measures the regressed retriever and saves the run without judging it.
    (run,) = evaluate([load_question_set(sets["faq"])], [bad])
    with RunStore.open(store_url) as store:
        unjudged = store.save(run)
    listed = json.loads(invoke("runs", "list", "--db", store_url, "--format", "json").stdout)
    accepted = {r["run_id"]: (r["verdict"], r["accepted"]) for r in listed["runs"]}
    assert accepted == {first["run_id"]: ("no-baseline", True), unjudged: (None, False)}
    table = invoke("runs", "list", "--db", store_url).stdout
    (row,) = [line for line in table.splitlines() if line.startswith(unjudged)]
    assert "unjudged" in row.split()
    shown = " ".join(invoke("runs", "show", unjudged, "--db", store_url).stdout.split())
    assert UNJUDGED_NOTE in shown
    # The CI job, then its retry: judged against the accepted run, both fail.
    for _ in range(2):
        code, gated = _gate(invoke, sets, bad, store_url)
        assert code == 1 and gated["regression"]["verdict"] == "regression"
        assert gated["regression"]["baseline_run_id"] == first["run_id"]
    done = invoke("runs", "accept", unjudged, "--reason", "smaller chunks", "--by", "ana",
                  "--db", store_url)  # fmt: skip
    assert done.exit_code == 0
    code, after = _gate(invoke, sets, bad, store_url)
    assert code == 0 and after["regression"]["verdict"] == "pass"
    assert after["regression"]["baseline_run_id"] == unjudged
    shown = " ".join(invoke("runs", "show", unjudged, "--db", store_url).stdout.split())
    assert UNJUDGED_NOTE not in shown and "accepted as a baseline by ana" in shown
