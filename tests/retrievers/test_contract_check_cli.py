"""``reval check-retriever`` against real servers on 127.0.0.1: exit codes, one line per
check, JSON, tokens, bad input; reflection recommended, not required; probes from a set
(a sparse retriever). The servers are ``support.broken_retriever``'s."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from support.broken_retriever import ALL_CHECKS, Faults, Ranked

from retrieval_eval.cli.main import cli
from retrieval_eval.retrievers.contract.limits import MAX_QUESTION_BYTES
from retrieval_eval.retrievers.contract.probes import PROBE_QUESTIONS
from retrieval_eval.retrievers.protocol import RetrievedItem
from retrieval_eval.retrievers.server.sdk import serve


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_cli_passes_and_exits_zero() -> None:
    with serve(Ranked()) as handle:
        result = run("check-retriever", f"grpc://{handle.address}")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert [line.split(":")[0] for line in lines[:-1]] == [f"PASS {c}" for c in ALL_CHECKS]
    assert lines[-1] == f"all {len(ALL_CHECKS)} checks passed"


def test_cli_names_the_broken_check_and_exits_three(broken_server) -> None:
    result = run("check-retriever", broken_server(Faults(ignore_limit=True)))
    assert result.exit_code == 3
    assert "FAIL limit: 20 results for limit 1 (question " in result.output
    assert "PASS rank-order:" in result.output
    assert result.output.splitlines()[-1] == "1 of 12 checks failed: limit"


def test_cli_json_output(broken_server) -> None:
    import json

    target = broken_server(Faults(rising_scores=True))
    result = run("check-retriever", target, "--format", "json")
    assert result.exit_code == 3
    document = json.loads(result.output)
    assert (document["target"], document["passed"]) == (target, False)
    assert [c["name"] for c in document["checks"] if not c["passed"]] == ["rank-order"]


def test_cli_unreachable_exits_three() -> None:
    with serve(Ranked()) as handle:
        address = handle.address
    result = run("check-retriever", f"grpc://{address}", "--timeout", "0.3")
    assert result.exit_code == 3
    assert result.output.startswith(f"FAIL reachable: grpc://{address} not reachable")


def test_cli_token_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("H2_CHECK_TOKEN", "tok")
    with serve(Ranked(), token="tok") as handle:
        ok = run("check-retriever", f"grpc://{handle.address}", "--token-env", "H2_CHECK_TOKEN")
    assert ok.exit_code == 0, ok.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["check-retriever", "nope"], "unknown retriever 'nope'"),
        (["check-retriever", "grpc://h"], "has no port"),
        (["check-retriever", "grpc://h:1", "--token-env", "H2_UNSET"], "H2_UNSET is not set"),
    ],
)
def test_cli_bad_target_or_option_exits_two(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from retrieval_eval.cli.main import main

    with pytest.raises(SystemExit) as info:
        main(args)
    assert info.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    ("faults", "why"),
    [
        (Faults(reflection_service=False), "UNIMPLEMENTED"),
        (Faults(reflection=False), "retrieval_eval.v1.Retriever not listed"),
    ],
)
def test_reflection_is_recommended_not_required(broken_server, faults: Faults, why: str) -> None:
    """A server without reflection passes, with a WARN line; health stays a check."""
    target = broken_server(faults)
    result = CliRunner().invoke(cli, ["check-retriever", target, "--timeout", "5"])
    assert result.exit_code == 0, result.output
    [line] = [x for x in result.output.splitlines() if " reflection: " in x]
    assert line.startswith("WARN reflection: ") and why in line and "recommended" in line
    assert result.output.rstrip().endswith("checks passed (1 with a warning)")
    document = CliRunner().invoke(cli, ["check-retriever", target, "--format", "json"])
    assert document.exit_code == 0
    assert '"warning": true' in document.output
    unhealthy = CliRunner().invoke(
        cli, ["check-retriever", broken_server(Faults(reflection_service=False, health=None))]
    )
    assert unhealthy.exit_code == 3
    assert "FAIL health: UNIMPLEMENTED" in unhealthy.output


def test_reflection_reports_the_servers_own_status(broken_server) -> None:
    """The server's status is read as it sent it, every time: asked as a stream, a server
    rejecting reflection before the request landed read as INTERNAL now and then."""
    absent = broken_server(Faults(reflection_service=False))
    failing = broken_server(Faults(reflection_internal=1))
    for _ in range(20):
        result = CliRunner().invoke(cli, ["check-retriever", absent])
        assert "WARN reflection: UNIMPLEMENTED" in result.output, result.output
    result = CliRunner().invoke(cli, ["check-retriever", failing])
    assert result.exit_code == 0, result.output
    assert "WARN reflection: INTERNAL" in result.output, result.output


# --- probes from a set: a sparse retriever ----------------------------------------------


SET_YAML = """\
reval_question_set: 1
name: probes
questions:
  - {id: q2, question: first real question, form: MATCH, expected_document_ids: [doc-0]}
  - {id: q3, question: second real question, form: GAP, expected_document_ids: [doc-1]}
"""


def test_a_sparse_retriever_warns_that_no_probe_exercised_truncation(broken_server) -> None:
    target = broken_server(Faults(results_cap=1))  # one result, whatever the limit
    result = run("check-retriever", target)
    assert result.exit_code == 0, result.output
    [line] = [x for x in result.output.splitlines() if " limit: " in x]
    assert line.startswith("WARN limit: never more results than the limit")
    assert "no probe exercised truncation" in line and "(--set)" in line
    assert result.output.splitlines()[-1] == "all 12 checks passed (1 with a warning)"


def test_set_questions_are_the_probes(broken_server, tmp_path: Path) -> None:
    """With --set the probes are the set's questions: the same server that left the limit
    unexercised is now seen cutting."""
    seen: list[str] = []

    class Recording(Ranked):
        def retrieve(self, question: str, limit: int) -> list[RetrievedItem]:
            seen.append(question)
            count = 8 if question.startswith("first") else 0
            return [RetrievedItem(f"doc-{i}", 10.0 - i) for i in range(min(limit, count))]

    path = tmp_path / "probes.yaml"
    path.write_text(SET_YAML, encoding="utf-8")
    with serve(Recording()) as handle:
        plain = run("check-retriever", f"grpc://{handle.address}")
        first = len(seen)
        probed = run("check-retriever", f"grpc://{handle.address}", "--set", str(path))
    assert set(seen[:first]) >= set(PROBE_QUESTIONS)
    assert [q for q in seen[first:] if "real" in q] == ["first real question"] * 3 + [
        "second real question"
    ] * 3
    assert "WARN limit:" in plain.output
    assert probed.exit_code == 0, probed.output
    assert "PASS limit: never more results than the limit (limits 1, 5, 12; got 1, 5, 8, " in (
        probed.output
    )
    assert "cut at limit 1, 5" in probed.output


def test_set_without_an_allowed_question_is_bad_input(broken_server, tmp_path: Path) -> None:
    """A set whose every question is over the contract's limit leaves nothing to ask."""
    path = tmp_path / "long.yaml"
    long = "x" * (MAX_QUESTION_BYTES + 1)
    text = (
        SET_YAML.split("  - {id: q2")[0]
        + f"  - {{id: q1, question: {long}, form: GAP, expected_document_ids: []}}\n"
    )
    path.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(
        cli, ["check-retriever", broken_server(Faults()), "--set", str(path)]
    )
    assert result.exit_code == 2
    assert "'probes' holds no question the contract allows" in result.output
