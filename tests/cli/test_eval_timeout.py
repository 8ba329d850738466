"""The per-call deadline: --timeout wins, else the retriever's reval.toml timeout."""

from __future__ import annotations

import json

import pytest
from support.cli import GOOD

from retrieval_eval.errors import IncompleteRun


@pytest.mark.parametrize(
    ("toml_timeout", "flag", "expected"),
    # Generous deadlines: this is about which one wins, and a loaded machine must not
    # turn it into a timeout.
    [(30.0, None, 30.0), (30.0, "45", 45.0), (None, None, 10.0)],
)
def test_the_timeout_comes_from_the_flag_else_reval_toml_else_the_default(
    toml_timeout, flag, expected, sets, serve_table, db, invoke, tmp_path, monkeypatch
):
    address = serve_table(GOOD)
    lines = ["[retrievers.table]", f'address = "{address}"']
    if toml_timeout is not None:
        lines.append(f"timeout = {toml_timeout}")
    (tmp_path / "reval.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    args = ["eval", "--set", sets["faq"], "--retriever", "table", "--db", db, "--format", "json"]
    if flag is not None:
        args += ["--timeout", flag]
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    (run,) = json.loads(result.output)["runs"]
    assert run["parameters"]["timeout_s"] == expected


def test_a_slow_retriever_times_out_under_its_configured_deadline(
    sets, serve_table, db, invoke, tmp_path, monkeypatch
):
    # The deadline bounds Describe too: 1 s is room for it on a loaded machine, and the
    # answers take three times as long.
    address = serve_table(GOOD, delay_s=3.0)
    (tmp_path / "reval.toml").write_text(
        f'[retrievers.slow]\naddress = "{address}"\ntimeout = 1.0\n', encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "report.json"
    # Every question times out: nothing scored, so incomplete (exit 3) whatever the budget.
    with pytest.raises(IncompleteRun, match="no question scored"):
        invoke(
            "eval",
            "--set",
            sets["faq"],
            "--retriever",
            "slow",
            "--db",
            db,
            "--format",
            "json",
            "--output",
            out,
            "--no-save",
            "--max-errors",
            "100%",
        )
    (run,) = json.loads(out.read_text())["runs"]
    assert run["regression"]["verdict"] == "incomplete"
    assert run["state"] == "incomplete"
    assert {q["error"]["kind"] for q in run["questions"]} == {"timeout"}
