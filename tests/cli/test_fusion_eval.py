"""``reval eval --retriever NAME`` where NAME fuses two served retrievers in reval.toml."""

from __future__ import annotations

import json
from pathlib import Path

from support.cli import BAD, FAIL, GOOD


def test_a_fusion_evaluates_like_any_retriever(
    tmp_path: Path, sets, serve_table, db: str, invoke
) -> None:
    good, bad = serve_table(GOOD, identifier="good"), serve_table(BAD, identifier="bad")
    config = tmp_path / "reval.toml"
    config.write_text(f'[retrievers.hybrid]\nfuse = ["{good}", "{bad}"]\nk = 1\n')
    args = ["eval", "--set", sets["faq"], "--db", db, "--config", config, "--format", "json"]
    result = invoke(*args, "--retriever", "hybrid", "--retriever", good)
    assert result.exit_code == 0, result.output
    fused, member = json.loads(result.output)["runs"]
    assert fused["retriever"]["identifier"] == f"rrf({good}, {bad})"
    assert fused["retriever"]["version"] == "rrf k=1; good@1 bad@1"
    assert fused["parameters"]["doc_id_separator"] == ""
    # faq-1: good d1 (rank 1), bad d9, d1 -> d1: 1/2 + 1/3, d9: 1/2 -> d1 first.
    q1 = fused["questions"][0]
    assert q1["ranked_document_ids"][:2] == ["d1", "d9"] and q1["top1_hit"] is True
    # faq-4: good returns nothing, bad returns d1: the fusion returns d1, a miss.
    assert fused["questions"][3]["ranked_document_ids"] == ["d1"]
    assert member["metrics"]["top1_hit_rate"] == 0.75
    listing = json.loads(invoke("runs", "list", "--db", db, "--format", "json").output)
    assert {r["retriever"]["identifier"] for r in listing["runs"]} == {
        f"rrf({good}, {bad})",
        "good",
    }


def test_a_failed_member_is_an_error_unless_skipped(
    tmp_path: Path, sets, serve_table, db: str, invoke
) -> None:
    from support.cli import run_reval

    good = serve_table(GOOD)
    failing = serve_table({**GOOD, "question faq-2": FAIL})
    config = tmp_path / "reval.toml"
    config.write_text(
        f'[retrievers.strict]\nfuse = ["{good}", "{failing}"]\n'
        f'[retrievers.lenient]\nfuse = ["{good}", "{failing}"]\non_member_error = "skip"\n'
    )
    base = ["eval", "--set", sets["faq"], "--db", db, "--config", config]
    strict = run_reval(*base, "--retriever", "strict", "--format", "json")
    (run,) = json.loads(strict.stdout)["runs"]
    assert run["state"] == "incomplete" and run["errors"] == 1
    error = run["questions"][1]["error"]
    assert error["kind"] == "internal" and error["message"].startswith(
        f"INTERNAL: member {failing}"
    )
    lenient = run_reval(*base, "--retriever", "lenient", "--format", "json")
    assert lenient.returncode == 0, lenient.stderr
    (run,) = json.loads(lenient.stdout)["runs"]
    notes = {q["id"]: q["notes"] for q in run["questions"]}
    assert notes["faq-1"] == [] and len(notes["faq-2"]) == 1
    assert notes["faq-2"][0].startswith(f"skipped member {failing}: internal: ")
    assert run["skipped_members"] == {failing: 1}  # said at run level too


def test_a_member_dead_for_every_question_fails_the_run(tmp_path: Path, sets, serve_table, db: str):
    from support.cli import run_reval

    good = serve_table(GOOD)
    dead = serve_table({q: FAIL for q in GOOD})
    config = tmp_path / "reval.toml"
    config.write_text(
        f'[retrievers.lenient]\nfuse = ["{good}", "{dead}"]\non_member_error = "skip"\n'
    )
    out = tmp_path / "report.json"
    done = run_reval("eval", "--set", sets["faq"], "--db", db, "--config", config,
                     "--retriever", "lenient", "--format", "json", "--output", out)  # fmt: skip
    assert done.returncode == 3, done.stderr  # a retrieval failure of the run, not a PASS
    (run,) = json.loads(out.read_text())["runs"]
    assert run["errors"] == 0 and run["skipped_members"] == {dead: 4}
    assert run["regression"]["verdict"] == "incomplete"
    assert (
        f"fusion member {dead} failed on every one of the 4 scored"
        in (run["regression"]["reasons"][0])
    )
    shown = run_reval("runs", "show", run["run_id"], "--db", db).stdout  # the text report
    assert f"fusion members skipped (failed, left out of the fusion): {dead} on 4 of 4" in shown
